//! `squiggle hook`: the agent's own edit tools stay in charge, and squiggle
//! runs after them as a hook. Each host sends its events as JSON on stdin,
//! told apart by their shape (`dialect`: Claude Code, Codex, Gemini CLI,
//! VS Code's agent, Copilot CLI, Cursor, Cline; Gemini's block goes to the
//! model through BeforeModel, see `gemini_model`; the turn's end is
//! `stop`); squiggle checks the files the tool touched and replies
//! with the rendered diagnostics as extra context for the model, or with
//! nothing when there is nothing to report. Before a shell command
//! (PreToolUse, BeforeTool) it snapshots the workspace so that the next
//! after-tool event reports what the command changed (`shell`). At session
//! start it has the daemon warm the project's servers (`session`).
//! `--file PATH…` is the same check for any other host, printing the text.
//!
//! The hook renders nothing itself: it sends the workspace's daemon one
//! `squiggle/check` — the files, the mutation, each file's text before the
//! tool ran as far as the payload tells it (`before`), and how the agent
//! takes the text (its context cap; Gemini's readable escaping) — and
//! prints the daemon's feedback as it came. The daemon classifies against
//! its own history, as for the wrapped tools, so one change gets one answer
//! on both. Without a daemon the same method runs in this process.
//!
//! A hook must never get in the agent's way: malformed input, a broken
//! configuration and internal errors all end with exit 0 and one line on
//! stderr. The agent modules only read payloads into a [`Plan`].

mod ask;
mod before;
mod claude;
mod cline;
mod codex;
mod copilot;
mod cursor;
pub(crate) mod delivery;
mod dialect;
mod gemini;
mod gemini_model;
mod payload;
mod plan;
mod qwen;
mod reply;
mod session;
mod session_files;
mod shell;
mod stop;
mod vscode;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::warm::Route;
use crate::engine::Mutation;
use crate::evidence::{Origin, Surface};
use crate::render::Escape;
use ask::{check, request};
use before::Told;
use payload::{Malformed, event_cwd, other_event, read_payload, string, tool_input};
pub(crate) use plan::Plan;

/// The agents squiggle has hook adapters (and `init` entries) for.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// Claude Code: PostToolUse for Write, Edit and Bash (PreToolUse on Bash).
    Claude,
    /// OpenAI Codex: PostToolUse for apply_patch and Bash (PreToolUse on Bash).
    Codex,
    /// Gemini CLI: AfterTool for write_file and replace, BeforeModel to
    /// hand the block to the model unescaped.
    Gemini,
    /// VS Code's agent (GitHub Copilot in VS Code): PostToolUse for its file
    /// tools; `squiggle hook claude` tells its payloads by their shape too.
    Vscode,
    /// GitHub Copilot CLI: postToolUse (a top-level `additionalContext`),
    /// agentStop.
    Copilot,
    /// Cursor: afterFileEdit records the turn, stop reports.
    Cursor,
    /// Cline: PostToolUse hook files (`<hook_context>`).
    Cline,
    /// Qwen Code: PostToolUse for edit and write_file, Claude's reply.
    Qwen,
}

impl Agent {
    /// The most feedback its context takes, in characters.
    fn max_context(self) -> usize {
        match self {
            Agent::Codex => reply::CODEX_MAX_CONTEXT_CHARS,
            _ => reply::MAX_CONTEXT_CHARS,
        }
    }

    /// The agent's name in the evidence log.
    pub fn product(self) -> &'static str {
        match self {
            Agent::Claude => "claude-code",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini-cli",
            Agent::Vscode => "vscode",
            Agent::Copilot => "copilot-cli",
            Agent::Cursor => "cursor",
            Agent::Cline => "cline",
            Agent::Qwen => "qwen-code",
        }
    }

    /// Whether `init` always wires this host's turn-end gate (its hook
    /// file lists the event with the others), so its after-tool hook keeps
    /// the turn's record without `--stop-gate`.
    pub fn gate_always(self) -> bool {
        matches!(self, Agent::Vscode | Agent::Copilot | Agent::Cursor)
    }

    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Vscode => "vscode",
            Agent::Copilot => "copilot",
            Agent::Cursor => "cursor",
            Agent::Cline => "cline",
            Agent::Qwen => "qwen",
        }
    }
}

