//! File name and extension to LSP language id, as pure data.
//!
//! The language id decides which servers see a file and is sent verbatim in
//! `textDocument/didOpen`, so the ids here are the ones servers expect (VS
//! Code's: `typescriptreact`, `shellscript`, `go.mod`, ...). Well-known file
//! names are looked up first, so `Dockerfile`, `.bashrc` and `go.mod` get a
//! language though their extension says nothing; then the extension decides.
//! Both lookups ignore ASCII case.

use std::path::Path;

/// Whole file names with a language of their own, checked before extensions.
pub const FILE_NAMES: &[(&str, &str)] = &[
    ("Dockerfile", "dockerfile"),
    ("Containerfile", "dockerfile"),
    ("Makefile", "makefile"),
    ("GNUmakefile", "makefile"),
    ("CMakeLists.txt", "cmake"),
    (".bashrc", "shellscript"),
    (".bash_profile", "shellscript"),
    (".bash_login", "shellscript"),
    (".bash_logout", "shellscript"),
    (".bash_aliases", "shellscript"),
    (".profile", "shellscript"),
    (".zshrc", "shellscript"),
    (".zshenv", "shellscript"),
    (".zprofile", "shellscript"),
    (".zlogin", "shellscript"),
    (".envrc", "shellscript"),
    ("PKGBUILD", "shellscript"),
    ("go.mod", "go.mod"),
    ("go.sum", "go.sum"),
    ("go.work", "go.work"),
    ("Cargo.lock", "toml"),
    ("uv.lock", "toml"),
    ("poetry.lock", "toml"),
    ("Pipfile", "toml"),
    ("pyproject.toml", "toml"),
    ("tsconfig.json", "jsonc"),
    ("jsconfig.json", "jsonc"),
    (".eslintrc", "json"),
    (".babelrc", "json"),
    (".prettierrc", "json"),
    (".swcrc", "json"),
    ("Gemfile", "ruby"),
    ("Rakefile", "ruby"),
    ("Podfile", "ruby"),
    ("Brewfile", "ruby"),
];

/// Extensions without the dot.
pub const EXTENSIONS: &[(&str, &str)] = &[
    // TypeScript and JavaScript.
    ("ts", "typescript"),
    ("mts", "typescript"),
    ("cts", "typescript"),
    ("tsx", "typescriptreact"),
    ("js", "javascript"),
    ("mjs", "javascript"),
    ("cjs", "javascript"),
    ("jsx", "javascriptreact"),
    // Components.
    ("vue", "vue"),
    ("svelte", "svelte"),
    // Python.
    ("py", "python"),
    ("pyi", "python"),
    ("pyw", "python"),
    // Go and Rust.
    ("go", "go"),
    ("rs", "rust"),
    // The C family.
    ("c", "c"),
    ("h", "c"),
    ("cc", "cpp"),
    ("cpp", "cpp"),
    ("cxx", "cpp"),
    ("c++", "cpp"),
    ("hpp", "cpp"),
    ("hh", "cpp"),
    ("hxx", "cpp"),
    ("h++", "cpp"),
    ("ipp", "cpp"),
    ("inl", "cpp"),
    ("m", "objective-c"),
    ("mm", "objective-cpp"),
    ("cu", "cuda-cpp"),
    ("cuh", "cuda-cpp"),
    // Shells.
    ("sh", "shellscript"),
    ("bash", "shellscript"),
    ("zsh", "shellscript"),
    ("ksh", "shellscript"),
    // Data and configuration.
    ("json", "json"),
    ("jsonc", "jsonc"),
    ("json5", "jsonc"),
    ("yaml", "yaml"),
    ("yml", "yaml"),
    ("toml", "toml"),
    // Web.
    ("css", "css"),
    ("scss", "scss"),
    ("less", "less"),
    ("html", "html"),
    ("htm", "html"),
    ("xhtml", "html"),
    ("md", "markdown"),
    ("markdown", "markdown"),
    // JVM and .NET.
    ("java", "java"),
    ("kt", "kotlin"),
    ("kts", "kotlin"),
    ("cs", "csharp"),
    // Others.
    ("rb", "ruby"),
    ("rake", "ruby"),
    ("gemspec", "ruby"),
    ("lua", "lua"),
    ("zig", "zig"),
    ("zon", "zig"),
    ("swift", "swift"),
    ("php", "php"),
    ("ex", "elixir"),
    ("exs", "elixir"),
    ("heex", "phoenix-heex"),
    ("tf", "terraform"),
    ("tfvars", "terraform-vars"),
    ("dockerfile", "dockerfile"),
    ("containerfile", "dockerfile"),
    ("mk", "makefile"),
    ("cmake", "cmake"),
];

