//! The part of `tsconfig.json` / `jsconfig.json` that decides where a bare
//! specifier points: `compilerOptions.baseUrl` and `paths`, followed
//! through relative `extends` (a string or, since TypeScript 5.0, a list),
//! read as JSONC (comments, trailing commas) like `tsc` reads it.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// How many `extends` links are followed.
const MAX_EXTENDS: usize = 5;

/// The resolved alias settings of one config.
#[derive(Debug, Default, Clone)]
pub(super) struct TsConfig {
    base_url: Option<PathBuf>,
    /// `(pattern, substitutions)` with the directory substitutions are
    /// relative to (baseUrl if set, else the config that defined `paths`).
    paths: Paths,
    paths_base: Option<PathBuf>,
}

impl TsConfig {
    /// The config in `file` with what it `extends`, every file read added
    /// to `read`; `None` when it cannot be read or parsed (resolution then
    /// goes on with relative specifiers only).
    pub fn load(file: &Path, read: &mut Vec<PathBuf>) -> Option<TsConfig> {
        let raw = load_raw(file, 0, read)?;
        let paths_base = raw
            .base_url
            .clone()
            .or(raw.paths.as_ref().map(|p| p.1.clone()));
        Some(TsConfig {
            base_url: raw.base_url,
            paths: raw.paths.map(|p| p.0).unwrap_or_default(),
            paths_base,
        })
    }

    /// Where a non-relative specifier may point, in the order TypeScript
    /// tries them: the best `paths` pattern's substitutions, then baseUrl.
    pub fn bases(&self, spec: &str) -> Vec<PathBuf> {
        let mut out = Vec::new();
        if let Some(base) = &self.paths_base {
            let best = self
                .paths
                .iter()
                .filter_map(|(pattern, subs)| Some((matches(pattern, spec)?, pattern, subs)))
                .max_by_key(|(_, pattern, _)| match pattern.find('*') {
                    None => usize::MAX,
                    Some(star) => star,
                });
            if let Some((captured, _, subs)) = best {
                out.extend(subs.iter().map(|s| base.join(s.replacen('*', captured, 1))));
            }
        }
        if let Some(base_url) = &self.base_url {
            out.push(base_url.join(spec));
        }
        out
    }

    /// The specifiers a wildcard `paths` pattern would map onto `target`
    /// (`@mono/*` → `packages/*/src/index.ts` names `packages/a/src/index.ts`
    /// as `@mono/a`): the words a monorepo's importers use for it. A
    /// substitution without an extension is tried against the target
    /// without its extension and, for an `index` file, its directory.
    pub fn wildcard_specifiers(&self, target: &Path) -> Vec<String> {
        let Some(base) = &self.paths_base else {
            return Vec::new();
        };
        let full = crate::platform::paths::forward_slashes(target);
        let mut forms = vec![full.to_string()];
        if let Some(dot) = full
            .rfind('.')
            .filter(|&d| d > full.rfind('/').unwrap_or(0))
        {
            let stem = &full[..dot];
            forms.push(stem.to_string());
            if let Some(dir) = stem.strip_suffix("/index") {
                forms.push(dir.to_string());
            }
        }
        let mut out = Vec::new();
        for (pattern, subs) in &self.paths {
            if !pattern.contains('*') {
                continue;
            }
            for sub in subs {
                let joined = crate::platform::paths::forward_slashes(&base.join(sub));
                let Some((pre, post)) = joined.split_once('*') else {
                    continue;
                };
                for form in &forms {
                    if form.len() > pre.len() + post.len()
                        && form.starts_with(pre)
                        && form.ends_with(post)
                    {
                        let captured = &form[pre.len()..form.len() - post.len()];
                        out.push(pattern.replacen('*', captured, 1));
                    }
                }
            }
        }
        out
    }

    /// The `paths` patterns without a wildcard: specifiers that need not
    /// contain the target's name.
    pub fn exact_aliases(&self) -> impl Iterator<Item = &str> {
        self.paths
            .iter()
            .map(|(p, _)| p.as_str())
            .filter(|p| !p.contains('*'))
    }
}

/// What `spec` captures for `*` when it matches `pattern` (`""` for an
/// exact match).
fn matches<'a>(pattern: &str, spec: &'a str) -> Option<&'a str> {
    match pattern.split_once('*') {
        None => (pattern == spec).then_some(""),
        Some((prefix, suffix)) => {
            if spec.len() >= prefix.len() + suffix.len()
                && spec.starts_with(prefix)
                && spec.ends_with(suffix)
            {
                spec.get(prefix.len()..spec.len() - suffix.len())
            } else {
                None
            }
        }
    }
}

/// `paths` patterns and their substitutions, in file order.
type Paths = Vec<(String, Vec<String>)>;

struct Raw {
    base_url: Option<PathBuf>,
    /// With the directory of the config that defined them.
    paths: Option<(Paths, PathBuf)>,
}

fn load_raw(file: &Path, depth: usize, read: &mut Vec<PathBuf>) -> Option<Raw> {
    read.push(file.to_path_buf());
    let text = super::walk::read_config(file)?;
    let value: Value = serde_json::from_str(&strip_jsonc(&text)).ok()?;
    let dir = file.parent()?.to_path_buf();
    let options = value.get("compilerOptions");
    let base_url = options
        .and_then(|o| o.get("baseUrl"))
        .and_then(Value::as_str)
        .map(|b| super::walk::normalize(&dir.join(b)));
    let paths = options
        .and_then(|o| o.get("paths"))
        .and_then(Value::as_object)
        .map(|map| {
            let list = map
                .iter()
                .map(|(k, v)| {
                    let subs = v.as_array().into_iter().flatten();
                    let subs = subs.filter_map(Value::as_str).map(str::to_string);
                    (k.clone(), subs.collect())
                })
                .collect();
            (list, dir.clone())
        });
    let mut raw = Raw { base_url, paths };
    if depth >= MAX_EXTENDS {
        return Some(raw);
    }
    let parents: Vec<&str> = match value.get("extends") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    // Later entries of an `extends` list override earlier ones; the file
    // itself overrides them all.
    for parent in parents.iter().rev() {
        // Relative or rooted (`/x`, and `C:\x` on Windows), as TypeScript
        // reads it; anything else names a package.
        if !(parent.starts_with('.') || Path::new(parent).has_root()) {
            continue;
        }
        let mut path = dir.join(parent);
        // Whether this one exists decides which file is read.
        read.push(path.clone());
        if !path.is_file() && path.extension().is_none_or(|e| e != "json") {
            path.as_mut_os_string().push(".json");
        }
        if let Some(base) = load_raw(&path, depth + 1, read) {
            raw.base_url = raw.base_url.or(base.base_url);
            raw.paths = raw.paths.or(base.paths);
        }
    }
    Some(raw)
}

/// `text` with comments removed and trailing commas dropped, strings kept.
pub(super) fn strip_jsonc(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(bytes.len());
                out.extend_from_slice(&bytes[start..i]);
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i = (i + 2).min(bytes.len());
            }
            b'}' | b']' => {
                while out.last().is_some_and(|c| c.is_ascii_whitespace()) {
                    out.pop();
                }
                if out.last() == Some(&b',') {
                    out.pop();
                }
                out.push(bytes[i]);
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
