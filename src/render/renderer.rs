//! The text of the blocks: a section's header, each file's block within
//! the diagnostic-entry budget, and each entry, fix line and attribute
//! escaped as the options say.

use std::borrow::Cow;
use std::fmt::Write as _;

use quick_xml::escape::partial_escape;

use super::{Escape, Prepared, RenderOptions, ReportMode, noun, sanitize};
use crate::diagnostic::Diagnostic;

/// The output being built and the diagnostic-entry budget left.
pub(super) struct Renderer<'o> {
    pub(super) text: String,
    budget: usize,
    opts: &'o RenderOptions,
}

impl<'o> Renderer<'o> {
    pub(super) fn new<'a>(
        opts: &'o RenderOptions,
        files: impl Iterator<Item = &'a Prepared<'a>>,
    ) -> Self {
        // Room for every entry that can be shown, with its framing.
        let mut capacity = 0;
        let mut entries = 0;
        for file in files {
            capacity += 96 + file.file.len();
            for d in file.diagnostics.iter().take(opts.max_per_file) {
                if entries == opts.max_lines {
                    break;
                }
                entries += 1;
                capacity += 24 + d.message.len() + d.code.as_ref().map_or(0, |c| c.len() + 3);
            }
        }
        Renderer {
            text: String::with_capacity(capacity),
            budget: opts.max_lines,
            opts,
        }
    }

    /// Entries the next block may show.
    pub(super) fn room(&self) -> usize {
        self.opts.max_per_file.min(self.budget)
    }

    pub(super) fn header(&mut self, header: std::fmt::Arguments<'_>) {
        let _ = self.text.write_fmt(header);
        self.text.push('\n');
    }

    /// A header line, then each file's block (see [`Renderer::block`]).
    pub(super) fn section<'a, 'f: 'a>(
        &mut self,
        header: std::fmt::Arguments<'_>,
        files: impl IntoIterator<Item = &'a Prepared<'f>>,
        always: bool,
    ) {
        self.header(header);
        for file in files {
            self.block(file, always);
        }
    }

    /// Writes one file's block. Without `always` (an edited file's block), a
    /// file with no room left is skipped entirely, and the pre-existing
    /// diagnostics it leaves out are not counted in it.
    pub(super) fn block(&mut self, file: &Prepared<'_>, always: bool) {
        let room = self.room();
        if room == 0 && !always {
            return;
        }
        let shown = file.shown.min(room);
        self.budget -= shown;

        self.text.push_str("<diagnostics file=\"");
        push_attribute(&mut self.text, file.file);
        self.text.push_str("\">\n");
        let included = file
            .diagnostics
            .iter()
            .filter(|d| self.opts.include.contains(&d.severity));
        for d in included.take(shown) {
            push_entry(&mut self.text, d, self.opts.escape);
            if let Some(fix) = file.fixes.iter().find(|f| f.is_for(d)) {
                push_fix(&mut self.text, &fix.title, self.opts.escape);
            }
        }
        if file.shown > shown {
            let _ = writeln!(self.text, "... and {} more", file.shown - shown);
        }
        if always && self.opts.report == ReportMode::New && file.baseline_hidden > 0 {
            let n = file.baseline_hidden;
            let (noun, verb) = match (noun(self.opts), n) {
                ("errors", 1) => ("error", "is"),
                ("diagnostics", 1) => ("diagnostic", "is"),
                (plural, _) => (plural, "are"),
            };
            let _ = writeln!(
                self.text,
                "({n} {noun} from before this edit {verb} not shown)"
            );
        }
        self.text.push_str("</diagnostics>\n");
    }
}

/// `SEVERITY [line:col] message (code)`, continuation lines indented.
fn push_entry(text: &mut String, d: &Diagnostic, escape: Escape) {
    let _ = write!(text, "{} [{}:{}]", d.severity.label(), d.line, d.column);
    let message = sanitize::cut(&d.message, sanitize::MAX_MESSAGE_CHARS);
    let message = sanitize::controls(&message, &sanitize::LINE_BREAKS);
    let message = escaped(&message, escape);
    let mut lines = message
        .split(['\n', '\r'])
        .map(str::trim_end)
        .filter(|line| !line.trim_start().is_empty());
    if let Some(first) = lines.next() {
        text.push(' ');
        text.push_str(first.trim_start());
    }
    if let Some(code) = d.code.as_deref().filter(|c| !c.is_empty()) {
        let code = sanitize::cut(code, sanitize::MAX_CODE_CHARS);
        text.push_str(" (");
        text.push_str(&escaped(
            &sanitize::controls(&code, &sanitize::ONE_LINE),
            escape,
        ));
        text.push(')');
    }
    text.push('\n');
    for line in lines {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
}

/// `  fix: TITLE` under an entry: the title on one line, cut to
/// [`sanitize::MAX_CODE_CHARS`] times two, escaped as messages are.
fn push_fix(text: &mut String, title: &str, escape: Escape) {
    let title = sanitize::cut(title, 2 * sanitize::MAX_CODE_CHARS);
    let title = sanitize::controls(&title, &sanitize::ONE_LINE);
    text.push_str("  fix: ");
    text.push_str(escaped(title.trim(), escape).as_ref());
    text.push('\n');
}

/// What a server wrote, escaped as `escape` says (see [`Escape`]).
pub(super) fn escaped(text: &str, escape: Escape) -> Cow<'_, str> {
    match escape {
        Escape::Xml => partial_escape(text),
        Escape::Readable if text.contains("<diagnostics") || text.contains("</diagnostics") => {
            Cow::Owned(
                text.replace("</diagnostics", "&lt;/diagnostics")
                    .replace("<diagnostics", "&lt;diagnostics"),
            )
        }
        Escape::Readable => Cow::Borrowed(text),
    }
}

/// Escapes a value for a double-quoted attribute: `<`, `>`, `&` and `"`.
/// quick-xml's full `escape` would also turn `'` into `&apos;`, which no
/// double-quoted attribute needs and which makes paths harder to read.
fn push_attribute(text: &mut String, value: &str) {
    let escaped = partial_escape(sanitize::controls(value, &sanitize::ONE_LINE));
    if escaped.contains('"') {
        text.push_str(&escaped.replace('"', "&quot;"));
    } else {
        text.push_str(&escaped);
    }
}
