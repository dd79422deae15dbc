//! What the server would change, never applied: code actions (titles and
//! kinds only) and rename previews as unified diffs.
use std::path::Path;
use std::sync::Arc;

use lsp_types::Position;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::render::position as render_position;
use super::session::{NavError, Need, Session, open};
use super::{Location, PositionArgs};
use crate::engine::Engine;
use crate::lsp::workspace_edit::{apply_edits, edits_per_uri};
use crate::uri;
use crate::workspace::PathClass;

use super::requests::*;

/// Where code actions are asked for: a position (line and column or symbol)
/// up to an optional end; a bare line means the whole line.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct RangeArgs {
    #[serde(flatten)]
    pub start: PositionArgs,
    /// 1-based last line of the range (default: the start line).
    #[serde(default)]
    pub end_line: Option<u32>,
    /// 1-based column (characters) where the range ends (default: end of `end_line`).
    #[serde(default)]
    pub end_column: Option<u32>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CodeAction {
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub preferred: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CodeActionsResult {
    pub server: String,
    pub range: Location,
    pub actions: Vec<CodeAction>,
}

/// Titles and kinds of the code actions for a range. Never applies any.
pub async fn code_actions(engine: &Arc<Engine>, args: &RangeArgs) -> Answer<CodeActionsResult> {
    let need = Need {
        capability: "codeActionProvider",
        method: "textDocument/codeAction",
        feature: "code actions",
    };
    let session = open(engine, &args.start.path, &need).await?;
    let (start, end) = action_range(&session, args).await?;
    let diagnostics = diagnostics_between(&session, start, end);
    session.wait_indexed().await;
    let result = session
        .request(
            need.method,
            json!({
                "textDocument": { "uri": session.uri },
                "range": { "start": start, "end": end },
                "context": { "diagnostics": diagnostics, "triggerKind": 1 },
            }),
        )
        .await?;
    let actions: Vec<CodeAction> = result
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|a| {
            Some(CodeAction {
                title: a.get("title")?.as_str()?.to_string(),
                kind: a.get("kind").and_then(Value::as_str).map(str::to_string),
                preferred: a
                    .get("isPreferred")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            })
        })
        .collect();
    let range = session.here(start, end);
    let rendered = render_actions(&actions, &range);
    let server = session.server;
    Ok((
        CodeActionsResult {
            server,
            range,
            actions,
        },
        rendered,
    ))
}

/// The range code actions are asked for: from the position (a bare line
/// starts at its first column) to the end column of the end line, or past
/// its end, clamped to the text.
async fn action_range(
    session: &Session,
    args: &RangeArgs,
) -> Result<(Position, Position), NavError> {
    let text = &session.text;
    let start = if args.start.column.is_some() || args.start.symbol.is_some() {
        session.position(&args.start).await?
    } else {
        let line = args
            .start
            .line
            .ok_or_else(|| NavError::new("give `line` (and optionally `column` or `symbol`)"))?;
        Position::new(line.saturating_sub(1), 0)
    };
    let end_line = args.end_line.map_or(start.line, |l| l.saturating_sub(1));
    let end = match args.end_column {
        Some(c) => {
            let probe = PositionArgs {
                path: args.start.path.clone(),
                line: Some(end_line + 1),
                column: Some(c),
                symbol: None,
            };
            session.position(&probe).await?
        }
        // Past the end of the line: clamped to its end by every server.
        None => Position::new(end_line, u32::MAX / 2),
    };
    let end = session.index.position(
        text,
        session.index.offset(text, end, session.encoding),
        session.encoding,
    );
    Ok((start, end))
}

/// The diagnostics the server published for the session's file on the
/// lines from `start` to `end`, as the code action context sends them.
fn diagnostics_between(session: &Session, start: Position, end: Position) -> Vec<Value> {
    session
        .client
        .known_diagnostics()
        .into_iter()
        .filter(|(u, _)| *u == session.uri)
        .flat_map(|(_, list)| list.to_vec())
        .filter(|d| d.range.start.line <= end.line && d.range.end.line >= start.line)
        .map(|d| {
            json!({
                "range": d.range,
                "severity": d.severity,
                "code": d.code,
                "source": d.source,
                "message": d.message,
            })
        })
        .collect()
}

