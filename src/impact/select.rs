//! Which symbols of a file's outline an impact call asks about: one named
//! by a name path, the ones other files can use (exported), or the ones a
//! diff's changed lines fall in. Pure functions over `document_symbols`.

use std::path::Path;

use crate::navigation::Symbol;

/// `Shape.area`: the symbol `area` whose container is `Shape`.
pub(super) fn by_name_path<'a>(outline: &'a [Symbol], path: &str) -> Option<&'a Symbol> {
    let mut parts = path.rsplit('.');
    let name = parts.next()?;
    let container = parts.next();
    outline
        .iter()
        .find(|s| s.name == name && (container.is_none() || s.container.as_deref() == container))
}

/// Whether a top-level symbol is visible to other files: not `_private`
/// in Python, `export`ed in TS/JS, capitalized in Go, `pub` in Rust; any
/// top-level symbol elsewhere.
pub(super) fn exported(path: &str, s: &Symbol) -> bool {
    if s.depth != 0 {
        return false;
    }
    let extension = Path::new(path)
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let line = s.location.text.trim_start();
    match extension.as_str() {
        "py" | "pyi" => !s.name.starts_with('_'),
        "ts" | "tsx" | "js" | "jsx" | "mjs" | "cjs" | "mts" | "cts" => line.starts_with("export"),
        "go" => s.name.chars().next().is_some_and(char::is_uppercase),
        "rs" => line.starts_with("pub"),
        _ => true,
    }
}

/// Symbol kinds that, nested, are parts of their container (a function's
/// local, a class's field) rather than something other files use.
const PARTS: &[&str] = &[
    "variable",
    "constant",
    "field",
    "property",
    "key",
    "string",
    "number",
    "boolean",
    "array",
    "object",
    "null",
    "type parameter",
];

/// The innermost symbols whose span holds one of `lines`; a change to a
/// function's local is the function's.
pub(super) fn changed_symbols<'a>(outline: &'a [Symbol], lines: &[u32]) -> Vec<&'a Symbol> {
    let mut found: Vec<&Symbol> = Vec::new();
    for &line in lines {
        let innermost = outline
            .iter()
            .filter(|s| s.depth == 0 || !PARTS.contains(&s.kind.as_str()))
            .filter(|s| s.location.line <= line && line <= s.end_line.max(s.location.line))
            .max_by_key(|s| s.depth);
        if let Some(s) = innermost
            && !found.iter().any(|f| std::ptr::eq(*f, s))
        {
            found.push(s);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::navigation::Location;

    fn symbol(name: &str, kind: &str, depth: u32, lines: (u32, u32), text: &str) -> Symbol {
        Symbol {
            name: name.into(),
            kind: kind.into(),
            detail: None,
            container: None,
            depth,
            location: Location {
                path: "f".into(),
                line: lines.0,
                column: 1,
                end_line: lines.0,
                end_column: 1,
                text: text.into(),
                outside: false,
            },
            end_line: lines.1,
        }
    }

    #[test]
    fn a_change_to_a_local_is_its_function_and_each_symbol_counts_once() {
        let outline = [
            symbol("f", "function", 0, (1, 5), "def f():"),
            symbol("total", "variable", 1, (2, 2), "total = 1"),
            symbol("C", "class", 0, (7, 12), "class C:"),
            symbol("m", "method", 1, (9, 12), "def m(self):"),
        ];
        let names = |lines: &[u32]| -> Vec<String> {
            changed_symbols(&outline, lines)
                .iter()
                .map(|s| s.name.clone())
                .collect()
        };
        assert_eq!(names(&[2, 3]), ["f"]);
        assert_eq!(names(&[8, 10, 11]), ["C", "m"]);
        assert_eq!(names(&[6, 20]), Vec::<String>::new());
    }

    #[test]
    fn exported_by_each_language_convention() {
        let top = |name: &str, text: &str| symbol(name, "function", 0, (1, 1), text);
        assert!(exported("a.py", &top("area", "def area():")));
        assert!(!exported("a.py", &top("_hidden", "def _hidden():")));
        assert!(exported("a.ts", &top("add", "export function add() {")));
        assert!(!exported("a.ts", &top("zero", "function zero() {")));
        assert!(exported("a.go", &top("Area", "func Area() {")));
        assert!(!exported("a.go", &top("area", "func area() {")));
        assert!(exported("a.rs", &top("area", "pub fn area() {")));
        assert!(!exported("a.rs", &top("area", "fn area() {")));
        let nested = symbol("m", "method", 1, (2, 2), "def m(self):");
        assert!(!exported("a.py", &nested));
    }
}
