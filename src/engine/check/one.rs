//! One (file, server) pair of a check: the server checked out, the file's
//! text sent, its answer awaited under the deadline.

use std::time::Duration;

use tokio::time::Instant;
use tracing::Instrument;

use super::{Mark, Order, Pending, WaitRules};
use crate::diagnostic::{Diagnostic, Outcome};
use crate::engine::Engine;
use crate::engine::fresh::Stale;
use crate::engine::pool::{Busy, Checkout, ServerState};
use crate::engine::report::ServerOutcome;
use crate::engine::send_order::SendToken;
use crate::lsp::{DiagnosticsReport, DocumentVersion, LspClient};

impl Engine {
    /// Waits for one (file, server) pair; `token` (a touched file's, when
    /// importers are checked beside it) is given back once the text is sent.
    pub(super) async fn wait_one(
        &self,
        p: Pending,
        rules: &WaitRules,
        started: Instant,
        token: Option<SendToken>,
    ) -> (ServerOutcome, Mark, Vec<Diagnostic>, Option<Busy>) {
        let server = &self.servers[p.server_index];
        let id = server.spec.id.clone();
        let first_touch = self.config.first_touch_timeout;
        let checkout = self
            .pool
            .checkout(server, &p.root, self.workspace.root(), first_touch)
            .await;
        let Checkout { client, cold, busy } = match checkout {
            Ok(checkout) => checkout,
            Err(unavailable) => {
                let mut outcome =
                    ServerOutcome::without_server(Outcome::Unavailable, unavailable.reason);
                // A built-in server the configuration never names, found
                // missing: said only when nothing else checked the file.
                outcome.optional = unavailable.state == ServerState::Unavailable
                    && !self.config.servers.contains_key(&id);
                outcome.server = id.clone();
                outcome.elapsed_ms = started.elapsed().as_millis() as u64;
                let mark = Mark {
                    server: id,
                    root: p.root,
                    written_at: 0,
                    done: false,
                    sent: false,
                };
                return (outcome, mark, Vec::new(), None);
            }
        };
        // The first-touch budget runs from the server's start: a check that
        // arrives while a session's warm-up is still starting the server
        // (or the server is still indexing after it) gets what is left of
        // it, not the shorter warm deadline.
        let budget = if cold {
            first_touch
        } else {
            self.config.diagnostic_timeout
        };
        let deadline = (started + budget.max(Duration::from_millis(1)))
            .max(tokio::time::Instant::from_std(client.spawned()) + first_touch);
        if let Some(Order::Beside(order)) = &rules.order {
            order.opened().await;
        }
        let held = client.document(&p.canonical).map(|(version, _)| version);
        let (doc, report) = self
            .send_and_wait(&client, &p, rules, deadline, token)
            .instrument(client.span())
            .await;
        if report.outcome == Outcome::TimedOut {
            // Silent since the change? Then ask whether it still answers.
            client.wait_timed_out(doc.changed_at, report.elapsed);
        }
        let diagnostics = client.normalize(&report.diagnostics, &p.text, &p.relative);
        tracing::debug!(server = %id, file = %p.relative, outcome = report.outcome.as_str(), ms = report.elapsed.as_millis() as u64, items = diagnostics.len(), "diagnostics");
        let mark = Mark {
            server: id.clone(),
            root: p.root,
            written_at: doc.changed_at,
            done: matches!(report.outcome, Outcome::Settled | Outcome::Pulled),
            sent: held != Some(doc.version),
        };
        let outcome = ServerOutcome {
            server: id,
            outcome: report.outcome,
            elapsed_ms: started.elapsed().as_millis() as u64,
            detail: client
                .dead_reason()
                .filter(|_| report.outcome == Outcome::ServerDead),
            optional: false,
        };
        (outcome, mark, diagnostics, Some(busy))
    }

    /// The pending file's text sent (`token` given back then) and its
    /// answer awaited until `deadline`.
    async fn send_and_wait(
        &self,
        client: &LspClient,
        p: &Pending,
        rules: &WaitRules,
        deadline: Instant,
        token: Option<SendToken>,
    ) -> (DocumentVersion, DiagnosticsReport) {
        let doc = self.send_text(client, p, rules, deadline).await;
        drop(token);
        let server = self.servers[p.server_index].spec.id.clone();
        let report = match rules.edits.get(&(server, p.root.clone())) {
            Some(edit) => client.other_file_diagnostics(&doc, edit, deadline).await,
            None => client.diagnostics_for(&doc, deadline).await,
        };
        (doc, report)
    }

    /// Sends the pending file's text to `client`: opened with the text
    /// before the edit first when the server needs to see a change (see
    /// `WaitProfile::open_then_change`), sent again even if unchanged when
    /// a file it imports changed since its diagnostics were taken
    /// (`engine::fresh`). Text the server already holds, with nothing it
    /// depends on changed, is not sent again: its answer stands.
    async fn send_text(
        &self,
        client: &LspClient,
        p: &Pending,
        rules: &WaitRules,
        deadline: Instant,
    ) -> DocumentVersion {
        let server = &self.servers[p.server_index];
        if let Some(before) = &p.before
            && server.spec.wait.open_then_change
            && client.document(&p.canonical).is_none()
        {
            let opened = client
                .sync_document(&p.canonical, &p.language, before.clone())
                .await;
            client.diagnostics_for(&opened, deadline).await;
        }
        if !rules.edits.is_empty() {
            // Another file, taken for what the edit did to it.
            client
                .sync_other_document(&p.canonical, &p.language, p.text.clone())
                .await
        } else if self.fresh.stale(&p.canonical) == Some(Stale::Dependency) {
            client
                .resync_document(&p.canonical, &p.language, p.text.clone())
                .await
        } else {
            client
                .sync_document(&p.canonical, &p.language, p.text.clone())
                .await
        }
    }
}
