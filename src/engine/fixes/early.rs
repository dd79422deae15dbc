//! Fix lookups begun while a change's check still waits: as soon as a
//! server answers for a touched file, its first errors' quick fixes are
//! asked for, beside the wait for the other files, so that by the time
//! the reply is ready they are usually answered and the reply waits for
//! none of them (`Engine::offer_fixes`). A lookup the reply does not use
//! (an error that was there before, a file the auto-fix rewrote) is
//! dropped with the last handle, which cancels its request.

use std::sync::{Arc, Mutex};

use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::super::Engine;
use super::super::check::OnAnswer;
use crate::diagnostic::Diagnostic;
use crate::lsp::quick_fix::{QuickFix, chosen};

/// One lookup's answer: the fix chosen for the diagnostic, and the text
/// the server held for the file when it answered.
type Found = Option<(Arc<str>, QuickFix)>;

/// The lookups begun early for one change (shared by its clones).
#[derive(Clone, Default)]
pub(in crate::engine) struct EarlyFixes(Arc<Mutex<Lookups>>);

#[derive(Default)]
struct Lookups(Vec<(Key, Lookup)>);

/// One running lookup; dropping it cancels it (and so its request).
pub(super) struct Lookup(JoinHandle<Found>);

impl Lookup {
    /// The lookup's answer; `None` as well when it failed.
    pub(super) async fn answer(mut self) -> Found {
        (&mut self.0).await.ok().flatten()
    }
}

impl Drop for Lookup {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What names a diagnostic across the wait and the reply.
#[derive(PartialEq, Eq)]
struct Key {
    server: String,
    file: String,
    line: u32,
    message: String,
}

impl Key {
    fn of(d: &Diagnostic) -> Key {
        Key {
            server: d.server.clone(),
            file: d.file.clone(),
            line: d.line,
            message: d.message.clone(),
        }
    }
}

impl OnAnswer for EarlyFixes {
    /// Begins the lookups for the first `fixLines` errors of one server's
    /// answer for one touched file (`diagnostics`, in any order): a reply
    /// shows at most that many fix lines, and the union of each server's
    /// first ones holds the file's first ones.
    fn answered(&self, engine: &Engine, diagnostics: &[Diagnostic], deadline: Instant) {
        let errors = super::errors_in_order(diagnostics);
        let mut lookups = crate::mutex::lock(&self.0);
        let early = errors
            .into_iter()
            .filter(|d| !after_check(engine, &d.server));
        for d in early.take(engine.config.fix_lines) {
            let key = Key::of(d);
            if lookups.0.iter().any(|(k, _)| *k == key) {
                continue;
            }
            if let Some(lookup) = lookup_now(engine, d, deadline) {
                lookups.0.push((key, lookup));
            }
        }
    }
}

impl EarlyFixes {
    /// The lookup begun for `d`, if any, taken out.
    pub(super) fn take(&self, d: &Diagnostic) -> Option<Lookup> {
        let key = Key::of(d);
        let mut lookups = crate::mutex::lock(&self.0);
        let at = lookups.0.iter().position(|(k, _)| *k == key)?;
        Some(lookups.0.swap_remove(at).1)
    }
}

/// Whether `server`'s profile keeps its fix lookups until the check is
/// done (`WaitProfile::fixes_after_check`).
fn after_check(engine: &Engine, server: &str) -> bool {
    engine
        .servers
        .iter()
        .any(|s| s.spec.id == server && s.spec.wait.fixes_after_check)
}

/// A lookup for `d` begun now (no early one was), on the instance of its
/// server that holds `path`.
pub(super) fn lookup_now(engine: &Engine, d: &Diagnostic, deadline: Instant) -> Option<Lookup> {
    let path = engine.workspace.root().join(&d.file);
    let client = engine.client_holding(&d.server, &path)?;
    let (line, message) = (d.line, d.message.clone());
    Some(Lookup(tokio::spawn(async move {
        let fixes = client.quick_fixes(&path, line, &message, deadline).await;
        let text = client.document(&path).map(|(_, t)| t)?;
        Some((text, chosen(&fixes)?.clone()))
    })))
}
