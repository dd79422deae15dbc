//! A two-file project per language in which `main` calls `lib`'s `add`,
//! and the change on disk that breaks the call: the projects of the
//! disk-change tests, through the engine (`disk::changes`) and through
//! every surface (`disk::surfaces`).

use std::path::Path;

use super::scratch::Scratch;

/// A two-file project where `main` calls `lib`'s `add`.
pub struct Case {
    /// The server that must be on PATH.
    pub program: &'static str,
    /// Its id in squiggle's registry.
    pub server: &'static str,
    /// Every file of the project, workspace-relative, with its text.
    pub files: &'static [(&'static str, &'static str)],
    pub lib: &'static str,
    pub main: &'static str,
    /// What in `lib` gains a parameter: `old` becomes `new`.
    pub old: &'static str,
    pub new: &'static str,
    /// `main`'s line with the call.
    pub line: u32,
}

pub const TYPESCRIPT: Case = Case {
    program: "typescript-language-server",
    server: "typescript-language-server",
    files: &[
        (
            "tsconfig.json",
            r#"{"compilerOptions":{"strict":true,"target":"es2022","module":"commonjs"}}"#,
        ),
        (
            "src/lib.ts",
            "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
        ),
        (
            "src/main.ts",
            "import { add } from \"./lib\";\n\nexport const total = add(1, 2);\n",
        ),
    ],
    lib: "src/lib.ts",
    main: "src/main.ts",
    old: "b: number)",
    new: "b: number, c: number)",
    line: 3,
};

pub const PYTHON: Case = Case {
    program: "pyright-langserver",
    server: "pyright",
    files: &[
        ("pyproject.toml", "[project]\nname = \"p\"\n"),
        (
            "lib.py",
            "def add(a: int, b: int) -> int:\n    return a + b\n",
        ),
        ("main.py", "from lib import add\n\ntotal = add(1, 2)\n"),
    ],
    lib: "lib.py",
    main: "main.py",
    old: "b: int)",
    new: "b: int, c: int)",
    line: 3,
};

impl Case {
    /// The case's project in a fresh scratch workspace; `None` (after a
    /// notice) when its server is missing and not required.
    pub fn project(&self) -> Option<Scratch> {
        super::require_program(self.program)?;
        let ws = Scratch::bare();
        ws.write_all(self.files);
        Some(ws)
    }

    /// Gives `lib` under `root` its extra parameter on disk, as an agent's
    /// own tool would; `lib`'s text before.
    pub fn change_lib(&self, root: &Path) -> String {
        let lib = root.join(self.lib);
        let original = std::fs::read_to_string(&lib).unwrap_or_else(|e| panic!("read lib: {e}"));
        assert!(
            original.contains(self.old),
            "{} lacks {}",
            self.lib,
            self.old
        );
        std::fs::write(&lib, original.replace(self.old, self.new))
            .unwrap_or_else(|e| panic!("change lib: {e}"));
        original
    }

    /// Puts `lib`'s `original` text back on disk.
    pub fn restore_lib(&self, root: &Path, original: &str) {
        std::fs::write(root.join(self.lib), original).unwrap_or_else(|e| panic!("revert lib: {e}"));
    }
}
