//! Roots a project declares: the directory that says which packages belong
//! together, so one server instance there can serve them all.
//!
//! A monorepo names its packages in one place — a root `tsconfig.json` with
//! `references`, a `package.json` `workspaces` list (npm, yarn), a
//! `pnpm-workspace.yaml`, a uv workspace (`[tool.uv.workspace]`). When a
//! server handles such a root (the registry says which declarations each
//! server accepts, from measurements in `docs/servers.md`), the instance runs
//! at the declaring directory instead of one per package: fewer processes,
//! less memory, and an edit's importers in other packages are in the same
//! instance's view. A file only counts as a member when it is under a
//! directory the declaration lists; a declaration that does not cover it is
//! passed over.

use std::path::{Path, PathBuf};

/// A way a project declares its packages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declaration {
    /// `tsconfig.json` whose `references` name the package's directory (or
    /// its tsconfig file).
    TsconfigReferences,
    /// `package.json` `workspaces` (a list, or `{"packages": [...]}`) or
    /// `pnpm-workspace.yaml` `packages`.
    NodeWorkspaces,
    /// `pyproject.toml` `[tool.uv.workspace]` `members` (minus `exclude`).
    UvWorkspace,
}

/// The nearest directory from `file` up to `workspace_root` that declares,
/// by one of `accepted`, a package containing `file`. `None` when none does.
/// Both paths should be canonical.
pub fn declared_root(
    file: &Path,
    workspace_root: &Path,
    accepted: &[Declaration],
) -> Option<PathBuf> {
    if accepted.is_empty() || !file.starts_with(workspace_root) {
        return None;
    }
    let start = if file.is_dir() { file } else { file.parent()? };
    start
        .ancestors()
        .take_while(|dir| dir.starts_with(workspace_root))
        .find(|dir| {
            accepted
                .iter()
                .any(|d| members(dir, *d).is_some_and(|m| m.covers(dir, file)))
        })
        .map(Path::to_path_buf)
}

/// The member patterns `dir` declares by `declaration`, if it declares any.
fn members(dir: &Path, declaration: Declaration) -> Option<Members> {
    match declaration {
        Declaration::TsconfigReferences => tsconfig_references(dir),
        Declaration::NodeWorkspaces => node_workspaces(dir),
        Declaration::UvWorkspace => uv_workspace(dir),
    }
}

/// Directory patterns relative to the declaring directory: `*` matches
/// within one path segment, `**` any number of segments; a pattern starting
/// with `!` excludes.
#[derive(Debug, Default)]
struct Members {
    include: Vec<String>,
    exclude: Vec<String>,
}

impl Members {
    fn covers(&self, root: &Path, file: &Path) -> bool {
        let Ok(rest) = file.strip_prefix(root) else {
            return false;
        };
        let parts: Vec<String> = rest
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        // A member directory is some prefix of the file's path.
        let under = |patterns: &[String]| {
            patterns.iter().any(|p| {
                let pattern: Vec<&str> = p
                    .split('/')
                    .filter(|s| !s.is_empty() && *s != ".")
                    .collect();
                (1..parts.len()).any(|n| glob_match(&pattern, &parts[..n]))
            })
        };
        under(&self.include) && !under(&self.exclude)
    }

    fn push(&mut self, pattern: &str) {
        let pattern = pattern.trim().trim_start_matches("./");
        match pattern.strip_prefix('!') {
            Some(rest) => self.exclude.push(rest.trim_start_matches("./").to_string()),
            None if !pattern.is_empty() => self.include.push(pattern.to_string()),
            None => {}
        }
    }

    fn declared(self) -> Option<Members> {
        (!self.include.is_empty()).then_some(self)
    }
}

/// Whether path segments `parts` match `pattern`'s segments.
fn glob_match(pattern: &[&str], parts: &[String]) -> bool {
    match pattern.split_first() {
        None => parts.is_empty(),
        Some((&"**", rest)) => (0..=parts.len()).any(|skip| glob_match(rest, &parts[skip..])),
        Some((first, rest)) => parts
            .split_first()
            .is_some_and(|(part, others)| segment_match(first, part) && glob_match(rest, others)),
    }
}

