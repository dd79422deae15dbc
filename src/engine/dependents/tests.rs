//! Importers found by resolution, per language family. Each case is one a
//! stem heuristic gets wrong: a file named `lib`, the same name in two
//! directories, an alias, a `src/` layout, an `-I` directory. Every case
//! is also asked through a [`ScanCache`], cold and warm, which must answer
//! as the one-shot scan does.

use std::path::Path;

use super::{ScanCache, likely_dependents};

struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new(files: &[(&str, &str)]) -> Project {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        for (rel, text) in files {
            let path = dir.path().join(rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
            }
            std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        }
        Project { dir }
    }

    /// The importers of `rel`, relative to the project root (the same
    /// from the disk and from a cache, cold and warm).
    fn importers(&self, rel: &str) -> Vec<String> {
        let root = std::fs::canonicalize(self.dir.path()).unwrap_or_else(|e| panic!("{e}"));
        let relative = |found: Vec<std::path::PathBuf>| -> Vec<String> {
            found
                .iter()
                .map(|p| match p.strip_prefix(&root) {
                    Ok(rel) => rel.display().to_string(),
                    Err(_) => p.display().to_string(),
                })
                .collect()
        };
        let edited = root.join(rel);
        let disk = relative(likely_dependents(&edited, &root, |_: &Path| true));
        let cache = ScanCache::new(&root);
        for pass in ["cold", "warm"] {
            let cached = relative(cache.likely_dependents(&edited, &root, "all", |_: &Path| true));
            assert_eq!(cached, disk, "{pass} cache against the disk for {rel}");
        }
        disk
    }
}

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
fn python_lib_imported_as_module_and_from_its_package() {
    let p = Project::new(&[
        ("pkg/__init__.py", ""),
        ("pkg/lib.py", "def f(): ...\n"),
        ("main.py", "from pkg import lib\nlib.f()\n"),
        ("tool.py", "import pkg.lib as l\n"),
        ("other.py", "from pkg import helpers  # lib\n"),
        ("pkg/helpers.py", "lib = None\n"),
        ("scripts/lib.py", "def g(): ...\n"),
        ("scripts/run.py", "import lib\nlib.g()\n"),
    ]);
    assert_eq!(p.importers("pkg/lib.py"), ["main.py", "tool.py"]);
    assert_eq!(p.importers("scripts/lib.py"), ["scripts/run.py"]);
}

#[test]
fn python_src_layout_and_package_init() {
    let p = Project::new(&[
        ("pyproject.toml", "[project]\nname = \"app\"\n"),
        ("src/app/__init__.py", "VERSION = 1\n"),
        ("src/app/core.py", "def f(): ...\n"),
        (
            "src/app/cli.py",
            "from app.core import f\nfrom app import VERSION\n",
        ),
        ("tests/test_core.py", "import app.core\n"),
        (
            "tests/test_version.py",
            "from app import (\n    VERSION,\n)\n",
        ),
        ("tools/core.py", "def g(): ...\n"),
        ("tools/use.py", "from core import g\n"),
    ]);
    assert_eq!(
        p.importers("src/app/core.py"),
        ["src/app/cli.py", "tests/test_core.py"]
    );
    assert_eq!(
        p.importers("src/app/__init__.py"),
        ["src/app/cli.py", "tests/test_version.py"]
    );
}

#[test]
fn python_relative_imports() {
    let p = Project::new(&[
        ("pkg/__init__.py", "NAME = 'p'\n"),
        ("pkg/lib.py", "def f(): ...\n"),
        ("pkg/a.py", "from . import lib\n"),
        ("pkg/b.py", "from .lib import f\n"),
        ("pkg/sub/__init__.py", ""),
        ("pkg/sub/c.py", "from ..lib import f\n"),
        ("pkg/sub/d.py", "from .. import NAME\n"),
        ("pkg/sub/lib.py", "def g(): ...\n"),
        ("pkg/sub/e.py", "from .lib import g\n"),
    ]);
    assert_eq!(
        p.importers("pkg/lib.py"),
        ["pkg/a.py", "pkg/b.py", "pkg/sub/c.py"]
    );
    assert_eq!(p.importers("pkg/sub/lib.py"), ["pkg/sub/e.py"]);
    assert_eq!(p.importers("pkg/__init__.py"), ["pkg/sub/d.py"]);
}

