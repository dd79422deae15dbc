//! Names the commit a binary was built from, for `squiggle --version`.
//!
//! A bug report that says "0.1.0" cannot tell two builds of main apart, so the
//! version string carries the commit too: from `git` when the crate is built
//! in its own checkout, else from the `.cargo_vcs_info.json` that `cargo
//! package` writes into a packaged crate (crates.io, the PyPI sdist), else
//! nothing. A build never fails for want of git.

use std::path::Path;
use std::process::Command;

fn main() {
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_string());
    let dir = Path::new(&dir);
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let commit = git_commit(dir).or_else(|| packaged_commit(dir));
    let full = match commit {
        Some((hash, Some(date))) => format!("{version} ({hash} {date})"),
        Some((hash, None)) => format!("{version} ({hash})"),
        None => version,
    };
    println!("cargo:rustc-env=SQUIGGLE_VERSION={full}");
    println!("cargo:rerun-if-changed=build.rs");
    if dir.join(".cargo_vcs_info.json").exists() {
        println!("cargo:rerun-if-changed=.cargo_vcs_info.json");
    }
}

/// Runs git in `dir` and returns its trimmed stdout, or `None` on any failure.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!text.is_empty()).then_some(text)
}

/// The short hash and commit date of HEAD, when `dir` is the top of a git
/// checkout (not a packaged crate unpacked somewhere inside another repository).
fn git_commit(dir: &Path) -> Option<(String, Option<String>)> {
    let top = git(dir, &["rev-parse", "--show-toplevel"])?;
    let same = Path::new(&top).canonicalize().ok()? == dir.canonicalize().ok()?;
    if !same {
        return None;
    }
    let hash = git(dir, &["rev-parse", "--short=12", "HEAD"])?;
    let date = git(dir, &["log", "-1", "--format=%cs", "HEAD"]);
    // Rebuild when HEAD moves: HEAD itself (a checkout), the branch it names
    // (a commit), packed-refs. Only files that exist: cargo reruns the script
    // on every build for a missing one.
    let branch = git(dir, &["symbolic-ref", "-q", "HEAD"]);
    for path in ["HEAD", "packed-refs"].into_iter().chain(branch.as_deref()) {
        if let Some(p) = git(dir, &["rev-parse", "--git-path", path]) {
            let p = dir.join(p);
            if p.exists() {
                println!("cargo:rerun-if-changed={}", p.display());
            }
        }
    }
    Some((hash, date))
}

/// The commit `cargo package` recorded in `.cargo_vcs_info.json`.
fn packaged_commit(dir: &Path) -> Option<(String, Option<String>)> {
    let text = std::fs::read_to_string(dir.join(".cargo_vcs_info.json")).ok()?;
    // {"git": {"sha1": "<40 hex>", ...}, ...}: find the value without a JSON dependency.
    let start = text.find("\"sha1\"")? + "\"sha1\"".len();
    let rest = text[start..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let hash: String = rest.chars().take_while(char::is_ascii_hexdigit).collect();
    (hash.len() >= 12).then(|| (hash[..12].to_string(), None))
}
