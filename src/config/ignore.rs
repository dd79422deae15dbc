//! Ignore rules (`ignore` under `[lsp]` and under `[lsp.servers.ID]`): which
//! diagnostics the model is never shown. A rule names any of a code, a
//! source, a path glob (relative to the workspace) and a message substring;
//! a diagnostic is hidden when it matches every part a rule names. A rule
//! under a server's table holds for that server's diagnostics only. What a
//! rule hides is still counted in the reply and kept in structured results
//! (`crate::hidden`).

use globset::{Glob, GlobBuilder, GlobMatcher};

use crate::diagnostic::Diagnostic;

/// One rule as the configuration states it; the glob checked when read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IgnoreRule {
    /// The diagnostic's code, whole (`reportMissingModuleSource`, `E501`).
    pub code: Option<String>,
    /// The diagnostic's source, whole (`Pylance`, `ts`).
    pub source: Option<String>,
    /// A glob over the workspace-relative path, `/`-separated: `*` stays
    /// within one directory, `**` crosses them (`gen/**`, `**/*_pb2.py`).
    pub path: Option<String>,
    /// A substring of the message, case-sensitive.
    pub message: Option<String>,
    /// Set for a rule under `[lsp.servers.ID]`: only that server's.
    pub server: Option<String>,
}

impl IgnoreRule {
    /// Whether the rule names nothing to match (and would hide everything).
    pub fn is_empty(&self) -> bool {
        self.code.is_none()
            && self.source.is_none()
            && self.path.is_none()
            && self.message.is_none()
    }
}

/// The glob of a `path` rule as squiggle reads it, or why it is not one.
pub fn glob(pattern: &str) -> Result<Glob, String> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| e.kind().to_string())
}

/// A rule ready to match: its glob compiled.
#[derive(Debug, Clone)]
pub struct CompiledRule {
    rule: IgnoreRule,
    path: Option<GlobMatcher>,
}

impl CompiledRule {
    /// `None` for a rule whose glob does not compile (never one the
    /// configuration accepted).
    pub fn new(rule: &IgnoreRule) -> Option<CompiledRule> {
        let path = match &rule.path {
            Some(pattern) => Some(glob(pattern).ok()?.compile_matcher()),
            None => None,
        };
        Some(CompiledRule {
            rule: rule.clone(),
            path,
        })
    }

    /// Whether `d` matches every part the rule names.
    pub fn matches(&self, d: &Diagnostic) -> bool {
        self.matches_but_path(d) && self.matches_path(&d.file)
    }

    /// Whether a diagnostic of `file` matches the rule's `path` (any does,
    /// without one). A file's diagnostics share the answer: the glob runs
    /// once per file, not per diagnostic.
    pub fn matches_path(&self, file: &str) -> bool {
        self.path.as_ref().is_none_or(|g| g.is_match(file))
    }

    /// Whether `d` matches every part the rule names but its `path`.
    pub fn matches_but_path(&self, d: &Diagnostic) -> bool {
        let r = &self.rule;
        let same = |want: &Option<String>, have: Option<&str>| {
            want.as_deref().is_none_or(|w| have == Some(w))
        };
        same(&r.server, Some(d.server.as_str()))
            && same(&r.code, d.code.as_deref())
            && same(&r.source, d.source.as_deref())
            && r.message.as_deref().is_none_or(|m| d.message.contains(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;

    fn diag(file: &str, code: Option<&str>, source: Option<&str>, message: &str) -> Diagnostic {
        Diagnostic {
            file: file.into(),
            line: 1,
            column: 1,
            end_line: 1,
            end_column: 2,
            severity: Severity::Error,
            message: message.into(),
            code: code.map(Into::into),
            source: source.map(Into::into),
            server: "pyright".into(),
        }
    }

    fn rule(f: impl FnOnce(&mut IgnoreRule)) -> CompiledRule {
        let mut r = IgnoreRule::default();
        f(&mut r);
        CompiledRule::new(&r).unwrap_or_else(|| panic!("{r:?} compiles"))
    }

    #[test]
    fn a_rule_matches_every_part_it_names() {
        let d = diag(
            "gen/a/b_pb2.py",
            Some("X1"),
            Some("Pylance"),
            "Import \"x\" could not be resolved",
        );
        assert!(rule(|r| r.code = Some("X1".into())).matches(&d));
        assert!(!rule(|r| r.code = Some("X".into())).matches(&d));
        assert!(rule(|r| r.path = Some("gen/**".into())).matches(&d));
        assert!(!rule(|r| r.path = Some("gen/*".into())).matches(&d));
        assert!(rule(|r| r.path = Some("**/*_pb2.py".into())).matches(&d));
        assert!(rule(|r| r.message = Some("could not be".into())).matches(&d));
        assert!(rule(|r| r.source = Some("Pylance".into())).matches(&d));
        assert!(
            !rule(|r| {
                r.code = Some("X1".into());
                r.source = Some("ruff".into());
            })
            .matches(&d)
        );
        assert!(
            rule(|r| {
                r.code = Some("X1".into());
                r.server = Some("pyright".into());
            })
            .matches(&d)
        );
        assert!(
            !rule(|r| {
                r.code = Some("X1".into());
                r.server = Some("ruff".into());
            })
            .matches(&d)
        );
    }
}
