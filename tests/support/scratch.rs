//! The one scratch workspace of the integration tests: a temp dir holding
//! the workspace `ws/`, an empty `config/` for `XDG_CONFIG_HOME` and a
//! private `run/` for `XDG_RUNTIME_DIR`, every path canonical (macOS and
//! some CI machines put temp dirs behind a symlink). Test families add
//! their own constructors and runners in `impl Scratch` blocks of their own.
#![allow(dead_code)]

use std::path::PathBuf;

pub struct Scratch {
    pub tmp: tempfile::TempDir,
    /// The temp dir itself, beside the workspace.
    pub outer: PathBuf,
    pub root: PathBuf,
    pub config_home: PathBuf,
    pub runtime_dir: PathBuf,
}

impl Scratch {
    /// The directories only, nothing in them.
    pub fn bare() -> Scratch {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
        let outer = tmp.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
        let root = outer.join("ws");
        let config_home = outer.join("config");
        let runtime_dir = outer.join("run");
        for dir in [&root, &config_home, &runtime_dir] {
            std::fs::create_dir(dir).unwrap_or_else(|e| panic!("mkdir: {e}"));
        }
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime_dir, std::fs::Permissions::from_mode(0o700))
            .unwrap_or_else(|e| panic!("chmod: {e}"));
        Scratch {
            tmp,
            outer,
            root,
            config_home,
            runtime_dir,
        }
    }

    /// Writes `text` to `name` under the workspace (creating directories).
    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.root.join(name);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("mkdir for {name}: {e}"));
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("write {name}: {e}"));
        path
    }
}
