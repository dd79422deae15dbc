use std::fs;
use std::path::{Path, PathBuf};

use super::*;

/// A workspace in a temp dir, canonical, with files created from
/// `path => contents` pairs (a path ending in `/` is a directory).
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Fixture {
    fn new(files: &[(&str, &str)]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = crate::platform::paths::canonicalize(dir.path())
            .unwrap()
            .join("ws");
        fs::create_dir(&root).unwrap();
        for (path, contents) in files {
            let full = root.join(path);
            if path.ends_with('/') {
                fs::create_dir_all(&full).unwrap();
            } else {
                fs::create_dir_all(full.parent().unwrap()).unwrap();
                fs::write(&full, contents).unwrap();
            }
        }
        Fixture { _dir: dir, root }
    }

    fn workspace(&self) -> Workspace {
        Workspace::discover(Some(&self.root), Path::new("/")).unwrap()
    }

    fn root_for(&self, file: &str, markers: &[&str], strategy: RootSearch) -> String {
        let markers: Vec<String> = markers.iter().map(|m| m.to_string()).collect();
        let root = project_root(&self.root.join(file), &self.root, &markers, strategy);
        let relative = self
            .workspace()
            .relative(&root)
            .unwrap_or_else(|| root.display().to_string());
        if relative.is_empty() {
            ".".to_string()
        } else {
            relative
        }
    }
}

fn check_class(ws: &Workspace, path: &Path, expected: &str) {
    let actual = match ws.classify(path) {
        PathClass::Inside { relative, .. } => format!("inside {relative}"),
        PathClass::Outside { .. } => "outside".to_string(),
        PathClass::Ignored { relative, dir, .. } => format!("ignored {relative} ({dir})"),
    };
    assert_eq!(actual, expected, "classifying {}", path.display());
}

#[test]
fn discovers_git_top_level_explicit_root_and_falls_back_to_cwd() {
    let f = Fixture::new(&[(".git/", ""), ("a/b/", "")]);
    let ws = Workspace::discover(None, &f.root.join("a/b")).unwrap();
    assert_eq!(ws.root(), f.root);

    let ws = Workspace::discover(Some(Path::new("b")), &f.root.join("a")).unwrap();
    assert_eq!(ws.root(), f.root.join("a/b"));

    // A `.git` file (worktree, submodule) counts too.
    let g = Fixture::new(&[(".git", "gitdir: /elsewhere"), ("src/", "")]);
    let ws = Workspace::discover(None, &g.root.join("src")).unwrap();
    assert_eq!(ws.root(), g.root);

    let plain = tempfile::tempdir().unwrap();
    let cwd = crate::platform::paths::canonicalize(plain.path()).unwrap();
    if !cwd.ancestors().any(|d| d.join(".git").exists()) {
        assert_eq!(Workspace::discover(None, &cwd).unwrap().root(), cwd);
    }

    assert!(Workspace::discover(Some(&f.root.join("missing")), Path::new("/")).is_err());
}

#[test]
fn classifies_paths() {
    let f = Fixture::new(&[
        ("src/main.rs", ""),
        ("node_modules/pkg/index.js", ""),
        ("web/build/out.js", ""),
    ]);
    let ws = f.workspace();
    check_class(&ws, &f.root.join("src/main.rs"), "inside src/main.rs");
    check_class(&ws, Path::new("src/main.rs"), "inside src/main.rs");
    check_class(&ws, Path::new("./src/../src/main.rs"), "inside src/main.rs");
    check_class(&ws, Path::new("src/new.rs"), "inside src/new.rs");
    check_class(
        &ws,
        Path::new("src/new/deeper/file.rs"),
        "inside src/new/deeper/file.rs",
    );
    check_class(&ws, &f.root, "inside ");
    check_class(
        &ws,
        Path::new("node_modules/pkg/index.js"),
        "ignored node_modules/pkg/index.js (node_modules)",
    );
    check_class(
        &ws,
        Path::new("web/build/out.js"),
        "ignored web/build/out.js (build)",
    );
    // A file merely named like an ignored directory is not ignored.
    check_class(&ws, Path::new("src/build"), "inside src/build");
}

#[test]
fn dot_dot_escaping_the_root_is_outside() {
    let f = Fixture::new(&[("src/", "")]);
    let ws = f.workspace();
    check_class(&ws, Path::new("../outside.txt"), "outside");
    check_class(&ws, Path::new("src/../../ws/src/a.rs"), "inside src/a.rs");
    check_class(&ws, &f.root.join("../ws2/a.rs"), "outside");
    // `..` below a directory that does not exist cannot be settled on
    // Unix; Windows settles it by the spelling alone, and opens `a.rs`.
    let settled = if crate::platform::paths::DOTDOT_BY_SPELLING {
        "inside a.rs"
    } else {
        "outside"
    };
    check_class(&ws, Path::new("missing/../a.rs"), settled);
    check_class(&ws, Path::new("/etc/passwd"), "outside");
}

