//! The one git reader: the few git commands squiggle runs, without a shell,
//! in the workspace root. `squiggle check --staged|--diff` asks which files
//! changed, their changed lines and the staged text; the first baseline of
//! a file squiggle has not seen yet is the file as committed
//! ([`committed_text`]). Every failure names the command, so a hook that
//! fails in CI says what to run by hand.
//!
//! `--relative` keeps git's paths relative to the workspace root (which may
//! be a subdirectory of the repository) and leaves out files outside it.
//! `core.quotePath=false` and explicit `a/`/`b/` prefixes keep the output
//! the same whatever the user's git configuration says.

use std::path::Path;
use std::process::{Command, Stdio};

/// What the changes are measured against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffSource {
    /// The index against `HEAD`: what the next commit holds.
    Staged,
    /// `REV` against the working tree.
    Rev(String),
}

impl DiffSource {
    fn args(&self) -> Vec<&str> {
        match self {
            DiffSource::Staged => vec!["--cached"],
            DiffSource::Rev(rev) => vec![rev.as_str()],
        }
    }
}

/// Runs `git ARGS` in `root`; its stdout, or an error naming the command.
fn git(root: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let shown = format!("git {}", args.join(" "));
    let output = Command::new("git")
        .args(["-c", "core.quotePath=false"])
        .args(args)
        .current_dir(root)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run `{shown}`: {e}; is git installed?"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!(
            "`{shown}` failed in {} ({}): {}",
            root.display(),
            output.status,
            stderr.trim()
        ));
    }
    Ok(output.stdout)
}

/// The added, copied, modified and renamed files, relative to `root`.
pub fn changed_files(root: &Path, source: &DiffSource) -> Result<Vec<String>, String> {
    let mut args = vec![
        "diff",
        "--name-only",
        "--diff-filter=ACMR",
        "--relative",
        "-z",
    ];
    args.extend(source.args());
    args.push("--");
    let out = git(root, &args)?;
    Ok(out
        .split(|b| *b == 0)
        .filter(|name| !name.is_empty())
        .map(|name| String::from_utf8_lossy(name).into_owned())
        .collect())
}

/// The same changes as a `-U0` unified diff, for the line filters.
pub fn unified_diff(root: &Path, source: &DiffSource) -> Result<String, String> {
    let mut args = vec![
        "diff",
        "-U0",
        "--diff-filter=ACMR",
        "--relative",
        "--no-color",
        "--no-ext-diff",
        "--src-prefix=a/",
        "--dst-prefix=b/",
    ];
    args.extend(source.args());
    args.push("--");
    let out = git(root, &args)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The staged changes as a patch with context, deletions included, for
/// `squiggle impact --staged` (paths relative to `root`).
pub fn staged_patch(root: &Path) -> Result<String, String> {
    let args = [
        "diff",
        "--cached",
        "--relative",
        "--no-color",
        "--no-ext-diff",
        "--src-prefix=a/",
        "--dst-prefix=b/",
    ];
    let out = git(root, &args)?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The staged content of `relative` (`git cat-file blob :./PATH`: raw bytes,
/// no textconv or pager, unlike `git show`).
pub fn staged_content(root: &Path, relative: &str) -> Result<String, String> {
    let spec = format!(":./{relative}");
    let out = git(root, &["cat-file", "blob", &spec])?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// `relative`'s text as git's index has it, else as `HEAD` has it; `None`
/// when git does not track it (or there is no git, or it is not UTF-8).
pub fn committed_text(root: &Path, relative: &str) -> Option<String> {
    [format!(":./{relative}"), format!("HEAD:./{relative}")]
        .iter()
        .find_map(|spec| {
            let out = git(root, &["cat-file", "blob", spec]).ok()?;
            String::from_utf8(out).ok()
        })
}