#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// The agent whose hook event arrives on stdin.
    #[arg(value_enum)]
    pub agent: Option<Agent>,
    /// Check these files and print the rendered diagnostics (any host).
    #[arg(long = "file", value_name = "PATH", num_args = 1.., conflicts_with = "agent")]
    pub files: Vec<PathBuf>,
    /// Workspace root (default: the git top-level of the event's cwd).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Check in this process instead of through the warm daemon (also
    /// `SQUIGGLE_NO_DAEMON=1`).
    #[arg(long)]
    pub no_daemon: bool,
    /// Keep what each turn touches for the turn-end gate (`squiggle init
    /// --stop-gate` writes it on the after-tool hook): each file's text
    /// before the turn first changed it, read back and removed at the
    /// turn's end. Without it nothing is kept, except for the hosts whose
    /// gate `init` always wires (vscode, copilot, cursor).
    #[arg(long, requires = "agent")]
    pub stop_gate: bool,
    /// With --file: render for a channel that does no escaping of its own,
    /// as Gemini CLI's model reads the block (messages keep their `<`, `>`
    /// and `&`; a block delimiter inside one stays escaped).
    #[arg(long, requires = "files")]
    pub readable: bool,
}

pub async fn run(args: Args) -> u8 {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let root = args.root.as_ref().map(|r| cwd.join(r));
    if args.agent.is_none() && args.files.is_empty() {
        eprintln!(
            "squiggle hook: name the agent (claude, codex, gemini, vscode, copilot, cursor or cline) or pass --file PATH"
        );
        return 2;
    }
    let route = Route {
        no_daemon: args.no_daemon,
        ..Default::default()
    };
    let gate = args.stop_gate || args.agent.is_some_and(Agent::gate_always);
    // A panic inside the check must not fail the agent's tool call either.
    let work = tokio::spawn(async move {
        match args.agent {
            Some(agent) => run_agent(agent, root, cwd, (route, gate)).await,
            None => run_files(args.files, args.readable, root, cwd, route).await,
        }
    });
    if let Err(e) = work.await {
        tracing::debug!(error = %e, "hook failed");
        eprintln!("squiggle hook: internal error, nothing reported: {e}");
    }
    0
}

/// `route`, and whether the turn's record is kept for the turn-end gate.
async fn run_agent(
    named: Agent,
    root: Option<PathBuf>,
    cwd: PathBuf,
    (route, gate): (Route, bool),
) {
    let payload = match read_payload() {
        Ok(payload) => payload,
        Err(e) => {
            malformed(&e);
            return;
        }
    };
    // Who sent it, by its shape; and whether it needs anything at all,
    // decided from the payload alone (no workspace, no daemon).
    let agent = dialect::host(named, &payload);
    let payload = dialect::normalise(agent, payload);
    let event = dialect::event(agent, &payload);
    if event == dialect::Event::Quiet {
        return;
    }
    // Whether the blocks the session's earlier events handed over reached
    // the model, read from the host's transcript.
    let previous = delivery::check_previous(agent, &payload);
    let workspace_root = || {
        crate::workspace::Workspace::discover(root.as_deref(), &event_cwd(&payload, &cwd))
            .ok()
            .map(|w| w.root().to_path_buf())
    };
    if !previous.verdicts.is_empty()
        && let Some(ws) = workspace_root()
    {
        delivery::record(agent, &payload, &ws, &previous, route.trust_workspace);
    }
    let fallback = previous.fallback;
    match event {
        dialect::Event::Quiet => {}
        dialect::Event::SessionStart => {
            if let Some(ws) = workspace_root() {
                session::start(&ws, route).await;
            }
        }
        dialect::Event::BeforeShell => {
            if let Some(ws) = workspace_root() {
                shell::before(&payload, &ws);
            }
        }
        dialect::Event::TurnEnd => {
            let cwd = event_cwd(&payload, &cwd);
            // Gemini CLI sends the reason as the next prompt, unescaped.
            let escape = (agent == Agent::Gemini).then_some(Escape::Readable);
            let text = stop::gate(&payload, root.as_deref(), &cwd, route, escape).await;
            if let Some(reply) = text.and_then(|t| reply::turn_end(agent, &t)) {
                emit(&reply);
            }
        }
        dialect::Event::BeforeModel => {
            if let Some(reply) = gemini_model::before_model(&payload) {
                emit(&reply);
            }
        }
        dialect::Event::AfterTool => {
            let changed = workspace_root()
                .map(|ws| shell::changed_since(&payload, &ws))
                .unwrap_or_default();
            let answer = reply::Answer { agent, fallback };
            after_tool(answer, &payload, changed, root, cwd, (route, gate)).await;
        }
    }
}

