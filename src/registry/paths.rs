//! Where a project's packages live and how a found one is handed to a
//! server: shared by the project's compiler (`toolchain`) and the plugins a
//! server loads (`plugins`), so that neither reaches into the other.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// `start` and its ancestors up to and including `stop_at`; only `start`
/// when it is not inside `stop_at`.
pub fn project_dirs(start: &Path, stop_at: &Path) -> Vec<PathBuf> {
    if !start.starts_with(stop_at) {
        return vec![start.to_path_buf()];
    }
    let mut dirs = Vec::new();
    for dir in start.ancestors() {
        dirs.push(dir.to_path_buf());
        if dir == stop_at {
            break;
        }
    }
    dirs
}

/// Sets the member at the JSON pointer `pointer` (`/tsserver/path`),
/// making objects on the way; `options` becomes an object if it was not.
pub fn set_pointer(options: &mut Value, pointer: &str, value: Value) {
    let mut at = options;
    for key in pointer.split('/').filter(|k| !k.is_empty()) {
        if !at.is_object() {
            *at = Value::Object(serde_json::Map::new());
        }
        let Value::Object(map) = at else { return };
        at = map.entry(key.to_string()).or_insert(Value::Null);
    }
    *at = value;
}
