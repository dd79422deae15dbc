//! TypeScript and JavaScript importers found by resolution (`ts.rs`,
//! `tsconfig.rs`): relative and aliased specifiers, directory imports,
//! re-export hubs and the order of a barrel's importers. Each case is also
//! asked through a [`ScanCache`](crate::engine::dependents::ScanCache), cold and warm (`Project`).

use super::Project;
use crate::engine::dependents::{MAX_DEPENDENTS, ts, tsconfig};

#[test]
fn ts_lib_is_imported_by_its_relative_specifier() {
    let p = Project::new(&[
        (
            "src/lib.ts",
            "export function scale(x: number) { return x; }\n",
        ),
        (
            "src/app.ts",
            "import { scale } from \"./lib\";\nscale(2);\n",
        ),
        (
            "src/other.ts",
            "const lib = 1; // names lib, imports nothing\n",
        ),
        (
            "node_modules/x/index.ts",
            "import { scale } from '../../src/lib';\n",
        ),
    ]);
    assert_eq!(p.importers("src/lib.ts"), ["src/app.ts"]);
}

#[test]
fn ts_every_import_form_and_js_specifiers_naming_ts_sources() {
    let p = Project::new(&[
        ("src/util.ts", "export const u = 1;\n"),
        ("src/a.ts", "export * from './util.js';\n"),
        ("src/b.ts", "const m = await import(\"./util\");\n"),
        ("src/c.js", "const { u } = require('./util');\n"),
        ("src/d.ts", "import './util';\n"),
        ("src/e/f.ts", "import type { U } from \"../util\";\n"),
        ("src/g.ts", "import { u } from './utility';\n"),
        ("src/utility.ts", "export const u = 2;\n"),
    ]);
    assert_eq!(
        p.importers("src/util.ts"),
        ["src/a.ts", "src/b.ts", "src/c.js", "src/d.ts", "src/e/f.ts"]
    );
}

#[test]
fn ts_same_name_in_two_directories_keeps_to_its_own_importers() {
    let p = Project::new(&[
        ("a/lib.ts", "export const x = 1;\n"),
        ("a/app.ts", "import { x } from './lib';\n"),
        ("b/lib.ts", "export const y = 1;\n"),
        ("b/app.ts", "import { y } from './lib';\n"),
    ]);
    assert_eq!(p.importers("a/lib.ts"), ["a/app.ts"]);
    assert_eq!(p.importers("b/lib.ts"), ["b/app.ts"]);
}

#[test]
fn ts_directory_import_means_its_index() {
    let p = Project::new(&[
        ("src/widgets/index.ts", "export const w = 1;\n"),
        ("src/app.ts", "import { w } from './widgets';\n"),
        ("src/widgets/button.ts", "import { w } from '.';\n"),
        ("src/shadow/index.ts", "export const s = 1;\n"),
        ("src/shadow.ts", "export const s = 2;\n"),
        ("src/uses_shadow.ts", "import { s } from './shadow';\n"),
    ]);
    assert_eq!(
        p.importers("src/widgets/index.ts"),
        ["src/app.ts", "src/widgets/button.ts"]
    );
    // `./shadow` is `shadow.ts`, which comes before the directory's index.
    assert!(p.importers("src/shadow/index.ts").is_empty());
    assert_eq!(p.importers("src/shadow.ts"), ["src/uses_shadow.ts"]);
}

#[test]
fn ts_paths_aliases_and_base_url_through_extends_in_jsonc() {
    let p = Project::new(&[
        (
            "tsconfig.base.json",
            "{\n  // shared\n  \"compilerOptions\": {\n    \"baseUrl\": \".\",\n    \"paths\": {\n      \"@core/*\": [\"src/core/*\"], /* wildcard */\n      \"@settings\": [\"src/config/prefs.ts\"],\n    },\n  },\n}\n",
        ),
        ("tsconfig.json", "{ \"extends\": \"./tsconfig.base\", }\n"),
        ("src/core/lib.ts", "export const k = 1;\n"),
        ("src/config/prefs.ts", "export const s = 1;\n"),
        ("src/core-things.ts", "export const c = 1;\n"),
        ("src/decoy.ts", "import { c } from './core-things';\n"),
        (
            "src/app.ts",
            "import { k } from '@core/lib';\nimport { s } from '@settings';\n",
        ),
        ("src/plain.ts", "import { k } from 'src/core/lib';\n"),
        ("src/pkg.ts", "import { k } from 'lib';\n"),
    ]);
    assert_eq!(
        p.importers("src/core/lib.ts"),
        ["src/app.ts", "src/plain.ts"]
    );
    assert_eq!(p.importers("src/config/prefs.ts"), ["src/app.ts"]);
}

