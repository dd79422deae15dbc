//! `squiggle init`: the real binary merging its hook into agents' settings
//! files in a temporary project.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::scratch::{Scratch, scratch_type};

scratch_type!(
    /// A temporary project (a git root) with a private home beside it.
    Project
);

impl Project {
    fn new() -> Project {
        Project(Scratch::with_git_root())
    }

    fn init(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_squiggle"))
            .arg("init")
            .args(args)
            .current_dir(&self.root)
            .env("HOME", &self.home)
            // Windows' home, which the agents (and init) read there.
            .env("USERPROFILE", &self.home)
            .env_remove("CODEX_HOME")
            .output()
            .unwrap_or_else(|e| panic!("run squiggle: {e}"))
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn ok(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

const EXISTING: &str = r#"{
  "permissions": {"allow": ["Bash(npm test)"], "deny": []},
  "model": "opus",
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}]
  },
  "env": {"B": "2", "A": "1"}
}
"#;

const MERGED: &str = r#"{
  "permissions": {
    "allow": [
      "Bash(npm test)"
    ],
    "deny": []
  },
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "./guard.sh"
          }
        ]
      },
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "squiggle hook claude"
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Write|Edit|Bash",
        "hooks": [
          {
            "type": "command",
            "command": "squiggle hook claude"
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "squiggle hook claude"
          }
        ]
      }
    ]
  },
  "env": {
    "B": "2",
    "A": "1"
  }
}
"#;

#[test]
fn claude_project_merges_into_existing_settings_and_is_idempotent() {
    let p = Project::new();
    let settings = p.write(".claude/settings.json", EXISTING);
    let first = ok(&p.init(&["claude", "--project"]));
    assert!(first.contains("added `squiggle hook claude`"), "{first}");
    assert_eq!(read(&settings), MERGED);
    let second = ok(&p.init(&["claude", "--project"]));
    assert!(second.contains("nothing changed"), "{second}");
    assert_eq!(read(&settings), MERGED);
}

#[test]
fn print_shows_the_result_and_writes_nothing() {
    let p = Project::new();
    let settings = p.write(".claude/settings.json", EXISTING);
    let printed = ok(&p.init(&["claude", "--print"]));
    assert_eq!(printed, MERGED);
    assert_eq!(read(&settings), EXISTING);
    // Without a file, --print creates nothing either.
    let printed = ok(&p.init(&["gemini", "--project", "--print"]));
    assert!(printed.contains("\"AfterTool\""), "{printed}");
    assert!(!p.root.join(".gemini").exists());
}

#[test]
fn invalid_json_is_left_untouched_with_exit_2() {
    let p = Project::new();
    let broken = "{\"model\": \"opus\",, }\n";
    let settings = p.write(".claude/settings.json", broken);
    let out = p.init(&["claude", "--project"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&settings.display().to_string()) && stderr.contains("not valid JSON"),
        "{stderr}"
    );
    assert_eq!(read(&settings), broken);
}

#[test]
fn codex_and_gemini_files_are_created_in_their_places() {
    let p = Project::new();
    ok(&p.init(&["codex"]));
    let codex = read(&p.root.join(".codex/hooks.json"));
    assert!(
        codex.contains("\"matcher\": \"apply_patch|Bash\""),
        "{codex}"
    );
    assert!(
        codex.contains("\"command\": \"squiggle hook codex\""),
        "{codex}"
    );
    ok(&p.init(&["gemini", "--user"]));
    let gemini = read(&p.home.join(".gemini/settings.json"));
    assert!(gemini.contains("\"AfterTool\""), "{gemini}");
    assert!(
        gemini.contains("\"matcher\": \"write_file|replace|run_shell_command\""),
        "{gemini}"
    );
    assert!(!p.root.join(".gemini").exists());
}

/// `init codex --trust-hook` records Codex's trust in both squiggle entries
/// (PostToolUse, PreToolUse and SessionStart), keeps the rest of config.toml, and changes
/// nothing the second time; without the flag, init says what to do.
#[test]
fn codex_trust_hook_is_recorded_once_and_kept_apart() {
    let p = Project::new();
    p.write_home(".codex/config.toml", "model = \"gpt-5.5\"\n# mine\n");
    let said = ok(&p.init(&["codex"]));
    assert!(said.contains("--trust-hook"), "{said}");
    let said = ok(&p.init(&["codex", "--trust-hook"]));
    assert!(said.contains("trusted the hook for Codex"), "{said}");
    let config = read(&p.home.join(".codex/config.toml"));
    assert!(
        config.starts_with("model = \"gpt-5.5\"\n# mine\n"),
        "{config}"
    );
    let hooks = p
        .root
        .join(".codex")
        .join("hooks.json")
        .display()
        .to_string();
    for event in ["post_tool_use", "pre_tool_use", "session_start"] {
        // A key with `\` (Windows) is written as a TOML literal string.
        let key = toml::Value::String(format!("{hooks}:{event}:0:0"));
        let header = format!("[hooks.state.{key}]\ntrusted_hash = \"sha256:");
        assert!(config.contains(&header), "{config}");
    }
    let said = ok(&p.init(&["codex", "--trust-hook"]));
    assert!(said.contains("already trusts"), "{said}");
    assert_eq!(read(&p.home.join(".codex/config.toml")), config);
    let said = ok(&p.init(&["codex"]));
    assert!(said.contains("Codex trusts this hook"), "{said}");
}

