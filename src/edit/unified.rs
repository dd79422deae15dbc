//! Parses unified diffs: `git diff` output (with its extended headers,
//! `a/` `b/` prefixes, renames and `/dev/null` adds and deletes) and plain
//! `diff -u` output, one or many files.
//!
//! Hunk bodies are read by the counts in their `@@` header, which is what
//! lets a removed line such as `--- x` be told apart from the next file's
//! header. Agents do get counts wrong, so a body that ends early at an
//! obvious boundary is accepted, and a header with no numbers at all is read
//! up to the next boundary and located by its context alone.

use super::git_diff_text::{self, hunk_ranges};
use super::{EditError, FilePatch, Hunk, HunkLine, Patch, patch_lines};

const DEV_NULL: &str = "/dev/null";

pub(super) fn parse(text: &str) -> Result<Patch, EditError> {
    let lines = patch_lines(text);
    let mut files = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].starts_with("diff --git ") || starts_file_headers(&lines, i) {
            let (file, next) = parse_file(&lines, i)?;
            files.extend(file);
            i = next;
        } else {
            // Commit messages, `diff -u a b` command lines, `Only in` notes.
            i += 1;
        }
    }
    Ok(Patch { files })
}

fn starts_file_headers(lines: &[&str], i: usize) -> bool {
    lines.get(i).is_some_and(|line| line.starts_with("--- "))
        && lines
            .get(i + 1)
            .is_some_and(|next| next.starts_with("+++ "))
}

fn parse_error(index: usize, message: impl Into<String>) -> EditError {
    EditError::Parse {
        line: index + 1,
        message: message.into(),
    }
}

#[derive(Default)]
struct Header {
    git: bool,
    git_paths: Option<(String, String)>,
    old: Option<String>,
    new: Option<String>,
    rename_from: Option<String>,
    rename_to: Option<String>,
    new_file: bool,
    deleted: bool,
}

/// Parses one file section starting at `start`; returns it (none for a
/// mode-only change) and the index after it.
fn parse_file(lines: &[&str], start: usize) -> Result<(Option<FilePatch>, usize), EditError> {
    let mut header = Header::default();
    let mut i = start;
    if let Some(rest) = lines[i].strip_prefix("diff --git ") {
        header.git = true;
        header.git_paths = split_git_paths(rest);
        i += 1;
        while let Some(line) = lines.get(i) {
            if let Some(path) = line.strip_prefix("rename from ") {
                header.rename_from = Some(unquote(path));
            } else if let Some(path) = line.strip_prefix("rename to ") {
                header.rename_to = Some(unquote(path));
            } else if line.starts_with("new file mode") {
                header.new_file = true;
            } else if line.starts_with("deleted file mode") {
                header.deleted = true;
            } else if line.starts_with("copy from ") || line.starts_with("copy to ") {
                return Err(parse_error(
                    i,
                    "file copies are not supported; send the copy as an added file",
                ));
            } else if line.starts_with("GIT binary patch") || line.starts_with("Binary files ") {
                return Err(parse_error(
                    i,
                    "binary patches are not supported; edit text files only",
                ));
            } else if ![
                "index ",
                "old mode ",
                "new mode ",
                "similarity index ",
                "dissimilarity index ",
            ]
            .iter()
            .any(|prefix| line.starts_with(prefix))
            {
                break;
            }
            i += 1;
        }
    }
    if starts_file_headers(lines, i) {
        header.old = file_path(&lines[i][4..]);
        header.new = file_path(&lines[i + 1][4..]);
        i += 2;
    }

    let mut hunks = Vec::new();
    while lines.get(i).is_some_and(|line| line.starts_with("@@")) {
        let (hunk, next) = parse_hunk(lines, i)?;
        hunks.push(hunk);
        i = next;
    }
    if let Some(line) = lines.get(i)
        && (line.starts_with(' ')
            || line.starts_with('+')
            || (line.starts_with('-') && *line != "-- "))
        && !line.starts_with("--- ")
    {
        return Err(parse_error(
            i,
            "hunk has more lines than its @@ header counts; fix the counts or regenerate the diff",
        ));
    }
    let file = build_file(header, hunks, start)?;
    Ok((file, i))
}

fn build_file(
    header: Header,
    hunks: Vec<Hunk>,
    start: usize,
) -> Result<Option<FilePatch>, EditError> {
    let strip = |path: Option<String>, prefix: &str| {
        let path = path?;
        if path == DEV_NULL {
            return Some(path);
        }
        Some(match path.strip_prefix(prefix) {
            Some(stripped) if header.git || both_prefixed(&header) => stripped.to_string(),
            _ => path,
        })
    };
    let (git_old, git_new) = header.git_paths.clone().unzip();
    let old = header
        .rename_from
        .clone()
        .or(strip(header.old.clone(), "a/"))
        .or(git_old);
    let new = header
        .rename_to
        .clone()
        .or(strip(header.new.clone(), "b/"))
        .or(git_new);
    let (Some(old), Some(new)) = (old, new) else {
        return Err(parse_error(
            start,
            "cannot tell which file this section changes; add `---` and `+++` lines",
        ));
    };

    if old == DEV_NULL || header.new_file {
        let mut content = String::new();
        for line in hunks.iter().flat_map(|hunk| hunk.new_lines()) {
            content.push_str(line);
            content.push('\n');
        }
        if hunks.last().is_some_and(|hunk| hunk.new_missing_newline) {
            content.pop();
        }
        return Ok(Some(FilePatch::Add { path: new, content }));
    }
    if new == DEV_NULL || header.deleted {
        return Ok(Some(FilePatch::Delete { path: old }));
    }
    let move_to = (new != old).then_some(new);
    if hunks.is_empty() && move_to.is_none() {
        return Ok(None);
    }
    Ok(Some(FilePatch::Update {
        path: old,
        move_to,
        hunks,
    }))
}

