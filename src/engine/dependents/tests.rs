//! Importers found by resolution, per language family (TypeScript's in
//! `tests/ts.rs`, through the `Project` here; the cache following the disk
//! in `tests/cache.rs`). Each case is one a
//! stem heuristic gets wrong: a file named `lib`, the same name in two
//! directories, an alias, a `src/` layout, an `-I` directory. Every case
//! is also asked through a [`ScanCache`], cold and warm, which must answer
//! as the one-shot scan does.

mod cache;
mod ts;

use std::path::Path;

use super::{ScanCache, likely_dependents};

pub(super) struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    pub(super) fn new(files: &[(&str, &str)]) -> Project {
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
    pub(super) fn importers(&self, rel: &str) -> Vec<String> {
        let root =
            crate::platform::paths::canonicalize(self.dir.path()).unwrap_or_else(|e| panic!("{e}"));
        let relative = |found: Vec<std::path::PathBuf>| -> Vec<String> {
            found
                .iter()
                .map(|p| match p.strip_prefix(&root) {
                    Ok(rel) => crate::platform::paths::slashed(rel),
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
