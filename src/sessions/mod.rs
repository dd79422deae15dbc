//! Speculative sessions: "what if I made these edits?" asked of the real
//! servers without writing anything. A session is opened over a set of
//! files; edits change its text in memory; an evaluation shows the
//! servers that text (didOpen / didChange, nothing written) and answers
//! the diagnostics delta against the session's baseline, shaped as an
//! edit's result; a chain evaluates after each step; commit writes every
//! changed file in one transaction, exactly as `apply_patch` does; discard
//! forgets it.
//!
//! Sessions live beside the engine, not in a second one: they use its
//! pool, its check and its write path. Here are what the engine holds and
//! calls down into — a session's text (`session`), the open sessions and
//! their bounds (`store`), the gate — and the calls that run its check and
//! write path are the engine's (`engine::speculative`). The rule that keeps them honest
//! (`gate`): servers see a session's text only during that session's own
//! evaluation, which has the servers to itself; before it ends every
//! server's copy goes back to the disk's text. So no other check or
//! navigation request ever reads a session's text as if it were on disk,
//! and the disk watch has nothing of a session's to overwrite. A file
//! changed on disk during a session (by any tool) makes commit refuse,
//! naming it.
//!
//! Owners (`owner`): a session belongs to the client that opened it — a
//! JSON-RPC connection, an MCP session — and is found by no other; when
//! that client is gone, its sessions are discarded.
//!
//! Bounds (`[lsp.sessions]`): at most `maxOpen` sessions, each holding at
//! most `maxEditedMiB` of text, each discarded after `idleMinutes`
//! untouched (checked at every session call); a refusal names the limit.

mod error;
pub mod gate;
pub mod owner;
pub mod session;
pub mod store;
pub mod wire;

pub use error::SessionError;
pub use gate::{Gate, SharedView};
pub use owner::Owner;
pub use store::Sessions;
pub use wire::{Edit, SessionFile};
