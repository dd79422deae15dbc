//! Small two-file projects for the real servers: one file the edit goes to,
//! one it imports, and an edit that makes a type error whose text changes
//! with `n` (so every round is new work for the server and the checker).

use std::path::{Path, PathBuf};

use anyhow::Result;
use squiggle::daemon::client::Options;

use crate::fixtures::{TempDir, runtime_dir, workspace_dir};

pub struct Project {
    /// The server's id in squiggle's registry.
    pub server: &'static str,
    /// The server's binary, looked up on PATH.
    pub binary: &'static str,
    pub files: &'static [(&'static str, &'static str)],
    /// The file every edit rewrites.
    pub edited: &'static str,
    pub edit: fn(usize) -> String,
    /// The command-line checker for the same edit.
    pub checker: &'static [&'static str],
}

impl Project {
    /// A fresh copy of the project, and the options of its own untrusted
    /// daemon run by `exe` with its sockets inside the copy.
    pub fn daemon_copy(&self, exe: &Path) -> Result<(TempDir, PathBuf, Options)> {
        let (dir, root) = workspace_dir()?;
        self.create(&root)?;
        let opts = Options {
            exe: exe.to_path_buf(),
            trust_workspace: false,
            runtime_dir: Some(runtime_dir(&root.join(".git"))?),
            env: Vec::new(),
        };
        Ok((dir, root, opts))
    }

    pub fn create(&self, root: &Path) -> Result<()> {
        for (name, text) in self.files {
            let path = root.join(name);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(path, text)?;
        }
        std::fs::write(root.join(self.edited), (self.edit)(0))?;
        Ok(())
    }

    pub fn available(&self) -> bool {
        on_path(self.binary) && on_path(self.checker[0])
    }
}

pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

pub fn all() -> Vec<Project> {
    vec![
        Project {
            server: "pyright",
            binary: "pyright-langserver",
            files: &[(
                "util.py",
                "def add(a: int, b: int) -> int:\n    return a + b\n",
            )],
            edited: "main.py",
            edit: |n| format!("from util import add\n\nvalue: str = add(1, {n})\n"),
            checker: &["pyright"],
        },
        Project {
            server: "typescript-language-server",
            binary: "typescript-language-server",
            files: &[
                (
                    "util.ts",
                    "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
                ),
                (
                    "tsconfig.json",
                    "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true, \"target\": \"es2020\", \"module\": \"commonjs\"}, \"include\": [\"*.ts\"]}\n",
                ),
            ],
            edited: "index.ts",
            edit: |n| {
                format!(
                    "import {{ add }} from \"./util\";\n\nexport const value: string = add(1, {n});\n"
                )
            },
            checker: &["tsc", "--noEmit", "-p", "."],
        },
        Project {
            server: "gopls",
            binary: "gopls",
            files: &[
                ("go.mod", "module bench\n\ngo 1.19\n"),
                (
                    "util.go",
                    "package main\n\nfunc add(a, b int) int { return a + b }\n",
                ),
            ],
            edited: "main.go",
            edit: |n| {
                format!(
                    "package main\n\nfunc main() {{\n\tvar s string = add(1, {n})\n\t_ = s\n}}\n"
                )
            },
            checker: &["go", "vet", "./..."],
        },
        Project {
            server: "clangd",
            binary: "clangd",
            files: &[("util.h", "int add(int a, int b);\n")],
            edited: "main.c",
            edit: |n| {
                format!(
                    "#include \"util.h\"\n\nint main(void) {{\n  int x = add(1, {n});\n  return x.field;\n}}\n"
                )
            },
            // No clang on this machine: gcc's parser and type checker stand in.
            checker: &["gcc", "-fsyntax-only", "main.c"],
        },
        Project {
            server: "rust-analyzer",
            binary: "rust-analyzer",
            files: &[
                (
                    "Cargo.toml",
                    "[package]\nname = \"bench\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
                ),
                (
                    "src/util.rs",
                    "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
                ),
            ],
            edited: "src/main.rs",
            edit: |n| {
                format!(
                    "mod util;\n\nfn main() {{\n    let s: String = util::add(1, {n});\n    println!(\"{{s}}\");\n}}\n"
                )
            },
            checker: &["cargo", "check", "--quiet"],
        },
    ]
}

/// The projects asked for (all when `only` is empty) whose server and
/// checker are installed; the others are named on stderr.
pub fn selected(only: &[String]) -> Vec<Project> {
    all()
        .into_iter()
        .filter(|p| only.is_empty() || only.iter().any(|o| p.server.starts_with(o.as_str())))
        .filter(|p| {
            let ok = p.available();
            if !ok {
                eprintln!(
                    "{}: {} or {} not on PATH; skipped",
                    p.server, p.binary, p.checker[0]
                );
            }
            ok
        })
        .collect()
}
