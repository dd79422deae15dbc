//! `squiggle check`, driven as a user's hook would: the real binary in a
//! temporary workspace whose `.squiggle.toml` makes the scripted fake server
//! (`squiggle-fake-lsp`) serve `.fk` files. The fake reports diagnostics from
//! markers in the file text (`@error(message)`, see docs/fake-server.md), so
//! the text a test writes, stages or commits decides what the check finds.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support::fake_server::FakeServer;
use crate::support::scratch::{Scratch, scratch_type};

/// Keeps a TOML server installed on the test machine out of the walks.
const NO_TOMBI: &str = "\n[lsp.servers.tombi]\nenabled = false\n";

/// One run of the binary.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

impl Run {
    fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }
}

scratch_type!(
    /// A temporary workspace (`ws/`) with an empty user configuration beside it.
    Ws
);

impl Ws {
    fn new() -> Ws {
        Ws::with_config("")
    }

    /// A workspace whose `.squiggle.toml` is the fake server plus `extra`.
    fn with_config(extra: &str) -> Ws {
        let ws = Ws(Scratch::bare());
        let fake = FakeServer::new(json!({"diagnosticMode": "pull"})).toml("fake");
        ws.write(".squiggle.toml", &format!("{fake}{NO_TOMBI}{extra}"));
        ws
    }

    fn check(&self, args: &[&str]) -> Run {
        self.check_in(&self.root, args)
    }

