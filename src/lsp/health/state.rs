//! What a client knows of its server's health: why it was found
//! unresponsive (set once), and whether a probe is out. Plain state, apart
//! from the probing (`lsp::health`) so that the client can hold it without
//! naming the code that probes it.

use std::sync::OnceLock;
use std::sync::atomic::AtomicBool;

/// A client's health: why it was found unresponsive, and whether a probe
/// is out.
#[derive(Default)]
pub(in crate::lsp) struct Health {
    unresponsive: OnceLock<String>,
    probing: AtomicBool,
}

impl Health {
    pub(in crate::lsp) fn unresponsive(&self) -> Option<&String> {
        self.unresponsive.get()
    }

    /// Records why the server is unresponsive; true the first time.
    pub(in crate::lsp) fn condemned(&self, reason: String) -> bool {
        self.unresponsive.set(reason).is_ok()
    }

    /// Set while a probe is out.
    pub(in crate::lsp) fn probing(&self) -> &AtomicBool {
        &self.probing
    }
}