#[test]
fn c_header_included_directly_through_i_dirs_and_transitively() {
    let p = Project::new(&[
        ("compile_flags.txt", "-std=c11\n-Iinclude\n-I\nthird\n"),
        ("include/lib.h", "int scale(int x);\n"),
        (
            "src/lib.c",
            "#include \"lib.h\"\nint scale(int x) { return x; }\n",
        ),
        ("src/app.c", "#include <stdio.h>\n#  include \"lib.h\"\n"),
        ("src/wrap.h", "#include \"lib.h\"\n"),
        ("src/uses_wrap.c", "#include \"wrap.h\"\n"),
        ("tools/lib.h", "int other(void);\n"),
        ("tools/t.c", "#include \"lib.h\"\n"),
    ]);
    assert_eq!(
        p.importers("include/lib.h"),
        ["src/app.c", "src/lib.c", "src/wrap.h", "src/uses_wrap.c"]
    );
    assert_eq!(p.importers("tools/lib.h"), ["tools/t.c"]);
}

#[test]
fn c_include_dirs_from_compile_commands() {
    let p = Project::new(&[
        (
            "build/compile_commands.json",
            r#"[{"directory": "..", "file": "src/main.c", "command": "cc -I include/api -c src/main.c"},
                {"directory": "..", "file": "src/x.c", "arguments": ["cc", "-iquote", "quoted", "-c", "src/x.c"]}]"#,
        ),
        ("include/api/lib.h", "int f(void);\n"),
        ("quoted/q.h", "int q(void);\n"),
        ("src/main.c", "#include <lib.h>\n"),
        ("src/x.c", "#include \"q.h\"\n"),
    ]);
    assert_eq!(p.importers("include/api/lib.h"), ["src/main.c"]);
    assert_eq!(p.importers("quoted/q.h"), ["src/x.c"]);
}

#[test]
fn go_same_package_files_then_importers_of_its_path() {
    let p = Project::new(&[
        ("go.mod", "module example.com/m\n\ngo 1.21\n"),
        ("lib/lib.go", "package lib\n\nfunc F() int { return 1 }\n"),
        (
            "lib/more.go",
            "// Package doc.\npackage lib\n\nfunc G() int { return F() }\n",
        ),
        (
            "lib/lib_ext_test.go",
            "package lib_test\n\nimport \"example.com/m/lib\"\n",
        ),
        (
            "cmd/app/main.go",
            "package main\n\nimport (\n\t\"fmt\"\n\tl \"example.com/m/lib\"\n)\n\nfunc main() { fmt.Println(l.F()) }\n",
        ),
        (
            "cmd/other/main.go",
            "package main\n\nimport \"example.com/m/libx\"\n",
        ),
        ("libx/x.go", "package libx\n"),
    ]);
    assert_eq!(
        p.importers("lib/lib.go"),
        ["lib/more.go", "cmd/app/main.go", "lib/lib_ext_test.go"]
    );
}

#[test]
fn rust_outside_cargo_and_unknown_languages_fall_back_to_import_lines_naming_the_stem() {
    let p = Project::new(&[
        ("src/geometry.rs", "pub fn area() {}\n"),
        ("src/main.rs", "mod geometry;\nuse geometry::area;\n"),
        ("src/other.rs", "fn geometry() {}\n"),
        ("x/lib.zig", "const a = @import(\"lib.zig\");\n"),
        ("x/app.zig", "const b = 1;\n"),
    ]);
    assert_eq!(p.importers("src/geometry.rs"), ["src/main.rs"]);
    assert!(p.importers("x/lib.zig").is_empty());
}

#[test]
fn jsonc_comments_and_trailing_commas_are_dropped_but_strings_kept() {
    let text = "{ \"a\": \"http://x/*y*/\", // c\n \"b\": [1, 2,], /* d */ }";
    let value: serde_json::Value =
        serde_json::from_str(&super::tsconfig::strip_jsonc(text)).unwrap_or_else(|e| panic!("{e}"));
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
    for n in 0..super::MAX_DEPENDENTS + 5 {
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
    assert_eq!(found.len(), super::MAX_DEPENDENTS);
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
        super::ts::export_names(text),
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

#[test]
fn rust_crate_root_is_used_by_its_modules_and_a_module_by_its_path() {
    let p = Project::new(&[
        ("Cargo.toml", "[package]\nname = \"v\"\n"),
        (
            "src/lib.rs",
            "mod display;\nmod eval;\nmod parse;\npub struct Version;\n",
        ),
        ("src/display.rs", "use crate::Version;\n"),
        (
            "src/eval.rs",
            "use super::Version;\nfn f() { super::parse::read(); }\n",
        ),
        ("src/parse.rs", "pub fn read() {}\n"),
        ("src/parser_util.rs", "pub fn unrelated() {}\n"),
        ("other/Cargo.toml", "[package]\nname = \"o\"\n"),
        ("other/src/lib.rs", "use crate::x;\n"),
    ]);
    assert_eq!(p.importers("src/lib.rs"), ["src/display.rs", "src/eval.rs"]);
    // The parent module declares it; eval names it; nothing else does.
    assert_eq!(p.importers("src/parse.rs"), ["src/eval.rs", "src/lib.rs"]);
}
