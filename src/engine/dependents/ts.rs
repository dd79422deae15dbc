//! TypeScript and JavaScript importers: every `import … from "…"`,
//! `export … from "…"`, `import "…"`, dynamic `import("…")` and
//! `require("…")` whose specifier resolves to the edited file the way
//! TypeScript's bundler/node resolution does: relative to the importing
//! file, with the source extensions tried in TypeScript's order, a `.js`
//! specifier naming its `.ts` source, and a directory meaning its `index`;
//! bare specifiers through the nearest tsconfig/jsconfig `paths` and
//! `baseUrl`. Packages in `node_modules` are never the edited file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::tsconfig::TsConfig;
use super::walk::{Needles, Reader, Tree, normalize};

const CONFIG_NAMES: &[&str] = &["tsconfig.json", "jsconfig.json"];

/// Extensions tried after a specifier, in TypeScript's order.
const EXTENSIONS: &[&str] = &[
    ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mts", ".d.mts", ".cts", ".d.cts", ".mjs", ".cjs",
];

/// A JavaScript extension in a specifier and the sources it may name.
const JS_TO_TS: &[(&str, &[&str])] = &[
    (".js", &[".ts", ".tsx", ".d.ts"]),
    (".jsx", &[".tsx", ".d.ts"]),
    (".mjs", &[".mts", ".d.mts"]),
    (".cjs", &[".cts", ".d.cts"]),
];

/// How many re-export hubs deep importers are followed: a file that
/// `export … from`s the edited one passes its changes on to its own
/// importers (immer's `src/internal.ts` re-exports every module).
const REEXPORT_DEPTH: usize = 3;

pub(super) fn importers(
    reader: &mut Reader,
    edited: &Path,
    root: &Path,
    keep: &dyn Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let tree = Tree::walk(reader, root, edited, CONFIG_NAMES, "ts", keep);
    let configs = Configs::new(&tree.configs, reader);
    let mut found: Vec<PathBuf> = Vec::new();
    let mut direct = None;
    let mut targets = vec![edited.to_path_buf()];
    for _ in 0..=REEXPORT_DEPTH {
        let mut hubs = Vec::new();
        for target in &targets {
            for (file, reexports) in direct_importers(reader, target, root, &tree, &configs) {
                if file == edited || found.contains(&file) {
                    continue;
                }
                if reexports {
                    hubs.push(file.clone());
                }
                found.push(file);
            }
        }
        // The edited file's own importers; the rest come through hubs.
        direct = direct.or(Some(found.len()));
        if hubs.is_empty() || found.len() >= super::MAX_DEPENDENTS {
            break;
        }
        targets = hubs;
    }
    if found.len() > super::MAX_DEPENDENTS {
        let direct = direct.unwrap_or(found.len());
        naming_exports_first(reader, edited, &mut found, direct);
    }
    found
}

/// Reorders the importers reached through re-export hubs (`found[direct..]`)
/// so that those naming one of the edited file's exports come first: when
/// more files import a hub (a package's `index.ts`) than are checked,
/// they are the ones the edit breaks by name. The direct importers keep
/// their place ahead of them.
fn naming_exports_first(
    reader: &mut Reader,
    edited: &Path,
    found: &mut Vec<PathBuf>,
    direct: usize,
) {
    let names = edited_exports(reader, edited);
    if names.is_empty() || direct >= found.len() {
        return;
    }
    let needles = Needles::new(&names);
    let through_hubs = found.split_off(direct);
    let (naming, others): (Vec<PathBuf>, Vec<PathBuf>) = through_hubs
        .into_iter()
        .partition(|f| reader.head(f).is_some_and(|h| needles.any_in(h)));
    found.extend(naming);
    found.extend(others);
}

/// What the edited file exports, from its head (see [`export_names`]).
pub(super) fn edited_exports(reader: &mut Reader, edited: &Path) -> Vec<String> {
    reader
        .head(edited)
        .map(|h| export_names(&String::from_utf8_lossy(h)))
        .unwrap_or_default()
}

