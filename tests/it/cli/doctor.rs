//! `squiggle doctor` as a user runs it: the real binary in a temp workspace
//! whose `.squiggle.toml` defines a server backed by the scripted fake, with
//! `XDG_CONFIG_HOME` pointed at an empty directory so the user's own config
//! is never read. Real servers are checked only when found on PATH.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::support;
use crate::support::fake_server::FakeServer;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `squiggle doctor ARGS` in a workspace whose custom server `fake`
/// runs the fake with `script`.
fn doctor(script: Value, args: &[&str]) -> Run {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let workspace = dir.path().join("ws");
    let config_home = dir.path().join("config");
    std::fs::create_dir_all(&workspace).unwrap_or_else(|e| panic!("mkdir: {e}"));
    std::fs::create_dir_all(&config_home).unwrap_or_else(|e| panic!("mkdir: {e}"));
    let toml = FakeServer::new(script).default_settle().toml("fake");
    std::fs::write(workspace.join(".squiggle.toml"), toml)
        .unwrap_or_else(|e| panic!("write config: {e}"));
    run_in(&workspace, &config_home, args)
}

fn run_in(workspace: &Path, config_home: &Path, args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_squiggle"))
        .arg("doctor")
        .args(["--root", &workspace.display().to_string()])
        .args(args)
        .current_dir(workspace)
        .env("XDG_CONFIG_HOME", config_home)
        .output()
        .unwrap_or_else(|e| panic!("run squiggle: {e}"));
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The one report in a `--json` run.
fn only_report(run: &Run) -> Value {
    let reports: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}):\nstdout:\n{}\nstderr:\n{}",
            run.stdout, run.stderr
        )
    });
    let reports = reports.as_array().cloned().unwrap_or_default();
    assert_eq!(reports.len(), 1, "expected one report, got {reports:#?}");
    reports[0].clone()
}

fn check_field(report: &Value, key: &str, expected: Value) {
    assert_eq!(
        report[key], expected,
        "{key}:\n  expected {expected}\n  actual   {}\nreport: {report:#}",
        report[key]
    );
}

#[test]
fn a_working_fake_reports_its_declared_capabilities() {
    let script = json!({
        "diagnosticMode": "pull",
        "positionEncoding": "utf-8",
        "sync": "full",
        "serverInfo": {"name": "fake", "version": "4.2"},
        "capabilities": {"definitionProvider": true, "hoverProvider": true},
    });
    let run = doctor(
        script,
        &[
            "--json",
            "--only",
            "fake",
            "--trust-workspace",
            "--require",
            "fake",
        ],
    );
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let report = only_report(&run);
    check_field(&report, "id", json!("fake"));
    check_field(&report, "status", json!("working"));
    check_field(&report, "version", json!("4.2"));
    check_field(&report, "diagnosticsMode", json!("pull"));
    check_field(&report, "sync", json!("full"));
    check_field(&report, "positionEncoding", json!("utf-8"));
    check_field(&report, "navigation", json!(["definition", "hover"]));
    check_field(&report["firstCheck"], "outcome", json!("pulled"));
    check_field(&report["firstCheck"], "file", json!("sample.fk"));
    assert!(report["startMs"].is_u64(), "no startMs in {report:#}");
}

#[test]
fn diagnostics_modes_are_told_apart() {
    let cases = [
        (json!({}), "push"),
        (json!({"diagnosticMode": "both"}), "push+pull"),
        (
            json!({"diagnosticMode": "pull", "registerPullDynamically": true}),
            "pull (dynamic)",
        ),
    ];
    for (script, expected) in cases {
        let run = doctor(script, &["--json", "--only", "fake", "--trust-workspace"]);
        assert_eq!(run.code, 0, "stderr: {}", run.stderr);
        check_field(&only_report(&run), "diagnosticsMode", json!(expected));
    }
}

