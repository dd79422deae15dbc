//! Rendering diagnostics into the text block the model reads after an edit.
//!
//! This is the one place that decides what the model sees, so it is a pure
//! function from data to text, covered by golden files (`golden/render/`).
//! Everything that can flood a context window is capped here, and everything
//! that could break the `<diagnostics>` framing is escaped here.
//!
//! The shape, for one edited file:
//!
//! ```text
//! LSP errors detected in this file, please fix:
//! <diagnostics file="src/utils.ts">
//! ERROR [42:5] Type 'string' is not assignable to type 'number'. (ts2322)
//! ... and 3 more
//! </diagnostics>
//!
//! LSP errors detected in other files:
//! <diagnostics file="src/app.ts">
//! ERROR [7:1] Cannot find name 'foo'. (ts2304)
//! </diagnostics>
//! ```
//!
//! Decisions worth knowing:
//!
//! - Every line ends with `\n`, the last one included; nothing to show is `""`.
//! - Only severities in `include` survive (default: errors). When anything
//!   besides errors is included, headers say `LSP diagnostics` instead of
//!   `LSP errors`.
//! - Several edited files (apply-patch) share the header
//!   `LSP errors detected in edited files, please fix:`; their blocks follow in
//!   the given order. Other files come after a blank line, sorted by path; a
//!   file that is also an edited file is not repeated there.
//! - `max_lines` counts diagnostic entries, not the `... and N more` line nor
//!   continuation lines. Edited files spend it first. An edited file that
//!   finds it spent still gets a block holding only `... and N more`, so the
//!   model never reads an edited file as clean; an other file is dropped.
//! - A multi-line message is one entry: the code goes at the end of its first
//!   line, and the following lines are indented by two more spaces. `\r` is a
//!   line break too, and blank lines are dropped.
//! - Messages and codes escape `<`, `>`, `&` (quotes stay, so the model reads
//!   `Type 'string'`); the `file` attribute also escapes `"`. Control
//!   characters but tab and line breaks are written as visible escapes
//!   (`\x1b`; in the attribute, line breaks too) in both modes, and one
//!   message is cut to 2,000 characters, a code to 100, before any cap
//!   counts (`sanitize`). With
//!   [`Escape::Readable`] (a channel nobody escapes, read as plain text)
//!   messages and codes keep their own characters, and only a `<diagnostics`
//!   or `</diagnostics` inside one is escaped, so the block stays delimited.
//! - [`render_reply`] is the whole reply after an edit, as every surface
//!   hands it over: the blocks, the line naming what is unknown, and the cut
//!   to `max_chars` (at a line boundary, an open block closed, then
//!   `... (truncated)`).
//! - [`ReportMode::New`]: the caller passes only the diagnostics the edit
//!   introduced, and `baseline_hidden` counts the pre-existing ones left out.
//!   The block ends with `(N errors from before this edit are not shown)`
//!   (`(1 error from before this edit is not shown)` for one). A
//!   file with no new diagnostics gets no block at all, even when
//!   `baseline_hidden > 0`: the mode exists to stay quiet about errors the
//!   edit did not cause, and "please fix" over nothing to fix would be noise.
//! - Other files' `baseline_hidden` (what the servers had reported there
//!   before the edit, left out by the caller) is not counted per block but
//!   in one line under them all: `3 errors in 2 other files were there
//!   before this edit`, written only when the reply shows something else.
//! - A fix the server offers for an entry (`FileDiagnostics::fixes`) is one
//!   line under it, `  fix: Add import "scale" from "./lib"`: one line,
//!   escaped as messages are, cut to 200 characters. Fix lines are not
//!   entries (`max_lines` does not count them); the reply's `max_chars`
//!   does.
//! - [`render_files`] (`lsp_diagnostics`, `check`) lists files sorted by path
//!   under `LSP errors detected in this file:` or `... in these files:`, with
//!   the per-file and total caps; `max_other_files` does not apply there.

use std::borrow::Cow;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

mod auto_fix;
mod cap;
mod hidden;
mod old_in_others;
mod options;
mod renderer;
pub mod sanitize;
mod unknown;

pub use auto_fix::{AutoFix, AutoFixOutcome, MAX_DIFF_LINES, render_auto_fixes, with_auto_fixes};
pub use cap::cap;
pub use hidden::{HiddenCount, hidden_line, with_hidden};
pub use options::{Escape, FileDiagnostics, FixNote, RenderOptions, RenderOverrides, ReportMode};
use renderer::{Renderer, escaped};
pub use unknown::{Unknown, render_unknown};

use old_in_others::OldInOthers;

use crate::diagnostic::{Diagnostic, Severity, sort_and_dedupe};

