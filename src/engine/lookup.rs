//! Finding the servers for one file outside an edit: navigation asks "which
//! running (or startable) server answers requests about this file?". It goes
//! through the same pool as the feedback path, so a file that was edited and
//! is then navigated uses one server process per (server, project root).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::Engine;
use super::plan::PlanMemo;
use super::pool::{Checkout, Unavailable};
use crate::workspace::PathClass;

/// A workspace file and the servers that serve it, in registry order.
#[derive(Debug, Clone)]
pub struct FileServers {
    pub canonical: PathBuf,
    /// `/`-separated, relative to the workspace root.
    pub relative: String,
    pub candidates: Vec<Candidate>,
}

/// One server that serves a file.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub server_id: String,
    pub language: String,
    pub root: PathBuf,
    server_index: usize,
}

/// Why a file has no servers to ask.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LookupError {
    #[error("{path} is outside the workspace {root}; navigation only works inside it")]
    Outside { path: String, root: String },
    #[error("{relative} is under {dir}/, which squiggle does not serve")]
    Ignored { relative: String, dir: String },
    #[error("lsp is disabled in the configuration")]
    Disabled,
    #[error("No LSP server configured for {0} files")]
    NoServer(String),
}

impl Engine {
    /// The servers for `path` (absolute, or relative to the workspace root).
    pub fn servers_for(&self, path: &Path) -> Result<FileServers, LookupError> {
        let path = if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.workspace.root().join(path)
        };
        let (canonical, relative) = match self.workspace.classify(&path) {
            PathClass::Inside {
                canonical,
                relative,
            } => (canonical, relative),
            PathClass::Outside { canonical } => {
                return Err(LookupError::Outside {
                    path: canonical.display().to_string(),
                    root: self.workspace.root().display().to_string(),
                });
            }
            PathClass::Ignored { relative, dir, .. } => {
                return Err(LookupError::Ignored { relative, dir });
            }
        };
        if !self.config.enabled {
            return Err(LookupError::Disabled);
        }
        let candidates: Vec<Candidate> = self
            .plan_file(&canonical, &mut PlanMemo::default())
            .into_iter()
            .map(|planned| Candidate {
                server_id: self.servers[planned.server_index].spec.id.clone(),
                language: planned.language,
                root: planned.root,
                server_index: planned.server_index,
            })
            .collect();
        if candidates.is_empty() {
            let kind = canonical
                .extension()
                .map(|e| format!(".{}", e.to_string_lossy()))
                .unwrap_or_else(|| relative.clone());
            return Err(LookupError::NoServer(kind));
        }
        Ok(FileServers {
            canonical,
            relative,
            candidates,
        })
    }

    /// The running client for `candidate`, started through the pool if needed
    /// (with `firstTouchTimeout`), held until the checkout is dropped.
    pub async fn start_candidate(
        self: &Arc<Self>,
        candidate: &Candidate,
    ) -> Result<Checkout, Unavailable> {
        // Navigation answers for the disk as it is now, like a check.
        let _ = self.sync_disk(&[]).await;
        let server = &self.servers[candidate.server_index];
        self.pool
            .checkout(
                server,
                &candidate.root,
                self.workspace.root(),
                self.config.first_touch_timeout,
            )
            .await
    }
}