/// The LSP language id of `path`: by well-known file name first, then by
/// extension, both ignoring ASCII case. `None` when neither is known.
pub fn language_id(path: &Path) -> Option<&'static str> {
    let name = path.file_name()?.to_str()?;
    if let Some(language) = lookup(FILE_NAMES, name) {
        return Some(language);
    }
    // `Dockerfile.dev` and friends.
    let stem = name.split_once('.').map_or(name, |(stem, _)| stem);
    if stem.eq_ignore_ascii_case("Dockerfile") || stem.eq_ignore_ascii_case("Containerfile") {
        return Some("dockerfile");
    }
    let extension = path.extension()?.to_str()?;
    lookup(EXTENSIONS, extension)
}

/// Whether any file name or extension maps to `language`.
pub fn is_known_language(language: &str) -> bool {
    FILE_NAMES
        .iter()
        .chain(EXTENSIONS)
        .any(|&(_, known)| known == language)
}

fn lookup(table: &[(&str, &'static str)], key: &str) -> Option<&'static str> {
    table
        .iter()
        .find(|(candidate, _)| candidate.eq_ignore_ascii_case(key))
        .map(|&(_, language)| language)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(path: &str, expected: Option<&str>) {
        assert_eq!(language_id(Path::new(path)), expected, "language of {path}");
    }

    #[test]
    fn every_listed_extension_maps() {
        let expected = [
            (".ts", "typescript"),
            (".tsx", "typescriptreact"),
            (".mts", "typescript"),
            (".cts", "typescript"),
            (".js", "javascript"),
            (".jsx", "javascriptreact"),
            (".mjs", "javascript"),
            (".cjs", "javascript"),
            (".py", "python"),
            (".pyi", "python"),
            (".go", "go"),
            (".rs", "rust"),
            (".c", "c"),
            (".h", "c"),
            (".cc", "cpp"),
            (".cpp", "cpp"),
            (".cxx", "cpp"),
            (".hpp", "cpp"),
            (".hh", "cpp"),
            (".m", "objective-c"),
            (".mm", "objective-cpp"),
            (".java", "java"),
            (".kt", "kotlin"),
            (".kts", "kotlin"),
            (".rb", "ruby"),
            (".cs", "csharp"),
            (".sh", "shellscript"),
            (".bash", "shellscript"),
            (".zsh", "shellscript"),
            (".yaml", "yaml"),
            (".yml", "yaml"),
            (".json", "json"),
            (".jsonc", "jsonc"),
            (".toml", "toml"),
            (".lua", "lua"),
            (".zig", "zig"),
            (".swift", "swift"),
            (".php", "php"),
            (".ex", "elixir"),
            (".exs", "elixir"),
            (".css", "css"),
            (".scss", "scss"),
            (".less", "less"),
            (".html", "html"),
            (".htm", "html"),
            (".md", "markdown"),
            (".tf", "terraform"),
            (".tfvars", "terraform-vars"),
            (".dockerfile", "dockerfile"),
        ];
        for (extension, language) in expected {
            check(&format!("src/file{extension}"), Some(language));
        }
    }

    #[test]
    fn well_known_file_names_win_over_extensions() {
        check("Dockerfile", Some("dockerfile"));
        check("deploy/Dockerfile.prod", Some("dockerfile"));
        check("Makefile", Some("makefile"));
        check("makefile", Some("makefile"));
        check("/home/me/.bashrc", Some("shellscript"));
        check(".bash_profile", Some("shellscript"));
        check(".zshrc", Some("shellscript"));
        check(".profile", Some("shellscript"));
        check("CMakeLists.txt", Some("cmake"));
        check("go.mod", Some("go.mod"));
        check("go.sum", Some("go.sum"));
        check("go.work", Some("go.work"));
        check("Cargo.lock", Some("toml"));
        check("Cargo.toml", Some("toml"));
        check("pyproject.toml", Some("toml"));
        check("tsconfig.json", Some("jsonc"));
        check("packages/app/tsconfig.json", Some("jsonc"));
        check(".eslintrc", Some("json"));
        check(".eslintrc.json", Some("json"));
    }

    #[test]
    fn lookups_ignore_case() {
        check("MAIN.RS", Some("rust"));
        check("App.TSX", Some("typescriptreact"));
        check("script.Py", Some("python"));
        check("DOCKERFILE", Some("dockerfile"));
        check("cmakelists.txt", Some("cmake"));
    }

    #[test]
    fn unknown_files_have_no_language() {
        check("README", None);
        check("notes.txt", None);
        check("archive.tar.gz", None);
        check("", None);
        check("/", None);
    }

    #[test]
    fn tables_have_no_duplicate_keys() {
        for table in [FILE_NAMES, EXTENSIONS] {
            for (index, (key, _)) in table.iter().enumerate() {
                let duplicate = table[index + 1..]
                    .iter()
                    .any(|(other, _)| other.eq_ignore_ascii_case(key));
                assert!(!duplicate, "{key} is listed twice");
            }
        }
    }
}