/// `*` within one segment (`pkg-*`, `*`); everything else literal.
fn segment_match(pattern: &str, name: &str) -> bool {
    let Some((head, tail)) = pattern.split_once('*') else {
        return pattern == name;
    };
    let Some(rest) = name.strip_prefix(head) else {
        return false;
    };
    (0..=rest.len())
        .filter(|&i| rest.is_char_boundary(i))
        .any(|i| segment_match(tail, &rest[i..]))
}

fn tsconfig_references(dir: &Path) -> Option<Members> {
    let text = std::fs::read_to_string(dir.join("tsconfig.json")).ok()?;
    let value: serde_json::Value = serde_json::from_str(&strip_jsonc(&text)).ok()?;
    let mut members = Members::default();
    for reference in value.get("references")?.as_array()? {
        let Some(path) = reference.get("path").and_then(|p| p.as_str()) else {
            continue;
        };
        // A reference names a directory or a tsconfig file in one.
        let path = path.trim_end_matches('/');
        let path = if path.ends_with(".json") {
            path.rsplit_once('/').map_or(".", |(d, _)| d)
        } else {
            path
        };
        // `references` may point outside with `..`; those are not members here.
        if path.split('/').any(|s| s == "..") || path == "." {
            continue;
        }
        members.push(path);
    }
    members.declared()
}

fn node_workspaces(dir: &Path) -> Option<Members> {
    let mut members = Members::default();
    if let Ok(text) = std::fs::read_to_string(dir.join("pnpm-workspace.yaml")) {
        for pattern in pnpm_packages(&text) {
            members.push(&pattern);
        }
    }
    if let Some(value) = std::fs::read_to_string(dir.join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
    {
        let list = match value.get("workspaces") {
            Some(serde_json::Value::Array(list)) => Some(list),
            Some(object) => object.get("packages").and_then(|p| p.as_array()),
            None => None,
        };
        for pattern in list.into_iter().flatten().filter_map(|p| p.as_str()) {
            members.push(pattern);
        }
    }
    members.declared()
}

/// The `packages:` list of a `pnpm-workspace.yaml`, read line by line (block
/// list or one-line flow list); other keys are ignored.
fn pnpm_packages(text: &str) -> Vec<String> {
    let unquote = |s: &str| {
        let s = s.split(" #").next().unwrap_or(s).trim();
        s.trim_matches(|c| c == '\'' || c == '"').to_string()
    };
    let mut out = Vec::new();
    let mut in_packages = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        if !line.starts_with([' ', '\t', '-']) {
            in_packages = false;
            if let Some(rest) = trimmed.strip_prefix("packages:") {
                let rest = rest.trim();
                if let Some(flow) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
                    out.extend(flow.split(',').map(unquote).filter(|s| !s.is_empty()));
                } else {
                    in_packages = rest.is_empty();
                }
            }
            continue;
        }
        if in_packages && let Some(item) = trimmed.strip_prefix('-') {
            out.push(unquote(item));
        }
    }
    out
}

fn uv_workspace(dir: &Path) -> Option<Members> {
    let text = std::fs::read_to_string(dir.join("pyproject.toml")).ok()?;
    let table: toml::Table = text.parse().ok()?;
    let workspace = table.get("tool")?.get("uv")?.get("workspace")?;
    let mut members = Members::default();
    let list = |key: &str| -> Vec<String> {
        workspace
            .get(key)
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    for pattern in list("members") {
        members.push(&pattern);
    }
    for pattern in list("exclude") {
        members.push(&format!("!{pattern}"));
    }
    members.declared()
}

/// JSON with comments and trailing commas (tsconfig's dialect) made plain
/// JSON: comments outside strings removed, commas before `]`/`}` dropped.
fn strip_jsonc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                '\\' => out.extend(chars.next()),
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for next in chars.by_ref() {
                    if next == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for next in chars.by_ref() {
                    if last == '*' && next == '/' {
                        break;
                    }
                    last = next;
                }
            }
            (',', _) => {
                let next = chars.clone().find(|n| !n.is_whitespace());
                if !matches!(next, Some(']') | Some('}')) {
                    out.push(c);
                }
            }
            _ => out.push(c),
        }
    }
    out
}
