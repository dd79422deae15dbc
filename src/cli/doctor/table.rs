//! Doctor's text output, a pure function of the reports: one aligned row per
//! server that was started, the compiler each runs on where it runs on the
//! project's, then the failures' errors in full, then the servers that are
//! not installed with the command that installs them.

use super::probe::{NAVIGATION, ServerReport, Status};

const HEADERS: [&str; 10] = [
    "server",
    "status",
    "version",
    "start",
    "diagnostics",
    "sync",
    "encoding",
    "first check",
    "navigation",
    "path",
];

pub fn render(reports: &[ServerReport]) -> String {
    let started: Vec<&ServerReport> = reports
        .iter()
        .filter(|r| matches!(r.status, Status::Working | Status::Failed))
        .collect();
    let mut out = String::new();
    if !started.is_empty() {
        let rows: Vec<[String; 10]> = started.iter().map(|r| row(r)).collect();
        let mut widths = HEADERS.map(str::len);
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let header = HEADERS.map(str::to_string);
        for row in std::iter::once(&header).chain(&rows) {
            let mut line = String::new();
            for (i, cell) in row.iter().enumerate() {
                line.push_str(cell);
                if i + 1 < row.len() {
                    let pad = widths[i] - cell.chars().count() + 2;
                    line.extend(std::iter::repeat_n(' ', pad));
                }
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
    }
    let compilers: Vec<_> = reports.iter().filter(|r| r.compiler.is_some()).collect();
    if !compilers.is_empty() {
        let width = compilers.iter().map(|r| r.id.len()).max().unwrap_or(0);
        out.push_str("\ncompiler (this workspace's):\n");
        for r in compilers {
            let compiler = r.compiler.as_deref().unwrap_or_default();
            out.push_str(&format!("  {:<width$}  {compiler}\n", r.id));
        }
    }
    let failed: Vec<_> = started
        .iter()
        .filter(|r| r.status == Status::Failed)
        .collect();
    if !failed.is_empty() {
        out.push_str("\nfailed:\n");
        for r in failed {
            let error = r.error.as_deref().unwrap_or("no detail");
            out.push_str(&format!("  {}: {}\n", r.id, indent(error.trim_end())));
        }
    }
    let untrusted: Vec<_> = reports
        .iter()
        .filter(|r| r.status == Status::Untrusted)
        .collect();
    if !untrusted.is_empty() {
        out.push_str("\nuntrusted (not started):\n");
        for r in untrusted {
            out.push_str(&format!(
                "  {}: {}\n",
                r.id,
                r.error.as_deref().unwrap_or_default()
            ));
        }
    }
    let missing: Vec<_> = reports
        .iter()
        .filter(|r| r.status == Status::NotInstalled)
        .collect();
    if !missing.is_empty() {
        let width = missing.iter().map(|r| r.id.len()).max().unwrap_or(0);
        out.push_str("\nnot installed:\n");
        for r in missing {
            let hint = r.install_hint.as_deref().unwrap_or_default();
            out.push_str(&format!("  {:<width$}  {hint}\n", r.id));
        }
    }
    if out.is_empty() {
        out.push_str("no servers selected\n");
    }
    out
}

fn row(r: &ServerReport) -> [String; 10] {
    let dash = || "-".to_string();
    let first_check = r.first_check.as_ref().map_or_else(dash, |c| {
        let found = if c.diagnostics > 0 {
            format!("yes ({})", c.diagnostics)
        } else {
            "no".into()
        };
        format!("{found}, {} {}ms", c.outcome, c.ms)
    });
    [
        r.id.clone(),
        r.status.as_str().into(),
        r.version.as_deref().map_or_else(dash, short_version),
        r.start_ms.map_or_else(dash, |ms| format!("{ms}ms")),
        r.diagnostics_mode.clone().unwrap_or_else(dash),
        r.sync.clone().unwrap_or_else(dash),
        r.position_encoding.clone().unwrap_or_else(dash),
        first_check,
        navigation(r),
        r.path.clone().unwrap_or_else(dash),
    ]
}

/// The version number out of a long version string ("Debian clangd version
/// 14.0.6 linux+grpc" → "14.0.6"; gopls's JSON build info → its `Version`),
/// at most 24 characters.
fn short_version(version: &str) -> String {
    let from_json = serde_json::from_str::<serde_json::Value>(version)
        .ok()
        .and_then(|v| v.get("Version")?.as_str().map(str::to_string));
    let version = from_json.as_deref().unwrap_or(version);
    let word = version
        .split_whitespace()
        .find(|word| word.starts_with(|c: char| c.is_ascii_digit()))
        .unwrap_or(version);
    match word.char_indices().nth(24) {
        Some((cut, _)) => format!("{}…", &word[..cut]),
        None => word.to_string(),
    }
}

/// "all", "none", or the shorter of "only: …" and "all but …".
fn navigation(r: &ServerReport) -> String {
    if r.status == Status::Failed && r.sync.is_none() {
        return "-".into();
    }
    let (has, lacks): (Vec<&str>, Vec<&str>) = NAVIGATION
        .iter()
        .map(|(name, _)| *name)
        .partition(|name| r.navigation.iter().any(|n| n == name));
    match (has.len(), lacks.len()) {
        (_, 0) => "all".into(),
        (0, _) => "none".into(),
        (h, l) if l <= h => format!("all but {}", lacks.join(", ")),
        _ => format!("only {}", has.join(", ")),
    }
}

/// Continuation lines of a multi-line error, indented under its first line.
fn indent(text: &str) -> String {
    text.replace('\n', "\n    ")
}

#[cfg(test)]
mod tests {
    use super::super::probe::FirstCheck;
    use super::*;

    fn report(id: &str, status: Status) -> ServerReport {
        ServerReport::named(id.into(), true, status)
    }

    #[test]
    fn renders_rows_failures_and_missing_servers() {
        let mut pyright = report("pyright", Status::Working);
        pyright.path = Some("/bin/pyright-langserver".into());
        pyright.version = Some("1.1.400".into());
        pyright.start_ms = Some(812);
        pyright.diagnostics_mode = Some("pull (dynamic)".into());
        pyright.sync = Some("incremental".into());
        pyright.position_encoding = Some("utf-16".into());
        pyright.first_check = Some(FirstCheck {
            file: "main.py".into(),
            diagnostics: 2,
            outcome: "pulled".into(),
            ms: 95,
        });
        pyright.navigation = NAVIGATION
            .iter()
            .map(|(n, _)| n.to_string())
            .filter(|n| n != "implementation")
            .collect();
        let mut broken = report("fake", Status::Failed);
        broken.path = Some("/bin/fake".into());
        broken.error = Some("fake is not running: crashed\nstderr line".into());
        let mut missing = report("jdtls", Status::NotInstalled);
        missing.install_hint = Some("brew install jdtls".into());
        let mut tsgo = report("tsgo", Status::Working);
        tsgo.compiler = Some("typescript 7.0.2 (project: /w/node_modules/typescript)".into());
        let expected = "\
server   status   version  start  diagnostics     sync         encoding  first check           navigation              path
pyright  working  1.1.400  812ms  pull (dynamic)  incremental  utf-16    yes (2), pulled 95ms  all but implementation  /bin/pyright-langserver
fake     failed   -        -      -               -            -         -                     -                       /bin/fake
tsgo     working  -        -      -               -            -         -                     none                    -

compiler (this workspace's):
  tsgo  typescript 7.0.2 (project: /w/node_modules/typescript)

failed:
  fake: fake is not running: crashed
    stderr line

not installed:
  jdtls  brew install jdtls
";
        let actual = render(&[pyright, broken, missing, tsgo]);
        assert_eq!(
            short_version("Debian clangd version 14.0.6 linux+grpc"),
            "14.0.6"
        );
        assert_eq!(short_version("v0.1.2"), "v0.1.2");
        assert_eq!(
            short_version(r#"{"GoVersion":"go1.19.5","Version":"master"}"#),
            "master"
        );
        assert_eq!(actual, expected, "expected:\n{expected}\nactual:\n{actual}");
    }
}
