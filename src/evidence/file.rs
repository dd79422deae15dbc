//! Appending to the log: one `write` of one whole line per record, to a
//! file opened for appending and created private (mode 600 on Unix:
//! `platform::paths::private_file`). Past `maxMiB` the file is rotated
//! first: `evidence.jsonl` becomes `evidence.jsonl.1`, `.1` becomes `.2`,
//! and so on up to `keep` (the oldest dropped; `keep = 0` drops the log).
//! Several processes (the daemon, a hook run in process, `squiggle mcp`)
//! may append to one log: each line is written whole, and a rotation by one
//! of them is seen by the others at their next append (the size is read
//! from the path, not from an open handle).

use std::io::Write;
use std::path::{Path, PathBuf};

/// The `n`th rotated file beside `path` (`evidence.jsonl.1`).
pub fn rotated(path: &Path, n: usize) -> PathBuf {
    let mut name = path.as_os_str().to_os_string();
    name.push(format!(".{n}"));
    PathBuf::from(name)
}

/// Appends `line` (one record, no line break) to `path`, rotating first
/// when it would pass `max_bytes`.
pub fn append(path: &Path, line: &str, max_bytes: u64, keep: usize) -> std::io::Result<()> {
    if let Some(dir) = path.parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir)?;
    }
    // A pipe, socket or device is never opened: opening a named pipe to
    // append waits for a reader, and would hold every edit with it.
    if let Some(kind) = crate::edit::special_file(path) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("it is {kind}, not a regular file"),
        ));
    }
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    let bytes = line.len() as u64 + 1;
    if size > 0 && size + bytes > max_bytes {
        rotate(path, keep)?;
    }
    let mut file = crate::platform::paths::private_file()
        .create(true)
        .append(true)
        .open(path)?;
    let mut record = String::with_capacity(line.len() + 1);
    record.push_str(line);
    record.push('\n');
    file.write_all(record.as_bytes())
}

/// Shifts the rotated files up by one and moves the log to `.1`.
fn rotate(path: &Path, keep: usize) -> std::io::Result<()> {
    if keep == 0 {
        return remove(path);
    }
    remove(&rotated(path, keep))?;
    for n in (1..keep).rev() {
        let from = rotated(path, n);
        if from.exists() {
            std::fs::rename(&from, rotated(path, n + 1))?;
        }
    }
    match std::fs::rename(path, rotated(path, 1)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

fn remove(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The log and its rotated files that exist, oldest first.
pub fn all_files(path: &Path, keep: usize) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = (1..=keep.max(1))
        .rev()
        .map(|n| rotated(path, n))
        .filter(|p| p.exists())
        .collect();
    if path.exists() {
        files.push(path.to_path_buf());
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(path: &Path) -> Vec<String> {
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn rotates_past_the_size_keeping_so_many_files() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let log = dir.path().join("state/evidence.jsonl");
        // Each line is 10 bytes with its break: three fit in 30.
        for i in 0..8 {
            append(&log, &format!("record {i:02}"), 30, 2).unwrap_or_else(|e| panic!("{e}"));
        }
        assert_eq!(lines(&log), ["record 06", "record 07"]);
        assert_eq!(
            lines(&rotated(&log, 1)),
            ["record 03", "record 04", "record 05"]
        );
        assert_eq!(
            lines(&rotated(&log, 2)),
            ["record 00", "record 01", "record 02"]
        );
        assert!(!rotated(&log, 3).exists());
        assert_eq!(all_files(&log, 2).len(), 3);
        append(&log, "record 08", 30, 0).unwrap_or_else(|e| panic!("{e}"));
        append(&log, "record 09", 30, 0).unwrap_or_else(|e| panic!("{e}"));
        append(&log, "record 10", 30, 0).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            lines(&log),
            ["record 09", "record 10"],
            "keep = 0 drops the full log"
        );
    }
}
