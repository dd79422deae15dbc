//! `squiggle init vscode|copilot|cursor|cline|qwen --print` on a fresh project:
//! each host's file as `init` writes it, fixed by golden files
//! (`golden/init/<host>.txt`; `SQUIGGLE_BLESS=1` rewrites them), and
//! `doctor --hooks` on a file an older `init` wrote.

use std::path::Path;
use std::process::{Command, Output};

use crate::support::scratch::{Scratch, scratch_type};

scratch_type!(Project);

impl Project {
    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_squiggle"))
            .args(args)
            .current_dir(&self.root)
            .env("HOME", &self.home)
            .env("USERPROFILE", &self.home)
            .output()
            .unwrap_or_else(|e| panic!("run squiggle: {e}"))
    }
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

#[test]
fn init_print_golden_for_each_host() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("golden/init");
    let bless = std::env::var_os("SQUIGGLE_BLESS").is_some_and(|v| v == "1");
    let project = Project(Scratch::with_git_root());
    let mut failed = Vec::new();
    for host in ["vscode", "copilot", "cursor", "cline", "qwen"] {
        let actual = ok(&project.run(&["init", host, "--print"]));
        let path = dir.join(format!("{host}.txt"));
        if bless {
            std::fs::write(&path, &actual).unwrap_or_else(|e| panic!("write: {e}"));
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        if actual != expected {
            eprintln!("--- {host}: expected ---\n{expected}--- {host}: actual ---\n{actual}---");
            failed.push(host);
        }
    }
    assert!(failed.is_empty(), "golden init output differs: {failed:?}");
    // --print wrote nothing.
    assert!(!project.root.join(".github").exists());
    assert!(!project.root.join(".cursor").exists());
}

/// Copilot CLI's user hooks (`~/.copilot/hooks/`), which it loads in `-p`
/// mode without trusting the folder; VS Code's agent reads no user file
/// squiggle writes, and says so.
#[test]
fn init_copilot_user_writes_the_user_hook_file() {
    let project = Project(Scratch::with_git_root());
    let said = ok(&project.run(&["init", "copilot", "--user"]));
    let path = project.home.join(".copilot/hooks/squiggle-copilot.json");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(text.contains("squiggle hook copilot"), "{said}\n{text}");
    assert!(!project.root.join(".github").exists());
    let out = project.run(&["init", "vscode", "--user"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn init_writes_where_the_host_reads_and_merges() {
    let project = Project(Scratch::with_git_root());
    project.write(
        ".cursor/hooks.json",
        "{\"version\": 1, \"hooks\": {\"stop\": [{\"command\": \"./mine.sh\"}]}}\n",
    );
    let said = ok(&project.run(&["init", "cursor"]));
    assert!(said.contains("for 4 events: afterFileEdit"), "{said}");
    assert!(said.contains("reports at stop"), "{said}");
    let text = std::fs::read_to_string(project.root.join(".cursor/hooks.json")).unwrap_or_default();
    assert!(
        text.contains("./mine.sh") && text.contains("squiggle hook cursor"),
        "{text}"
    );
    let again = ok(&project.run(&["init", "cursor"]));
    assert!(again.contains("nothing changed"), "{again}");
    ok(&project.run(&["init", "cline"]));
    let script = project.root.join(".clinerules/hooks/PostToolUse");
    let script = std::fs::read_to_string(script).unwrap_or_default();
    assert!(script.contains("exec squiggle hook cline"), "{script}");
}

#[test]
fn doctor_hooks_flags_an_older_claude_settings_and_names_its_readers() {
    let project = Project(Scratch::with_git_root());
    // What `init claude` wrote before SessionStart and the shell events.
    project.write(
        ".claude/settings.json",
        r#"{"hooks":{"PostToolUse":[{"matcher":"Write|Edit","hooks":[{"type":"command","command":"squiggle hook claude"}]}]}}"#,
    );
    let report = ok(&project.run(&["doctor", "--hooks"]));
    assert!(
        report.contains(".claude/settings.json: runs `squiggle hook claude`; read by Claude Code, VS Code's agent, Copilot CLI"),
        "{report}"
    );
    assert!(
        report.contains(
            "differs from what `squiggle init claude` writes now (no PreToolUse, no SessionStart)"
        ),
        "{report}"
    );
    ok(&project.run(&["init", "claude"]));
    let report = ok(&project.run(&["doctor", "--hooks"]));
    assert!(
        report.contains("as `squiggle init claude` writes it"),
        "{report}"
    );
}