fn render_actions(actions: &[CodeAction], range: &Location) -> String {
    if actions.is_empty() {
        return format!(
            "No code actions for {}-{}",
            render_position(range),
            range.end_line
        );
    }
    let mut out = format!(
        "{} for {} (not applied):\n",
        plural(actions.len(), "code action", "code actions"),
        render_position(range)
    );
    for a in actions {
        out.push_str(&format!("- {}", a.title));
        if let Some(kind) = &a.kind {
            out.push_str(&format!(" [{kind}]"));
        }
        if a.preferred {
            out.push_str(" (preferred)");
        }
        out.push('\n');
    }
    out.trim_end().to_string()
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RenameFile {
    pub path: String,
    pub edits: usize,
    pub outside: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RenameResult {
    pub server: String,
    pub files: Vec<RenameFile>,
    /// The whole edit as a unified diff. Nothing was written.
    pub diff: String,
}

/// A rename preview: the server's WorkspaceEdit as a unified diff. Never writes.
pub async fn rename(
    engine: &Arc<Engine>,
    args: &PositionArgs,
    new_name: &str,
) -> Answer<RenameResult> {
    let need = Need {
        capability: "renameProvider",
        method: "textDocument/rename",
        feature: "rename",
    };
    let session = open(engine, &args.path, &need).await?;
    let pos = session.position(args).await?;
    session.wait_indexed().await;
    let mut params = session.position_params(pos);
    params["newName"] = json!(new_name);
    let result = session.request(need.method, params).await?;
    let per_uri = edits_per_uri(&result);
    if per_uri.is_empty() {
        let here = session.here(pos, pos);
        return Err(NavError(format!(
            "{} cannot rename at {}",
            session.server,
            render_position(&here)
        )));
    }
    let (files, diff) = previews(engine, &session, &per_uri);
    let edits: usize = files.iter().map(|f| f.edits).sum();
    let mut text = format!(
        "Rename preview (nothing was written): {} in {}",
        plural(edits, "edit", "edits"),
        plural(files.len(), "file", "files")
    );
    if files.iter().any(|f| f.outside) {
        text.push_str("; some files are outside the workspace");
    }
    text.push_str(":\n");
    text.push_str(&diff);
    Ok((
        RenameResult {
            server: session.server,
            files,
            diff,
        },
        text.trim_end().to_string(),
    ))
}

/// Each file's edits applied in memory, as a unified diff against the text
/// the server has (or the file on disk); the files sorted by path.
fn previews(
    engine: &Engine,
    session: &Session,
    per_uri: &[(String, Vec<Value>)],
) -> (Vec<RenameFile>, String) {
    let mut files = Vec::new();
    let mut diff = String::new();
    for (u, edits) in per_uri {
        let Some(path) = uri::to_path(u) else {
            continue;
        };
        let (shown, outside) = match engine.workspace().classify(&path).within() {
            Ok((_, relative)) => (relative, false),
            Err(_) => (path.display().to_string(), true),
        };
        let before: String = match session.client.document(&path) {
            Some((_, t)) => t.to_string(),
            None => crate::edit::read_regular_string(&path, crate::edit::MAX_READ_BYTES)
                .unwrap_or_default(),
        };
        let after = apply_edits(&before, session.encoding, edits);
        let patch = similar::TextDiff::from_lines(&before, &after)
            .unified_diff()
            .context_radius(2)
            .header(&format!("a/{shown}"), &format!("b/{shown}"))
            .to_string();
        diff.push_str(&patch);
        files.push(RenameFile {
            path: shown,
            edits: edits.len(),
            outside,
        });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    (files, diff)
}

/// The path the model gave, checked to be a workspace file.
pub fn workspace_path(
    engine: &Engine,
    path: &str,
) -> Result<(std::path::PathBuf, String), NavError> {
    let p = Path::new(path);
    let p = if p.is_absolute() {
        p.to_path_buf()
    } else {
        engine.workspace().root().join(p)
    };
    match engine.workspace().classify(&p) {
        PathClass::Inside {
            canonical,
            relative,
        } => Ok((canonical, relative)),
        PathClass::Ignored { relative, dir, .. } => Err(NavError(format!(
            "{relative} is under {dir}/, which squiggle does not serve"
        ))),
        PathClass::Outside { canonical } => Err(NavError(format!(
            "{} is outside the workspace {}; navigation only works inside it",
            canonical.display(),
            engine.workspace().root().display()
        ))),
    }
}
