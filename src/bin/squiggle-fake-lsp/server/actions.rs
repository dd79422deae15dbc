//! What the fake does when one of its timers fires.

use super::outgoing::{Check, Purpose};
use super::{Action, SAVE_PROGRESS_TOKEN, Server, id_key};

impl Server {
    pub(super) fn run_action(&mut self, action: Action) {
        if self.hung && !matches!(action, Action::OrphanExit) {
            return;
        }
        match action {
            Action::Answer { id, method, params } => {
                if self.delayed.remove(&id_key(&id)) {
                    self.answer(id, &method, &params);
                }
            }
            Action::Wave {
                uri,
                version,
                wave,
                check,
            } => {
                if let Some(Check { number: Some(n) }) = check
                    && self.running_check != Some(n)
                {
                    return; // cancelled by a later save
                }
                let ends = check.is_some() && wave == self.last_wave();
                if ends && self.script.end_before_publish {
                    self.end_check(check);
                }
                let current = self.docs.get(&uri).is_some_and(|d| d.version == version);
                if current {
                    if wave == 0 && self.script.empty_first {
                        self.publish(&uri, Some(version), Vec::new());
                    }
                    self.publish_current(&uri, wave);
                    if wave == self.last_wave() && self.script.other_files {
                        for other in self.docs.uris().into_iter().filter(|u| *u != uri) {
                            self.publish_current(&other, wave);
                        }
                    }
                }
                if check.is_some() && wave == self.last_wave() && self.script.check_files_on_disk {
                    self.publish_neighbours_on_disk(&uri, wave);
                }
                if ends && !self.script.end_before_publish {
                    self.end_check(check);
                }
            }
            Action::StartCheck { uri, save } => {
                if save == self.saves {
                    self.start_check(uri);
                }
            }
            Action::BeginCheck {
                uri,
                version,
                check,
            } => {
                if check.number.is_none() || check.number == self.running_check {
                    self.begin_check(uri, version, check);
                }
            }
            Action::ProgressEnd { token } => self.progress_end(&token),
            Action::Refresh => self.request("workspace/diagnostic/refresh", None, Purpose::Other),
            Action::Reread { saved } => {
                if let Some(status) = self.script.file_status {
                    self.reread_others(&saved, status);
                }
            }
            Action::LoopPublish { uri, interval_ms } => {
                self.publish_current(&uri, self.last_wave());
                self.timers
                    .after(interval_ms, Action::LoopPublish { uri, interval_ms });
            }
            Action::OrphanExit => {
                eprintln!("squiggle-fake-lsp: nobody killed me after stdin closed; exiting");
                self.exit(1);
            }
        }
    }

    /// A check's last wave: it is over.
    fn end_check(&mut self, check: Option<Check>) {
        if check.is_some_and(|c| c.number.is_some()) {
            self.running_check = None;
        }
        self.progress_end(SAVE_PROGRESS_TOKEN);
    }
}
