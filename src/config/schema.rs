//! Reading one file into a [`PartialConfig`], by hand over `toml::Table`, so
//! that every error carries the file, the full key path and what was expected.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use toml::Value;

use super::{ConfigError, PartialConfig, Report, ServerOverride, Severity};

/// Which file is being read; some keys are only allowed in one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    User,
    Workspace,
}

const LSP_KEYS: &[&str] = &[
    "diagnosticTimeout",
    "firstTouchTimeout",
    "maxDiagnosticsPerFile",
    "maxProjectDiagnosticsFiles",
    "maxDiagnosticLines",
    "includeSeverities",
    "navigationTools",
    "writeTools",
    "autoDetect",
    "report",
    "daemonIdleMinutes",
    "trustedWorkspaces",
    "servers",
];

const SERVER_KEYS: &[&str] = &[
    "enabled",
    "command",
    "args",
    "extensions",
    "languageId",
    "env",
    "rootMarkers",
    "initializationOptions",
    "settings",
    "settleMs",
    "staleWindowMs",
];

const SEVERITIES: &str = "\"error\", \"warning\", \"info\" or \"hint\"";

/// Parses the text of one configuration file. `origin` is only used to name
/// the file in errors.
pub fn parse_str(text: &str, origin: &Path, kind: FileKind) -> Result<PartialConfig, ConfigError> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let (line, column) = e.span().map_or((1, 1), |s| line_column(text, s.start));
        ConfigError::Syntax {
            path: origin.to_path_buf(),
            line,
            column,
            message: e.message().trim().to_string(),
        }
    })?;
    let reader = Reader { file: origin, kind };
    let mut partial = PartialConfig::default();
    for (key, value) in &table {
        match key.as_str() {
            "lsp" => match value {
                Value::Boolean(enabled) => partial.enabled = Some(*enabled),
                Value::Table(lsp) => {
                    partial.enabled = Some(true);
                    reader.lsp(lsp, &mut partial)?;
                }
                other => {
                    return Err(reader.expected("lsp", "false or an [lsp] table", other));
                }
            },
            _ => return Err(reader.unknown(&segment(key), key, &["lsp"])),
        }
    }
    Ok(partial)
}

struct Reader<'a> {
    file: &'a Path,
    kind: FileKind,
}

