//! Whether a server still answers. A server can stop answering without
//! dying: a deadlock, an endless loop, or a message it began writing and
//! never finished (the reader then waits for the rest of the frame
//! forever). Left alone, every later check would wait out its whole
//! deadline for nothing.
//!
//! The rule ("consecutive timeouts trigger health evaluation"): when a
//! request times out, or a check's wait for diagnostics runs out, and the
//! server has sent nothing at all since, the client asks it one question
//! every server must answer at once — a `$/` request, which the LSP
//! specification says must get `MethodNotFound` (pyright,
//! typescript-language-server, gopls, rust-analyzer and clangd all answer
//! it within milliseconds). If that probe also times out with nothing
//! received meanwhile, the server is **unresponsive**: the client says so
//! (`status` shows it), fails what is pending and kills the process, and
//! the pool treats it as a crash — one restart, then `broken`. A server
//! that answers the probe, or sends anything at all, is slow, not stuck.

pub(super) mod state;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use serde_json::json;

use super::LspClient;
use super::client::Inner;

/// The probe's method: a `$/` request, which a server must refuse with
/// `MethodNotFound` rather than ignore.
pub const PROBE_METHOD: &str = "$/squiggle/ping";

impl Inner {
    /// A request or a check's wait ran out after `waited`; `since` is the
    /// count of messages received when it began. Silence since then asks
    /// for a probe; a probe that ran out in silence condemns the server.
    pub(super) fn timed_out(self: &Arc<Self>, method: &str, since: u64, waited: Duration) {
        if self.received.load(Ordering::Acquire) != since || self.is_dead() {
            return;
        }
        if method == PROBE_METHOD {
            let reason = format!(
                "unresponsive: sent nothing for {} ms and did not answer a `{PROBE_METHOD}` probe within {} ms",
                self.config.probe_timeout.as_millis() + waited.as_millis(),
                self.config.probe_timeout.as_millis(),
            );
            self.condemn(reason);
            return;
        }
        if self.health.probing().swap(true, Ordering::AcqRel) {
            return;
        }
        let client = LspClient {
            inner: self.clone(),
        };
        let probe = client.request_with_timeout(PROBE_METHOD, json!({}), self.config.probe_timeout);
        let inner = self.clone();
        tokio::spawn(async move {
            let _ = probe.await;
            inner.health.probing().store(false, Ordering::Release);
        });
    }

    /// Marks the server unresponsive and kills it: its reader then sees
    /// the stream end and fails every pending request at once.
    fn condemn(&self, reason: String) {
        tracing::info!(server = %self.config.server_id, "{reason}; stopping it");
        if self.health.condemned(reason.clone()) {
            self.cut(&reason);
        }
    }
}

impl LspClient {
    /// Why the server was found unresponsive (it is then being stopped,
    /// and is no longer alive), or `None`.
    pub fn unresponsive(&self) -> Option<String> {
        self.inner.health.unresponsive().cloned()
    }

    /// A check's wait for diagnostics ran out after `waited`: if the server
    /// sent nothing since `since` (a `received_count()` taken when the
    /// change was written), probe it (see the module doc). Returns at once.
    pub fn wait_timed_out(&self, since: u64, waited: Duration) {
        self.inner.timed_out("", since, waited);
    }
}
