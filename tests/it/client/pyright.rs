//! The client against a real server: pyright, installed by
//! `scripts/install-servers.sh`, started from its built-in registry entry.
//! A real type error must come back at the right 1-based line and column, and
//! the fixing edit must clear it.

use std::sync::Arc;
use std::time::Duration;

use squiggle::diagnostic::{Outcome, Severity};
use squiggle::lsp::{ClientConfig, LspClient, Spawn};
use squiggle::registry::builtin_servers;

use crate::support;
use crate::support::deadline;

const BROKEN: &str = "def double(x: int) -> int:\n    return x * 2\n\n\nlabel: str = double(21)\n";
const FIXED: &str =
    "def double(x: int) -> int:\n    return x * 2\n\n\nlabel: str = str(double(21))\n";

#[tokio::test]
async fn pyright_reports_a_type_error_at_the_right_place_and_clears_it() {
    let Some(program) = support::require_program("pyright-langserver") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        root.join("pyproject.toml"),
        "[project]\nname = \"demo\"\nversion = \"0\"\n",
    )
    .ok();
    let file = root.join("demo.py");
    std::fs::write(&file, BROKEN).ok();

    let spec = builtin_servers()
        .into_iter()
        .find(|s| s.id == "pyright")
        .unwrap_or_else(|| panic!("no pyright entry"));
    let candidate = &spec.commands[0];
    let spawn = Spawn {
        program,
        args: candidate.args.clone(),
        env: vec![],
        cwd: root.clone(),
    };
    let mut config = ClientConfig::new("pyright", spawn, root.clone());
    config.settings = spec.settings.clone();
    config.initialization_options = spec.initialization_options.clone();
    config.wait = spec.wait.clone();
    let client = LspClient::start(config, Duration::from_secs(60))
        .await
        .unwrap_or_else(|e| panic!("{e}"));

    let doc = client
        .sync_document(&file, "python", Arc::from(BROKEN))
        .await;
    let report = client.diagnostics_for(&doc, deadline(60_000)).await;
    assert!(
        matches!(report.outcome, Outcome::Pulled | Outcome::Settled),
        "{:?}",
        report.outcome
    );
    let found = client.normalize(&report.diagnostics, BROKEN, "demo.py");
    let errors: Vec<_> = found
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert_eq!(errors.len(), 1, "{found:#?}");
    let error = errors[0];
    assert_eq!((error.line, error.column), (5, 14), "{error:#?}");
    assert!(
        error.message.contains("\"int\"") && error.message.contains("\"str\""),
        "{}",
        error.message
    );
    assert_eq!(error.code.as_deref(), Some("reportAssignmentType"));

    let fixed = client
        .sync_document(&file, "python", Arc::from(FIXED))
        .await;
    let after = client.diagnostics_for(&fixed, deadline(60_000)).await;
    assert!(
        matches!(after.outcome, Outcome::Pulled | Outcome::Settled),
        "{:?}",
        after.outcome
    );
    let remaining = client.normalize(&after.diagnostics, FIXED, "demo.py");
    assert!(
        remaining.iter().all(|d| d.severity != Severity::Error),
        "stale error survived the fix: {remaining:#?}"
    );

    let pid = client.pid().expect("a spawned server has a pid");
    client.shutdown().await;
    assert!(!support::process_exists(pid));
}
