//! The settings of the reference designs' features, kept apart
//! from the core keys: strict mode (`strict`), speculative sessions
//! (`[lsp.sessions]`), the evidence log (`evidence`) and auto-fix
//! (`autoFix`, `autoFixMax`). Each layer says
//! only what it sets (`Partial*`); [`merge`] lays one over the merged value.

use std::path::PathBuf;
use std::time::Duration;

/// Bounds on speculative sessions (`[lsp.sessions]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// A session untouched this long is discarded (`idleMinutes`).
    pub idle: Duration,
    /// At most this many sessions open at once (`maxOpen`).
    pub max_open: usize,
    /// At most this many bytes of edited text per session (`maxEditedMiB`).
    pub max_bytes: usize,
}

impl Default for SessionLimits {
    fn default() -> SessionLimits {
        SessionLimits {
            idle: Duration::from_secs(30 * 60),
            max_open: 8,
            max_bytes: 64 * 1024 * 1024,
        }
    }
}

/// At most this many rotated evidence logs are kept (`keep`).
pub const MAX_EVIDENCE_KEEP: usize = 100;

/// The evidence log (`evidence = true`, or an `[lsp.evidence]` table).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceConfig {
    pub enabled: bool,
    /// Where the log is; `None`: the default (`evidence::default_path`).
    /// Only the user file may set it.
    pub path: Option<PathBuf>,
    /// Past this size the log is rotated (`maxMiB`).
    pub max_bytes: u64,
    /// Rotated files kept beside it (`keep`).
    pub keep: usize,
    /// Record diagnostic messages too (`messages`); never by default.
    pub messages: bool,
}

impl Default for EvidenceConfig {
    fn default() -> EvidenceConfig {
        EvidenceConfig {
            enabled: false,
            path: None,
            max_bytes: 16 * 1024 * 1024,
            keep: 3,
            messages: false,
        }
    }
}

/// Auto-fix (`autoFix`, `autoFixMax`): which quick fixes squiggle applies
/// by itself after an edit, and at most how many it tries per edit. Off
/// (no rules) by default.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoFixConfig {
    pub rules: Vec<FixRule>,
    pub max: usize,
}

impl Default for AutoFixConfig {
    fn default() -> AutoFixConfig {
        AutoFixConfig {
            rules: Vec::new(),
            max: 3,
        }
    }
}

impl AutoFixConfig {
    /// Whether a quick fix of `kind` titled `title` may be applied unasked.
    pub fn allows(&self, kind: Option<&str>, title: &str) -> bool {
        self.rules.iter().any(|rule| rule.matches(kind, title))
    }
}

/// One entry of `autoFix`: a quick fix kind (`quickfix`, `quickfix.import`;
/// a kind covers the kinds under it, as in LSP's `only`) or a pattern the
/// server's title must match whole, `*` standing for any text
/// (`Add import from *`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FixRule {
    Kind(String),
    Title(String),
}

impl FixRule {
    pub fn matches(&self, kind: Option<&str>, title: &str) -> bool {
        match self {
            // A server that sends no kind answered `only: ["quickfix"]`.
            FixRule::Kind(want) => {
                let kind = kind.unwrap_or("quickfix");
                kind == want
                    || kind
                        .strip_prefix(want.as_str())
                        .is_some_and(|r| r.starts_with('.'))
            }
            FixRule::Title(pattern) => glob(pattern, title),
        }
    }
}

/// Whether `text` matches `pattern` whole, `*` matching any run of
/// characters (none included).
fn glob(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// What one layer says of auto-fix.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartialAutoFix {
    pub rules: Option<Vec<FixRule>>,
    pub max: Option<usize>,
}

/// What one layer says of `[lsp.sessions]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartialSessions {
    pub idle: Option<Duration>,
    pub max_open: Option<usize>,
    pub max_bytes: Option<usize>,
}

/// What one layer says of the evidence log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartialEvidence {
    pub enabled: Option<bool>,
    pub path: Option<PathBuf>,
    pub max_bytes: Option<u64>,
    pub keep: Option<usize>,
    pub messages: Option<bool>,
}

/// Lays one layer's feature settings over the merged ones.
pub(super) fn merge(
    config: &mut super::Config,
    strict: Option<bool>,
    sessions: PartialSessions,
    evidence: PartialEvidence,
    auto_fix: PartialAutoFix,
) {
    let a = &mut config.auto_fix;
    if let Some(rules) = auto_fix.rules {
        a.rules = rules;
    }
    a.max = auto_fix.max.unwrap_or(a.max);
    if let Some(strict) = strict {
        config.strict = strict;
    }
    let s = &mut config.sessions;
    s.idle = sessions.idle.unwrap_or(s.idle);
    s.max_open = sessions.max_open.unwrap_or(s.max_open);
    s.max_bytes = sessions.max_bytes.unwrap_or(s.max_bytes);
    let e = &mut config.evidence;
    e.enabled = evidence.enabled.unwrap_or(e.enabled);
    if evidence.path.is_some() {
        e.path = evidence.path;
    }
    e.max_bytes = evidence.max_bytes.unwrap_or(e.max_bytes);
    e.keep = evidence.keep.unwrap_or(e.keep);
    e.messages = evidence.messages.unwrap_or(e.messages);
}

#[cfg(test)]
mod tests {
    use super::{FixRule, glob};

    #[test]
    fn a_title_pattern_matches_whole_and_a_kind_its_subkinds() {
        assert!(glob("Add import from *", "Add import from \"./lib\""));
        assert!(glob("*import*", "from lib import scale"));
        assert!(glob("Import `*`", "Import `std::fmt`"));
        assert!(!glob("Add import", "Add import from \"./lib\""));
        assert!(!glob("*.ts", "a.tsx"));
        assert!(glob("a*a", "aa"));
        assert!(!glob("a*a", "a"));
        let kind = FixRule::Kind("quickfix".into());
        assert!(kind.matches(Some("quickfix.import"), "x"));
        assert!(kind.matches(None, "x"));
        assert!(!kind.matches(Some("quickfixes"), "x"));
        let import = FixRule::Kind("quickfix.import".into());
        assert!(!import.matches(Some("quickfix"), "x"));
    }
}
