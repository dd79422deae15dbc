//! Reading the feature keys of `[lsp]` (`config::features`): `strict`,
//! `[lsp.sessions]` and `evidence`, as strictly as every other key.

use std::path::Path;
use std::time::Duration;

use toml::Value;

use super::errors::segment;
use super::{FileKind, Reader};
use crate::config::features::{FixRule, PartialEvidence, PartialSessions};
use crate::config::{ConfigError, PartialConfig};

const SESSION_KEYS: &[&str] = &["idleMinutes", "maxOpen", "maxEditedMiB"];
const EVIDENCE_KEYS: &[&str] = &["enabled", "path", "maxMiB", "keep", "messages"];

/// Largest values: a week idle, 1,024 sessions, 4 GiB edited, 4 GiB of log,
/// 100 rotated files (past them a deadline or a size would mean nothing).
const MAX_IDLE_MINUTES: u64 = 7 * 24 * 60;
const MAX_OPEN: u64 = 1024;
const MAX_MIB: u64 = 4096;
const MAX_KEEP: u64 = crate::config::MAX_EVIDENCE_KEEP as u64;
/// Auto-fix tries at most 20 fixes per edit (each is a check of its own),
/// and a list holds at most 64 rules of at most 200 characters.
const MAX_AUTO_FIXES: u64 = 20;
const MAX_FIX_RULES: usize = 64;
const MAX_RULE_CHARS: usize = 200;

