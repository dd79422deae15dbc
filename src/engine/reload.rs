//! A long-lived engine follows its configuration files.
//!
//! The daemon outlives any one edit of `.squiggle.toml` or the user's
//! `config.toml`. A user who writes `lsp = false` (the README's "turn it
//! off") or disables a server expects the next edit to obey, not the one
//! after a `squiggle daemon stop` nobody told them about. So before each
//! request the files the engine read (or would read, had they existed) are
//! compared with what it read; on a change the configuration is loaded
//! again and the request runs on the successor engine
//! (`Engine::reconfigured`): the servers whose settings changed are stopped
//! (and start again with the new settings on their next use), the others
//! keep running, and requests already in flight finish on the engine they
//! began with. A file that no longer parses changes nothing: the error goes
//! to the log and the last good configuration stays.
//!
//! Comparing the files' bytes costs two small reads per request (tens of
//! microseconds); a watch would miss the user's file, which lives outside
//! the workspace, and could not say "before the next request".

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::{Engine, EngineOptions};
use crate::config::{LoadOptions, WORKSPACE_FILE, user_config_path};
use crate::mutex::lock;
use crate::registry::builtin_servers;

/// An engine that follows its configuration files: [`Live::current`] is
/// the engine for the next request.
pub struct Live {
    load: LoadOptions,
    state: Mutex<State>,
}

struct State {
    engine: Arc<Engine>,
    /// Each file the configuration comes from, with its bytes as last read
    /// (`None`: absent).
    seen: Vec<(PathBuf, Option<Vec<u8>>)>,
}

impl Live {
    /// Follows the files `engine` was built from with `opts`.
    pub fn new(engine: Arc<Engine>, opts: &EngineOptions) -> Live {
        let load = LoadOptions {
            workspace_root: engine.workspace.root().to_path_buf(),
            user_config: opts.user_config.clone(),
            trust_workspace: opts.trust_workspace,
            known_server_ids: builtin_servers().into_iter().map(|s| s.id).collect(),
            cli: opts.cli.clone(),
        };
        let files = load
            .user_config
            .clone()
            .or_else(user_config_path)
            .into_iter()
            .chain(std::iter::once(load.workspace_root.join(WORKSPACE_FILE)));
        let seen = files.map(|path| (path.clone(), read(&path))).collect();
        Live {
            load,
            state: Mutex::new(State { engine, seen }),
        }
    }

    /// The engine for the next request: the current one, or, when a
    /// configuration file changed since the last look, its successor.
    pub fn current(&self) -> Arc<Engine> {
        let mut state = lock(&self.state);
        let mut changed = Vec::new();
        for (path, bytes) in &mut state.seen {
            let now = read(path);
            if now != *bytes {
                *bytes = now;
                changed.push(path.display().to_string());
            }
        }
        if changed.is_empty() {
            return state.engine.clone();
        }
        let files = changed.join(", ");
        let config = match crate::config::load(&self.load) {
            Ok(config) => config,
            Err(e) => {
                tracing::warn!(
                    "configuration changed ({files}) but is not applied: {e}; the previous configuration stays"
                );
                return state.engine.clone();
            }
        };
        let (engine, stopped) = state.engine.reconfigured(config);
        if engine.pool.limits() != state.engine.pool.limits() {
            // New limits, new pool: the old one's servers stop now (a
            // request still using one ends as `server_dead`).
            let old = state.engine.clone();
            tokio::spawn(async move { old.pool.shutdown().await });
        }
        let engine = Arc::new(engine);
        let off = if engine.config.enabled {
            ""
        } else {
            " (lsp is off)"
        };
        let stopped = if stopped.is_empty() {
            "no running server's settings changed".to_string()
        } else {
            let each: Vec<String> = stopped
                .iter()
                .map(|(id, n)| format!("{id} ({n} instance{})", if *n == 1 { "" } else { "s" }))
                .collect();
            format!(
                "servers stopped by the change (each starts again with its new settings when next needed, if still enabled): {}",
                each.join(", ")
            )
        };
        tracing::info!(
            "configuration changed in {files}: applied from this request on{off}; {stopped}"
        );
        state.engine = engine.clone();
        engine
    }
}

/// A configuration file's bytes, `None` when absent or unreadable; a named
/// pipe is never opened (its reading would block every request).
fn read(path: &std::path::Path) -> Option<Vec<u8>> {
    if let Some(kind) = crate::edit::special_file(path) {
        return Some(kind.as_bytes().to_vec());
    }
    crate::edit::read_regular(path, crate::edit::MAX_READ_BYTES).ok()
}
