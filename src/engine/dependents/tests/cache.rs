//! The scan cache follows the disk: an importer created, deleted, changed
//! or moved after the cache was built is seen on the next scan, exactly as
//! a fresh scan sees it. Each answer is compared with the one-shot scan's.

use std::path::{Path, PathBuf};

use crate::engine::dependents::{MAX_ROOTS, ScanCache, likely_dependents};
use crate::workspace::watch::DiskWatch;

/// A project on disk with a watch and a cache over it, as the daemon has.
struct Watched {
    _dir: tempfile::TempDir,
    root: PathBuf,
    watch: DiskWatch,
    cache: ScanCache,
}

impl Watched {
    fn new(files: &[(&str, &str)]) -> Watched {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root =
            crate::platform::paths::canonicalize(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        let project = Watched {
            watch: DiskWatch::start(&root).unwrap_or_else(|e| panic!("{e}")),
            cache: ScanCache::new(&root),
            _dir: dir,
            root,
        };
        for (rel, text) in files {
            project.write(rel, text);
        }
        project
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
    }

    fn remove(&self, rel: &str) {
        std::fs::remove_file(self.root.join(rel)).unwrap_or_else(|e| panic!("{e}"));
    }

    fn rename(&self, from: &str, to: &str) {
        std::fs::rename(self.root.join(from), self.root.join(to)).unwrap_or_else(|e| panic!("{e}"));
    }

    /// What the engine does before a scan: drain the watch into the cache.
    fn sync(&mut self) {
        let changes = self.watch.drain();
        self.cache.note_drained(&mut self.watch, &changes);
        self.watch.overflowed = false;
    }

    /// The importers of `rel` through the cache after a sync, checked
    /// against a fresh scan of the disk.
    fn importers(&mut self, rel: &str) -> Vec<String> {
        self.sync();
        let cached = self.relative(self.cached(rel));
        let fresh = likely_dependents(&self.root.join(rel), &self.root, |_: &Path| true);
        assert_eq!(cached, self.relative(fresh), "the cache against the disk");
        cached
    }

    /// The importers through the cache, without syncing first.
    fn cached(&self, rel: &str) -> Vec<PathBuf> {
        let serves = |_: &Path| true;
        self.cache
            .likely_dependents(&self.root.join(rel), &self.root, "all", serves)
    }

    fn relative(&self, found: Vec<PathBuf>) -> Vec<String> {
        found
            .iter()
            .map(|p| match p.strip_prefix(&self.root) {
                Ok(rel) => crate::platform::paths::slashed(rel),
                Err(_) => p.display().to_string(),
            })
            .collect()
    }
}

const LIB: &str = "def scale(x: int) -> int:\n    return x\n";
const USES_LIB: &str = "from pkg.lib import scale\n\nbig = scale(2)\n";

fn python_project() -> Watched {
    Watched::new(&[
        ("pkg/__init__.py", ""),
        ("pkg/lib.py", LIB),
        ("pkg/app.py", USES_LIB),
        ("pkg/other.py", "import os\n\nx = 1\n"),
    ])
}

#[test]
fn the_cache_answers_from_what_it_holds_until_the_watch_reports() {
    let mut p = python_project();
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/app.py"]);
    let (listings, trees, heads) = p.cache.sizes();
    assert_eq!((listings, trees), (1, 1), "one root listed and filtered");
    assert!(heads >= 2, "heads kept: {heads}");
    // Not yet drained: the listing is the cached one (so it is a cache).
    p.write("pkg/late.py", USES_LIB);
    let unsynced = p.relative(p.cached("pkg/lib.py"));
    assert_eq!(unsynced, ["pkg/app.py"]);
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/app.py", "pkg/late.py"]);
}

#[test]
fn a_new_importer_created_after_the_cache_was_built_is_found() {
    let mut p = python_project();
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/app.py"]);
    p.write("pkg/late.py", USES_LIB);
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/app.py", "pkg/late.py"]);
    // In directories that did not exist when the cache was built.
    p.write("pkg/deep/er/tool.py", USES_LIB);
    assert_eq!(
        p.importers("pkg/lib.py"),
        ["pkg/app.py", "pkg/deep/er/tool.py", "pkg/late.py"]
    );
}

#[test]
fn a_deleted_importer_is_no_longer_found() {
    let mut p = python_project();
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/app.py"]);
    p.remove("pkg/app.py");
    assert_eq!(p.importers("pkg/lib.py"), Vec::<String>::new());
    // And a deleted module is no longer what an import resolves to.
    p.write("pkg/app.py", USES_LIB);
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/app.py"]);
}

#[test]
fn a_changed_file_is_read_again() {
    let mut p = python_project();
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/app.py"]);
    p.write("pkg/other.py", "from .lib import scale\n");
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/app.py", "pkg/other.py"]);
    p.write("pkg/app.py", "big = 2\n");
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/other.py"]);
}

#[test]
fn a_file_replaced_by_a_rename_is_read_again() {
    // Editors save by writing a temporary file and renaming it over.
    let mut p = python_project();
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/app.py"]);
    p.write("pkg/.other.py.swp", "from pkg import lib\n");
    p.rename("pkg/.other.py.swp", "pkg/other.py");
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/app.py", "pkg/other.py"]);
}

#[test]
fn a_moved_directory_is_found_at_its_new_path_and_watched_there() {
    let mut p = python_project();
    p.write("pkg/sub/user.py", USES_LIB);
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/app.py", "pkg/sub/user.py"]);
    p.rename("pkg/sub", "pkg/moved");
    assert_eq!(
        p.importers("pkg/lib.py"),
        ["pkg/app.py", "pkg/moved/user.py"]
    );
    // A change in the moved directory is seen at its new path.
    p.write("pkg/moved/user.py", "x = 1\n");
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/app.py"]);
}

#[test]
fn a_python_answer_is_kept_until_an_import_line_or_the_listing_changes() {
    let mut p = python_project();
    let used = |p: &Watched| p.cache.answers().1;
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/app.py"]);
    assert_eq!(p.cache.answers(), (1, 0));
    // The edited file itself, and an importer's body: the import lines
    // every answer read are as they were.
    p.write(
        "pkg/lib.py",
        "def scale(x: int, y: int) -> int:\n    return x\n",
    );
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/app.py"]);
    p.write("pkg/app.py", &format!("{USES_LIB}extra = 3\n"));
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/app.py"]);
    assert_eq!(used(&p), 2, "both answered from the kept answer");
    // An import line changed: scanned again.
    p.write("pkg/other.py", "from .lib import scale\n");
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/app.py", "pkg/other.py"]);
    assert_eq!(used(&p), 2);
    // A file created, then one deleted: scanned again each time.
    p.write("pkg/late.py", "x = 1\n");
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/app.py", "pkg/other.py"]);
    p.remove("pkg/app.py");
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/other.py"]);
    assert_eq!(used(&p), 2);
    assert_eq!(p.importers("pkg/lib.py"), ["pkg/other.py"]);
    assert_eq!(used(&p), 3);
}

#[test]
fn an_evicted_listing_takes_only_its_own_roots_answers() {
    let mut p = python_project();
    for n in 0..MAX_ROOTS {
        p.write(&format!("sub{n}/pkg/__init__.py"), "");
    }
    p.sync();
    let lib = p.root.join("pkg/lib.py");
    let at = |p: &Watched, root: &Path| p.cache.likely_dependents(&lib, root, "all", |_| true);
    at(&p, &p.root.join("sub0"));
    at(&p, &p.root);
    assert_eq!(p.cache.answers(), (2, 0));
    // Listing the other roots evicts the least recently used: `sub0`.
    for n in 1..MAX_ROOTS {
        at(&p, &p.root.join(format!("sub{n}")));
    }
    assert_eq!(p.cache.answers().0, MAX_ROOTS);
    assert_eq!(p.relative(at(&p, &p.root)), ["pkg/app.py"]);
    assert_eq!(
        p.cache.answers().1,
        1,
        "the workspace root's answer was kept"
    );
}

#[test]
fn a_typescript_answer_is_kept_until_a_config_changes() {
    let mut p = Watched::new(&[
        (
            "tsconfig.json",
            r#"{ "compilerOptions": { "baseUrl": "src" } }"#,
        ),
        // Joined as written: `src/../tsconfig.json` is in the workspace.
        ("src/tsconfig.json", r#"{ "extends": "../tsconfig.json" }"#),
        ("src/lib.ts", "export const k = 1;\n"),
        ("src/app.ts", "import { k } from './lib';\n"),
        ("src/far.ts", "import { k } from 'other/lib';\n"),
    ]);
    assert_eq!(p.importers("src/lib.ts"), ["src/app.ts"]);
    // The edited file's own text is not what its importers are found by.
    p.write("src/lib.ts", "export const k = 2;\n");
    assert_eq!(p.importers("src/lib.ts"), ["src/app.ts"]);
    assert_eq!(p.cache.answers(), (1, 1));
    // Its exports order the answer: a new export is a new scan.
    p.write("src/lib.ts", "export const k = 2;\nexport const k2 = 3;\n");
    assert_eq!(p.importers("src/lib.ts"), ["src/app.ts"]);
    assert_eq!(p.cache.answers(), (2, 1));
    p.write("src/lib.ts", "export const k = 2;\n");
    assert_eq!(p.importers("src/lib.ts"), ["src/app.ts"]);
    assert_eq!(p.cache.answers(), (2, 2), "the first exports' answer again");
    // Another file's head changed: the answers that may have read it go.
    assert_eq!(p.importers("src/app.ts"), Vec::<String>::new());
    p.write(
        "src/app.ts",
        "import { k } from './lib';\nexport const j = k;\n",
    );
    assert_eq!(p.importers("src/lib.ts"), ["src/app.ts"]);
    assert_eq!(
        p.cache.answers(),
        (2, 2),
        "lib's answer scanned again, app's kept"
    );
    // An atomic write's temporary file, created and gone: no config.
    p.write("src/.lib.ts.squiggle-1-0.tmp", "export const k = 2;\n");
    p.remove("src/.lib.ts.squiggle-1-0.tmp");
    assert_eq!(p.importers("src/lib.ts"), ["src/app.ts"]);
    assert_eq!(p.cache.answers().1, 3, "kept through a temporary file");
    // A config is read past the heads: any change to it is a new scan.
    let paths = r#"{ "compilerOptions": { "baseUrl": "src", "paths": { "other/*": ["*"] } } }"#;
    p.write("tsconfig.json", paths);
    assert_eq!(p.importers("src/lib.ts"), ["src/app.ts", "src/far.ts"]);
    assert_eq!(p.cache.answers().1, 3, "scanned again");
}

#[test]
fn an_answer_that_read_outside_the_watch_is_not_kept() {
    // `extends` reaches a config outside the workspace, which no watch sees.
    let outside = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let base = outside.path().join("base.json");
    std::fs::write(&base, r#"{ "compilerOptions": { "baseUrl": "." } }"#)
        .unwrap_or_else(|e| panic!("{e}"));
    let config = format!(r#"{{ "extends": {:?} }}"#, base.display().to_string());
    let mut p = Watched::new(&[
        ("tsconfig.json", &config),
        ("src/lib.ts", "export const k = 1;\n"),
        ("src/app.ts", "import { k } from './lib';\n"),
    ]);
    assert_eq!(p.importers("src/lib.ts"), ["src/app.ts"]);
    assert_eq!(p.importers("src/lib.ts"), ["src/app.ts"]);
    assert_eq!(p.cache.answers(), (0, 0));
}

#[test]
fn typescript_importers_created_and_deleted() {
    let mut p = Watched::new(&[
        ("src/lib.ts", "export const k = 1;\n"),
        ("src/app.ts", "import { k } from './lib';\n"),
    ]);
    assert_eq!(p.importers("src/lib.ts"), ["src/app.ts"]);
    p.write("src/b/late.ts", "import { k } from '../lib';\n");
    assert_eq!(p.importers("src/lib.ts"), ["src/app.ts", "src/b/late.ts"]);
    p.remove("src/app.ts");
    assert_eq!(p.importers("src/lib.ts"), ["src/b/late.ts"]);
}
