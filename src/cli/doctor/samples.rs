//! The small projects `squiggle doctor` starts each server on: one per
//! language, each with the files its server needs to see a project (a
//! `pyproject.toml`, a `go.mod`, a `compile_flags.txt`) and one main file with
//! a deliberate mistake, so the first check shows whether diagnostics really
//! arrive. Languages without a sample here get an almost empty file with the
//! right extension: enough to see the server start and answer.

use std::path::{Path, PathBuf};

use crate::engine::ResolvedServer;
use crate::registry::languages::EXTENSIONS;

/// A sample project, as files relative to its root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    pub files: Vec<(String, String)>,
    /// The file opened and checked (one of `files`).
    pub main: String,
    pub language_id: String,
}

impl Sample {
    fn new(language_id: &str, main: &str, files: &[(&str, &str)]) -> Sample {
        Sample {
            files: files
                .iter()
                .map(|(name, text)| (name.to_string(), text.to_string()))
                .collect(),
            main: main.to_string(),
            language_id: language_id.to_string(),
        }
    }

    pub fn main_text(&self) -> &str {
        self.files
            .iter()
            .find(|(name, _)| *name == self.main)
            .map_or("", |(_, text)| text)
    }

    /// Writes every file under `dir`, creating parent directories.
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        for (name, text) in &self.files {
            let path = dir.join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(path, text)?;
        }
        Ok(())
    }
}

const ESLINT_CONFIG: &str =
    "export default [\n  { rules: { \"no-unused-vars\": \"error\" } },\n];\n";

/// The sample for `server`: for its first language (JavaScript for a server
/// that needs an ESLint config), or for the extension a custom server was
/// configured with. A `requires_marker` file is added when the sample lacks one.
pub fn for_server(server: &ResolvedServer) -> Sample {
    let spec = &server.spec;
    let mut sample = if let Some(ext) = server.extensions.first() {
        let language = server
            .language_id
            .clone()
            .or_else(|| spec.languages.first().cloned())
            .unwrap_or_else(|| "plaintext".into());
        let main = format!("sample{ext}");
        Sample::new(&language, &main, &[(&main, "squiggle doctor sample\n")])
    } else {
        let wants_eslint = spec
            .requires_marker
            .iter()
            .any(|m| m.starts_with("eslint.config"));
        let language = if wants_eslint && spec.languages.iter().any(|l| l == "javascript") {
            "javascript"
        } else {
            spec.languages.first().map_or("plaintext", String::as_str)
        };
        for_language(language)
    };
    if let Some(marker) = spec.requires_marker.first()
        && !sample
            .files
            .iter()
            .any(|(name, _)| spec.requires_marker.contains(name))
    {
        let text = if marker.starts_with("eslint.config") {
            ESLINT_CONFIG
        } else {
            ""
        };
        sample.files.push((marker.clone(), text.to_string()));
    }
    sample
}

