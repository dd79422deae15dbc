//! Reading `ignore` (under `[lsp]` or a server's table): an array of rules,
//! each a table with any of `code`, `source`, `path`, `message` and none
//! else; an empty rule, an empty string or a glob that does not compile is
//! an error naming the key.

use toml::Value;

use super::Reader;
use super::errors::segment;
use crate::config::ConfigError;
use crate::config::ignore::{IgnoreRule, glob};

const RULE_KEYS: &[&str] = &["code", "source", "path", "message"];

/// At most this many rules per list, of at most this many characters each.
const MAX_RULES: usize = 256;
const MAX_CHARS: usize = 500;

impl Reader<'_> {
    /// `ignore = [{ code = "…" }, { path = "gen/**" }]`; `server` is the
    /// id of the table it is under, if any.
    pub(super) fn ignore_rules(
        &self,
        base: &str,
        value: &Value,
        server: Option<&str>,
    ) -> Result<Vec<IgnoreRule>, ConfigError> {
        let expected = "an array of rules such as [{ code = \"reportMissingModuleSource\" }, { path = \"gen/**\" }]";
        let items = self.array(base, value, expected)?;
        if items.len() > MAX_RULES {
            let found = items.len();
            return Err(self.invalid(
                base,
                format!("expected at most {MAX_RULES} rules, found {found}"),
            ));
        }
        let mut rules = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let path = format!("{base}[{i}]");
            let table = self.table(
                &path,
                item,
                "a rule: a table with any of code, source, path, message",
            )?;
            let mut rule = IgnoreRule {
                server: server.map(str::to_string),
                ..IgnoreRule::default()
            };
            for (key, value) in table {
                let path = format!("{path}.{}", segment(key));
                let text = || self.rule_text(&path, value);
                match key.as_str() {
                    "code" => rule.code = Some(text()?),
                    "source" => rule.source = Some(text()?),
                    "message" => rule.message = Some(text()?),
                    "path" => {
                        let pattern = text()?;
                        if let Err(why) = glob(&pattern) {
                            return Err(self.invalid(
                                &path,
                                format!(
                                    "expected a glob such as \"gen/**\", found {pattern:?}: {why}"
                                ),
                            ));
                        }
                        rule.path = Some(pattern);
                    }
                    _ => return Err(self.unknown(&path, key, RULE_KEYS)),
                }
            }
            if rule.is_empty() {
                return Err(self.invalid(
                    &path,
                    "an empty rule would hide every diagnostic; give at least one of code, source, path, message".to_string(),
                ));
            }
            rules.push(rule);
        }
        Ok(rules)
    }

    /// A rule's string: not empty, at most [`MAX_CHARS`] characters.
    fn rule_text(&self, path: &str, value: &Value) -> Result<String, ConfigError> {
        let text = self.name(path, value, "a string")?;
        if text.chars().count() > MAX_CHARS {
            return Err(self.invalid(path, format!("expected at most {MAX_CHARS} characters")));
        }
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::config::{FileKind, parse_str};

    fn parse(text: &str) -> Result<crate::config::PartialConfig, String> {
        parse_str(text, Path::new("/ws/.squiggle.toml"), FileKind::Workspace)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn reads_rules_under_lsp_and_a_server() {
        let text = "[lsp]\nignore = [{ code = \"X\" }, { path = \"gen/**\", message = \"m\" }]\n[lsp.servers.pyright]\nignore = [{ source = \"s\" }]\n";
        let p = parse(text).unwrap_or_else(|e| panic!("{e}"));
        let summary: Vec<_> = p
            .ignore
            .iter()
            .map(|r| {
                (
                    r.code.clone(),
                    r.path.clone(),
                    r.source.clone(),
                    r.server.clone(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                (Some("X".into()), None, None, None),
                (None, Some("gen/**".into()), None, None),
                (None, None, Some("s".into()), Some("pyright".into())),
            ]
        );
        let p = parse("[[lsp.ignore]]\ncode = \"Y\"\n").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.ignore.len(), 1);
    }

    #[test]
    fn refuses_what_it_cannot_honour_naming_the_file_and_key() {
        let cases = [
            (
                "[lsp]\nignore = [{}]\n",
                "/ws/.squiggle.toml: lsp.ignore[0]: an empty rule would hide every diagnostic",
            ),
            (
                "[lsp]\nignore = [{ cod = \"X\" }]\n",
                "lsp.ignore[0].cod: unknown key; did you mean \"code\"?",
            ),
            (
                "[lsp]\nignore = { code = \"X\" }\n",
                "lsp.ignore: expected an array of rules",
            ),
            (
                "[lsp]\nignore = [\"X\"]\n",
                "lsp.ignore[0]: expected a rule",
            ),
            (
                "[lsp]\nignore = [{ code = \"\" }]\n",
                "lsp.ignore[0].code: expected a string (a non-empty string), found an empty string",
            ),
            (
                "[lsp]\nignore = [{ code = 3 }]\n",
                "lsp.ignore[0].code: expected a string (a non-empty string), found 3",
            ),
            (
                "[lsp]\nignore = [{ path = \"a/[\" }]\n",
                "lsp.ignore[0].path: expected a glob such as \"gen/**\", found \"a/[\"",
            ),
            (
                "[lsp.servers.pyright]\nignore = [{ severity = \"hint\" }]\n",
                "lsp.servers.pyright.ignore[0].severity: unknown key",
            ),
        ];
        for (text, expected) in cases {
            let err = parse(text).err().unwrap_or_default();
            assert!(err.contains(expected), "{text}: {err}");
        }
    }
}
