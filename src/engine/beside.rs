//! Importers checked beside the change instead of after it. An edit's
//! importers used to wait for the touched files' answers before their own
//! check began (`engine::others`, the second phase): for a server that
//! answers each file by pull, two pulls in a row. An importer whose every
//! server is running, holds one of the touched files (so it is sent the
//! change first, `engine::send_order`), and answers a full pull for it is
//! pulled beside the touched files instead: the server answers both for
//! the change (it handles requests in order), in parallel. The others
//! (push servers, whose "done with the edit" needs the first phase's
//! marks; partial or synchronous pulls; a server not running) stay in the
//! phase after.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::Engine;
use super::check::{FileInput, Order, Phase, WaitRules};
use super::plan::PlanMemo;
use super::pool::Busy;
use super::send_order::SendOrder;
use crate::lsp::LspClient;
use crate::lsp::other_files::EditMark;

/// What the importer scan found, split: checked beside the touched files
/// (their phase, when any), and the rest for the phase after.
pub(super) struct Beside {
    pub(super) later: Vec<PathBuf>,
    /// The scan stopped at its cap: not every importer was found.
    pub(super) cut: bool,
    pub(super) phase: Option<Phase>,
}

impl Engine {
    /// Checks the importers `scan` finds that can go beside the `touched`
    /// files (canonical), in the send order of the touched files' phase.
    pub(super) async fn check_beside(
        self: &Arc<Self>,
        scan: JoinHandle<(Vec<PathBuf>, bool)>,
        touched: &[PathBuf],
        order: Arc<SendOrder>,
        started: Instant,
        held: &mut Vec<Busy>,
    ) -> Beside {
        let (found, cut) = scan.await.unwrap_or_default();
        if found.is_empty() {
            return Beside {
                later: found,
                cut,
                phase: None,
            };
        }
        let mut memo = PlanMemo::default();
        let clients = self.pool.clients();
        let instances: HashSet<(String, PathBuf)> = touched
            .iter()
            .flat_map(|path| self.plan_file(path, &mut memo))
            .map(|p| (self.servers[p.server_index].spec.id.clone(), p.root))
            .collect();
        let (now, later): (Vec<PathBuf>, Vec<PathBuf>) = found
            .into_iter()
            .partition(|path| self.pulled_beside(path, &instances, &clients, &mut memo));
        if now.is_empty() {
            return Beside {
                later,
                cut,
                phase: None,
            };
        }
        tracing::debug!(files = now.len(), "importers checked beside the change");
        // Each instance's edit, for a pull: answered for what the server
        // holds when the pull arrives, which the send order makes the change.
        let edits: HashMap<(String, PathBuf), EditMark> = instances
            .into_iter()
            .map(|key| {
                let mark = EditMark::new(0, started, true);
                (key, mark)
            })
            .collect();
        let rules = WaitRules {
            edits: Arc::new(edits),
            early: None,
            order: Some(Order::Beside(order)),
        };
        let inputs = now.into_iter().map(FileInput::on_disk).collect();
        let phase = self.check_phase(inputs, rules, started, held).await;
        Beside {
            later,
            cut,
            phase: Some(phase),
        }
    }

    /// Whether every server of `path` is a running instance among the
    /// touched files' (`instances`, among the running `clients`) that
    /// answers it by a full pull.
    fn pulled_beside(
        &self,
        path: &std::path::Path,
        instances: &HashSet<(String, PathBuf)>,
        clients: &[LspClient],
        memo: &mut PlanMemo,
    ) -> bool {
        let planned = self.plan_file(path, memo);
        !planned.is_empty()
            && planned.iter().all(|p| {
                let server = &self.servers[p.server_index];
                let wait = &server.spec.wait;
                let id = &server.spec.id;
                instances.contains(&(id.clone(), p.root.clone()))
                    && !wait.pull_is_partial
                    && wait.sync_pull.is_none()
                    && clients
                        .iter()
                        .any(|c| c.server_id() == id && c.root() == p.root && c.pulls_diagnostics())
            })
    }
}