impl Reader<'_> {
    fn lsp(&self, lsp: &toml::Table, out: &mut PartialConfig) -> Result<(), ConfigError> {
        for (key, value) in lsp {
            let path = format!("lsp.{}", segment(key));
            match key.as_str() {
                "diagnosticTimeout" => out.diagnostic_timeout = Some(self.millis(&path, value)?),
                "firstTouchTimeout" => out.first_touch_timeout = Some(self.millis(&path, value)?),
                "maxDiagnosticsPerFile" => {
                    out.max_diagnostics_per_file = Some(self.count(&path, value)?)
                }
                "maxProjectDiagnosticsFiles" => {
                    out.max_project_diagnostics_files = Some(self.count(&path, value)?)
                }
                "maxDiagnosticLines" => out.max_diagnostic_lines = Some(self.count(&path, value)?),
                "includeSeverities" => {
                    out.include_severities = Some(self.severities(&path, value)?)
                }
                "navigationTools" => out.navigation_tools = Some(self.boolean(&path, value)?),
                "writeTools" => out.write_tools = Some(self.boolean(&path, value)?),
                "autoDetect" => out.auto_detect = Some(self.boolean(&path, value)?),
                "report" => out.report = Some(self.report(&path, value)?),
                "daemonIdleMinutes" => {
                    let minutes =
                        self.non_negative(&path, value, "a non-negative integer (minutes)")?;
                    out.daemon_idle = Some(Duration::from_secs(minutes.saturating_mul(60)));
                }
                "trustedWorkspaces" => out.trusted_workspaces = self.trusted(&path, value)?,
                "servers" => {
                    let servers = self.table(&path, value, "a table of servers by id")?;
                    for (id, server) in servers {
                        let path = format!("{path}.{}", segment(id));
                        let table = self.table(&path, server, "a table of server settings")?;
                        out.servers.insert(id.clone(), self.server(&path, table)?);
                    }
                }
                _ => return Err(self.unknown(&path, key, LSP_KEYS)),
            }
        }
        Ok(())
    }

    fn server(&self, base: &str, table: &toml::Table) -> Result<ServerOverride, ConfigError> {
        let mut out = ServerOverride::default();
        for (key, value) in table {
            let path = format!("{base}.{}", segment(key));
            match key.as_str() {
                "enabled" => out.enabled = Some(self.boolean(&path, value)?),
                "command" => {
                    out.command = Some(self.name(&path, value, "a program name or path")?)
                }
                "args" => out.args = Some(self.strings(&path, value)?),
                "extensions" => out.extensions = Some(self.extensions(&path, value)?),
                "languageId" => out.language_id = Some(self.name(&path, value, "a language id")?),
                "env" => out.env = Some(self.env(&path, value)?),
                "rootMarkers" => out.root_markers = Some(self.markers(&path, value)?),
                "initializationOptions" => {
                    out.initialization_options = Some(self.json(&path, value)?)
                }
                "settings" => out.settings = Some(self.json(&path, value)?),
                "settleMs" => {
                    let expected = "a non-negative integer (milliseconds)";
                    out.settle_ms = Some(self.non_negative(&path, value, expected)?);
                }
                "staleWindowMs" => {
                    let expected = "a non-negative integer (milliseconds)";
                    out.stale_window_ms = Some(self.non_negative(&path, value, expected)?);
                }
                _ => return Err(self.unknown(&path, key, SERVER_KEYS)),
            }
        }
        Ok(out)
    }

    fn boolean(&self, path: &str, value: &Value) -> Result<bool, ConfigError> {
        value
            .as_bool()
            .ok_or_else(|| self.expected(path, "true or false", value))
    }

    fn non_negative(&self, path: &str, value: &Value, expected: &str) -> Result<u64, ConfigError> {
        match value {
            Value::Integer(n) if *n >= 0 => Ok(*n as u64),
            _ => Err(self.expected(path, expected, value)),
        }
    }

    fn millis(&self, path: &str, value: &Value) -> Result<Duration, ConfigError> {
        match value {
            Value::Integer(n) if *n > 0 => Ok(Duration::from_millis(*n as u64)),
            _ => Err(self.expected(path, "a positive integer (milliseconds)", value)),
        }
    }

    fn count(&self, path: &str, value: &Value) -> Result<usize, ConfigError> {
        let n = self.non_negative(path, value, "a non-negative integer")?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    fn string<'v>(
        &self,
        path: &str,
        value: &'v Value,
        expected: &str,
    ) -> Result<&'v str, ConfigError> {
        value
            .as_str()
            .ok_or_else(|| self.expected(path, expected, value))
    }

    /// A string that must not be empty.
    fn name(&self, path: &str, value: &Value, what: &str) -> Result<String, ConfigError> {
        let expected = format!("{what} (a non-empty string)");
        match self.string(path, value, &expected)? {
            "" => Err(self.invalid(path, format!("expected {expected}, found an empty string"))),
            s => Ok(s.to_string()),
        }
    }

    fn array<'v>(
        &self,
        path: &str,
        value: &'v Value,
        expected: &str,
    ) -> Result<&'v [Value], ConfigError> {
        match value {
            Value::Array(items) => Ok(items),
            _ => Err(self.expected(path, expected, value)),
        }
    }

    fn table<'v>(
        &self,
        path: &str,
        value: &'v Value,
        expected: &str,
    ) -> Result<&'v toml::Table, ConfigError> {
        value
            .as_table()
            .ok_or_else(|| self.expected(path, expected, value))
    }

    fn strings(&self, path: &str, value: &Value) -> Result<Vec<String>, ConfigError> {
        let items = self.array(path, value, "an array of strings")?;
        items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                Ok(self
                    .string(&format!("{path}[{i}]"), item, "a string")?
                    .to_string())
            })
            .collect()
    }

    fn extensions(&self, path: &str, value: &Value) -> Result<Vec<String>, ConfigError> {
        let expected = "an array of file extensions such as [\".py\"]";
        let items = self.array(path, value, expected)?;
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let key = format!("{path}[{i}]");
            let what = "a file extension with its leading dot, such as \".py\"";
            let ext = self.string(&key, item, what)?;
            if ext.len() < 2 || !ext.starts_with('.') || ext.contains(['/', '\\']) {
                return Err(
                    self.invalid(&key, format!("expected {what}, found {}", describe(item)))
                );
            }
            out.push(ext.to_string());
        }
        Ok(out)
    }

    fn markers(&self, path: &str, value: &Value) -> Result<Vec<String>, ConfigError> {
        let expected = "an array of file names such as [\"pyproject.toml\"]";
        let items = self.array(path, value, expected)?;
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let key = format!("{path}[{i}]");
            let what = "a file name without directories, such as \"pyproject.toml\"";
            let marker = self.string(&key, item, what)?;
            if marker.is_empty() || marker.contains(['/', '\\']) || marker == "." || marker == ".."
            {
                return Err(
                    self.invalid(&key, format!("expected {what}, found {}", describe(item)))
                );
            }
            out.push(marker.to_string());
        }
        Ok(out)
    }

    fn env(&self, path: &str, value: &Value) -> Result<BTreeMap<String, String>, ConfigError> {
        let table = self.table(
            path,
            value,
            "a table of environment variables such as { FOO = \"bar\" }",
        )?;
        table
            .iter()
            .map(|(name, value)| {
                let key = format!("{path}.{}", segment(name));
                Ok((
                    name.clone(),
                    self.string(&key, value, "a string")?.to_string(),
                ))
            })
            .collect()
    }

    fn severities(&self, path: &str, value: &Value) -> Result<Vec<Severity>, ConfigError> {
        let expected = format!("a non-empty array of {SEVERITIES}");
        let items = self.array(path, value, &expected)?;
        if items.is_empty() {
            return Err(self.invalid(path, format!("expected {expected}, found an empty array")));
        }
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let key = format!("{path}[{i}]");
            let severity = match item.as_str() {
                Some("error") => Severity::Error,
                Some("warning") => Severity::Warning,
                Some("info") => Severity::Info,
                Some("hint") => Severity::Hint,
                _ => return Err(self.expected(&key, SEVERITIES, item)),
            };
            out.push(severity);
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    fn report(&self, path: &str, value: &Value) -> Result<Report, ConfigError> {
        match value.as_str() {
            Some("all") => Ok(Report::All),
            Some("new") => Ok(Report::New),
            _ => Err(self.expected(path, "\"all\" or \"new\"", value)),
        }
    }

    fn trusted(&self, path: &str, value: &Value) -> Result<Vec<PathBuf>, ConfigError> {
        if self.kind == FileKind::Workspace {
            return Err(self.invalid(
                path,
                "only allowed in the user config; a workspace cannot trust itself".to_string(),
            ));
        }
        let expected = "an array of absolute directory paths";
        let items = self.array(path, value, expected)?;
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let key = format!("{path}[{i}]");
            let what = "an absolute directory path";
            let dir = Path::new(self.string(&key, item, what)?);
            if !dir.is_absolute() {
                return Err(
                    self.invalid(&key, format!("expected {what}, found {}", describe(item)))
                );
            }
            out.push(dir.to_path_buf());
        }
        Ok(out)
    }

    fn json(&self, path: &str, value: &Value) -> Result<serde_json::Value, ConfigError> {
        Ok(match value {
            Value::String(s) => serde_json::Value::String(s.clone()),
            Value::Integer(n) => serde_json::Value::from(*n),
            Value::Float(f) => match serde_json::Number::from_f64(*f) {
                Some(n) => serde_json::Value::Number(n),
                None => return Err(self.expected(path, "a finite number", value)),
            },
            Value::Boolean(b) => serde_json::Value::Bool(*b),
            Value::Datetime(d) => serde_json::Value::String(d.to_string()),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| self.json(&format!("{path}[{i}]"), item))
                .collect::<Result<_, _>>()?,
            Value::Table(table) => table
                .iter()
                .map(|(k, v)| Ok((k.clone(), self.json(&format!("{path}.{}", segment(k)), v)?)))
                .collect::<Result<serde_json::Map<_, _>, ConfigError>>()?
                .into(),
        })
    }

    fn invalid(&self, key: &str, message: String) -> ConfigError {
        ConfigError::Invalid {
            path: self.file.to_path_buf(),
            key: key.to_string(),
            message,
        }
    }

    fn expected(&self, key: &str, expected: &str, found: &Value) -> ConfigError {
        self.invalid(
            key,
            format!("expected {expected}, found {}", describe(found)),
        )
    }

    fn unknown(&self, path: &str, key: &str, known: &[&str]) -> ConfigError {
        let message = match suggestion(key, known) {
            Some(near) => format!("unknown key; did you mean \"{near}\"?"),
            None => format!("unknown key; expected one of {}", known.join(", ")),
        };
        self.invalid(path, message)
    }
}

