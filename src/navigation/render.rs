//! Compact text for the model: one location per line as `path:line:col`
//! and the trimmed source line; outlines indented by depth; long lists end
//! with `… and N more`.

use std::fmt::Write;

use super::{Location, Symbol};

/// `path:line:col` with the outside marker.
pub fn position(l: &Location) -> String {
    let mut out = format!("{}:{}:{}", l.path, l.line, l.column);
    if l.outside {
        out.push_str(" (outside the workspace)");
    }
    out
}

fn location_line(l: &Location) -> String {
    if l.text.is_empty() {
        position(l)
    } else {
        format!("{}  {}", position(l), l.text)
    }
}

fn more(out: &mut String, shown: usize, total: usize) {
    if total > shown {
        let _ = writeln!(out, "… and {} more", total - shown);
    }
}

/// A header, then one line per location.
pub fn render_locations(header: &str, locations: &[Location], total: usize) -> String {
    let mut out = format!("{header}\n");
    for l in locations {
        let _ = writeln!(out, "{}", location_line(l));
    }
    more(&mut out, locations.len(), total);
    out.trim_end().to_string()
}

/// An outline (`with_paths` false: one file) or a search result.
pub fn render_symbols(header: &str, symbols: &[Symbol], total: usize, with_paths: bool) -> String {
    let mut out = format!("{header}\n");
    for s in symbols {
        let indent = "  ".repeat(s.depth as usize);
        let _ = write!(out, "{indent}{} {}", s.kind, s.name);
        if let Some(detail) = s.detail.as_deref().filter(|d| d.len() <= 80) {
            let _ = write!(out, " {detail}");
        }
        if with_paths {
            if let Some(container) = &s.container {
                let _ = write!(out, " (in {container})");
            }
            let _ = writeln!(out, "  {}", position(&s.location));
        } else if s.end_line > s.location.line {
            let _ = writeln!(out, "  lines {}-{}", s.location.line, s.end_line);
        } else {
            let _ = writeln!(out, "  line {}", s.location.line);
        }
    }
    more(&mut out, symbols.len(), total);
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(path: &str, line: u32, text: &str, outside: bool) -> Location {
        Location {
            path: path.into(),
            line,
            column: 5,
            end_line: line,
            end_column: 8,
            text: text.into(),
            outside,
        }
    }

    #[test]
    fn locations_render_one_per_line_with_cap() {
        let got = render_locations(
            "2 references:",
            &[
                loc("a.py", 3, "def foo():", false),
                loc("/usr/lib/x.py", 1, "", true),
            ],
            5,
        );
        assert_eq!(
            got,
            "2 references:\na.py:3:5  def foo():\n/usr/lib/x.py:1:5 (outside the workspace)\n… and 3 more"
        );
    }

    #[test]
    fn outlines_indent_by_depth() {
        let sym = |name: &str, kind: &str, depth, line, end_line| Symbol {
            name: name.into(),
            kind: kind.into(),
            detail: None,
            container: None,
            depth,
            location: loc("a.py", line, "", false),
            end_line,
        };
        let got = render_symbols(
            "Symbols in a.py:",
            &[sym("A", "class", 0, 1, 9), sym("m", "method", 1, 2, 2)],
            2,
            false,
        );
        assert_eq!(
            got,
            "Symbols in a.py:\nclass A  lines 1-9\n  method m  line 2"
        );
    }
}
