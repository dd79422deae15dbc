//! A client gone, its sessions discarded: when the JSON-RPC connection or
//! the MCP session that opened sessions ends, none is found again and each
//! server gets the disk's text back, as `session_discard` does. Nothing of
//! theirs stays in memory past their client.

use std::sync::Arc;

use crate::engine::Engine;
use crate::sessions::Owner;
use crate::sessions::store::Held;

impl Engine {
    /// Discards every session `owner` opened, for its client is gone. A
    /// call still running on one of them ends first; the servers' texts
    /// are set back to the disk's in a task of its own, so that the
    /// caller's cancellation cannot stop it half way.
    pub async fn release_sessions(self: &Arc<Self>, owner: Owner) {
        let held = self.sessions().release(owner);
        if held.is_empty() {
            return;
        }
        let engine = self.clone();
        let _ = tokio::spawn(async move { engine.close_released(held).await }).await;
    }

    /// [`Engine::release_sessions`] where nothing can wait (a drop): the
    /// sessions leave the store now, the servers' texts are set back in a
    /// task of its own when there is a runtime to run it (without one,
    /// every evaluation already gave them back as it ended).
    pub fn release_sessions_soon(self: &Arc<Self>, owner: Owner) {
        let held = self.sessions().release(owner);
        if held.is_empty() {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let engine = self.clone();
            runtime.spawn(async move { engine.close_released(held).await });
        }
    }

    async fn close_released(self: &Arc<Self>, held: Vec<Held>) {
        for handle in held {
            let mut session = handle.lock_owned().await;
            if session.closed.is_some() {
                continue;
            }
            self.sessions()
                .gate()
                .exclusive(self.restore_disk(&session))
                .await;
            session.closed = Some("discarded (its client is gone)");
            tracing::info!(session = %session.id, "session discarded: the client that opened it is gone");
        }
    }
}
