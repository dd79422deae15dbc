//! A TypeScript monorepo that declares its packages (a root `tsconfig.json`
//! with `references` and `package.json` `workspaces`) is served by one
//! typescript-language-server at its root: a signature change in one
//! package reports the broken call in the package that imports it through
//! the workspace alias, through the real binary and the real server.

use crate::support;
use crate::support::scratch::Scratch;

const BASE: &str = "{\"compilerOptions\": {\"strict\": true, \"target\": \"es2022\", \"module\": \"esnext\", \"moduleResolution\": \"bundler\", \"composite\": true, \"skipLibCheck\": true, \"baseUrl\": \".\", \"paths\": {\"@mono/*\": [\"packages/*/src/index.ts\"]}}}\n";

const FILES: &[(&str, &str)] = &[
    (
        "package.json",
        "{\"name\": \"mono\", \"private\": true, \"workspaces\": [\"packages/*\"]}\n",
    ),
    (
        "tsconfig.json",
        "{\"files\": [], \"references\": [{\"path\": \"packages/a\"}, {\"path\": \"packages/b\"}]}\n",
    ),
    ("tsconfig.base.json", BASE),
    (
        "packages/a/package.json",
        "{\"name\": \"@mono/a\", \"private\": true}\n",
    ),
    (
        "packages/a/tsconfig.json",
        "{\"extends\": \"../../tsconfig.base.json\", \"include\": [\"src\"]}\n",
    ),
    ("packages/a/src/index.ts", "export * from \"./lib\";\n"),
    (
        "packages/a/src/lib.ts",
        "export function scale(x: number, by: number): number {\n  return x * by;\n}\n",
    ),
    (
        "packages/b/package.json",
        "{\"name\": \"@mono/b\", \"private\": true}\n",
    ),
    (
        "packages/b/tsconfig.json",
        "{\"extends\": \"../../tsconfig.base.json\", \"include\": [\"src\"], \"references\": [{\"path\": \"../a\"}]}\n",
    ),
    (
        "packages/b/src/use.ts",
        "import { scale } from \"@mono/a\";\n\nexport const big: number = scale(2, 3);\n",
    ),
];

#[test]
fn a_signature_change_reports_the_importer_in_another_package() {
    if support::require_program("typescript-language-server").is_none() {
        return;
    }
    let ws = Scratch::real_project(FILES);
    let narrowed = "export function scale(x: number): number {\n  return x;\n}\n";
    let out = ws.squiggle_write("packages/a/src/lib.ts", &["--json"], narrowed);
    let text = support::both(&out);
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {text}"));
    let found = json["diagnostics"].as_array().is_some_and(|all| {
        all.iter().any(|d| {
            d["file"] == "packages/b/src/use.ts" && d["line"] == 3 && d["severity"] == "error"
        })
    });
    assert!(found, "no error for the importer in package b: {json:#}");
}
