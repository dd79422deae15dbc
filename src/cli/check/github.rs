//! GitHub Actions workflow commands: one `::error …::message` line per
//! diagnostic, which the runner turns into an annotation on the pull
//! request's diff. Info and hint become `notice`.
//!
//! The runner reads `%`, `\r` and `\n` as escapes in the message, and also
//! `:` and `,` in property values (they would end the value), so those are
//! percent-encoded; nothing else is.

use std::fmt::Write as _;

use crate::diagnostic::{Diagnostic, Severity};

/// One command line (with `\n`) per diagnostic.
pub fn workflow_commands(diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let command = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info | Severity::Hint => "notice",
        };
        let title = match &d.code {
            Some(code) => format!("{} {code}", d.server),
            None => d.server.clone(),
        };
        let _ = writeln!(
            out,
            "::{command} file={},line={},col={},endLine={},endColumn={},title={}::{}",
            property(&d.file),
            d.line,
            d.column,
            d.end_line,
            d.end_column,
            property(&title),
            data(&d.message),
        );
    }
    out
}

fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_messages_and_properties() {
        let d = Diagnostic {
            file: "src/a,b:c.fk".into(),
            line: 3,
            column: 5,
            end_line: 4,
            end_column: 1,
            severity: Severity::Error,
            message: "100% wrong:\r\nsee, here".into(),
            code: Some("E:1".into()),
            source: None,
            server: "fake".into(),
        };
        assert_eq!(
            workflow_commands(&[d]),
            "::error file=src/a%2Cb%3Ac.fk,line=3,col=5,endLine=4,endColumn=1,title=fake E%3A1::100%25 wrong:%0D%0Asee, here\n"
        );
    }

    #[test]
    fn info_and_hint_are_notices() {
        let mut d = Diagnostic {
            file: "a.fk".into(),
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 2,
            severity: Severity::Hint,
            message: "m".into(),
            code: None,
            source: None,
            server: "fake".into(),
        };
        assert!(workflow_commands(std::slice::from_ref(&d)).starts_with("::notice file=a.fk,"));
        d.severity = Severity::Warning;
        assert!(workflow_commands(&[d]).starts_with("::warning "));
    }
}
