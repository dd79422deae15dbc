//! The one line after the blocks that says what is not known: a server that
//! had not finished checking a file by the deadline, stopped, or could not
//! run at all (not installed, broken, untrusted); or a file squiggle itself
//! would not send to any server (binary, over the size limit). Without it a timeout or a
//! missing server reads exactly like a clean file (OpenCode #41218), which
//! is the one thing squiggle must never say. Pure, like the rest of
//! rendering; names and reasons are escaped and cut like messages.

use super::sanitize;
use crate::diagnostic::Outcome;

/// One (file, server) pair whose diagnostics are unknown.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Unknown {
    /// Empty for a file no server was given (`BinaryFile`).
    pub server: String,
    pub file: String,
    /// `TimedOut`, `ServerDead`, `Unavailable`, or `BinaryFile` (not
    /// checked: binary or over the size limit).
    pub outcome: Outcome,
    /// How long the wait had run.
    #[serde(default)]
    pub after_ms: u64,
    /// Why the server could not run (`Unavailable`), or why the file was
    /// not sent (`BinaryFile`), as its outcome says.
    #[serde(default)]
    pub reason: String,
}

/// The most characters of a reason shown.
const MAX_REASON_CHARS: usize = 300;

/// Files named in one line before "and N other files".
const NAMED: usize = 3;

/// One line per server and kind of ending, in server order (files not
/// checked first, one line per reason); `""` when everything is known.
pub fn render_unknown(unknown: &[Unknown]) -> String {
    let mut groups: Vec<(&str, Outcome, Vec<&str>, u64, &str)> = Vec::new();
    for u in unknown {
        let same_reason = |g: &&mut (&str, Outcome, Vec<&str>, u64, &str)| {
            u.outcome != Outcome::BinaryFile || g.4 == u.reason
        };
        match groups
            .iter_mut()
            .filter(|g| g.0 == u.server && g.1 == u.outcome)
            .find(same_reason)
        {
            Some(group) => {
                if !group.2.contains(&u.file.as_str()) {
                    group.2.push(&u.file);
                }
                group.3 = group.3.max(u.after_ms);
            }
            None => groups.push((&u.server, u.outcome, vec![&u.file], u.after_ms, &u.reason)),
        }
    }
    groups.sort_by(|a, b| (a.0, a.1.as_str()).cmp(&(b.0, b.1.as_str())));
    let mut out = String::new();
    for (server, outcome, files, after_ms, reason) in groups {
        let whose = if files.len() == 1 { "its" } else { "their" };
        let files = sanitize::controls(&file_list(&files), &sanitize::ONE_LINE).into_owned();
        let server = sanitize::controls(server, &sanitize::ONE_LINE);
        let line = match outcome {
            Outcome::ServerDead => format!(
                "{server} stopped before it finished checking {files}; {whose} diagnostics are unknown."
            ),
            Outcome::Unavailable => {
                let reason = sanitize::cut(reason.trim_end_matches('.'), MAX_REASON_CHARS);
                let reason = sanitize::controls(&reason, &sanitize::ONE_LINE);
                format!("{server} could not check {files}: {reason}.")
            }
            Outcome::BinaryFile => {
                let reason = sanitize::cut(reason.trim_end_matches('.'), MAX_REASON_CHARS);
                let reason = sanitize::controls(&reason, &sanitize::ONE_LINE);
                format!("Not checked: {files} ({reason}).")
            }
            _ => format!(
                "{server} had not finished checking {files} after {}; {whose} diagnostics are unknown.",
                seconds(after_ms)
            ),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// `a.py`, `a.py and b.py`, `a.py, b.py, c.py and 2 other files`.
fn file_list(files: &[&str]) -> String {
    let named: Vec<&str> = files.iter().take(NAMED).copied().collect();
    let rest = files.len() - named.len();
    match (named.as_slice(), rest) {
        ([one], 0) => one.to_string(),
        (named, 0) => {
            let (last, first) = named.split_last().unwrap_or((&"", &[]));
            format!("{} and {last}", first.join(", "))
        }
        (named, 1) => format!("{} and 1 other file", named.join(", ")),
        (named, n) => format!("{} and {n} other files", named.join(", ")),
    }
}

/// `3 s`, `1.5 s`: tenths, without a trailing `.0`.
fn seconds(ms: u64) -> String {
    let tenths = (ms + 50) / 100;
    if tenths.is_multiple_of(10) {
        format!("{} s", tenths / 10)
    } else {
        format!("{}.{} s", tenths / 10, tenths % 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unknown(server: &str, file: &str, outcome: Outcome, after_ms: u64) -> Unknown {
        Unknown {
            server: server.into(),
            file: file.into(),
            outcome,
            after_ms,
            reason: String::new(),
        }
    }

    /// A configured server whose command does not
    /// exist left the edit's text at "Edit applied successfully.".
    #[test]
    fn a_server_that_could_not_run_is_said_in_one_line() {
        let mut missing = unknown("my-lint", "a.py", Outcome::Unavailable, 0);
        missing.reason = "my-lint not found on PATH; install it with `pip install my-lint`".into();
        let mut hostile = unknown("x\u{1b}[2J", "b\n.py", Outcome::Unavailable, 0);
        hostile.reason = "bad\u{7}\nreason.".into();
        assert_eq!(
            render_unknown(&[missing, hostile]),
            "my-lint could not check a.py: my-lint not found on PATH; install it with `pip install my-lint`.\n\
             x\\x1b[2J could not check b\\x0a.py: bad\\x07\\x0areason.\n"
        );
    }

    #[test]
    fn a_file_not_sent_to_any_server_is_named_as_not_checked() {
        let mut big = unknown("", "big.py", Outcome::BinaryFile, 0);
        big.reason = "files over 2 MiB are not sent to servers".into();
        let mut blob = unknown("", "blob.py", Outcome::BinaryFile, 0);
        blob.reason = "binary content is not sent to servers".into();
        let mut bigger = big.clone();
        bigger.file = "bigger.py".into();
        assert_eq!(
            render_unknown(&[big, blob, bigger]),
            "Not checked: big.py and bigger.py (files over 2 MiB are not sent to servers).\n\
             Not checked: blob.py (binary content is not sent to servers).\n"
        );
    }

    #[test]
    fn nothing_unknown_renders_nothing() {
        assert_eq!(render_unknown(&[]), "");
    }

    #[test]
    fn one_line_per_server_and_ending() {
        let text = render_unknown(&[
            unknown("pyright", "app.py", Outcome::TimedOut, 3004),
            unknown("ruff", "app.py", Outcome::ServerDead, 12),
            unknown("pyright", "lib.py", Outcome::TimedOut, 2950),
        ]);
        assert_eq!(
            text,
            "pyright had not finished checking app.py and lib.py after 3 s; their diagnostics are unknown.\n\
             ruff stopped before it finished checking app.py; its diagnostics are unknown.\n"
        );
    }

    #[test]
    fn long_lists_are_cut_and_times_keep_tenths() {
        let files: Vec<Unknown> = ["a.go", "b.go", "c.go", "d.go", "e.go"]
            .iter()
            .map(|f| unknown("gopls", f, Outcome::TimedOut, 1460))
            .collect();
        assert_eq!(
            render_unknown(&files),
            "gopls had not finished checking a.go, b.go, c.go and 2 other files after 1.5 s; their diagnostics are unknown.\n"
        );
    }
}