    fn check_in(&self, dir: &Path, args: &[&str]) -> Run {
        let out = Command::new(env!("CARGO_BIN_EXE_squiggle"))
            .arg("check")
            .arg("--trust-workspace")
            .args(args)
            .current_dir(dir)
            .env("XDG_CONFIG_HOME", &self.config_home)
            .env("SQUIGGLE_NO_DAEMON", "1")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env_remove("RUST_LOG")
            .output()
            .unwrap_or_else(|e| panic!("run squiggle check: {e}"));
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// Asserts the exit code, printing both streams on failure.
fn expect_code(run: &Run, code: i32) {
    assert_eq!(
        run.code, code,
        "expected exit {code}, got {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        run.code, run.stdout, run.stderr
    );
}

/// The `file` of every entry in `--format json` output.
fn json_files(run: &Run) -> Vec<String> {
    run.json()["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|f| f["file"].as_str().map(str::to_string))
        .collect()
}

/// Every diagnostic message in `--format json` output.
fn json_messages(run: &Run) -> Vec<String> {
    run.json()["files"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|f| f["diagnostics"].as_array().cloned().unwrap_or_default())
        .filter_map(|d| d["message"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn clean_files_exit_0_with_nothing_on_stdout() {
    let ws = Ws::new();
    ws.write("src/a.fk", "all good\n");
    let run = ws.check(&["src/a.fk"]);
    expect_code(&run, 0);
    assert_eq!(run.stdout, "");
    assert_eq!(run.stderr, "", "no progress when stderr is not a terminal");
}

#[test]
fn text_format_renders_the_blocks_and_exits_1_on_an_error() {
    let ws = Ws::new();
    ws.write("src/a.fk", "fine\n@error[E42](boom)\n");
    ws.write("src/b.fk", "fine\n");
    let run = ws.check(&["src"]);
    expect_code(&run, 1);
    assert_eq!(
        run.stdout,
        "LSP errors detected in this file:\n<diagnostics file=\"src/a.fk\">\nERROR [2:1] boom (E42)\n</diagnostics>\n"
    );
}

#[test]
fn json_format_lists_every_checked_file_with_outcomes_and_a_summary() {
    let ws = Ws::new();
    ws.write("a.fk", "@error(boom)\n@warning(meh)\n");
    ws.write("b.fk", "fine\n");
    for flag in [&["--format", "json"][..], &["--json"][..]] {
        let run = ws.check(&[flag, &["a.fk", "b.fk"]].concat());
        expect_code(&run, 1);
        let json = run.json();
        assert_eq!(json_files(&run), vec!["a.fk", "b.fk"]);
        assert_eq!(
            json_messages(&run),
            vec!["boom"],
            "warnings are not shown by default"
        );
        assert_eq!(json["files"][0]["outcomes"][0]["server"], "fake");
        assert_eq!(json["files"][0]["outcomes"][0]["outcome"], "pulled");
        assert_eq!(json["summary"]["errors"], 1);
        assert_eq!(json["summary"]["warnings"], 1);
        assert_eq!(json["summary"]["files"], 2);
        assert_eq!(json["summary"]["failed"], true);
    }
}

#[test]
fn sarif_format_has_the_required_fields() {
    let ws = Ws::new();
    ws.write("src/a.fk", "x @error[E42](boom)\n@warning(meh)\n");
    let run = ws.check(&["--format", "sarif", "--severity", "warning", "src/a.fk"]);
    expect_code(&run, 1);
    let log = run.json();
    assert_eq!(log["version"], "2.1.0");
    assert!(log["$schema"].as_str().is_some_and(|s| s.contains("sarif")));
    let run0 = &log["runs"][0];
    let driver = &run0["tool"]["driver"];
    assert_eq!(driver["name"], "squiggle");
    let rules: Vec<&str> = driver["rules"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(rules, vec!["fake", "fake/E42"]);
    let results = run0["results"].as_array().cloned().unwrap_or_default();
    assert_eq!(results.len(), 2);
    let error = &results[0];
    assert_eq!(error["ruleId"], "fake/E42");
    assert_eq!(error["level"], "error");
    assert_eq!(error["message"]["text"], "boom");
    let location = &error["locations"][0]["physicalLocation"];
    assert_eq!(location["artifactLocation"]["uri"], "src/a.fk");
    let region = &location["region"];
    assert_eq!(
        (
            &region["startLine"],
            &region["startColumn"],
            &region["endLine"],
            &region["endColumn"]
        ),
        (
            &Value::from(1),
            &Value::from(3),
            &Value::from(1),
            &Value::from(20)
        )
    );
    assert_eq!(results[1]["ruleId"], "fake");
    assert_eq!(results[1]["level"], "warning");
}

#[test]
fn github_format_prints_escaped_workflow_commands() {
    let ws = Ws::new();
    ws.write("a.fk", "@error[E1](100% bad, see: here)\n@warning(meh)\n");
    let run = ws.check(&["--format", "github", "--severity", "warning", "a.fk"]);
    expect_code(&run, 1);
    assert_eq!(
        run.stdout,
        "::error file=a.fk,line=1,col=1,endLine=1,endColumn=32,title=fake E1::100%25 bad, see: here\n\
         ::warning file=a.fk,line=2,col=1,endLine=2,endColumn=14,title=fake::meh\n"
    );
}

#[test]
fn severity_chooses_what_is_shown_and_fail_on_what_fails() {
    let ws = Ws::new();
    ws.write("a.fk", "@warning(meh)\n");
    let run = ws.check(&["a.fk"]);
    expect_code(&run, 0);
    assert_eq!(run.stdout, "");

    let run = ws.check(&["--severity", "warning", "a.fk"]);
    expect_code(&run, 0);
    assert!(
        run.stdout.contains("WARN [1:1] meh"),
        "stdout:\n{}\nstderr:\n{}",
        run.stdout,
        run.stderr
    );

    let run = ws.check(&["--fail-on", "warning", "a.fk"]);
    expect_code(&run, 1);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains("1 diagnostic at or above --fail-on warning not shown"),
        "{}",
        run.stderr
    );
}

#[test]
fn usage_and_configuration_errors_exit_2() {
    let ws = Ws::new();
    ws.write("a.fk", "@error(boom)\n");
    for args in [
        &["--format", "xml", "a.fk"][..],
        &["--fail-on", "fatal", "a.fk"][..],
        &["--staged", "--diff", "HEAD"][..],
        &["missing.fk"][..],
    ] {
        let run = ws.check(args);
        expect_code(&run, 2);
        assert!(!run.stderr.is_empty(), "{args:?}: no message");
    }
    let run = ws.check(&["--filter", "added", "a.fk"]);
    expect_code(&run, 2);
    assert!(run.stderr.contains("--staged or --diff"), "{}", run.stderr);

    let bad = Ws::with_config("\n[lsp]\ndiagnosticTimout = 5\n");
    bad.write("a.fk", "fine\n");
    let run = bad.check(&["a.fk"]);
    expect_code(&run, 2);
    assert!(run.stderr.contains("diagnosticTimout"), "{}", run.stderr);
}

#[test]
fn git_failures_exit_2_naming_the_command() {
    let ws = Ws::new();
    ws.write("a.fk", "fine\n");
    let run = ws.check(&["--staged"]);
    expect_code(&run, 2);
    assert!(run.stderr.contains("`git diff"), "{}", run.stderr);

    ws.repo(&[("a.fk", "fine\n")]);
    let run = ws.check(&["--diff", "no-such-rev"]);
    expect_code(&run, 2);
    assert!(
        run.stderr.contains("`git diff") && run.stderr.contains("no-such-rev"),
        "{}",
        run.stderr
    );
}

#[test]
fn staged_checks_the_staged_content_not_the_working_tree() {
    let ws = Ws::new();
    ws.repo(&[("a.fk", "start\n")]);

    // Staged: an error; working tree: fixed. The commit would hold the error.
    ws.write("a.fk", "start\n@error(staged bug)\n");
    ws.git(&["add", "a.fk"]);
    ws.write("a.fk", "start\nfixed\n");
    let run = ws.check(&["--staged", "--json"]);
    expect_code(&run, 1);
    assert_eq!(json_messages(&run), vec!["staged bug"]);

    // Staged: clean; working tree: broken. The commit is fine.
    ws.write("a.fk", "start\nfixed\n");
    ws.git(&["add", "a.fk"]);
    ws.write("a.fk", "start\n@error(unstaged bug)\n");
    let run = ws.check(&["--staged"]);
    expect_code(&run, 0);
    assert_eq!(run.stdout, "");
}

#[test]
fn staged_with_nothing_staged_checks_nothing() {
    let ws = Ws::new();
    ws.repo(&[("a.fk", "@error(old)\n")]);
    let run = ws.check(&["--staged", "--json"]);
    expect_code(&run, 0);
    assert_eq!(json_files(&run), Vec::<String>::new());
}

#[test]
fn filter_added_hides_pre_existing_errors_and_reports_new_ones() {
    let ws = Ws::new();
    ws.repo(&[("a.fk", "@error(old)\nkeep\n")]);

    // A clean change to a file with an old error passes: adoption on a
    // codebase with existing errors.
    ws.write("a.fk", "@error(old)\nkeep\nclean addition\n");
    ws.git(&["add", "a.fk"]);
    let run = ws.check(&["--staged"]);
    expect_code(&run, 0);
    assert_eq!(run.stdout, "");

    ws.write("a.fk", "@error(old)\nkeep\n@error(new)\n");
    ws.git(&["add", "a.fk"]);
    let run = ws.check(&["--staged", "--json"]);
    expect_code(&run, 1);
    assert_eq!(json_messages(&run), vec!["new"]);
    assert_eq!(run.json()["summary"]["errors"], 1);

    let run = ws.check(&["--staged", "--filter", "none", "--json"]);
    expect_code(&run, 1);
    assert_eq!(json_messages(&run), vec!["old", "new"]);

    // --diff REV: the working tree against a revision, same filter.
    ws.git(&["commit", "-q", "-m", "second"]);
    ws.write("a.fk", "@error(old)\nkeep\n@error(new)\n@error(newer)\n");
    let run = ws.check(&["--diff", "HEAD", "--json"]);
    expect_code(&run, 1);
    assert_eq!(json_messages(&run), vec!["newer"]);
}

#[test]
fn changed_lines_also_keeps_the_lines_a_deletion_joined() {
    let ws = Ws::new();
    ws.repo(&[("a.fk", "one\n@error(old)\ndelete me\nthree\n")]);
    ws.write("a.fk", "one\n@error(old)\nthree\n");
    ws.git(&["add", "a.fk"]);
    let run = ws.check(&["--staged", "--json"]);
    expect_code(&run, 0);
    assert_eq!(json_messages(&run), Vec::<String>::new());
    let run = ws.check(&["--staged", "--filter", "changed-lines", "--json"]);
    expect_code(&run, 1);
    assert_eq!(json_messages(&run), vec!["old"]);
}

#[test]
fn filter_file_keeps_everything_in_changed_files_only() {
    let ws = Ws::new();
    ws.repo(&[("a.fk", "@error(in a)\n"), ("b.fk", "@error(in b)\n")]);
    ws.write("a.fk", "@error(in a)\nmore\n");
    // With paths, the walk chooses the files and the diff only filters.
    let run = ws.check(&["--diff", "HEAD", "--filter", "file", "--json", "."]);
    expect_code(&run, 1);
    assert_eq!(json_files(&run), vec!["a.fk", "b.fk"]);
    assert_eq!(json_messages(&run), vec!["in a"]);
}

#[test]
fn directory_walk_honours_gitignore_and_skips_unserved_files() {
    let ws = Ws::new();
    ws.write(".gitignore", "generated/\n");
    ws.write("src/a.fk", "@error(real)\n");
    ws.write("src/notes.txt", "@error(not a served file)\n");
    ws.write("generated/b.fk", "@error(generated)\n");
    ws.write("node_modules/dep/c.fk", "@error(dependency)\n");

    let run = ws.check(&["--json"]);
    expect_code(&run, 1);
    assert_eq!(json_files(&run), vec!["src/a.fk"]);
    assert_eq!(json_messages(&run), vec!["real"]);

    // Paths are relative to the current directory, not to the root.
    let run = ws.check_in(&ws.root.join("src"), &["--root", "..", "--json", "."]);
    assert_eq!(json_files(&run), vec!["src/a.fk"]);

    // A file named explicitly is checked even when ignored.
    let run = ws.check(&["generated/b.fk"]);
    expect_code(&run, 1);
    assert!(run.stdout.contains("generated"), "{}", run.stdout);
}

#[test]
fn unavailable_server_warns_once_and_require_servers_exits_2() {
    let ws = Ws::with_config(
        "\n[lsp.servers.ghost]\ncommand = \"/nonexistent/ghost-lsp\"\nextensions = [\".gh\"]\nlanguageId = \"ghost\"\n",
    );
    ws.write("one.gh", "@error(unseen)\n");
    ws.write("two.gh", "@error(unseen)\n");
    ws.write("a.fk", "fine\n");

    let run = ws.check(&[]);
    expect_code(&run, 0);
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("squiggle: warning: ghost unavailable: "))
        .collect();
    assert_eq!(warnings.len(), 1, "one warning per server:\n{}", run.stderr);
    assert!(warnings[0].contains("ghost-lsp"), "{}", warnings[0]);

    let run = ws.check(&["--require-servers"]);
    expect_code(&run, 2);
    assert!(
        run.stderr.contains("squiggle: warning: ghost unavailable")
            && run.stderr.contains("--require-servers: ghost"),
        "{}",
        run.stderr
    );
}

#[test]
fn verbose_prints_progress_and_outcomes_on_stderr() {
    let ws = Ws::new();
    ws.write("a.fk", "fine\n");
    let run = ws.check(&["-v", "a.fk"]);
    expect_code(&run, 0);
    assert!(run.stderr.contains("checking 1 file…"), "{}", run.stderr);
    assert!(run.stderr.contains("a.fk: fake pulled"), "{}", run.stderr);
    assert!(
        run.stderr.contains("0 errors, 0 warnings in 1 file"),
        "{}",
        run.stderr
    );
}

#[test]
fn check_runs_through_the_warm_daemon_and_reports_the_same() {
    let ws = Ws::new();
    ws.write("a.fk", "@error(through the daemon)\n");
    let runtime = ws.root.parent().unwrap_or(&ws.root).join("run");
    std::fs::create_dir_all(&runtime).unwrap_or_else(|e| panic!("{e}"));
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_squiggle"))
            .args(args)
            .current_dir(&ws.root)
            .env("XDG_CONFIG_HOME", &ws.config_home)
            .env("XDG_RUNTIME_DIR", &runtime)
            .env("SQUIGGLE_DAEMON_IDLE_MS", "60000")
            .env_remove("SQUIGGLE_NO_DAEMON")
            .env_remove("RUST_LOG")
            .output()
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let first = run(&["check", "--trust-workspace", "a.fk"]);
    let second = run(&["check", "--trust-workspace", "a.fk"]);
    let status = run(&["daemon", "status", "--trust-workspace"]);
    let stopped = run(&["daemon", "stop", "--trust-workspace"]);
    for out in [&first, &second] {
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("ERROR [1:1] through the daemon"),
            "{out:?}"
        );
    }
    let status = String::from_utf8_lossy(&status.stdout).to_string();
    assert!(
        status.contains("requests   3"),
        "both checks went to one daemon:\n{status}"
    );
    assert!(stopped.status.success(), "{stopped:?}");
}
