//! What the watch's query-time guarantee costs (`docs/performance.md`):
//! one drain of a workspace of N files, with nothing changed and with one
//! file written just before, through each way of keeping the contract —
//! the barrier (Linux and macOS by default), the stamp check (Windows and
//! macOS), both, and neither (the bare drain, which does not keep it). The
//! ways are interleaved run by run, so machine load falls on all alike.

use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use squiggle::workspace::watch::{DiskWatch, WatchOptions};

use crate::fixtures::TempDir;
use crate::stats::{Samples, ms};

const WAYS: [(&str, WatchOptions); 4] = [
    (
        "none",
        WatchOptions {
            barrier: false,
            stamps: false,
        },
    ),
    (
        "barrier",
        WatchOptions {
            barrier: true,
            stamps: false,
        },
    ),
    (
        "stamps",
        WatchOptions {
            barrier: false,
            stamps: true,
        },
    ),
    (
        "both",
        WatchOptions {
            barrier: true,
            stamps: true,
        },
    ),
];

/// Files per generated directory.
const PER_DIR: usize = 20;

pub fn run(sizes: &[usize], runs: usize) -> anyhow::Result<()> {
    println!("default on this platform: {:?}", WatchOptions::default());
    println!(
        "{:>7} {:>8} {:>10} {:>14} {:>14} {:>14} {:>14}",
        "files", "way", "start", "idle median", "idle p95", "write median", "write p95"
    );
    for &files in sizes {
        let dir = TempDir::new()?;
        let root = dir.path().to_path_buf();
        generate(&root, files)?;
        let mut watches = Vec::new();
        for (name, way) in WAYS {
            let started = Instant::now();
            let watch = DiskWatch::start_with(&root, way)
                .with_context(|| format!("watching {}", root.display()))?;
            watches.push((
                name,
                watch,
                started.elapsed(),
                Samples::default(),
                Samples::default(),
            ));
        }
        let target = root.join("d0/f0.ts");
        for run in 0..runs {
            for i in 0..watches.len() {
                // Every watch sees every write: the others' are drained first.
                for (_, watch, ..) in &mut watches {
                    watch.drain();
                }
                let (name, watch, _, idle, write) = &mut watches[i];
                // The bare drain keeps no guarantee: what it missed comes
                // late. Without the barrier, the event of a write the stamps
                // reported may come late and report it again.
                let kept = *name != "none";
                let t = Instant::now();
                let changes = watch.drain();
                idle.push(t.elapsed());
                let repeated = |p: &std::path::PathBuf| *name == "stamps" && *p == target;
                anyhow::ensure!(
                    !kept || changes.keys().all(repeated),
                    "{name}: a change nobody made: {changes:?}"
                );
                std::fs::write(&target, format!("export const n = {run};\n"))?;
                let t = Instant::now();
                let changes = watch.drain();
                write.push(t.elapsed());
                anyhow::ensure!(
                    !kept || changes.contains_key(&target),
                    "{name}: the write was not seen: {changes:?}"
                );
            }
        }
        for (name, watch, start, idle, write) in &watches {
            anyhow::ensure!(watch.complete(), "the watch of {files} files is incomplete");
            println!(
                "{files:>7} {name:>8} {:>10} {:>14} {:>14} {:>14} {:>14}",
                ms(start.as_secs_f64() * 1000.0),
                ms(idle.median()),
                ms(idle.p95()),
                ms(write.median()),
                ms(write.p95())
            );
        }
    }
    Ok(())
}

/// `files` small TypeScript files, [`PER_DIR`] to a directory.
fn generate(root: &Path, files: usize) -> anyhow::Result<()> {
    for i in 0..files {
        let dir = root.join(format!("d{}", i / PER_DIR));
        if i % PER_DIR == 0 {
            std::fs::create_dir_all(&dir)?;
        }
        std::fs::write(dir.join(format!("f{}.ts", i % PER_DIR)), "export {};\n")?;
    }
    Ok(())
}
