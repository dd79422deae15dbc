//! Who asked for a change: the surface it came through (an agent's hook,
//! the command line, the JSON-RPC service, MCP), the agent when known and
//! the tool or method. Each surface sets it around the request it serves
//! ([`scope`]); the engine reads it when it records evidence
//! ([`current`]), so no engine call needs a parameter for it.

use std::future::Future;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The way a request came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Surface {
    /// An agent's hook (`squiggle hook …`), in process or through the daemon.
    Hook,
    /// A `squiggle` command: `edit`, `write`, `apply-patch`, `check`.
    Cli,
    /// A JSON-RPC client of `squiggle serve` or the daemon.
    Service,
    /// An MCP client of `squiggle mcp`.
    Mcp,
    /// A program calling squiggle's Rust library directly.
    Library,
}

/// Who asked: the surface, the agent (when the surface knows it) and the
/// tool, method or command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Origin {
    pub surface: Surface,
    /// `claude-code`, `codex`, `gemini`, or the MCP client's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// `edit_file`, `squiggle/check`, `apply-patch`, `PostToolUse:Edit`, …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

impl Origin {
    pub fn new(surface: Surface, agent: Option<String>, tool: impl Into<String>) -> Origin {
        Origin {
            surface,
            agent,
            tool: Some(tool.into()),
        }
    }
}

tokio::task_local! {
    static ORIGIN: Origin;
}

/// Runs `work` with `origin` as the origin of what it records.
pub async fn scope<F: Future>(origin: Origin, work: F) -> F::Output {
    ORIGIN.scope(origin, work).await
}

/// The origin set around the running task, if any.
pub fn current() -> Option<Origin> {
    ORIGIN.try_with(Clone::clone).ok()
}
