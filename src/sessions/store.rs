//! The sessions open over one engine: each behind its own lock and marked
//! with its owner (`owner`), the bounds of `[lsp.sessions]` (idle expiry
//! at every call, the count, set anew on a configuration reload), and the
//! gate that keeps their text out of other queries. A session is found only
//! by its owner: to any other client its id is answered exactly as an id
//! never opened, and the open ids it is told are its own. Knows nothing of
//! the engine, which holds it and calls it (`engine::speculative`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use tokio::sync::Mutex as AsyncMutex;

use super::error::SessionError;
use super::gate::Gate;
use super::owner::Owner;
use super::session::Session;
use crate::config::SessionLimits;
use crate::mutex::lock;

/// One open session, whose it is, and when it was last used.
struct Entry {
    session: Arc<AsyncMutex<Session>>,
    owner: Owner,
    touched: Instant,
}

/// A session's handle, as the store hands it out.
pub type Held = Arc<AsyncMutex<Session>>;

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

    /// The ids of `owner`'s open sessions (idle ones expired first).
    pub fn ids(&self, owner: Owner) -> Vec<String> {
        let mut open = lock(&self.open);
        self.expire(&mut open);
        owned(&open, owner)
    }

    /// How many sessions are open, whoever owns them (idle ones expired
    /// first): what `maxOpen` bounds.
    pub fn len(&self) -> usize {
        let mut open = lock(&self.open);
        self.expire(&mut open);
        open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

    /// Session `id`, when `owner` opened it; another owner's is refused
    /// word for word as an id never opened.
    pub fn get(&self, id: &str, owner: Owner) -> Result<Held, SessionError> {
        let mut open = lock(&self.open);
        self.expire(&mut open);
        match open.get_mut(id) {
            Some(entry) if entry.owner == owner => {
                entry.touched = Instant::now();
                Ok(entry.session.clone())
            }
            _ => Err(SessionError::Unknown {
                id: id.to_string(),
                open: owned(&open, owner),
                idle: self.limits().idle.as_secs() / 60,
            }),
        }
    }

    /// Takes every session of `owner` out of the store, for its client is
    /// gone: no call finds them again. Their handles, for the caller to
    /// close (a call still running on one holds its lock until it ends).
    pub fn release(&self, owner: Owner) -> Vec<Held> {
        let mut open = lock(&self.open);
        let ids = owned(&open, owner);
        ids.iter()
            .filter_map(|id| open.remove(id))
            .map(|entry| entry.session)
            .collect()
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

    /// Whether one more session may open (`maxOpen`, every owner's
    /// counted: the bound is on memory).
    fn room(&self) -> Result<(), SessionError> {
        let max = self.limits().max_open;
        if self.len() >= max {
            return Err(SessionError::TooMany { max });
        }
        Ok(())
    }

    /// Adds a session `owner` opened, unless others filled the room
    /// meanwhile.
    pub fn insert(&self, session: Session, owner: Owner) -> Result<(), SessionError> {
        let max = self.limits().max_open;
        let mut open = lock(&self.open);
        if open.len() >= max {
            return Err(SessionError::TooMany { max });
        }
        open.insert(
            session.id.clone(),
            Entry {
                session: Arc::new(AsyncMutex::new(session)),
                owner,
                touched: Instant::now(),
            },
        );
        Ok(())
    }
}

/// The ids of `owner`'s sessions in `open`.
fn owned(open: &BTreeMap<String, Entry>, owner: Owner) -> Vec<String> {
    open.iter()
        .filter(|(_, e)| e.owner == owner)
        .map(|(id, _)| id.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use super::{Owner, Sessions};
    use crate::config::SessionLimits;
    use crate::sessions::SessionError;
    use crate::sessions::session::Session;

    fn session(id: &str) -> Session {
        Session {
            id: id.into(),
            files: BTreeMap::new(),
            baseline: HashMap::new(),
            closed: None,
        }
    }

    #[test]
    fn another_owner_is_answered_as_for_an_id_never_opened() {
        let store = Sessions::new(SessionLimits::default());
        let (mine, theirs) = (Owner::new(), Owner::new());
        store
            .insert(session("s1"), mine)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(store.get("s1", mine).is_ok());
        let refusal = |id: &str| match store.get(id, theirs) {
            Err(e @ SessionError::Unknown { .. }) => e.to_string(),
            other => panic!("{:?}", other.map(|_| ())),
        };
        assert_eq!(refusal("s1"), refusal("s2").replace("s2", "s1"));
        assert_eq!(store.ids(theirs), Vec::<String>::new());
        assert_eq!(store.ids(mine), ["s1"]);
    }

    #[test]
    fn release_takes_out_its_owner_s_sessions_only() {
        let store = Sessions::new(SessionLimits::default());
        let (gone, staying) = (Owner::new(), Owner::new());
        for (id, owner) in [("s1", gone), ("s2", staying), ("s3", gone)] {
            store
                .insert(session(id), owner)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        assert_eq!(store.release(gone).len(), 2);
        assert_eq!(store.len(), 1);
        assert!(store.get("s2", staying).is_ok());
        assert!(store.release(gone).is_empty());
    }
}
