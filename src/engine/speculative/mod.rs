//! Speculative sessions, the engine's side: open (the disk's state checked
//! as the baseline), edit, evaluate, chain, commit (through the write
//! transaction) and discard, over the store and the gate the engine holds
//! (`crate::sessions`, which knows nothing of the engine), each call for
//! the session's owner only; and the discard of a gone client's sessions
//! (`owners`). The calls are here because they run the engine's check and
//! write path; the session's text, its owner, its bounds and the gate are
//! below, in `sessions/`.

mod answers;
mod calls;
mod evaluate;
mod owners;
mod paths;

pub use answers::{ChainAnswer, ChainStep, SessionAnswer};
