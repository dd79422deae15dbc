//! What was there before: the one home for telling an edit's diagnostics
//! from those it found. Every surface — the wrapped tools, the hooks through
//! the daemon or in process, `squiggle/check` — asks the same questions here
//! and gets the same answers, so one change reads the same everywhere.
//!
//! - [`classify`]: an edited file's diagnostics against an earlier
//!   (text, diagnostics) pair of that file, each old line carried through a
//!   line diff, so inserted lines above an old error do not make it new.
//! - [`History`]: the daemon's (or process's) own snapshots, the "earlier"
//!   of the next edit, and the rule saying which one may serve ([`Before`]).
//! - [`git`]: the one git reader — the file as committed, the first
//!   baseline of a file squiggle has not seen yet, and the diffs
//!   `squiggle check --staged|--diff` measures against.
//! - [`undo_replacements`]: the text before an edit from the edit itself
//!   (an agent's payload says what it replaced), so that no other agent's
//!   later look at the file can stand in for it.
//! - [`new_in_other_file`], [`other_file_verdict`] and [`worst`]: the rule
//!   for files the edit did not touch, and the one order in which verdicts combine.
//!
//! Nothing here reports a diagnostic: a baseline only ever hides what the
//! servers say now, never adds to it.

mod classify;
pub mod git;
mod store;
mod undo;
mod verdict;

pub use classify::{Classification, EditDelta, classify};
pub use store::{Before, History, MAX_SNAPSHOTS, Snapshot};
pub use undo::{Replacement, undo_replacements};
pub use verdict::{WORST_FIRST, new_in_other_file, new_other_errors, other_file_verdict, worst};
