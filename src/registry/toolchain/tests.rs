use std::fs;

use serde_json::json;

use super::*;
use crate::registry::builtin_servers;

fn builtin(id: &str) -> ServerSpec {
    builtin_servers()
        .into_iter()
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("no builtin {id}"))
}

/// A workspace `ws` in a temp dir, with packages written into it.
struct Tree {
    dir: tempfile::TempDir,
}

impl Tree {
    fn new() -> Tree {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("ws/app/src")).unwrap();
        Tree { dir }
    }

    fn ws(&self) -> PathBuf {
        self.dir.path().join("ws")
    }

    fn path(&self, relative: &str) -> PathBuf {
        crate::platform::paths::join_slashed(self.dir.path(), relative)
    }

    /// `package.json` of a package at `dir` (relative to the temp dir).
    fn package(&self, dir: &str, manifest: Value) -> PathBuf {
        let dir = self.path(dir);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("package.json"), manifest.to_string()).unwrap();
        dir
    }

    fn file(&self, relative: &str) -> PathBuf {
        let path = self.path(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, "#!/bin/sh\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
        }
        path
    }

    fn lookup(&self, id: &str, root: &str) -> Lookup {
        lookup(&builtin(id), &self.path(root), &self.ws())
    }
}

fn typescript(version: &str) -> Value {
    json!({"name": "typescript", "version": version, "bin": {"tsc": "./bin/tsc", "tsserver": "./bin/tsserver"}})
}

#[test]
fn the_project_typescript_version_chooses_the_server() {
    let tree = Tree::new();
    tree.package("ws/node_modules/typescript", typescript("7.0.2"));
    let seven = tree.lookup("tsgo", "ws/app");
    assert!(
        matches!(&seven, Lookup::Found(f, Given::Program { bin, .. }) if f.version == "7.0.2" && bin == "tsc")
    );
    assert_eq!(seven.package().map(|p| p.origin), Some(Origin::Project));
    assert!(matches!(
        tree.lookup("typescript-language-server", "ws/app"),
        Lookup::Unsuited(f) if f.version == "7.0.2"
    ));

    // The nearest wins: a package's own TypeScript 6 over the root's 7.
    tree.package("ws/app/node_modules/typescript", typescript("6.0.3"));
    assert!(matches!(
        tree.lookup("typescript-language-server", "ws/app"),
        Lookup::Found(f, Given::InitOption { .. }) if f.version == "6.0.3"
    ));
    assert!(matches!(tree.lookup("tsgo", "ws/app"), Lookup::Unsuited(_)));
}

#[test]
fn native_preview_counts_as_typescript_7_but_typescript_decides_first() {
    let tree = Tree::new();
    tree.package(
        "ws/node_modules/@typescript/native-preview",
        json!({"name": "@typescript/native-preview", "version": "7.0.0-dev.20260707.2", "bin": {"tsgo": "./bin/tsgo"}}),
    );
    assert!(matches!(
        tree.lookup("tsgo", "ws/app"),
        Lookup::Found(f, Given::Program { bin, .. }) if f.name == "@typescript/native-preview" && bin == "tsgo"
    ));
    assert_eq!(
        tree.lookup("typescript-language-server", "ws/app"),
        Lookup::Missing
    );
    tree.package("ws/node_modules/typescript", typescript("5.9.3"));
    assert!(matches!(tree.lookup("tsgo", "ws/app"), Lookup::Unsuited(f) if f.name == "typescript"));
}

#[test]
fn nothing_above_the_workspace_root_counts() {
    let tree = Tree::new();
    tree.package("node_modules/typescript", typescript("7.0.2"));
    assert_eq!(tree.lookup("tsgo", "ws/app"), Lookup::Missing);
    assert_eq!(tree.lookup("pyright", "ws/app"), Lookup::NotApplicable);
    // A version that does not read as one is not taken.
    tree.package("ws/node_modules/typescript", typescript("next"));
    assert!(matches!(tree.lookup("tsgo", "ws/app"), Lookup::Unsuited(_)));
}

#[test]
fn typescript_7_runs_its_own_program() {
    let tree = Tree::new();
    let dir = tree.package("ws/node_modules/typescript", typescript("7.0.2"));
    let bin = tree.file("ws/node_modules/typescript/bin/tsc");
    let started = launch(&builtin("tsgo"), &tree.path("ws/app"), &tree.ws(), None).unwrap();
    assert_eq!(started.program, bin);
    assert_eq!(started.args, ["--lsp", "--stdio"]);
    assert_eq!(started.package.map(|p| p.dir), Some(dir));

    // Its platform build, beside it as npm installs it, is run directly.
    if let Some((platform, arch)) = node_platform() {
        let suffix = if cfg!(windows) { ".exe" } else { "" };
        let native = tree.file(&format!(
            "ws/node_modules/@typescript/typescript-{platform}-{arch}/lib/tsc{suffix}"
        ));
        let started = launch(&builtin("tsgo"), &tree.path("ws/app"), &tree.ws(), None).unwrap();
        assert_eq!(
            started.program.canonicalize().ok(),
            native.canonicalize().ok()
        );
    }
}

#[test]
fn typescript_6_is_given_to_typescript_language_server() {
    let tree = Tree::new();
    let dir = tree.package("ws/node_modules/typescript", typescript("6.0.3"));
    let server = tree.file("ws/node_modules/.bin/typescript-language-server");
    let started = launch(
        &builtin("typescript-language-server"),
        &tree.path("ws/app"),
        &tree.ws(),
        None,
    )
    .unwrap();
    assert_eq!(started.program, server);
    assert_eq!(started.args, ["--stdio"]);
    let path = crate::platform::paths::join_slashed(&dir, "lib/tsserver.js");
    let path = path.display().to_string();
    assert_eq!(
        started.initialization_options,
        json!({"tsserver": {"path": path}})
    );
}

#[test]
fn without_a_project_package_the_server_runs_its_own_command() {
    let tree = Tree::new();
    let own = tree.file("bin/tsgo");
    let path_var = std::env::join_paths([own.parent().unwrap()]).unwrap();
    let started = || {
        launch(
            &builtin("tsgo"),
            &tree.path("ws/app"),
            &tree.ws(),
            Some(&path_var),
        )
        .unwrap()
    };
    assert_eq!(started().program, own);
    assert_eq!(started().package, None);
    // A TypeScript 7 whose program is missing is no better than none.
    tree.package("ws/node_modules/typescript", typescript("7.0.2"));
    assert_eq!(started().program, own);
}

#[test]
fn pointers_make_their_objects() {
    let mut options = Value::Null;
    set_pointer(&mut options, "/tsserver/path", json!("/x/tsserver.js"));
    assert_eq!(options, json!({"tsserver": {"path": "/x/tsserver.js"}}));
    let mut options = json!({"tsserver": {"logVerbosity": "off"}, "other": 1});
    set_pointer(&mut options, "/tsserver/path", json!("/y"));
    assert_eq!(
        options,
        json!({"tsserver": {"logVerbosity": "off", "path": "/y"}, "other": 1})
    );
}

#[test]
fn majors() {
    let six = Majors {
        from: 0,
        below: Some(7),
    };
    assert!(six.contains(6) && !six.contains(7));
    assert!(Majors::ANY.contains(0) && Majors::ANY.contains(100));
}
