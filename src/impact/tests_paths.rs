//! Which files are tests, by their path alone: the conventions of the
//! test runners squiggle's languages use (pytest, Jest/Vitest/Mocha, Go,
//! Rust, JUnit, RSpec). A use in a test file is impact too, counted apart.

/// Directories whose files are tests.
const TEST_DIRS: &[&str] = &["test", "tests", "__tests__", "spec", "specs", "testing"];

/// Whether `path` (workspace-relative, `/`-separated) is a test file.
pub fn is_test_path(path: &str) -> bool {
    let mut parts: Vec<&str> = path.split('/').collect();
    let Some(name) = parts.pop() else {
        return false;
    };
    if parts.iter().any(|dir| TEST_DIRS.contains(dir)) {
        return true;
    }
    let (stem, extension) = name.rsplit_once('.').unwrap_or((name, ""));
    match extension {
        "py" | "pyi" => stem.starts_with("test_") || stem.ends_with("_test") || stem == "conftest",
        "go" => stem.ends_with("_test"),
        "rs" => stem == "tests" || stem.ends_with("_test") || stem.ends_with("_tests"),
        "rb" => stem.ends_with("_spec") || stem.ends_with("_test"),
        "java" | "kt" | "cs" => stem.ends_with("Test") || stem.ends_with("Tests"),
        _ => {
            // `x.test.ts`, `x.spec.jsx`, `x.test.mjs`
            let inner = stem.rsplit_once('.').map(|(_, k)| k);
            matches!(inner, Some("test" | "spec"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_test_path;

    #[test]
    fn test_files_by_their_conventions() {
        let tests = [
            "tests/test_geometry.py",
            "pkg/test_x.py",
            "pkg/x_test.py",
            "conftest.py",
            "test/math.test.ts",
            "src/math.test.ts",
            "src/a.spec.jsx",
            "web/__tests__/a.js",
            "geometry/area_test.go",
            "src/FooTest.java",
            "spec/models/user_spec.rb",
        ];
        for path in tests {
            assert!(is_test_path(path), "{path}");
        }
        let others = [
            "geometry.py",
            "src/testing_utils_not.ts",
            "src/contest.py",
            "src/latest.ts",
            "attest/x.py",
            "src/math.ts",
            "main.go",
        ];
        for path in others {
            assert!(!is_test_path(path), "{path}");
        }
    }
}