/// A key as it appears in a dotted path: bare when TOML allows, else quoted.
pub(super) fn segment(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare {
        key.to_string()
    } else {
        format!("{key:?}")
    }
}

/// What a value is, for "found …": the value itself when it is short.
fn describe(value: &Value) -> String {
    match value {
        Value::String(s) if s.chars().count() <= 40 => format!("{s:?}"),
        Value::String(_) => "a string".to_string(),
        Value::Integer(n) => n.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Boolean(b) => b.to_string(),
        Value::Datetime(_) => "a date".to_string(),
        Value::Array(_) => "an array".to_string(),
        Value::Table(_) => "a table".to_string(),
    }
}

/// The known key a misspelt one most likely meant: the same letters ignoring
/// case and `_`/`-` (`settle_ms`), or at most two edits away.
fn suggestion<'k>(key: &str, known: &[&'k str]) -> Option<&'k str> {
    let fold = |s: &str| -> String {
        s.chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let folded = fold(key);
    known
        .iter()
        .map(|k| (*k, edit_distance(&folded, &fold(k))))
        .filter(|(_, d)| *d <= 2)
        .min_by_key(|(_, d)| *d)
        .map(|(k, _)| k)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

/// 1-based line and column (in characters) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_near_keys() {
        assert_eq!(suggestion("settle_ms", SERVER_KEYS), Some("settleMs"));
        assert_eq!(suggestion("comand", SERVER_KEYS), Some("command"));
        assert_eq!(suggestion("frobnicate", SERVER_KEYS), None);
    }

    #[test]
    fn quotes_keys_that_are_not_bare() {
        assert_eq!(segment("pyright"), "pyright");
        assert_eq!(segment("my.server"), "\"my.server\"");
    }

    #[test]
    fn finds_line_and_column() {
        assert_eq!(line_column("a\nbc\n", 3), (2, 2));
        assert_eq!(line_column("", 0), (1, 1));
    }
}
