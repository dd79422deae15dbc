//! Sizes: every file of `src/` (the binaries' too) at most [`MAX_LINES`]
//! lines, every function at most [`MAX_FN_LINES`] — past either, a file or
//! function is doing more than one job and is split by responsibility.
//! The functions allowed longer are tables of data, named below.

use std::path::{Path, PathBuf};

const MAX_LINES: usize = 400;
const MAX_FN_LINES: usize = 80;

/// Functions that are one table of data (each entry a few lines, no
/// logic between them), by file under `src/` and name.
const TABLES: &[(&str, &str)] = &[
    ("registry/servers/web.rs", "servers"),
    ("registry/servers/others.rs", "servers"),
    ("cli/doctor/samples.rs", "for_language"),
    ("mcp/catalog.rs", "specs"),
    ("bin/squiggle-bench/projects.rs", "all"),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Each function of `source` with its length in lines, from its `fn` line
/// to the brace that closes it at the same indentation.
fn functions(source: &str) -> Vec<(String, usize)> {
    let lines: Vec<&str> = source.lines().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let indent = line.len() - line.trim_start().len();
        let name = line
            .trim_start()
            .split("fn ")
            .nth(1)
            .filter(|_| is_fn_line(line.trim_start()))
            .and_then(|rest| rest.split(['(', '<']).next());
        let Some(name) = name.filter(|_| !line.trim_end().ends_with(';')) else {
            i += 1;
            continue;
        };
        let close = format!("{}}}", " ".repeat(indent));
        let end = (i + 1..lines.len())
            .find(|&j| lines[j] == close || lines[j].starts_with(&format!("{close} ")));
        let end = end.unwrap_or(i);
        found.push((name.to_string(), end - i + 1));
        i = end + 1;
    }
    found
}

/// Whether a trimmed line starts a function: `fn`, after visibility,
/// `async`, `const` or `unsafe`.
fn is_fn_line(trimmed: &str) -> bool {
    let mut rest = trimmed;
    loop {
        if let Some(r) = rest.strip_prefix("pub(") {
            rest = r.split_once(") ").map_or("", |(_, r)| r);
        } else if let Some(r) = ["pub ", "async ", "const ", "unsafe "]
            .iter()
            .find_map(|p| rest.strip_prefix(p))
        {
            rest = r;
        } else {
            return rest.starts_with("fn ");
        }
    }
}

#[test]
fn files_and_functions_stay_small() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 100, "only {} files read", files.len());
    let mut over = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).unwrap_or_default();
        let relative = file
            .strip_prefix(&src)
            .unwrap_or(file)
            .to_string_lossy()
            .replace('\\', "/");
        let count = source.lines().count();
        if count > MAX_LINES {
            over.push(format!("{relative}: {count} lines"));
        }
        for (name, length) in functions(&source) {
            let table = TABLES.contains(&(relative.as_str(), name.as_str()));
            if length > MAX_FN_LINES && !table {
                over.push(format!("{relative}: fn {name}, {length} lines"));
            }
        }
    }
    assert!(over.is_empty(), "too long:\n{}", over.join("\n"));
}

#[test]
fn a_function_is_measured_from_its_line_to_its_closing_brace() {
    let source = "fn a() {\n    x();\n}\n\n    pub(crate) async fn b<T>(\n        t: T,\n    ) -> u8 {\n        0\n    }\nfn c();\n";
    assert_eq!(
        functions(source),
        [("a".to_string(), 3), ("b".to_string(), 5)]
    );
}
