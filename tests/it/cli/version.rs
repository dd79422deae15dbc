//! `squiggle --version` names the package version and, when built from a git
//! checkout, the commit (build.rs), so a bug report tells two builds apart.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

#[test]
fn version_names_the_package_version_and_the_commit() {
    let out = Command::new(env!("CARGO_BIN_EXE_squiggle"))
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("run squiggle --version: {e}"));
    assert!(out.status.success(), "squiggle --version failed: {out:?}");
    let line = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let prefix = format!("squiggle {}", env!("CARGO_PKG_VERSION"));
    assert!(
        line.starts_with(&prefix),
        "{line:?} does not start with {prefix:?}"
    );

    // In a checkout whose top is this crate, the commit and its date follow.
    let top = git(&["rev-parse", "--show-toplevel"]).and_then(|t| std::fs::canonicalize(t).ok());
    let here = std::fs::canonicalize(env!("CARGO_MANIFEST_DIR")).ok();
    if top.is_some() && top == here {
        let hash = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_default();
        let date = git(&["log", "-1", "--format=%cs", "HEAD"]).unwrap_or_default();
        assert_eq!(line, format!("{prefix} ({hash} {date})"));
    }
}