fn both_prefixed(header: &Header) -> bool {
    let prefixed = |path: &Option<String>, prefix| {
        path.as_deref()
            .is_none_or(|p| p == DEV_NULL || p.starts_with(prefix))
    };
    prefixed(&header.old, "a/") && prefixed(&header.new, "b/")
}

/// Parses the hunk whose `@@` line is at `start`.
fn parse_hunk(lines: &[&str], start: usize) -> Result<(Hunk, usize), EditError> {
    let header_line = lines[start];
    let counts = parse_ranges(header_line);
    if counts.is_none() && header_line.contains(" -") {
        return Err(parse_error(
            start,
            format!("malformed hunk header `{header_line}`; expected `@@ -l,s +l,s @@`"),
        ));
    }
    let mut hunk = Hunk {
        header: header_line.to_string(),
        ..Hunk::default()
    };
    // Without counts, read up to the next boundary.
    let (mut old_left, mut new_left) = match counts {
        Some((old_start, old_count, new_count)) => {
            hunk.old_start = Some(old_start);
            (old_count, new_count)
        }
        None => (usize::MAX, usize::MAX),
    };
    let mut i = start + 1;
    while let Some(&line) = lines.get(i) {
        let done = old_left == 0 && new_left == 0;
        if line.starts_with('\\') {
            no_newline_marker(&mut hunk, i)?;
            i += 1;
            continue;
        }
        // With counts, `--- x` / `+++ y` are body lines while the counts
        // allow them; without, they start the next file.
        let next_file = counts.is_none() && starts_file_headers(lines, i);
        if done || next_file || line.starts_with("@@") || line.starts_with("diff ") {
            break;
        }
        let parsed = match line.chars().next() {
            Some(' ') => HunkLine::Context(line[1..].to_string()),
            // Editors and agents strip the space of an empty context line.
            None => HunkLine::Context(String::new()),
            Some('-') if old_left > 0 => HunkLine::Remove(line[1..].to_string()),
            Some('+') if new_left > 0 => HunkLine::Add(line[1..].to_string()),
            _ => break,
        };
        match parsed {
            HunkLine::Context(_) => {
                old_left = old_left.saturating_sub(1);
                new_left = new_left.saturating_sub(1);
            }
            HunkLine::Remove(_) => old_left -= 1,
            HunkLine::Add(_) => new_left -= 1,
        }
        hunk.lines.push(parsed);
        i += 1;
    }
    if counts.is_none() {
        // A bare `@@` read greedily may have swallowed trailing blank lines.
        while hunk.lines.last() == Some(&HunkLine::Context(String::new()))
            && lines[i - 1].is_empty()
        {
            hunk.lines.pop();
            i -= 1;
        }
    }
    if hunk.lines.is_empty() {
        return Err(parse_error(
            start,
            format!("hunk `{header_line}` has no lines"),
        ));
    }
    Ok((hunk, i))
}

/// A `\\ No newline at end of file` marker at line `i`: the side of the
/// hunk line before it lacks its final newline (both, after context).
fn no_newline_marker(hunk: &mut Hunk, i: usize) -> Result<(), EditError> {
    match hunk.lines.last() {
        Some(HunkLine::Remove(_)) => hunk.old_missing_newline = true,
        Some(HunkLine::Add(_)) => hunk.new_missing_newline = true,
        Some(HunkLine::Context(_)) => {
            hunk.old_missing_newline = true;
            hunk.new_missing_newline = true;
        }
        None => {
            return Err(parse_error(
                i,
                "`\\ No newline at end of file` before any hunk line",
            ));
        }
    }
    Ok(())
}

/// `@@ -l[,s] +l[,s] @@ ...` → (old start, old count, new count).
fn parse_ranges(header: &str) -> Option<(usize, usize, usize)> {
    let r = hunk_ranges(header)?;
    Some((r.old_start, r.old_count, r.new_count))
}

/// The path of a `---`/`+++` line: quoted or not, without a `diff -u`
/// timestamp.
fn file_path(text: &str) -> Option<String> {
    let path = if text.starts_with('"') {
        unquote(text)
    } else {
        text.split('\t').next()?.trim_end().to_string()
    };
    (!path.is_empty()).then_some(path)
}

/// Splits `a/x b/y` from a `diff --git` line; used only when no other
/// header names the files (new empty files, pure renames use `rename`).
fn split_git_paths(rest: &str) -> Option<(String, String)> {
    if let Some(quoted) = rest.strip_prefix('"') {
        let end = quoted.find("\" ")? + 2;
        let old = unquote(&rest[..end]);
        let new = unquote(rest[end..].trim_start());
        return Some((
            old.strip_prefix("a/")?.to_string(),
            new.strip_prefix("b/")?.to_string(),
        ));
    }
    // Same path on both sides: `a/N b/N`.
    let half = rest.len() / 2;
    if rest.len() % 2 == 1 && rest.is_char_boundary(half) && rest[half..].starts_with(" b/") {
        let (old, new) = (&rest[..half], &rest[half + 1..]);
        if old.strip_prefix("a/") == new.strip_prefix("b/") {
            return Some((old[2..].to_string(), new[2..].to_string()));
        }
    }
    let (old, new) = rest.rsplit_once(" b/")?;
    Some((old.strip_prefix("a/")?.to_string(), new.to_string()))
}

/// Undoes git's C-style quoting of unusual paths (`"a/sp\303\251cial"`);
/// an unquoted path as it is.
fn unquote(text: &str) -> String {
    match git_diff_text::unquote(text) {
        Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests;
