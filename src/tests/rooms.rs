//! The engine's inner rooms (`docs/architecture.md`, "The engine's
//! rooms"): each file of `engine/` belongs to one, and a file names only
//! files of its own room or of rooms below it. `engine/mod.rs` is every
//! file's ancestor (the `Engine` itself) and in no room.

use std::path::Path;

/// The rooms, top first, each as the paths under `engine/` it holds (a
/// folder holds every file under it; the longest match wins).
pub(super) const ROOMS: &[(&str, &[&str])] = &[
    (
        "requests: the operations an agent asks for",
        &[
            "request.rs",
            "tools.rs",
            "delete.rs",
            "transaction.rs",
            "dry_run.rs",
            "speculative",
            "fixes/apply.rs",
            "fixes/auto.rs",
            "fixes/auto",
        ],
    ),
    (
        "the answer: a checked change as the model reads it",
        &[
            "feedback.rs",
            "before.rs",
            "evidence.rs",
            "ignore.rs",
            "per_file.rs",
            "blocks.rs",
            "status.rs",
            "status_line.rs",
        ],
    ),
    ("fix lines", &["fixes"]),
    (
        "the check: servers asked, answers awaited",
        &[
            "check.rs",
            "check",
            "checkable.rs",
            "others.rs",
            "beside.rs",
            "send_order.rs",
            "known.rs",
        ],
    ),
    (
        "freshness: what changed since the servers last said",
        &["disk.rs", "fresh.rs", "in_flight.rs", "dependents"],
    ),
    (
        "servers: which serve a file, and their instances",
        &[
            "plan.rs",
            "servers.rs",
            "servers",
            "pool",
            "lookup.rs",
            "reload.rs",
            "warm.rs",
        ],
    ),
    (
        "vocabulary: the types every room speaks",
        &["report.rs", "touched.rs", "result.rs", "reported.rs"],
    ),
];

/// The room of `relative` (a path under `engine/`), by its index in
/// [`ROOMS`]; `None` for `mod.rs` and a file no room lists.
pub(super) fn room_of(relative: &Path) -> Option<usize> {
    let text = relative.to_string_lossy().replace('\\', "/");
    let mut best: Option<(usize, usize)> = None;
    for (index, (_, paths)) in ROOMS.iter().enumerate() {
        for path in *paths {
            let holds = text == *path || text.starts_with(&format!("{path}/"));
            if holds && best.is_none_or(|(_, len)| path.len() > len) {
                best = Some((index, path.len()));
            }
        }
    }
    best.map(|(index, _)| index)
}