/// Renders feedback after an edit: the edited files first (in order), then
/// other files. Returns `""` when nothing survives the filter.
pub fn render_feedback(
    edited: &[FileDiagnostics],
    others: &[FileDiagnostics],
    opts: &RenderOptions,
) -> String {
    let edited_files = group(edited.iter().collect(), opts);
    let edited_names: HashSet<&str> = edited.iter().map(|e| e.file.as_str()).collect();
    let mut other_refs: Vec<&FileDiagnostics> = others
        .iter()
        .filter(|o| !edited_names.contains(o.file.as_str()))
        .collect();
    other_refs.sort_by(|a, b| a.file.cmp(&b.file));
    let old_in_others = OldInOthers::count(&other_refs);
    let other_files = group(other_refs, opts);

    let mut out = Renderer::new(opts, edited_files.iter().chain(&other_files));
    let noun = noun(opts);
    if !edited_files.is_empty() {
        let whom = if edited.len() > 1 {
            "edited files"
        } else {
            "this file"
        };
        let header = format_args!("LSP {noun} detected in {whom}, please fix:");
        out.section(header, &edited_files, true);
    }
    if !other_files.is_empty() && opts.max_other_files > 0 && out.room() > 0 {
        if !out.text.is_empty() {
            out.text.push('\n');
        }
        let shown = other_files.iter().take(opts.max_other_files);
        out.section(
            format_args!("LSP {noun} detected in other files:"),
            shown,
            false,
        );
    } else if !out.text.is_empty() && old_in_others.diagnostics > 0 {
        out.text.push('\n');
    }
    if !out.text.is_empty() {
        old_in_others.line(&mut out.text, noun);
    }
    out.text
}

/// The whole reply after an edit: [`render_feedback`]'s blocks, then (when
/// `opts.report_unknown` and something is unknown) a blank line and the
/// line naming what, all cut to `opts.max_chars`. Every surface's answer
/// after an edit is this text, rendered once where the check ran.
pub fn render_reply(
    edited: &[FileDiagnostics],
    others: &[FileDiagnostics],
    unknown: &[Unknown],
    opts: &RenderOptions,
) -> String {
    let mut text = render_feedback(edited, others, opts);
    if opts.report_unknown {
        let notes = render_unknown(unknown);
        if !notes.is_empty() {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&notes);
        }
    }
    match opts.max_chars {
        Some(max) => cap(text, max),
        None => text,
    }
}

/// Renders a listing of files with no notion of an edit (`lsp_diagnostics`,
/// `check`): one header, then the files sorted by path. Returns `""` when
/// nothing survives the filter.
pub fn render_files(files: &[FileDiagnostics], opts: &RenderOptions) -> String {
    let mut refs: Vec<&FileDiagnostics> = files.iter().collect();
    refs.sort_by(|a, b| a.file.cmp(&b.file));
    let files = group(refs, opts);

    let mut out = Renderer::new(opts, files.iter());
    if files.is_empty() || out.room() == 0 {
        return out.text;
    }
    let noun = noun(opts);
    let whom = if files.len() > 1 {
        "these files"
    } else {
        "this file"
    };
    out.section(
        format_args!("LSP {noun} detected in {whom}:"),
        &files,
        false,
    );
    out.text
}

fn noun(opts: &RenderOptions) -> &'static str {
    if opts.include.iter().any(|s| *s != Severity::Error) {
        "diagnostics"
    } else {
        "errors"
    }
}

/// A file ready to render: sorted, deduplicated, with the number of entries
/// that pass the severity filter.
struct Prepared<'a> {
    file: &'a str,
    diagnostics: Cow<'a, [Diagnostic]>,
    shown: usize,
    baseline_hidden: usize,
    fixes: Vec<&'a FixNote>,
}

/// Merges entries that name the same file (keeping first-seen order), sorts
/// and dedupes each, and drops files with nothing to show.
fn group<'a>(files: Vec<&'a FileDiagnostics>, opts: &RenderOptions) -> Vec<Prepared<'a>> {
    // One hash lookup per entry: comparing every entry with every other was
    // quadratic, 0.7 s for a server that reported 10,000 files at once.
    let mut same_file: Vec<Vec<&'a FileDiagnostics>> = Vec::new();
    let mut slot: HashMap<&'a str, usize> = HashMap::with_capacity(files.len());
    for file in files {
        match slot.entry(file.file.as_str()) {
            Entry::Occupied(at) => same_file[*at.get()].push(file),
            Entry::Vacant(at) => {
                at.insert(same_file.len());
                same_file.push(vec![file]);
            }
        }
    }
    same_file
        .into_iter()
        .filter_map(|same| {
            let first = same[0];
            let diagnostics = if same.len() == 1 && is_canonical(&first.diagnostics) {
                Cow::Borrowed(first.diagnostics.as_slice())
            } else {
                let mut all: Vec<Diagnostic> = same
                    .iter()
                    .flat_map(|f| f.diagnostics.iter().cloned())
                    .collect();
                sort_and_dedupe(&mut all);
                Cow::Owned(all)
            };
            let shown = diagnostics
                .iter()
                .filter(|d| opts.include.contains(&d.severity))
                .count();
            (shown > 0).then(|| Prepared {
                file: &first.file,
                diagnostics,
                shown,
                baseline_hidden: same.iter().map(|f| f.baseline_hidden).sum(),
                fixes: same.iter().flat_map(|f| &f.fixes).collect(),
            })
        })
        .collect()
}

/// Whether `sort_and_dedupe` would leave these diagnostics as they are, so
/// the common case (already sorted upstream) borrows instead of cloning.
fn is_canonical(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.windows(2).all(|pair| {
        let (a, b) = (&pair[0], &pair[1]);
        let ordered = a
            .sort_key()
            .cmp(&b.sort_key())
            .then_with(|| a.server.cmp(&b.server))
            .is_le();
        let duplicate = a.line == b.line
            && a.column == b.column
            && a.end_line == b.end_line
            && a.end_column == b.end_column
            && a.message == b.message;
        ordered && !duplicate
    })
}

#[cfg(test)]
mod tests;
