//! Every rendered format, fixed by the files under `golden/`
//! (`SQUIGGLE_BLESS=1` rewrites them on purpose).

use std::fs;
use std::path::{Path, PathBuf};

mod hook;
mod init;
mod render;
mod status;

/// The texts of one golden test, each compared with (or, blessed, written
/// to) its file; the differences are said together at the end.
struct Golden {
    bless: bool,
    failed: Vec<String>,
}

impl Golden {
    fn new() -> Golden {
        let bless = std::env::var_os("SQUIGGLE_BLESS").is_some_and(|v| v == "1");
        Golden {
            bless,
            failed: Vec::new(),
        }
    }

    /// `actual` against the file at `path` (below the package's root).
    fn compare(&mut self, path: &str, actual: &str) {
        let path = root().join(path);
        if self.bless {
            fs::write(&path, actual).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
            return;
        }
        let expected = fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{} is missing; run with SQUIGGLE_BLESS=1", path.display()));
        if actual != expected {
            self.failed.push(format!(
                "{}:\n--- expected\n{expected}--- actual\n{actual}---",
                path.display()
            ));
        }
    }

    fn finish(self) {
        assert!(self.failed.is_empty(), "{}", self.failed.join("\n"));
    }
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `<case>.json` of `dir` rendered by `render` against its
/// `<case>.txt`.
fn check_cases(dir: &str, render: fn(&Path) -> String) {
    let mut inputs: Vec<PathBuf> = fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no cases in {dir}");
    let mut golden = Golden::new();
    for input in &inputs {
        let name = input.file_stem().unwrap().to_string_lossy().into_owned();
        golden.compare(&format!("{dir}/{name}.txt"), &render(input));
    }
    golden.finish();
}
