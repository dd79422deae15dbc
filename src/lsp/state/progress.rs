//! Work-done progress as the waits read it: which tokens are open, when
//! each began, whether an on-save check ended having done something, and
//! whether the server has finished indexing.

use std::time::Instant;

use serde_json::Value;

use super::{ClientState, Progress, Wake};
use crate::lsp::profile::WaitProfile;

impl ClientState {
    /// Applies `$/progress`; every wait looks again, whatever it said.
    pub(crate) fn on_progress(&mut self, params: &Value, seq: u64, profile: &WaitProfile) -> Wake {
        self.progress_update(params, seq, profile);
        Wake::Everyone
    }

    fn progress_update(&mut self, params: &Value, seq: u64, profile: &WaitProfile) {
        let Some(token) = params.get("token").map(token_key) else {
            return;
        };
        let value = params.get("value");
        let text = |key: &str| {
            value
                .and_then(|v| v.get(key))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        match value.and_then(|v| v.get("kind")).and_then(Value::as_str) {
            Some("begin") => {
                if profile.is_check(&token, text("title").as_deref()) {
                    self.check_begun = seq;
                    self.check_ended_empty = None;
                }
                self.progress.insert(
                    token,
                    Progress {
                        title: text("title"),
                        message: text("message"),
                        reported: false,
                        began: seq,
                        began_at: Instant::now(),
                    },
                );
            }
            Some("report") => {
                if let Some(p) = self.progress.get_mut(&token) {
                    p.reported = true;
                    if let Some(message) = text("message") {
                        p.message = Some(message);
                    }
                    if profile.is_check(&token, p.title.as_deref()) {
                        self.checks_report = true;
                        self.quiet_checks = false;
                    }
                }
            }
            Some("end") => {
                let ended = self.progress.remove(&token);
                if let Some(p) = &ended
                    && !profile.is_background(&token, p.title.as_deref())
                {
                    self.progress_ended = seq;
                }
                if let Some(p) = &ended
                    && profile.is_pass(&token, p.title.as_deref())
                {
                    self.pass_ended = self.pass_ended.max(p.began);
                }
                if let Some(p) = ended
                    && profile.is_check(&token, p.title.as_deref())
                {
                    self.check_end(p);
                }
            }
            _ => {}
        }
    }

    /// A check's progress ended: remembered when it did something (it
    /// reported, or published), or when this server's checks are quiet.
    fn check_end(&mut self, p: Progress) {
        let did_something = p.reported || self.last_publish_seq > p.began;
        if p.began <= self.check_ended {
            return;
        }
        if did_something || self.quiet_checks {
            self.ended_check(&p);
        } else {
            self.check_ended_empty = Some(p);
        }
    }

    /// A publish arrived: a check that ended having done nothing, with no
    /// check begun since, did this — rust-analyzer sends a check's
    /// diagnostics in the main loop's turn after the check's end, so they
    /// may trail it (26 ms under load, its first check after a load) — and
    /// it has ended, now.
    pub(super) fn publish_after_check(&mut self) {
        if let Some(p) = self.check_ended_empty.take() {
            self.ended_check(&p);
        }
    }

    /// `p` is the latest check that has ended, now.
    fn ended_check(&mut self, p: &Progress) {
        self.check_ended = p.began;
        self.check_ended_began_at = Some(p.began_at);
        self.check_ended_at = Some(Instant::now());
    }

    /// Whether work-done progress that began after `seq` is still open
    /// (progress the profile calls background does not count).
    pub fn busy_since(&self, seq: u64, profile: &WaitProfile) -> bool {
        self.progress
            .iter()
            .any(|(token, p)| p.began > seq && !profile.is_background(token, p.title.as_deref()))
    }

    /// Whether a diagnosis pass begun after `seq` has ended and no progress
    /// begun since is open: everything the server will publish for a
    /// change sent at `seq` is out (`WaitProfile::pass_progress`).
    pub fn pass_done_since(&self, seq: u64, profile: &WaitProfile) -> bool {
        self.pass_ended > seq && !self.busy_since(seq, profile)
    }

    /// Whether the server has ended a progress (its indexing) and has none
    /// open now (background progress aside).
    pub fn indexed(&self, profile: &WaitProfile) -> bool {
        self.progress_ended > 0 && !self.busy_since(0, profile)
    }
}

/// Progress tokens may be integers or strings; key them as text.
pub fn token_key(token: &Value) -> String {
    match token {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
