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
    let hooks = p.root.join(".codex/hooks.json").display().to_string();
    for event in ["post_tool_use", "pre_tool_use", "session_start"] {
        let header = format!("[hooks.state.\"{hooks}:{event}:0:0\"]\ntrusted_hash = \"sha256:");
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
