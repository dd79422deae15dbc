//! The per-server matrix for TypeScript on `tests/fixtures/typescript`:
//! typescript-language-server (the default) and tsgo (its alternative) on
//! one project, ESLint alongside on another, and a monorepo whose two
//! packages each get their own server instance.

use crate::support;
use crate::support::matrix::*;

const MAIN: &str = "src/main.ts";
const GEOMETRY: &str = "src/geometry.ts";
const CALL: &str = "const total = area(width, height);";
const NARROWED: &str = "export function area(width: number): number {\n  return width * width;\n}\n\nexport function perimeter(width: number, height: number): number {\n  return 2 * (width + height);\n}\n";

/// Clean, wrong argument type, fix, undefined name, fix, and a narrowed
/// signature reported in the caller: the same for both type checkers.
async fn type_checker_matrix(switches: &[(&str, bool)], id: &str) {
    let dir = fixture("typescript/app");
    let engine = engine(dir.path(), switches);
    let main = path(&dir, MAIN);
    assert_clean(&engine, &main).await;

    let broken = edit(
        &engine,
        &main,
        CALL,
        "const total = area(\"wide\", height);",
    )
    .await;
    assert_eq!(servers_of(&broken), [id]);
    // Both answer on request for the text just sent — tsgo by the LSP pull,
    // typescript-language-server by tsserver's synchronous requests — so
    // no quiet window is waited out.
    assert!(
        broken
            .outcomes
            .values()
            .flatten()
            .all(|o| o.outcome == squiggle::diagnostic::Outcome::Pulled),
        "{:#?}",
        broken.outcomes
    );
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 4,
            column: 22,
            code: Some("2345"),
            words: &["Argument of type 'string'", "parameter of type 'number'"],
        },
    );
    let fixed = edit(
        &engine,
        &main,
        "const total = area(\"wide\", height);",
        CALL,
    )
    .await;
    assert_fixed(&fixed, EDITED, "Argument of type");

    let broken = edit(&engine, &main, CALL, "const total = aera(width, height);").await;
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 4,
            column: 17,
            code: Some("2304"),
            words: &["Cannot find name 'aera'"],
        },
    );
    let fixed = edit(&engine, &main, "const total = aera(width, height);", CALL).await;
    assert_fixed(&fixed, EDITED, "aera");

    let geometry = path(&dir, GEOMETRY);
    let original = std::fs::read_to_string(&geometry).unwrap_or_default();
    let result = write(&engine, &geometry, NARROWED).await;
    let text = result.text();
    assert!(block(&text, THIS_FILE, GEOMETRY).is_none(), "{text}");
    assert_row(
        &text,
        OTHER_FILES,
        &Expect {
            file: MAIN,
            line: 4,
            column: 29,
            code: Some("2554"),
            words: &["Expected 1 arguments, but got 2"],
        },
    );
    let restored = write(&engine, &geometry, &original).await;
    assert_fixed(&restored, WRITTEN, "Expected 1 arguments");
    engine.shutdown().await;
}

#[tokio::test]
async fn typescript_language_server() {
    if support::require_program("typescript-language-server").is_none() {
        return;
    }
    type_checker_matrix(&[], "typescript-language-server").await;
}

#[tokio::test]
async fn tsgo_instead_of_typescript_language_server() {
    if support::require_program("tsgo").is_none() {
        return;
    }
    type_checker_matrix(
        &[("typescript-language-server", false), ("tsgo", true)],
        "tsgo",
    )
    .await;
}

#[tokio::test]
async fn typescript_and_eslint_merge_in_one_wait() {
    if support::require_program("typescript-language-server").is_none() {
        return;
    }
    let Some(eslint) = support::require_program("vscode-eslint-language-server") else {
        return;
    };
    let dir = fixture("typescript/eslint");
    link_node_modules(dir.path(), &eslint);
    let engine = engine(dir.path(), &[]);
    let main = path(&dir, MAIN);
    assert_clean(&engine, &main).await;
    let body = "  return value * 2;";
    let broken = edit(
        &engine,
        &main,
        body,
        &format!("  const unused = missingName;\n{body}"),
    )
    .await;
    assert_merged(&broken, &["typescript-language-server", "eslint"]);
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 2,
            column: 18,
            code: Some("2304"),
            words: &["Cannot find name 'missingName'"],
        },
    );
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 2,
            column: 9,
            code: Some("no-unused-vars"),
            words: &["'unused' is assigned a value but never used"],
        },
    );
    let fixed = edit(
        &engine,
        &main,
        &format!("  const unused = missingName;\n{body}"),
        body,
    )
    .await;
    assert_fixed(&fixed, EDITED, "unused");
    engine.shutdown().await;
}

/// A monorepo of two packages, each with its own tsconfig: served by one
/// instance at the root when the root declares its packages (npm
/// `workspaces`), by one per package when it does not; the same errors
/// either way.
async fn monorepo_instances(declared: bool) {
    if support::require_program("typescript-language-server").is_none() {
        return;
    }
    let dir = fixture("typescript/monorepo");
    if !declared {
        std::fs::write(
            dir.path().join("package.json"),
            "{ \"name\": \"mono\", \"version\": \"0.1.0\", \"private\": true }\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
    let engine = engine(dir.path(), &[]);
    let root = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let page = path(&dir, "packages/web/src/page.ts");
    let handler = path(&dir, "packages/api/src/handler.ts");
    let (web, api) = tokio::join!(
        edit(&engine, &page, "`Welcome, ${name}`", "name * 2"),
        edit(&engine, &handler, "code === 200", "code === \"200\""),
    );
    assert_error(
        &web,
        &Expect {
            file: "packages/web/src/page.ts",
            line: 2,
            column: 10,
            code: Some("2362"),
            words: &["left-hand side of an arithmetic operation"],
        },
    );
    assert_error(
        &api,
        &Expect {
            file: "packages/api/src/handler.ts",
            line: 2,
            column: 10,
            code: Some("2367"),
            words: &["'number' and 'string' have no overlap"],
        },
    );
    let roots: Vec<_> = engine
        .pool()
        .statuses()
        .into_iter()
        .filter(|s| s.id == "typescript-language-server")
        .map(|s| s.root)
        .collect();
    let (web_root, api_root) = if declared {
        (root.clone(), root.clone())
    } else {
        (root.join("packages/web"), root.join("packages/api"))
    };
    let mut expected_roots = vec![api_root.clone(), web_root.clone()];
    expected_roots.dedup();
    assert_eq!(roots, expected_roots);
    // Each file is planned to the instance at its expected root (the
    // outcomes carry no root: that is the engine's own bookkeeping).
    for (file, expected) in [(&page, &web_root), (&handler, &api_root)] {
        let canonical = file.canonicalize().unwrap_or_else(|e| panic!("{e}"));
        let planned = engine.plan_file(&canonical, &mut Default::default());
        let planned: Vec<_> = planned.iter().map(|p| &p.root).collect();
        assert!(planned.iter().all(|r| *r == expected), "{planned:#?}");
    }
    engine.shutdown().await;
}

#[tokio::test]
async fn a_declared_monorepo_is_served_by_one_instance_at_its_root() {
    monorepo_instances(true).await;
}

#[tokio::test]
async fn undeclared_packages_get_their_own_instances() {
    monorepo_instances(false).await;
}
