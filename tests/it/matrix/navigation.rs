//! Navigation per server on the matrix fixtures: definition, references,
//! hover, document symbols and workspace symbols at known positions in
//! `tests/fixtures/{go,c,rust}` (each copied to a temp dir first), asserting
//! the exact locations an agent would be given.

use std::sync::Arc;

use squiggle::engine::{Engine, HeldOthers};
use squiggle::navigation::{
    DEFAULT_MAX_RESULTS, Goto, Location, PositionArgs, document_symbols, goto, hover, references,
    workspace_symbols,
};

use crate::support;
use crate::support::matrix::*;

/// A function defined in one file and called from another.
struct Case<'a> {
    /// The function's name.
    name: &'a str,
    /// The calling file and the 1-based line and column of the call's name.
    caller: (&'a str, u32, u32),
    /// The defining file and the 1-based line and column of the name there.
    definition: (&'a str, u32, u32),
    /// Words the hover at the call site must contain.
    hover: &'a [&'a str],
}

fn at(location: &Location) -> (String, u32, u32) {
    (location.path.clone(), location.line, location.column)
}

fn place((path, line, column): (&str, u32, u32)) -> (String, u32, u32) {
    (path.to_string(), line, column)
}

async fn navigate(engine: &Arc<Engine>, case: &Case<'_>) {
    let (caller, line, column) = case.caller;
    let (defining, _, _) = case.definition;
    let call = PositionArgs {
        path: caller.to_string(),
        line: Some(line),
        column: Some(column),
        symbol: None,
    };

    // Document symbols of the defining file (this also opens it, so a
    // server that indexes open files only knows the definition).
    let (outline, text) = document_symbols(engine, defining, DEFAULT_MAX_RESULTS)
        .await
        .unwrap_or_else(|e| panic!("document symbols of {defining}: {e}"));
    let symbol = outline
        .symbols
        .iter()
        .find(|s| s.name == case.name)
        .unwrap_or_else(|| panic!("{} not in the outline of {defining}:\n{text}", case.name));
    assert_eq!(at(&symbol.location), place(case.definition), "{text}");

    // Definition from the call site.
    let (found, text) = goto(engine, &call, Goto::Definition, DEFAULT_MAX_RESULTS)
        .await
        .unwrap_or_else(|e| panic!("definition at {caller}:{line}:{column}: {e}"));
    let targets: Vec<_> = found.locations.iter().map(at).collect();
    assert_eq!(targets, [place(case.definition)], "{text}");
    assert!(text.contains(&format!("{defining}:")), "{text}");

    // References include the definition and the call site.
    let (found, text) = references(engine, &call, true, DEFAULT_MAX_RESULTS)
        .await
        .unwrap_or_else(|e| panic!("references at {caller}:{line}:{column}: {e}"));
    let places: Vec<_> = found.locations.iter().map(at).collect();
    assert!(places.contains(&place(case.definition)), "{text}");
    assert!(places.contains(&place(case.caller)), "{text}");

    // Hover at the call site shows the signature.
    let (shown, text) = hover(engine, &call)
        .await
        .unwrap_or_else(|e| panic!("hover at {caller}:{line}:{column}: {e}"));
    for word in case.hover {
        assert!(shown.contents.contains(word), "{word:?} not in:\n{text}");
    }

    // Workspace symbols find the function where it is defined.
    let (search, text) = workspace_symbols(engine, case.name, Some(caller), DEFAULT_MAX_RESULTS)
        .await
        .unwrap_or_else(|e| panic!("workspace symbols for {}: {e}", case.name));
    assert!(
        search
            .symbols
            .iter()
            .any(|s| s.name == case.name && at(&s.location) == place(case.definition)),
        "{} at {:?} not found:\n{text}",
        case.name,
        case.definition
    );
}

#[tokio::test]
async fn gopls() {
    if support::require_program("gopls").is_none() || support::require_program("go").is_none() {
        return;
    }
    let dir = fixture("go");
    let engine = engine(dir.path(), &[]);
    navigate(
        &engine,
        &Case {
            name: "Area",
            // `\ttotal := geometry.Area(width, height)`
            caller: ("main.go", 7, 20),
            definition: ("geometry/geometry.go", 5, 6),
            hover: &["func geometry.Area", "width float64", "height float64"],
        },
    )
    .await;
    engine.shutdown().await;
}

#[tokio::test]
async fn clangd() {
    if support::require_program("clangd").is_none() {
        return;
    }
    let dir = fixture("c");
    let engine = engine(dir.path(), &[]);
    navigate(
        &engine,
        &Case {
            name: "area",
            // `  double total = area(2.0, 3.0);`
            caller: ("main.c", 6, 18),
            definition: ("geometry.c", 3, 8),
            hover: &["area", "double", "width", "height"],
        },
    )
    .await;
    engine.shutdown().await;
}

#[tokio::test]
async fn rust_analyzer() {
    if support::require_program("rust-analyzer").is_none()
        || support::require_program("cargo").is_none()
    {
        return;
    }
    let dir = fixture("rust");
    let engine = engine(dir.path(), &[]);
    // Load the workspace (and its first cargo check) before asking.
    let main = path(&dir, "src/main.rs");
    let _ = engine
        .check_files(
            vec![squiggle::engine::FileInput::on_disk(main)],
            HeldOthers::Skip,
        )
        .await;
    navigate(
        &engine,
        &Case {
            name: "area",
            // `    let total = area(width, height);`
            caller: ("src/main.rs", 6, 17),
            definition: ("src/geometry.rs", 3, 8),
            hover: &["pub fn area", "width: f64", "height: f64", "-> f64"],
        },
    )
    .await;
    engine.shutdown().await;
}
