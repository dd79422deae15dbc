//! Rules about the source tree itself.
//!
//! No import circle: what the library's files name of each other never
//! loops. A file names another through a `use` statement (`use crate::…`,
//! `use super::…`, `use self::…`, `use child::…` of a module it declares)
//! or a path in its code (`super::python::import_lines(…)`), and names the
//! file that defines the module the path ends in (`use crate::engine::Engine`
//! names `engine/mod.rs`; `use super::walk::Reader` names `walk.rs`).
//! Not counted: re-exports (`pub use`: a module's face, not what its code
//! needs), and a file's use of its own ancestors (`use super::Engine` in
//! `engine/check.rs`): a module's files are one module, and its children
//! are how it is split, so the loops that matter are between files that
//! are not each other's ancestors (siblings, cousins, other subtrees).
//!
//! The readers are in `imports`; this module holds the rules.

mod imports;
mod rooms;
mod sizes;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use imports::{
    circles, code_only, expression_paths, graph, modules, use_paths, without_inline_modules,
};

#[test]
fn the_library_has_no_import_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let edges = graph(&src);
    assert!(edges.len() > 100, "only {} files read", edges.len());
    let shown = shown(&src, &circles(&edges));
    assert!(shown.is_empty(), "import circles:\n{}", shown.join("\n"));
}

/// The imports between the library's top-level folders (`engine/`,
/// `sessions/`, …; a file beside `lib.rs` is a folder of its own): an
/// arrow from one to another when any file of the first imports a file of
/// the second.
fn folder_graph(
    src: &Path,
    edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>,
) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let folder = |file: &Path| -> PathBuf {
        let relative = file.strip_prefix(src).unwrap_or(file);
        let first = relative
            .iter()
            .next()
            .map(PathBuf::from)
            .unwrap_or_default();
        src.join(first.with_extension(""))
    };
    let mut folders: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (from, tos) in edges {
        let from = folder(from);
        let out = folders.entry(from.clone()).or_default();
        out.extend(tos.iter().map(|to| folder(to)).filter(|to| *to != from));
    }
    folders
}

/// `circles` as lines for a failure message.
fn shown(src: &Path, circles: &[Vec<PathBuf>]) -> Vec<String> {
    circles
        .iter()
        .map(|c| {
            let names: Vec<String> = c
                .iter()
                .chain(c.first())
                .map(|p| p.strip_prefix(src).unwrap_or(p).display().to_string())
                .collect();
            names.join(" -> ")
        })
        .collect()
}

#[test]
fn the_library_has_no_import_circle_between_folders() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let folders = folder_graph(&src, &graph(&src));
    assert!(folders.len() > 15, "only {} folders read", folders.len());
    let shown = shown(&src, &circles(&folders));
    assert!(
        shown.is_empty(),
        "import circles between folders:\n{}",
        shown.join("\n")
    );
}

/// The surfaces (`service/`, `mcp/`, `cli/`) change files only through
/// the engine's one door, `Engine::handle`: none of them calls the doors
/// behind it (`edit`, `write`, `apply_patch`, `fix`, a session's
/// `session_commit`) by name. (The answer to a change, `Engine::report`
/// and its forms, and `delete` are not visible outside the engine at
/// all.)
#[test]
fn the_surfaces_change_files_only_through_engine_handle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let doors = [
        ".edit(&",
        ".write(&",
        ".apply_patch(&",
        ".fix(&",
        ".session_commit(",
    ];
    let mut found = Vec::new();
    for (module, path) in modules(&src) {
        if !matches!(
            module.first().map(String::as_str),
            Some("service" | "mcp" | "cli")
        ) {
            continue;
        }
        let source = std::fs::read_to_string(&path).unwrap_or_default();
        let code: String = code_only(&source)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        for door in doors.iter().filter(|door| code.contains(*door)) {
            let shown = path
                .strip_prefix(&src)
                .unwrap_or(&path)
                .display()
                .to_string();
            found.push(format!("{shown} calls `{door}`"));
        }
    }
    assert!(
        found.is_empty(),
        "surfaces calling the engine past `Engine::handle`:\n{}",
        found.join("\n")
    );
}

#[test]
fn use_statements_are_read_as_written() {
    let code = code_only(
        "use super::{a::X, b::{c, d as e}};\npub use f::G;\n#[cfg(test)]\nuse crate::h; // use crate::i;\nlet s = \"use crate::j;\";\nmod tests {\n    use super::*;\n}\n",
    );
    let code = without_inline_modules(&code);
    let (used, rest) = use_paths(&code);
    assert_eq!(
        used,
        ["super::a::X", "super::b::c", "super::b::d", "crate::h"]
    );
    assert_eq!(
        expression_paths("let x = super::walk::read(crate::a::B);"),
        ["crate::a::B", "super::walk::read"]
    );
    assert!(expression_paths(&rest).is_empty(), "{rest}");
}

/// Inside `engine/`, what may call what: a file names files of its own
/// room or of the rooms below it (`rooms::ROOMS`), never above; and every
/// file but `mod.rs` is in a room.
#[test]
fn the_engine_s_rooms_call_only_down() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let engine = src.join("engine");
    let edges = graph(&src);
    let under = |file: &Path| file.strip_prefix(&engine).ok().map(Path::to_path_buf);
    let mut found = Vec::new();
    for (from, tos) in &edges {
        let Some(relative) = under(from) else {
            continue;
        };
        if relative == Path::new("mod.rs") {
            continue;
        }
        let Some(own) = rooms::room_of(&relative) else {
            found.push(format!("engine/{} is in no room", relative.display()));
            continue;
        };
        for to in tos {
            let Some(target) = under(to) else {
                continue;
            };
            if let Some(other) = rooms::room_of(&target)
                && other < own
            {
                found.push(format!(
                    "engine/{} ({}) names engine/{} ({})",
                    relative.display(),
                    rooms::ROOMS[own].0,
                    target.display(),
                    rooms::ROOMS[other].0
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "arrows up between the engine's rooms:\n{}",
        found.join("\n")
    );
}
