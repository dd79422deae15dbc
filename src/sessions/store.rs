//! The sessions open over one engine: each behind its own lock, the bounds
//! of `[lsp.sessions]` (idle expiry at every call, the count, set anew on
//! a configuration reload), and the gate that keeps their text out of
//! other queries. Knows nothing of the engine, which holds it and calls it
//! (`engine::speculative`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use tokio::sync::Mutex as AsyncMutex;

use super::error::SessionError;
use super::gate::Gate;
use super::session::Session;
use crate::config::SessionLimits;
use crate::mutex::lock;

/// One open session and when it was last used.
struct Entry {
    session: Arc<AsyncMutex<Session>>,
    touched: Instant,
}

/// The sessions open over one engine, their bounds, and the gate that
/// keeps their text out of other queries.
#[derive(Default)]
pub struct Sessions {
    /// Set anew when the configuration is reloaded (`set_limits`).
    limits: std::sync::Mutex<SessionLimits>,
    open: std::sync::Mutex<BTreeMap<String, Entry>>,
    next: AtomicU64,
    gate: Gate,
}

impl Sessions {
    pub fn new(limits: SessionLimits) -> Sessions {
        Sessions {
            limits: std::sync::Mutex::new(limits),
            ..Sessions::default()
        }
    }

    /// The bounds in force.
    pub fn limits(&self) -> SessionLimits {
        *lock(&self.limits)
    }

    /// New bounds from a reloaded configuration; open sessions keep their
    /// text and meet the new bounds at their next edit.
    pub fn set_limits(&self, limits: SessionLimits) {
        *lock(&self.limits) = limits;
    }

    pub fn gate(&self) -> &Gate {
        &self.gate
    }

    /// The ids of the open sessions (idle ones expired first).
    pub fn ids(&self) -> Vec<String> {
        let mut open = lock(&self.open);
        self.expire(&mut open);
        open.keys().cloned().collect()
    }

    /// Drops sessions untouched for the idle limit (not one in use).
    fn expire(&self, open: &mut BTreeMap<String, Entry>) {
        let now = Instant::now();
        open.retain(|id, e| {
            let idle = now.saturating_duration_since(e.touched) >= self.limits().idle;
            let expired = idle && e.session.try_lock().is_ok();
            if expired {
                tracing::info!(session = %id, "session discarded after {} minutes idle", self.limits().idle.as_secs() / 60);
            }
            !expired
        });
    }

    pub fn get(&self, id: &str) -> Result<Arc<AsyncMutex<Session>>, SessionError> {
        let mut open = lock(&self.open);
        self.expire(&mut open);
        let ids: Vec<String> = open.keys().cloned().collect();
        match open.get_mut(id) {
            Some(entry) => {
                entry.touched = Instant::now();
                Ok(entry.session.clone())
            }
            None => Err(SessionError::Unknown {
                id: id.to_string(),
                open: if ids.is_empty() {
                    "none is".into()
                } else {
                    format!("open: {}", ids.join(", "))
                },
                idle: self.limits().idle.as_secs() / 60,
            }),
        }
    }

    pub fn touch(&self, id: &str) {
        if let Some(entry) = lock(&self.open).get_mut(id) {
            entry.touched = Instant::now();
        }
    }

    pub fn remove(&self, id: &str) {
        lock(&self.open).remove(id);
    }

    /// A new session's id (`s1`, `s2`, …), after checking the count bound.
    pub fn next_id(&self) -> Result<String, SessionError> {
        self.room()?;
        Ok(format!(
            "s{}",
            self.next.fetch_add(1, Ordering::Relaxed) + 1
        ))
    }

    /// Whether one more session may open (`maxOpen`).
    fn room(&self) -> Result<(), SessionError> {
        let max = self.limits().max_open;
        if self.ids().len() >= max {
            return Err(SessionError::TooMany { max });
        }
        Ok(())
    }

    /// Adds an opened session, unless others filled the room meanwhile.
    pub fn insert(&self, session: Session) -> Result<(), SessionError> {
        let max = self.limits().max_open;
        let mut open = lock(&self.open);
        if open.len() >= max {
            return Err(SessionError::TooMany { max });
        }
        open.insert(
            session.id.clone(),
            Entry {
                session: Arc::new(AsyncMutex::new(session)),
                touched: Instant::now(),
            },
        );
        Ok(())
    }
}
