//! The engine's front door: one typed request for every change an agent
//! asks of it, and one answer. Each surface (the command line's arguments,
//! the service's params, the MCP tools' inputs) converts its own shape into
//! a [`Request`] and nothing more; [`Engine::handle`] is the one match from
//! a request to the engine's doors. Adding an operation is a variant here,
//! its arm in `handle`, and one conversion per surface that exposes it.

use std::path::PathBuf;
use std::sync::Arc;

use super::Engine;
use super::fixes::{FixError, Which};
use super::tools::{Mode, Replace, ToolError, ToolResult, Touched};
use crate::config::Mutation;
use crate::evidence::Origin;
use crate::render::RenderOverrides;
use crate::sessions::{Edit as SessionEdit, Owner};

/// One change asked of the engine: what, whether it is written or only
/// checked, and who asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub operation: Operation,
    pub mode: Mode,
    /// Who asks, for the evidence log; `None`: the origin the caller's
    /// task already runs under (a service connection sets one).
    pub origin: Option<Origin>,
}

/// What a request changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    /// Exact-string replacement in one file.
    Edit {
        path: PathBuf,
        old: String,
        new: String,
        replace: Replace,
    },
    /// A whole file, created with its directories when missing.
    Write { path: PathBuf, content: String },
    /// A unified diff or a Codex patch across files, all or nothing.
    Patch { patch: String },
    /// The fix a server offers for one diagnostic.
    Fix { path: PathBuf, which: Which },
    /// A file removed; the files that import it checked again.
    Delete { path: PathBuf },
    /// A speculative session's text written, every changed file or none
    /// (refused when one changed on disk since it opened), and the session
    /// closed: only `owner`, who opened it, may.
    Commit { session: String, owner: Owner },
    /// Files someone else changed (a hook's `squiggle/check`), answered as
    /// a change of squiggle's own is; nothing is written.
    Check {
        files: Vec<Touched>,
        mutation: Mutation,
        options: RenderOverrides,
    },
}

impl Request {
    /// `operation`, written unless `dry_run`, from whoever the task runs as.
    pub fn new(operation: Operation, dry_run: bool) -> Request {
        Request {
            operation,
            mode: if dry_run { Mode::DryRun } else { Mode::Apply },
            origin: None,
        }
    }

    /// The request as coming from `origin` (when it says).
    pub fn from(self, origin: Option<Origin>) -> Request {
        Request { origin, ..self }
    }
}

/// `replace_all` as the edit takes it.
pub fn replace(all: bool) -> Replace {
    if all { Replace::All } else { Replace::Once }
}

/// A request that names no fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("give `id`, or `line` (and `column`)")]
pub struct NoFixNamed;

/// Which fix an `id`, or a `line` (and `column`), name: the id wins.
pub fn which(
    id: Option<String>,
    line: Option<u32>,
    column: Option<u32>,
) -> Result<Which, NoFixNamed> {
    match (id, line) {
        (Some(id), _) => Ok(Which::Id(id)),
        (None, Some(line)) => Ok(Which::At { line, column }),
        (None, None) => Err(NoFixNamed),
    }
}

/// A session's edit from the members a surface read: a replacement
/// (`path`, `old`, `new`, `all`), a whole file (`path`, `content`) or a
/// patch alone; `None` for any other mix (each surface names its members).
pub fn session_edit(
    path: Option<String>,
    old: Option<String>,
    new: Option<String>,
    all: Option<bool>,
    content: Option<String>,
    patch: Option<String>,
) -> Option<SessionEdit> {
    match (path, old, new, content, patch) {
        (None, None, None, None, Some(patch)) if all.is_none() => {
            Some(SessionEdit::Patch { patch })
        }
        (Some(path), None, None, Some(content), None) if all.is_none() => {
            Some(SessionEdit::Write { path, content })
        }
        (Some(path), Some(old), Some(new), None, None) => Some(SessionEdit::Replace {
            path,
            old,
            new,
            all: all.unwrap_or(false),
        }),
        _ => None,
    }
}

impl From<FixError> for ToolError {
    fn from(e: FixError) -> ToolError {
        match e {
            FixError::Tool(e) => e,
            FixError::Refused(reason) => ToolError::Refused(reason),
        }
    }
}

impl Engine {
    /// Answers `request`: the one way a surface changes files through the
    /// engine. A refused change wrote nothing.
    pub async fn handle(self: &Arc<Self>, request: Request) -> Result<ToolResult, ToolError> {
        let Request {
            operation,
            mode,
            origin,
        } = request;
        let work = self.perform(operation, mode);
        match origin {
            Some(origin) => crate::evidence::origin::scope(origin, work).await,
            None => work.await,
        }
    }

    async fn perform(
        self: &Arc<Self>,
        operation: Operation,
        mode: Mode,
    ) -> Result<ToolResult, ToolError> {
        match operation {
            Operation::Edit {
                path,
                old,
                new,
                replace,
            } => self.edit(&path, &old, &new, replace, mode).await,
            Operation::Write { path, content } => self.write(&path, &content, mode).await,
            Operation::Patch { patch } => self.apply_patch(&patch, mode).await,
            Operation::Fix { path, which } => Ok(self.fix(&path, &which, mode).await?),
            Operation::Delete { path } => self.delete(&path, mode).await,
            Operation::Commit { session, owner } => {
                Ok(self.session_commit(owner, &session).await?)
            }
            Operation::Check {
                files,
                mutation,
                options,
            } => {
                let opts = options.over(self.render_options());
                Ok(self.report_outside_change(files, mutation, &opts).await)
            }
        }
    }
}