#[cfg(unix)]
#[test]
fn symlinks_are_followed_across_the_boundary() {
    use std::os::unix::fs::symlink;
    let f = Fixture::new(&[("src/", "")]);
    let outside = f.root.parent().unwrap().join("outside");
    fs::create_dir(&outside).unwrap();
    fs::write(outside.join("secret.txt"), "").unwrap();
    symlink(&outside, f.root.join("link")).unwrap();
    symlink(outside.join("new.txt"), f.root.join("dangling")).unwrap();
    symlink(f.root.join("src"), f.root.join("alias")).unwrap();
    symlink("loop", f.root.join("loop")).unwrap();
    let ws = f.workspace();
    check_class(&ws, Path::new("link/secret.txt"), "outside");
    check_class(&ws, Path::new("link/new.txt"), "outside");
    // A write through a dangling link would create the file outside.
    check_class(&ws, Path::new("dangling"), "outside");
    check_class(&ws, Path::new("alias/a.rs"), "inside src/a.rs");
    check_class(&ws, Path::new("loop"), "outside");
}

#[test]
fn monorepo_packages_get_their_own_roots() {
    let f = Fixture::new(&[
        ("tsconfig.json", "{}"),
        ("packages/a/tsconfig.json", "{}"),
        ("packages/a/src/index.ts", ""),
        ("packages/b/tsconfig.json", "{}"),
        ("packages/b/lib/x.ts", ""),
        ("packages/c/c.ts", ""),
    ]);
    let ts = ["tsconfig.json", "package.json"];
    assert_eq!(
        f.root_for("packages/a/src/index.ts", &ts, RootSearch::Nearest),
        "packages/a"
    );
    assert_eq!(
        f.root_for("packages/b/lib/x.ts", &ts, RootSearch::Nearest),
        "packages/b"
    );
    assert_eq!(f.root_for("packages/c/c.ts", &ts, RootSearch::Nearest), ".");
    // The file need not exist.
    assert_eq!(
        f.root_for("packages/a/src/new.ts", &ts, RootSearch::Nearest),
        "packages/a"
    );
}

#[test]
fn nested_package_json_is_nearest() {
    let f = Fixture::new(&[
        ("package.json", "{}"),
        ("apps/web/package.json", "{}"),
        ("apps/web/src/deep/page.tsx", ""),
    ]);
    let markers = ["package.json"];
    assert_eq!(
        f.root_for("apps/web/src/deep/page.tsx", &markers, RootSearch::Nearest),
        "apps/web"
    );
    assert_eq!(
        f.root_for("apps/other.ts", &markers, RootSearch::Nearest),
        "."
    );
}

#[test]
fn go_work_beats_a_nearer_go_mod() {
    let f = Fixture::new(&[
        ("go.work", "go 1.22"),
        ("svc/api/go.mod", "module api"),
        ("svc/api/main.go", ""),
        ("tools/go.mod", "module tools"),
    ]);
    let markers = ["go.work", "go.mod"];
    assert_eq!(
        f.root_for("svc/api/main.go", &markers, RootSearch::PreferFirstMarker),
        "."
    );
    assert_eq!(
        f.root_for("svc/api/main.go", &markers, RootSearch::Nearest),
        "svc/api"
    );

    let g = Fixture::new(&[("svc/api/go.mod", "module api"), ("svc/api/main.go", "")]);
    assert_eq!(
        g.root_for("svc/api/main.go", &markers, RootSearch::PreferFirstMarker),
        "svc/api"
    );
}

#[test]
fn cargo_workspace_root_wins_over_member() {
    let f = Fixture::new(&[
        ("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n"),
        ("crates/core/Cargo.toml", "[package]\nname = \"core\"\n"),
        ("crates/core/src/lib.rs", ""),
        (
            "standalone/Cargo.toml",
            "[package]\nname = \"s\"\n[workspace]\n",
        ),
        ("standalone/src/main.rs", ""),
    ]);
    let markers = ["Cargo.toml", "rust-project.json"];
    assert_eq!(
        f.root_for("crates/core/src/lib.rs", &markers, RootSearch::Outermost),
        "."
    );
    assert_eq!(
        f.root_for("crates/core/src/lib.rs", &markers, RootSearch::Nearest),
        "crates/core"
    );
    // A crate that declares its own workspace has left the outer one.
    assert_eq!(
        f.root_for("standalone/src/main.rs", &markers, RootSearch::Outermost),
        "standalone"
    );

    let g = Fixture::new(&[
        ("Cargo.toml", "[package]\nname = \"x\"\n"),
        ("src/lib.rs", ""),
    ]);
    assert_eq!(
        g.root_for("src/lib.rs", &markers, RootSearch::Outermost),
        "."
    );
}

#[test]
fn never_above_the_workspace_root() {
    let f = Fixture::new(&[("src/a.py", "")]);
    fs::write(f.root.parent().unwrap().join("pyproject.toml"), "").unwrap();
    let markers = ["pyproject.toml"];
    for strategy in [
        RootSearch::Nearest,
        RootSearch::Outermost,
        RootSearch::PreferFirstMarker,
    ] {
        assert_eq!(f.root_for("src/a.py", &markers, strategy), ".");
    }
    let elsewhere = project_root(
        Path::new("/tmp/x.py"),
        &f.root,
        &["x".into()],
        RootSearch::Nearest,
    );
    assert_eq!(elsewhere, f.root);
}

#[test]
fn glob_markers_match_extensions() {
    let f = Fixture::new(&[("app/App.csproj", ""), ("app/Program.cs", "")]);
    assert_eq!(
        f.root_for("app/Program.cs", &["*.csproj"], RootSearch::Nearest),
        "app"
    );
}

mod declared;
