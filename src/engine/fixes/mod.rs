//! The fix line under an error: for the first errors a reply shows, the
//! quick fix their server offers (`lsp::quick_fix`), looked up in parallel:
//! a touched file's as soon as its server answers, beside the wait for the
//! other files (`early`), the rest once the diagnostics are ready. The
//! reply waits for them at most `fixWaitMs` after that: a lookup not done
//! by then is dropped (its request cancelled) and its line left out of
//! that reply — a fix line never delays the reply; `Engine::fix` looks the fix up again with a check's
//! whole deadline. Each offer has an id that names the diagnostic, the
//! text it was offered for and the fix, so that applying it later
//! (`Engine::fix`, in `apply`) is refused when the text has changed.

mod apply;
mod auto;
mod early;

use std::path::Path;

use sha2::{Digest, Sha256};
use tokio::task::JoinSet;
use tokio::time::Instant;

pub use super::reported::FixOffer;
pub use apply::{FixError, Which};
pub(super) use early::EarlyFixes;

use super::Engine;
use crate::diagnostic::{Diagnostic, Severity};
use crate::lsp::LspClient;
use crate::lsp::quick_fix::QuickFix;
use crate::render::FileDiagnostics;

impl Engine {
    /// The fixes offered for the first `fixLines` errors of `blocks` (in
    /// the order a reply shows them): the lookups `early` began during the
    /// wait, the others begun now; those not done `fixWaitMs` from now
    /// (never past `deadline`) are dropped, which cancels their requests.
    /// Only errors whose server marks one fix preferred or offers exactly
    /// one get one.
    pub(super) async fn offer_fixes(
        &self,
        blocks: &[&FileDiagnostics],
        early: &EarlyFixes,
        deadline: Instant,
    ) -> Vec<(Diagnostic, FixOffer)> {
        let waited = (Instant::now() + self.config.fix_wait).min(deadline);
        let mut lookups = JoinSet::new();
        for d in shown_errors(blocks).take(self.config.fix_lines) {
            let Some(lookup) = early
                .take(d)
                .or_else(|| early::lookup_now(self, d, deadline))
            else {
                continue;
            };
            let d = d.clone();
            lookups.spawn(async move {
                let (text, fix) = lookup.answer().await?;
                let offer = offer(&d, &text, &fix);
                Some((d, offer))
            });
        }
        let mut offers = Vec::new();
        // A timeout polls the lookups before its clock: with no wait at
        // all, those done already are still taken.
        while let Ok(Some(done)) = tokio::time::timeout_at(waited, lookups.join_next()).await {
            offers.extend(done.ok().flatten());
        }
        if !lookups.is_empty() {
            tracing::debug!(
                left_out = lookups.len(),
                "fix lookups not done within fixWaitMs dropped"
            );
        }
        offers
    }

    /// The running instance of `server` that has `path` open.
    fn client_holding(&self, server: &str, path: &Path) -> Option<LspClient> {
        self.pool
            .clients()
            .into_iter()
            .find(|c| c.server_id() == server && c.document(path).is_some())
    }
}

/// The errors of `blocks` in the order a reply shows them: each block's
/// sorted by position, the blocks in the order given.
fn shown_errors<'a>(blocks: &[&'a FileDiagnostics]) -> impl Iterator<Item = &'a Diagnostic> {
    blocks
        .iter()
        .copied()
        .flat_map(|block| errors_in_order(&block.diagnostics))
}

/// The errors of one file's `diagnostics`, sorted by position, as a reply
/// shows them.
fn errors_in_order(diagnostics: &[Diagnostic]) -> Vec<&Diagnostic> {
    let mut errors: Vec<&Diagnostic> = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    errors.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    errors
}

/// The offer of `fix` for `d`, reported against `text`.
fn offer(d: &Diagnostic, text: &str, fix: &QuickFix) -> FixOffer {
    FixOffer {
        title: fix.title.clone(),
        id: format!(
            "{}:{}:{}{}",
            d.line,
            d.column,
            digest(&[&d.file, text]),
            digest(&[&d.message, &fix.title])
        ),
    }
}

/// Eight hex digits of a SHA-256 over `parts`, each ended by a NUL.
fn digest(parts: &[&str]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part.as_bytes());
        hasher.update([0]);
    }
    hasher.finalize()[..4]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// An id's parts: line, column, the text's digest, the fix's digest.
fn parse_id(id: &str) -> Option<(u32, u32, &str, &str)> {
    let mut parts = id.splitn(3, ':');
    let line = parts.next()?.parse().ok()?;
    let column = parts.next()?.parse().ok()?;
    let digests = parts.next()?;
    (digests.len() == 16 && digests.is_ascii())
        .then(|| (line, column, &digests[..8], &digests[8..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_names_the_place_the_text_and_the_fix() {
        let d = Diagnostic {
            file: "a.ts".into(),
            line: 3,
            column: 7,
            end_line: 3,
            end_column: 9,
            severity: Severity::Error,
            message: "Cannot find name 'x'.".into(),
            code: None,
            source: None,
            server: "ts".into(),
        };
        let text_digest = digest(&["a.ts", "text"]);
        let id = format!("3:7:{text_digest}{}", digest(&[&d.message, "Add"]));
        let (line, column, text, fix) = parse_id(&id).unwrap_or_else(|| panic!("{id}"));
        assert_eq!((line, column, text), (3, 7, text_digest.as_str()));
        assert_eq!(fix, digest(&[&d.message, "Add"]));
        assert_ne!(digest(&["a.ts", "text"]), digest(&["a.ts", "text2"]));
        assert_eq!(parse_id("3:7:short"), None);
    }
}