impl Reader<'_> {
    /// One feature key of `[lsp]`; false when `key` is none of them.
    pub(super) fn feature(
        &self,
        key: &str,
        path: &str,
        value: &Value,
        out: &mut PartialConfig,
    ) -> Result<bool, ConfigError> {
        match key {
            "strict" => out.strict = Some(self.boolean(path, value)?),
            "sessions" => out.sessions = self.sessions(path, value)?,
            "evidence" => out.evidence = self.evidence(path, value)?,
            "ignore" => out.ignore.extend(self.ignore_rules(path, value, None)?),
            "autoFix" => out.auto_fix.rules = Some(self.fix_rules(path, value)?),
            "autoFixMax" => {
                out.auto_fix.max = Some(self.in_range(path, value, 1, MAX_AUTO_FIXES)? as usize)
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn sessions(&self, base: &str, value: &Value) -> Result<PartialSessions, ConfigError> {
        let table = self.table(base, value, "a table of session limits")?;
        let mut out = PartialSessions::default();
        for (key, value) in table {
            let path = format!("{base}.{}", segment(key));
            match key.as_str() {
                "idleMinutes" => {
                    let minutes = self.in_range(&path, value, 1, MAX_IDLE_MINUTES)?;
                    out.idle = Some(Duration::from_secs(minutes * 60));
                }
                "maxOpen" => {
                    out.max_open = Some(self.in_range(&path, value, 1, MAX_OPEN)? as usize)
                }
                "maxEditedMiB" => {
                    let mib = self.in_range(&path, value, 1, MAX_MIB)?;
                    out.max_bytes = Some((mib * 1024 * 1024) as usize);
                }
                _ => return Err(self.unknown(&path, key, SESSION_KEYS)),
            }
        }
        Ok(out)
    }

    /// `evidence = true` / `false`, or a table of its settings.
    fn evidence(&self, base: &str, value: &Value) -> Result<PartialEvidence, ConfigError> {
        let mut out = PartialEvidence::default();
        let table = match value {
            Value::Boolean(enabled) => {
                out.enabled = Some(*enabled);
                return Ok(out);
            }
            Value::Table(table) => table,
            other => return Err(self.expected(base, "true, false or a table", other)),
        };
        out.enabled = Some(true);
        for (key, value) in table {
            let path = format!("{base}.{}", segment(key));
            match key.as_str() {
                "enabled" => out.enabled = Some(self.boolean(&path, value)?),
                "path" => {
                    if self.kind == FileKind::Workspace {
                        return Err(self.invalid(
                            &path,
                            "only allowed in the user config; a workspace file may not choose where squiggle writes".into(),
                        ));
                    }
                    let file = Path::new(self.string(&path, value, "an absolute file path")?);
                    if !file.is_absolute() {
                        return Err(self.expected(&path, "an absolute file path", value));
                    }
                    out.path = Some(file.to_path_buf());
                }
                "maxMiB" => {
                    out.max_bytes = Some(self.in_range(&path, value, 1, MAX_MIB)? * 1024 * 1024)
                }
                "keep" => out.keep = Some(self.in_range(&path, value, 0, MAX_KEEP)? as usize),
                "messages" => out.messages = Some(self.boolean(&path, value)?),
                _ => return Err(self.unknown(&path, key, EVIDENCE_KEYS)),
            }
        }
        Ok(out)
    }

    /// `autoFix`: quick fix kinds (`quickfix`, `quickfix.<more>`) and
    /// title patterns. A kind outside `quickfix` would never match (only
    /// quick fixes are asked for), so it is refused rather than ignored.
    fn fix_rules(&self, base: &str, value: &Value) -> Result<Vec<FixRule>, ConfigError> {
        let expected = "an array of quick fix kinds (\"quickfix.import\") or title patterns (\"Add import from *\")";
        let Value::Array(items) = value else {
            return Err(self.expected(base, expected, value));
        };
        if items.len() > MAX_FIX_RULES {
            return Err(self.invalid(
                base,
                format!(
                    "expected at most {MAX_FIX_RULES} entries, found {}",
                    items.len()
                ),
            ));
        }
        let mut rules = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let path = format!("{base}[{i}]");
            let text = self.string(&path, item, "a quick fix kind or a title pattern")?;
            let bad = |why: &str| self.invalid(&path, format!("{why}, found {text:?}"));
            if text.trim().is_empty() {
                return Err(bad(
                    "expected a quick fix kind or a title pattern, not an empty string",
                ));
            }
            if text.chars().count() > MAX_RULE_CHARS {
                return Err(bad(&format!(
                    "expected at most {MAX_RULE_CHARS} characters"
                )));
            }
            let kind_like = !text.contains([' ', '*'])
                && text.contains('.')
                && text
                    .split('.')
                    .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric()));
            if text == "quickfix" || (kind_like && text.starts_with("quickfix.")) {
                rules.push(FixRule::Kind(text.to_string()));
            } else if kind_like {
                return Err(bad(
                    "auto-fix applies quick fixes only: expected \"quickfix\", a kind under it (\"quickfix.import\") or a title pattern",
                ));
            } else {
                rules.push(FixRule::Title(text.to_string()));
            }
        }
        Ok(rules)
    }

    /// An integer in `low..=high`, the bounds named when it is not.
    fn in_range(&self, path: &str, value: &Value, low: u64, high: u64) -> Result<u64, ConfigError> {
        let expected = format!("an integer from {low} to {high}");
        match value {
            Value::Integer(n) if *n >= 0 && (low..=high).contains(&(*n as u64)) => Ok(*n as u64),
            _ => Err(self.expected(path, &expected, value)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::config::{FileKind, parse_str};

    fn parse(text: &str, kind: FileKind) -> Result<crate::config::PartialConfig, String> {
        parse_str(text, Path::new("/ws/.squiggle.toml"), kind).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_strict_sessions_and_evidence() {
        // An absolute path on every platform (`/var/log` has no drive on
        // Windows), written as a TOML basic string.
        let log = std::env::temp_dir().join("sq.jsonl");
        let text = format!(
            "[lsp]\nstrict = true\n[lsp.sessions]\nidleMinutes = 5\nmaxOpen = 2\nmaxEditedMiB = 1\n[lsp.evidence]\npath = {:?}\nmaxMiB = 2\nkeep = 0\nmessages = true\n",
            log.display().to_string()
        );
        let p = parse(&text, FileKind::User).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.strict, Some(true));
        assert_eq!(p.sessions.idle, Some(std::time::Duration::from_secs(300)));
        assert_eq!(p.sessions.max_open, Some(2));
        assert_eq!(p.sessions.max_bytes, Some(1024 * 1024));
        assert_eq!(p.evidence.enabled, Some(true));
        assert_eq!(p.evidence.max_bytes, Some(2 * 1024 * 1024));
        assert_eq!(p.evidence.keep, Some(0));
        assert_eq!(p.evidence.messages, Some(true));
        let text = "[lsp]\nautoFix = [\"quickfix.import\", \"Add import from *\", \"quickfix\"]\nautoFixMax = 5\n";
        let p = parse(text, FileKind::Workspace).unwrap_or_else(|e| panic!("{e}"));
        use crate::config::FixRule;
        assert_eq!(
            p.auto_fix.rules,
            Some(vec![
                FixRule::Kind("quickfix.import".into()),
                FixRule::Title("Add import from *".into()),
                FixRule::Kind("quickfix".into()),
            ])
        );
        assert_eq!(p.auto_fix.max, Some(5));
        let p = parse("[lsp]\nevidence = true\n", FileKind::Workspace)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.evidence.enabled, Some(true));
    }

    #[test]
    fn refuses_what_it_cannot_honour_naming_the_key() {
        let cases = [
            (
                "[lsp.sessions]\nmaxOpen = 0\n",
                "lsp.sessions.maxOpen: expected an integer from 1 to 1024, found 0",
            ),
            (
                "[lsp.sessions]\nmaxOpn = 3\n",
                "lsp.sessions.maxOpn: unknown key; did you mean \"maxOpen\"?",
            ),
            (
                "[lsp]\nevidence = \"yes\"\n",
                "lsp.evidence: expected true, false or a table, found \"yes\"",
            ),
            (
                "[lsp.evidence]\npath = \"/tmp/x\"\n",
                "lsp.evidence.path: only allowed in the user config",
            ),
            (
                "[lsp]\nstrict = 1\n",
                "lsp.strict: expected true or false, found 1",
            ),
            (
                "[lsp]\nautoFix = \"quickfix\"\n",
                "lsp.autoFix: expected an array of quick fix kinds (\"quickfix.import\") or title patterns (\"Add import from *\"), found \"quickfix\"",
            ),
            (
                "[lsp]\nautoFix = [\"source.organizeImports\"]\n",
                "lsp.autoFix[0]: auto-fix applies quick fixes only: expected \"quickfix\", a kind under it (\"quickfix.import\") or a title pattern, found \"source.organizeImports\"",
            ),
            (
                "[lsp]\nautoFix = [\"quickfix\", \" \"]\n",
                "lsp.autoFix[1]: expected a quick fix kind or a title pattern, not an empty string",
            ),
            (
                "[lsp]\nautoFix = [3]\n",
                "lsp.autoFix[0]: expected a quick fix kind or a title pattern, found 3",
            ),
            (
                "[lsp]\nautoFixMax = 0\n",
                "lsp.autoFixMax: expected an integer from 1 to 20, found 0",
            ),
            (
                "[lsp]\nautoFixMax = 21\n",
                "lsp.autoFixMax: expected an integer from 1 to 20, found 21",
            ),
        ];
        for (text, expected) in cases {
            let err = parse(text, FileKind::Workspace).err().unwrap_or_default();
            assert!(err.contains(expected), "{text}: {err}");
        }
        let err = parse("[lsp.evidence]\npath = \"rel.jsonl\"\n", FileKind::User)
            .err()
            .unwrap_or_default();
        assert!(err.contains("expected an absolute file path"), "{err}");
    }
}