/// The names `text` exports by declaration (`export function f`, `export
/// class C`, `export const a`, …) and by list (`export { a, b as c }`),
/// sorted; `default` is not a name an importer writes.
pub(super) fn export_names(text: &str) -> Vec<String> {
    const MODIFIERS: &[&str] = &["declare", "abstract", "async"];
    const KINDS: &[&str] = &[
        "function",
        "class",
        "const",
        "let",
        "var",
        "interface",
        "type",
        "enum",
        "namespace",
    ];
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut names = Vec::new();
    for (at, _) in text.match_indices("export") {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| is_ident(c) || c == '.') {
            continue;
        }
        let mut rest = text[at + 6..].trim_start();
        if let Some(list) = rest.strip_prefix('{') {
            let list = list.split('}').next().unwrap_or("");
            for item in list.split(',') {
                let exported = item.split(" as ").last().unwrap_or("").trim();
                if !exported.is_empty() && exported.chars().all(is_ident) {
                    names.push(exported.to_string());
                }
            }
            continue;
        }
        let mut words = std::iter::from_fn(|| {
            let word: String = rest.chars().take_while(|c| is_ident(*c)).collect();
            rest = rest[word.len()..].trim_start_matches(|c: char| c.is_whitespace() || c == '*');
            (!word.is_empty()).then_some(word)
        });
        let mut word = words.next();
        while word.as_deref().is_some_and(|w| MODIFIERS.contains(&w)) {
            word = words.next();
        }
        if word.as_deref().is_some_and(|w| KINDS.contains(&w))
            && let Some(name) = words.next()
        {
            names.push(name);
        }
    }
    names.sort();
    names.dedup();
    names
}

/// The files importing `target`, each with whether it re-exports it.
fn direct_importers(
    reader: &mut Reader,
    target: &Path,
    root: &Path,
    tree: &Tree,
    configs: &Configs,
) -> Vec<(PathBuf, bool)> {
    let needles = Needles::new(&needles(target, configs));
    let mut found = Vec::new();
    for file in &tree.sources {
        if file == target {
            continue;
        }
        let Some(head) = reader.head(file).filter(|h| needles.any_in(h)) else {
            continue;
        };
        let text = String::from_utf8_lossy(head);
        let Some(dir) = file.parent() else {
            continue;
        };
        let config = configs.nearest(dir, root);
        let names = |spec: &str| resolve(spec, dir, config, tree).as_deref() == Some(target);
        if specifiers(&text).into_iter().any(names) {
            let reexports = reexport_specifiers(&text).into_iter().any(names);
            found.push((file.clone(), reexports));
        }
    }
    found
}

/// The specifiers of `export … from "…"` statements (re-exports).
fn reexport_specifiers(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("export") {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| !(c.is_whitespace() || c == ';' || c == '}')) {
            continue;
        }
        // The statement ends at `;`, or (code without semicolons) where the
        // next line starts another import or export.
        let statement = &text[at..];
        let mut end = [";", "\nexport", "\nimport"]
            .iter()
            .filter_map(|stop| statement[6..].find(stop).map(|i| i + 6))
            .min()
            .unwrap_or(statement.len())
            .min(2_000);
        while !statement.is_char_boundary(end) {
            end -= 1;
        }
        let statement = &statement[..end];
        // `export … from "x"`: its `from`, a whole word before a quote.
        let spec = statement.match_indices("from").find_map(|(i, _)| {
            let before = statement[..i].chars().next_back();
            let word = before.is_some_and(|c| c.is_whitespace() || c == '}' || c == '*');
            word.then(|| quoted(statement[i + 4..].trim_start()))
                .flatten()
        });
        if let Some(spec) = spec {
            out.push(spec);
        }
    }
    out
}