#[test]
fn trust_hook_and_batch_belong_to_one_agent_each() {
    let p = Project::new();
    assert_eq!(p.init(&["claude", "--trust-hook"]).status.code(), Some(2));
    assert_eq!(p.init(&["gemini", "--batch"]).status.code(), Some(2));
    let said = ok(&p.init(&["claude", "--batch"]));
    assert!(said.contains("PostToolBatch"), "{said}");
    let settings = read(&p.root.join(".claude/settings.json"));
    assert!(settings.contains("\"PostToolBatch\""), "{settings}");
    assert!(!settings.contains("\"PostToolUse\""), "{settings}");
}

/// `init claude --batch` over an `init claude` names only the events it
/// added: the others were there and are not "added" again.
#[test]
fn batch_over_a_plain_init_says_only_what_it_added() {
    let p = Project::new();
    ok(&p.init(&["claude"]));
    let said = ok(&p.init(&["claude", "--batch"]));
    assert!(said.contains("for 1 event: PostToolBatch;"), "{said}");
    assert!(!said.contains("SessionStart"), "{said}");
    let said = ok(&p.init(&["claude", "--batch"]));
    assert!(said.contains("nothing changed"), "{said}");
}

/// The Claude Code plugin's hooks are exactly what `init claude` installs:
/// one list of events and matchers, not two that drift apart.
#[test]
fn the_plugin_hooks_are_what_init_installs() {
    let p = Project::new();
    let printed: serde_json::Value = serde_json::from_str(&ok(&p.init(&["claude", "--print"])))
        .unwrap_or_else(|e| panic!("init --print is not JSON: {e}"));
    let plugin =
        read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("plugins/squiggle/hooks/hooks.json"));
    let plugin: serde_json::Value =
        serde_json::from_str(&plugin).unwrap_or_else(|e| panic!("hooks.json is not JSON: {e}"));
    assert_eq!(plugin["hooks"], printed["hooks"]);
}

/// A project and a home whose paths hold spaces, and
/// `squiggle` (`squiggle.exe` on Windows) on PATH in a directory with a
/// space. init writes each file where its agent reads it, and the command
/// it wrote runs as the agent runs it: through the platform's shell, on
/// Windows as Node's `spawn(…, {shell: true})` does (`cmd.exe /d /s /c
/// "…"`), elsewhere through `sh -c`.
#[test]
fn settings_for_paths_with_spaces_run_from_the_platforms_shell() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let outer =
        squiggle::platform::paths::canonicalize(tmp.path()).unwrap_or_else(|e| panic!("{e}"));
    let (root, home, tools) = (
        outer.join("my project"),
        outer.join("my home"),
        outer.join("my tools"),
    );
    for dir in [root.join(".git"), home.clone(), tools.clone()] {
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    }
    let exe = Path::new(env!("CARGO_BIN_EXE_squiggle"));
    let name = exe.file_name().unwrap_or_default();
    if std::fs::hard_link(exe, tools.join(name)).is_err() {
        std::fs::copy(exe, tools.join(name)).unwrap_or_else(|e| panic!("copy squiggle: {e}"));
    }
    let init = |args: &[&str]| {
        Command::new(exe)
            .arg("init")
            .args(args)
            .current_dir(&root)
            .env("HOME", &home)
            .env("USERPROFILE", &home)
            .env_remove("CODEX_HOME")
            .output()
            .unwrap_or_else(|e| panic!("run squiggle: {e}"))
    };
    ok(&init(&["claude"]));
    ok(&init(&["gemini", "--user"]));
    ok(&init(&["codex", "--user", "--trust-hook"]));
    // Each file where its agent reads it, spelled the platform's way
    // (Codex keys its trust by that spelling).
    let claude = root.join(".claude").join("settings.json");
    let gemini = home.join(".gemini").join("settings.json");
    let codex = home.join(".codex").join("hooks.json");
    let config = read(&home.join(".codex").join("config.toml"));
    assert!(
        config.contains(&format!("{}:post_tool_use:0:0", codex.display())),
        "{config}"
    );
    for (file, agent) in [(&claude, "claude"), (&gemini, "gemini"), (&codex, "codex")] {
        let settings: serde_json::Value =
            serde_json::from_str(&read(file)).unwrap_or_else(|e| panic!("{e}"));
        let command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
            .as_str()
            .unwrap_or_else(|| panic!("no command in {}", file.display()))
            .to_string();
        assert_eq!(command, format!("squiggle hook {agent}"));
        // `--help`: proof that squiggle itself ran, found on PATH.
        let line = format!("{command} --help");
        let path = std::env::join_paths(std::iter::once(tools.clone()).chain(
            std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        let mut shell = platform_shell(&line);
        let out = shell
            .current_dir(&root)
            .env("PATH", path)
            .output()
            .unwrap_or_else(|e| panic!("run {line:?}: {e}"));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("Usage:") && text.contains("hook"),
            "{line:?} through the shell: {:?}\n{text}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The shell an agent runs a hook command through.
fn platform_shell(line: &str) -> Command {
    #[cfg(windows)]
    {
        use std::os::windows::process::CommandExt;
        let mut cmd = Command::new("cmd.exe");
        cmd.raw_arg(format!("/d /s /c \"{line}\""));
        cmd
    }
    #[cfg(not(windows))]
    {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", line]);
        cmd
    }
}