#[test]
fn jsonc_comments_and_trailing_commas_are_dropped_but_strings_kept() {
    let text = "{ \"a\": \"http://x/*y*/\", // c\n \"b\": [1, 2,], /* d */ }";
    let value: serde_json::Value =
        serde_json::from_str(&tsconfig::strip_jsonc(text)).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        value,
        serde_json::json!({"a": "http://x/*y*/", "b": [1, 2]})
    );
}

#[test]
fn ts_importers_through_a_re_export_hub() {
    // immer's layout: `internal.ts` re-exports every module, and the modules
    // import from it; a change to `utils/common.ts` breaks `core/proxy.ts`.
    let p = Project::new(&[
        (
            "src/utils/common.ts",
            "export function die(code: number) {}\n",
        ),
        (
            "src/internal.ts",
            // No semicolons, as immer writes it: each statement ends where
            // the next export begins.
            "export * from \"./utils/env\"\nexport * from \"./utils/common\"\nexport {\n  current\n} from \"./core/current\"\n",
        ),
        ("src/core/current.ts", "export const current = 1;\n"),
        (
            "src/core/proxy.ts",
            "import { die, current } from \"../internal\";\ndie(1);\n",
        ),
        (
            "src/plain.ts",
            "import { die } from \"./utils/common\";\n// export nothing from here: ünïcödé\n",
        ),
    ]);
    assert_eq!(
        p.importers("src/utils/common.ts"),
        ["src/internal.ts", "src/plain.ts", "src/core/proxy.ts"]
    );
    // A file that imports without re-exporting passes nothing on.
    assert_eq!(p.importers("src/plain.ts"), Vec::<String>::new());
}

/// More files import a barrel than are checked: past the direct importers,
/// those naming what the edited file exports come first, wherever they sort.
#[test]
fn ts_hub_importers_naming_the_edited_exports_come_first() {
    let mut files: Vec<(String, String)> = vec![
        (
            "src/lib.ts".into(),
            "export function scale(x: number) { return x; }\nexport class Box {}\n".into(),
        ),
        (
            "src/index.ts".into(),
            "export * from \"./lib\";\nexport * from \"./other\";\n".into(),
        ),
        ("src/other.ts".into(), "export const other = 1;\n".into()),
    ];
    for n in 0..MAX_DEPENDENTS + 5 {
        files.push((
            format!("src/a{n:02}.ts"),
            "import { other } from \"./index\";\n".into(),
        ));
    }
    files.push((
        "src/z_uses.ts".into(),
        "import { scale } from \"./index\";\n".into(),
    ));
    files.push((
        "src/z_box.ts".into(),
        "import type { Box } from \".\";\n".into(),
    ));
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let found = Project::new(&files).importers("src/lib.ts");
    assert_eq!(found.len(), MAX_DEPENDENTS);
    assert_eq!(
        found[..3],
        ["src/index.ts", "src/z_box.ts", "src/z_uses.ts"]
    );
}

#[test]
fn ts_export_names_by_declaration_and_by_list() {
    let text = "export function f() {}\nexport async function g() {}\nexport default class D {}\n\
        export declare const c: number;\nexport abstract class A {}\nexport { x, y as z };\n\
        export type T = 1;\nexport interface I {}\nexport function* gen() {}\nconst notExported = 1;\n";
    assert_eq!(
        ts::export_names(text),
        ["A", "I", "T", "c", "f", "g", "gen", "x", "z"]
    );
}

/// A monorepo's package alias (`@mono/*` → `packages/*/src/index.ts`) names
/// a package by its directory, which neither the barrel's stem nor its
/// directory (`src`) is: the importers in other packages are found.
#[test]
fn ts_wildcard_package_alias_names_the_barrel_of_another_package() {
    let p = Project::new(&[
        (
            "tsconfig.base.json",
            "{\"compilerOptions\": {\"baseUrl\": \".\", \"paths\": {\"@mono/*\": [\"packages/*/src/index.ts\"], \"~/*\": [\"packages/*/src\"]}}}\n",
        ),
        (
            "packages/a/tsconfig.json",
            "{\"extends\": \"../../tsconfig.base.json\"}\n",
        ),
        (
            "packages/b/tsconfig.json",
            "{\"extends\": \"../../tsconfig.base.json\"}\n",
        ),
        ("packages/a/src/index.ts", "export * from \"./m00\";\n"),
        (
            "packages/a/src/m00.ts",
            "export function f(x: number) { return x; }\n",
        ),
        (
            "packages/b/src/use.ts",
            "import { f } from \"@mono/a\";\nf(1);\n",
        ),
        (
            "packages/b/src/dir.ts",
            "import { f } from \"~/a\";\nf(1);\n",
        ),
        (
            "packages/b/src/other.ts",
            "import { g } from \"@mono/b\";\n",
        ),
    ]);
    assert_eq!(
        p.importers("packages/a/src/m00.ts"),
        [
            "packages/a/src/index.ts",
            "packages/b/src/dir.ts",
            "packages/b/src/use.ts"
        ]
    );
}