/// Checks what a tool changed (the files it names, and `changed`: what a
/// shell command changed since the session's snapshot) and answers the
/// host in its own format.
async fn after_tool(
    answer: reply::Answer,
    payload: &Value,
    changed: Vec<PathBuf>,
    root: Option<PathBuf>,
    cwd: PathBuf,
    (route, gate): (Route, bool),
) {
    let agent = answer.agent;
    let plan = match agent {
        Agent::Claude => claude::plan(payload, &cwd),
        Agent::Codex => codex::plan(payload, &cwd),
        Agent::Gemini => gemini::plan(payload, &cwd),
        Agent::Vscode => vscode::plan(payload, &cwd),
        Agent::Copilot => copilot::plan(payload, &cwd),
        Agent::Cursor => cursor::plan(payload, &cwd),
        Agent::Cline => cline::plan(payload, &cwd),
        Agent::Qwen => qwen::plan(payload, &cwd),
    };
    let (cwd, mut files, mutation, told) = match plan {
        Ok(Plan::Check {
            cwd,
            files,
            mutation,
            told,
        }) => (cwd, files, mutation, told),
        Ok(Plan::Skip(why)) if changed.is_empty() => {
            tracing::debug!(agent = agent.name(), why, "hook skipped");
            return;
        }
        Ok(Plan::Skip(_)) => (
            event_cwd(payload, &cwd),
            Vec::new(),
            Mutation::Edit,
            BTreeMap::new(),
        ),
        Err(e) => {
            malformed(&e);
            return;
        }
    };
    for file in changed {
        if !files.contains(&file) {
            files.push(file);
        }
    }
    let escape = (agent == Agent::Gemini).then_some(Escape::Readable);
    let origin = Origin {
        surface: Surface::Hook,
        agent: Some(agent.product().to_string()),
        tool: dialect::tool_label(agent, payload),
    };
    let mut params = request(files, mutation, &told, agent.max_context(), escape, origin);
    if gate {
        stop::record(payload, &params.before);
    }
    if agent == Agent::Codex {
        // A patch undone tells the turn's record what the file was; the
        // check keeps the daemon's own last look as Codex's "before".
        params
            .before
            .retain(|path, _| !matches!(told.get(path), Some(Told::Replaced { .. })));
    }
    if let Some(feedback) = check(root.as_deref(), &cwd, params, route).await {
        reply::reply_to(answer, payload, &feedback);
    }
}

async fn run_files(
    files: Vec<PathBuf>,
    readable: bool,
    root: Option<PathBuf>,
    cwd: PathBuf,
    route: Route,
) {
    let files = files.into_iter().map(|f| cwd.join(f)).collect();
    let escape = readable.then_some(Escape::Readable);
    let told = BTreeMap::new();
    let params = request(
        files,
        Mutation::Edit,
        &told,
        reply::MAX_CONTEXT_CHARS,
        escape,
        Origin::new(Surface::Hook, None, "--file"),
    );
    if let Some(feedback) = check(root.as_deref(), &cwd, params, route).await
        && !feedback.is_empty()
    {
        emit(&feedback);
    }
}

fn malformed(e: &Malformed) {
    tracing::warn!(reason = %e.0, "hook input ignored");
    eprintln!("squiggle hook: ignored malformed input: {}", e.0);
}

/// Writes the reply; a closed stdout (the agent gave up) is not an error.
fn emit(text: &str) {
    let line = if text.ends_with('\n') {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(format!("{text}\n"))
    };
    let _ = super::try_write_stdout(&line);
}