/// A sample project for an LSP language id.
pub fn for_language(language: &str) -> Sample {
    const PACKAGE_JSON: &str =
        "{\n  \"name\": \"sample\",\n  \"private\": true,\n  \"type\": \"module\"\n}\n";
    match language {
        "python" => Sample::new(
            language,
            "main.py",
            &[
                (
                    "pyproject.toml",
                    "[project]\nname = \"sample\"\nversion = \"0.1.0\"\n",
                ),
                ("main.py", "import os\n\ncount: int = \"not a number\"\n"),
            ],
        ),
        "typescript" | "typescriptreact" => Sample::new(
            "typescript",
            "index.ts",
            &[
                ("package.json", PACKAGE_JSON),
                (
                    "tsconfig.json",
                    "{\n  \"compilerOptions\": { \"strict\": true, \"target\": \"es2022\", \"module\": \"nodenext\" },\n  \"include\": [\"index.ts\"]\n}\n",
                ),
                (
                    "index.ts",
                    "export const count: number = \"not a number\";\n",
                ),
            ],
        ),
        "javascript" | "javascriptreact" => Sample::new(
            "javascript",
            "index.js",
            &[
                ("package.json", PACKAGE_JSON),
                ("eslint.config.js", ESLINT_CONFIG),
                ("index.js", "const unused = 1;\n"),
            ],
        ),
        "go" => Sample::new(
            language,
            "main.go",
            &[
                ("go.mod", "module example.com/sample\n\ngo 1.21\n"),
                (
                    "main.go",
                    "package main\n\nfunc main() {\n\tvar count int = \"not a number\"\n\t_ = count\n}\n",
                ),
            ],
        ),
        "rust" => Sample::new(
            language,
            "src/lib.rs",
            &[
                (
                    "Cargo.toml",
                    "[package]\nname = \"sample\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
                ),
                (
                    "src/lib.rs",
                    "pub fn count() -> i32 {\n    \"not a number\"\n}\n",
                ),
            ],
        ),
        "c" | "objective-c" => Sample::new(
            "c",
            "main.c",
            &[
                ("compile_flags.txt", "-std=c11\n-Wall\n"),
                ("main.c", "int main(void) {\n    return undeclared;\n}\n"),
            ],
        ),
        "cpp" | "objective-cpp" | "cuda-cpp" => Sample::new(
            "cpp",
            "main.cpp",
            &[
                ("compile_flags.txt", "-std=c++17\n-Wall\n"),
                ("main.cpp", "int main() {\n    return undeclared;\n}\n"),
            ],
        ),
        "shellscript" => Sample::new(
            language,
            "script.sh",
            &[(
                "script.sh",
                "#!/bin/bash\nif [ $1 = x ]; then\n  echo yes\nfi\n",
            )],
        ),
        "yaml" => Sample::new(
            language,
            "config.yaml",
            &[("config.yaml", "name: sample\nitems: [1, 2\n")],
        ),
        "json" | "jsonc" => Sample::new(
            "json",
            "data.json",
            &[("data.json", "{\n  \"name\": \"sample\",\n}\n")],
        ),
        "css" | "scss" | "less" => Sample::new(
            "css",
            "style.css",
            &[("style.css", "a {\n  colr: red;\n}\n")],
        ),
        "html" => Sample::new(
            language,
            "index.html",
            &[(
                "index.html",
                "<!DOCTYPE html>\n<html>\n<head><title>sample</title></head>\n<body><p>sample</body>\n</html>\n",
            )],
        ),
        "toml" => Sample::new(
            language,
            "config.toml",
            &[("config.toml", "name = \"a\"\nname = \"b\"\n")],
        ),
        "markdown" => Sample::new(
            language,
            "README.md",
            &[(
                "README.md",
                "# Sample\n\nSee [the missing part](#nowhere).\n",
            )],
        ),
        "svelte" => Sample::new(
            language,
            "Sample.svelte",
            &[
                ("package.json", PACKAGE_JSON),
                (
                    "Sample.svelte",
                    "<script lang=\"ts\">\n  const count: number = \"not a number\";\n</script>\n\n<p>{count}</p>\n",
                ),
            ],
        ),
        "php" => Sample::new(
            language,
            "main.php",
            &[
                ("composer.json", "{}\n"),
                ("main.php", "<?php\n\n$count = ;\n"),
            ],
        ),
        "dockerfile" => Sample::new(
            language,
            "Dockerfile",
            &[("Dockerfile", "FROM alpine\nRUN echo sample\n")],
        ),
        other => {
            let main = EXTENSIONS
                .iter()
                .find(|(_, lang)| *lang == other)
                .map_or_else(
                    || "sample.txt".to_string(),
                    |(ext, _)| format!("sample.{ext}"),
                );
            Sample::new(other, &main, &[(&main, "\n")])
        }
    }
}

/// For a server found in a `node_modules/.bin`: links the sample's
/// `node_modules` to that directory, as a project that installed the server
/// locally has it, so libraries the server loads from the project (ESLint,
/// TypeScript) resolve. Nothing for servers installed elsewhere.
pub fn link_node_modules(dir: &Path, program: &Path) -> std::io::Result<()> {
    let Some(modules) = node_modules_of(program) else {
        return Ok(());
    };
    #[cfg(unix)]
    std::os::unix::fs::symlink(&modules, dir.join("node_modules"))?;
    #[cfg(not(unix))]
    let _ = (dir, modules);
    Ok(())
}

fn node_modules_of(program: &Path) -> Option<PathBuf> {
    let bin = program.parent()?;
    let modules = bin.parent()?;
    (bin.file_name()? == ".bin" && modules.file_name()? == "node_modules")
        .then(|| modules.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::engine::servers::resolve;

    fn sample_of(id: &str) -> Sample {
        let servers = resolve(&Config::default());
        let server = servers
            .iter()
            .find(|s| s.spec.id == id)
            .unwrap_or_else(|| panic!("no server {id}"));
        for_server(server)
    }

    #[test]
    fn every_builtin_server_gets_a_main_file_of_its_language() {
        for server in resolve(&Config::default()) {
            let sample = for_server(&server);
            assert!(
                sample.files.iter().any(|(name, _)| *name == sample.main),
                "{}: main file {} not among the files",
                server.spec.id,
                sample.main
            );
            let language = crate::registry::languages::language_id(Path::new(&sample.main));
            assert_eq!(
                language,
                Some(sample.language_id.as_str()),
                "{}: {} is not {}",
                server.spec.id,
                sample.main,
                sample.language_id
            );
        }
    }

    #[test]
    fn eslint_gets_javascript_and_its_config() {
        let sample = sample_of("eslint");
        assert_eq!(sample.main, "index.js");
        let names: Vec<_> = sample.files.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["package.json", "eslint.config.js", "index.js"]);
    }

    #[test]
    fn shell_sample_has_the_unquoted_argument_shellcheck_reports() {
        assert!(
            sample_of("bash-language-server")
                .main_text()
                .contains("[ $1 = x ]")
        );
    }

    #[test]
    fn node_modules_is_found_only_above_a_bin_directory() {
        assert_eq!(
            node_modules_of(Path::new("/t/node_modules/.bin/pyright-langserver")),
            Some(PathBuf::from("/t/node_modules"))
        );
        assert_eq!(node_modules_of(Path::new("/usr/bin/clangd")), None);
    }
}
