//! The one scratch workspace of the integration tests: a temp dir holding
//! the workspace `ws/`, an empty `config/` for `XDG_CONFIG_HOME`, a private
//! `run/` for `XDG_RUNTIME_DIR` and `home/` for `HOME`, every path canonical (macOS and
//! some CI machines put temp dirs behind a symlink). A test file that wants
//! constructors and runners of its own declares its own type over it
//! ([`scratch_type!`]): all files are modules of one test crate, where two
//! `impl Scratch` blocks with a `new` each would collide.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

/// Declares `$name`, one test file's workspace: the shared [`Scratch`]
/// (fields and methods reached through `Deref`), free to carry that file's
/// own constructors and runners in an `impl $name` block. (The benches
/// include this kit too and declare no such type.)
#[allow(unused_macros)]
macro_rules! scratch_type {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        struct $name($crate::support::scratch::Scratch);

        impl std::ops::Deref for $name {
            type Target = $crate::support::scratch::Scratch;

            fn deref(&self) -> &Self::Target {
                &self.0
            }
        }
    };
}
#[allow(unused_imports)]
pub(crate) use scratch_type;

pub struct Scratch {
    pub tmp: tempfile::TempDir,
    /// The temp dir itself, beside the workspace.
    pub outer: PathBuf,
    pub root: PathBuf,
    pub config_home: PathBuf,
    pub runtime_dir: PathBuf,
    pub home: PathBuf,
}

impl Scratch {
    /// The directories only, nothing in them.
    pub fn bare() -> Scratch {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let outer =
            squiggle::platform::paths::canonicalize(tmp.path()).unwrap_or_else(|e| panic!("{e}"));
        let root = outer.join("ws");
        let config_home = outer.join("config");
        let runtime_dir = outer.join("run");
        let home = outer.join("home");
        for dir in [&root, &config_home, &runtime_dir, &home] {
            std::fs::create_dir(dir).unwrap_or_else(|e| panic!("mkdir: {e}"));
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&runtime_dir, std::fs::Permissions::from_mode(0o700))
                .unwrap_or_else(|e| panic!("chmod: {e}"));
        }
        Scratch {
            tmp,
            outer,
            root,
            config_home,
            runtime_dir,
            home,
        }
    }

    /// `bare`, the workspace a git root (an empty `.git`), as the agents'
    /// hooks and the MCP server look for one.
    pub fn with_git_root() -> Scratch {
        let ws = Scratch::bare();
        std::fs::create_dir(ws.root.join(".git")).unwrap_or_else(|e| panic!("mkdir .git: {e}"));
        ws
    }

    /// Writes `text` to `name` under the workspace (creating directories).
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        self.write_bytes(name, text.as_bytes())
    }

    /// Writes `bytes` to `name` under the workspace (creating directories).
    pub fn write_bytes(&self, name: &str, bytes: &[u8]) -> PathBuf {
        write_under(&self.root, name, bytes)
    }

    /// Writes `text` to `name` under the private home (creating directories).
    pub fn write_home(&self, name: &str, text: &str) -> PathBuf {
        write_under(&self.home, name, text.as_bytes())
    }

    /// A workspace holding `files` and a `.squiggle.toml` giving real
    /// servers the budgets a cold start on a loaded machine needs.
    pub fn real_project(files: &[(&str, &str)]) -> Scratch {
        let ws = Scratch::bare();
        ws.write_all(files);
        ws.write(
            ".squiggle.toml",
            "[lsp]\ndiagnosticTimeout = 20000\nfirstTouchTimeout = 60000\n",
        );
        ws
    }

    /// `squiggle write NAME ARGS… --root WS` in process (no daemon) with
    /// `content` on stdin, as an agent's write tool runs it; it must exit 0.
    pub fn squiggle_write(&self, name: &str, args: &[&str], content: &str) -> Output {
        let mut command = self.command(&["write", name]);
        command
            .args(args)
            .arg("--root")
            .arg(&self.root)
            .env("SQUIGGLE_NO_DAEMON", "1");
        let out = super::output_with_stdin(&mut command, content);
        assert_eq!(out.status.code(), Some(0), "{}", super::both(&out));
        out
    }

    /// Writes each `(name, text)` of `files` under the workspace.
    pub fn write_all(&self, files: &[(&str, &str)]) {
        for (name, text) in files {
            self.write(name, text);
        }
    }

    /// `git ARGS` in the workspace, blind to the machine's git config.
    pub fn git(&self, args: &[&str]) {
        let out = Command::new("git")
            .args(args)
            .current_dir(&self.root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap_or_else(|e| panic!("git {args:?}: {e}"));
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A git repository with a first commit holding `files`.
    pub fn repo(&self, files: &[(&str, &str)]) {
        self.git(&["-c", "init.defaultBranch=main", "init", "-q"]);
        self.git(&["config", "user.name", "Test"]);
        self.git(&["config", "user.email", "test@example.com"]);
        self.git(&["config", "commit.gpgsign", "false"]);
        for (path, text) in files {
            self.write(path, text);
            self.git(&["add", path]);
        }
        self.git(&["commit", "-q", "--allow-empty", "-m", "first"]);
    }

    /// The event Claude Code hands its `PostToolUse` hooks after `tool` ran
    /// with `tool_input` in this workspace, as it runs them.
    pub fn claude_event(&self, tool: &str, tool_input: Value) -> Value {
        let file = tool_input.get("file_path").cloned().unwrap_or(Value::Null);
        json!({
            "session_id": "abc123",
            "transcript_path": self.outer.join("transcript.jsonl").display().to_string(),
            "cwd": self.root.display().to_string(),
            "permission_mode": "default",
            "hook_event_name": "PostToolUse",
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_response": {"filePath": file, "success": true},
            "tool_use_id": "toolu_01"
        })
    }

    /// A user config (under `config/`) that trusts the workspace.
    pub fn trust(&self) {
        let user = self.config_home.join("squiggle/config.toml");
        std::fs::create_dir_all(self.config_home.join("squiggle"))
            .unwrap_or_else(|e| panic!("mkdir: {e}"));
        std::fs::write(&user, trusting(&self.root))
            .unwrap_or_else(|e| panic!("write user config: {e}"));
    }

    /// `squiggle ARGS` in the workspace, with its private config home and
    /// runtime dir (so its own daemon, if any).
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_squiggle"));
        command
            .args(args)
            .env("XDG_CONFIG_HOME", &self.config_home)
            .env("XDG_RUNTIME_DIR", &self.runtime_dir)
            .current_dir(&self.root);
        command
    }

    /// `squiggle daemon ARGS… --root WS` against the private runtime dir.
    pub fn daemon(&self, args: &[&str]) -> Output {
        self.command(&["daemon"])
            .args(args)
            .arg("--root")
            .arg(&self.root)
            .output()
            .unwrap_or_else(|e| panic!("squiggle daemon {args:?}: {e}"))
    }
}

/// A user config whose `trustedWorkspaces` holds `root`.
pub fn trusting(root: &Path) -> String {
    // A TOML string, so that a Windows path's `\` is escaped.
    let root = crate::support::fake_server::toml_string(&root.display().to_string());
    format!("[lsp]\ntrustedWorkspaces = [{root}]\n")
}

/// Writes `bytes` to `dir/name`, creating the directories between.
pub fn write_under(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    // Spelled the platform's way (`a\\b` on Windows), as squiggle names it.
    let path = squiggle::platform::paths::join_slashed(dir, name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("mkdir for {name}: {e}"));
    }
    std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("write {name}: {e}"));
    path
}