#[test]
fn a_crashing_server_fails_and_fails_the_requirement() {
    let script =
        json!({"fault": {"kind": "crashOnInitialize"}, "stderrOnStart": "fake is crashing\n"});
    let run = doctor(
        script,
        &[
            "--json",
            "--only",
            "fake",
            "--trust-workspace",
            "--require",
            "fake",
        ],
    );
    assert_eq!(
        run.code, 2,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    let report = only_report(&run);
    check_field(&report, "status", json!("failed"));
    let error = report["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("fake is crashing"),
        "the error should carry the stderr tail: {error}"
    );
    assert!(
        run.stderr.contains("required servers not working: fake"),
        "stderr: {}",
        run.stderr
    );
}

#[test]
fn an_untrusted_workspace_server_is_not_started() {
    let run = doctor(json!({}), &["--only", "fake", "--require", "fake"]);
    assert_eq!(
        run.code, 2,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert!(
        run.stderr.contains("fake: command, env from") && run.stderr.contains("--trust-workspace"),
        "stderr:\n{}",
        run.stderr
    );
}

#[test]
fn an_unknown_id_is_a_usage_error() {
    let run = doctor(json!({}), &["--only", "nosuch"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("unknown server id \"nosuch\""),
        "stderr: {}",
        run.stderr
    );
}

#[test]
fn text_output_is_a_table_with_a_row_for_the_fake() {
    let run = doctor(json!({}), &["--only", "fake", "--trust-workspace"]);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let mut lines = run.stdout.lines();
    let header = lines.next().unwrap_or_default();
    assert!(
        header.starts_with("server  status   version"),
        "{}",
        run.stdout
    );
    let row = lines.next().unwrap_or_default();
    assert!(row.starts_with("fake    working  0 "), "{}", run.stdout);
    assert!(row.contains(" push "), "{}", run.stdout);
}

/// Real servers, when on PATH (required when SQUIGGLE_REQUIRE_SERVERS is set).
#[test]
fn pyright_on_path_is_working() {
    if support::require_program("pyright-langserver").is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let run = run_in(dir.path(), dir.path(), &["--only", "pyright", "--json"]);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let report = only_report(&run);
    check_field(&report, "status", json!("working"));
    check_field(&report, "diagnosticsMode", json!("pull (dynamic)"));
}

/// A project with TypeScript 7 in its `node_modules` (its `bin/tsc` the
/// fake, through a shell script): doctor starts tsgo on that program and
/// names the compiler, in `--json` and in the table (`docs/servers.md`).
/// Unix: the stand-in `tsc` is a shell script.
#[cfg(unix)]
#[test]
fn doctor_names_the_projects_compiler_and_runs_on_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let workspace = root.join("ws");
    let package = workspace.join("node_modules/typescript");
    std::fs::create_dir_all(package.join("bin")).unwrap_or_else(|e| panic!("mkdir: {e}"));
    std::fs::write(
        package.join("package.json"),
        r#"{"name": "typescript", "version": "7.0.2", "bin": {"tsc": "bin/tsc"}}"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let tsc = package.join("bin/tsc");
    let script = format!("#!/bin/sh\nexec '{}'\n", FakeServer::command());
    std::fs::write(&tsc, script).unwrap_or_else(|e| panic!("{e}"));
    std::fs::set_permissions(&tsc, std::fs::Permissions::from_mode(0o755))
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(root.join("config")).unwrap_or_else(|e| panic!("{e}"));

    let run = run_in(
        &workspace,
        &root.join("config"),
        &["--only", "tsgo", "--json"],
    );
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    let report = only_report(&run);
    let compiler = format!("typescript 7.0.2 (project: {})", package.display());
    check_field(&report, "compiler", json!(compiler));
    check_field(&report, "path", json!(tsc.display().to_string()));
    check_field(&report, "status", json!("working"));

    let run = run_in(&workspace, &root.join("config"), &["--only", "tsgo"]);
    assert_eq!(run.code, 0, "stderr: {}", run.stderr);
    assert!(
        run.stdout.contains(&format!(
            "compiler (this workspace's):\n  tsgo  {compiler}\n"
        )),
        "{}",
        run.stdout
    );
}