/// Words one of which every specifier naming `edited` contains: its name
/// without extension, its directory's name for an `index` file, the exact
/// `paths` aliases, and what a wildcard alias maps onto it (`@mono/a`).
fn needles(edited: &Path, configs: &Configs) -> Vec<String> {
    let name = edited.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let stem = EXTENSIONS
        .iter()
        .find_map(|e| name.strip_suffix(e))
        .unwrap_or(name);
    let mut out = vec![stem.to_string()];
    if stem == "index"
        && let Some(dir) = edited
            .parent()
            .and_then(|d| d.file_name())
            .and_then(|d| d.to_str())
    {
        out.push(dir.to_string());
        // `from "."`, `from "../"`: a directory named by dots alone.
        out.extend([".'", ".\"", "/'", "/\"", ".`"].map(String::from));
    }
    for config in configs.by_dir.values() {
        out.extend(config.exact_aliases().map(str::to_string));
        out.extend(config.wildcard_specifiers(edited));
    }
    out.sort();
    out.dedup();
    out
}

/// The loaded configs by directory; the nearest one governs a file.
struct Configs {
    by_dir: HashMap<PathBuf, TsConfig>,
}

impl Configs {
    /// The configs in `files`, each read from the disk; `reader` is told
    /// what was read (an `extends` may reach outside the cached tree).
    fn new(files: &[PathBuf], reader: &mut Reader) -> Configs {
        let mut by_dir = HashMap::new();
        let mut read = Vec::new();
        // tsconfig.json wins over jsconfig.json in the same directory.
        for name in CONFIG_NAMES.iter().rev() {
            for file in files
                .iter()
                .filter(|f| f.file_name().is_some_and(|n| n == *name))
            {
                if let (Some(dir), Some(config)) = (file.parent(), TsConfig::load(file, &mut read))
                {
                    by_dir.insert(dir.to_path_buf(), config);
                }
            }
        }
        for path in &read {
            reader.read_beside(path);
        }
        Configs { by_dir }
    }

    fn nearest(&self, dir: &Path, root: &Path) -> Option<&TsConfig> {
        dir.ancestors()
            .take_while(|d| d.starts_with(root))
            .find_map(|d| self.by_dir.get(d))
    }
}

/// The module specifiers a file names, in source order.
pub(super) fn specifiers(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for keyword in ["from", "import", "require"] {
        for (at, _) in text.match_indices(keyword) {
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == '.') {
                continue;
            }
            let mut rest = text[at + keyword.len()..].trim_start();
            if keyword != "from"
                && let Some(r) = rest.strip_prefix('(')
            {
                rest = r.trim_start();
            } else if keyword == "require" {
                continue;
            }
            if let Some(spec) = quoted(rest) {
                out.push(spec);
            }
        }
    }
    out
}

/// The contents of the string literal `text` starts with.
fn quoted(text: &str) -> Option<&str> {
    let quote = text
        .chars()
        .next()
        .filter(|c| matches!(c, '"' | '\'' | '`'))?;
    let body = &text[1..];
    let end = body.find([quote, '\n'])?;
    (body[end..].starts_with(quote)).then(|| &body[..end])
}

/// The file `spec` names from a file in `dir`, if it lies in the listing.
fn resolve(spec: &str, dir: &Path, config: Option<&TsConfig>, tree: &Tree) -> Option<PathBuf> {
    let bases = if spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == ".."
    {
        vec![dir.join(spec)]
    } else if spec.starts_with('/') {
        vec![PathBuf::from(spec)]
    } else {
        config.map(|c| c.bases(spec)).unwrap_or_default()
    };
    bases.iter().find_map(|base| {
        candidates(&normalize(base))
            .into_iter()
            .find(|c| tree.exists(c))
    })
}

/// The files a specifier resolved to `base` may mean, in TypeScript's order.
fn candidates(base: &Path) -> Vec<PathBuf> {
    let text = base.to_string_lossy();
    let mut out = Vec::new();
    for (js, sources) in JS_TO_TS {
        if let Some(stem) = text.strip_suffix(js) {
            out.extend(sources.iter().map(|s| PathBuf::from(format!("{stem}{s}"))));
        }
    }
    out.push(base.to_path_buf());
    out.extend(
        EXTENSIONS
            .iter()
            .map(|e| PathBuf::from(format!("{text}{e}"))),
    );
    out.extend(EXTENSIONS.iter().map(|e| base.join(format!("index{e}"))));
    out
}
