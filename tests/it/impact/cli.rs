//! `squiggle impact` through the binary, on a git copy of
//! `tests/fixtures/impact/py`: `--staged` names the symbol the staged diff
//! changes and its users (as `diff_impact` does), and a PATH with
//! `--symbol` answers the symbol's uses as text (after the staged change,
//! which moved `Box.size`'s call of `area` to line 19).

use std::path::Path;

use serde_json::Value;

use crate::support;
use crate::support::scratch::Scratch;

#[test]
fn impact_of_the_staged_diff_and_of_one_symbol() {
    if support::require_program("pyright-langserver").is_none() {
        return;
    }
    let ws = Scratch::bare();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/impact/py");
    support::copy_dir(&fixture, &ws.root);
    ws.repo(&[]);
    ws.git(&["add", "-A"]);
    ws.git(&["commit", "-qm", "fixture"]);
    let geometry = ws.root.join("geometry.py");
    let text = std::fs::read_to_string(&geometry).unwrap_or_default();
    let changed = text.replace(
        "    return 2 * (width + height)",
        "    total = width + height\n    return 2 * total",
    );
    std::fs::write(&geometry, changed).unwrap_or_else(|e| panic!("{e}"));
    ws.git(&["add", "geometry.py"]);

    let run = |args: &[&str]| {
        let out = ws
            .command(args)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env_remove("RUST_LOG")
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stdout}{stderr}");
        stdout
    };
    let staged: Value = serde_json::from_str(&run(&["impact", "--staged", "--json"]))
        .unwrap_or_else(|e| panic!("--json: {e}"));
    assert_eq!(staged["target"], "diff");
    let symbols = staged["symbols"].as_array().cloned().unwrap_or_default();
    assert_eq!(symbols.len(), 1, "{staged:#}");
    assert_eq!(symbols[0]["name"], "perimeter");
    assert_eq!(
        (
            symbols[0]["uses"].as_u64(),
            symbols[0]["test_uses"].as_u64()
        ),
        (Some(3), Some(2))
    );

    let text = run(&["impact", "geometry.py", "--symbol", "area"]);
    assert!(
        text.starts_with("area (geometry.py:4:5): 7 use(s) in 3 file(s), 3 in tests\n  app.py: 1, 5, 9\n  geometry.py: 19\n  tests/test_geometry.py (test): 1, 5, 6\nimported by: app.py, report.py (no use found), tests/test_geometry.py (test)"),
        "{text}"
    );
}
