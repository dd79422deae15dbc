//! Typed readers for the values a configuration file may hold: each checks
//! the shape and names the key and what was expected when it is wrong.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use toml::Value;

use super::errors::{SEVERITIES, describe, segment};
use super::{FileKind, Reader};
use crate::config::{ConfigError, OtherFiles, Severity};
use crate::platform::endpoint::{EXPECTED, Endpoint};
use crate::render::ReportMode;

impl Reader<'_> {
    pub(super) fn boolean(&self, path: &str, value: &Value) -> Result<bool, ConfigError> {
        value
            .as_bool()
            .ok_or_else(|| self.expected(path, "true or false", value))
    }

    /// An integer in `bounds`: below its least value (or not an integer)
    /// is `expected`, above its greatest names the limit. Every number a
    /// configuration holds has a greatest value, so that no sum or product
    /// made of it (a deadline, an idle time) can overflow.
    fn bounded(
        &self,
        path: &str,
        value: &Value,
        expected: &str,
        bounds: Bounds,
    ) -> Result<u64, ConfigError> {
        match value {
            Value::Integer(n) if *n >= 0 && (*n as u64) < bounds.min => {
                Err(self.expected(path, expected, value))
            }
            Value::Integer(n) if *n >= 0 && *n as u64 > bounds.max => {
                let said = bounds.said.map(|s| format!(" ({s})")).unwrap_or_default();
                let (max, unit) = (bounds.max, bounds.unit);
                Err(self.invalid(
                    path,
                    format!("expected at most {max} {unit}{said}, found {n}"),
                ))
            }
            Value::Integer(n) if *n >= 0 => Ok(*n as u64),
            _ => Err(self.expected(path, expected, value)),
        }
    }

    pub(super) fn non_negative(
        &self,
        path: &str,
        value: &Value,
        expected: &str,
        bounds: Bounds,
    ) -> Result<u64, ConfigError> {
        self.bounded(path, value, expected, bounds)
    }

    /// A positive timeout in milliseconds, at most `bounds.max`.
    pub(super) fn millis(
        &self,
        path: &str,
        value: &Value,
        bounds: Bounds,
    ) -> Result<Duration, ConfigError> {
        let expected = "a positive integer (milliseconds)";
        let ms = self.bounded(path, value, expected, bounds)?;
        Ok(Duration::from_millis(ms))
    }

    /// Milliseconds, zero allowed (a server's wait timings).
    pub(super) fn ms(&self, path: &str, value: &Value) -> Result<u64, ConfigError> {
        let expected = "a non-negative integer (milliseconds)";
        self.non_negative(path, value, expected, WAIT_MS)
    }

    /// A count of at least one (`maxInstancesPerServer`: zero would refuse
    /// every server).
    pub(super) fn positive(&self, path: &str, value: &Value) -> Result<usize, ConfigError> {
        let n = self.bounded(path, value, "a positive integer", INSTANCES)?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    /// Whole minutes, zero meaning never.
    pub(super) fn minutes(&self, path: &str, value: &Value) -> Result<Duration, ConfigError> {
        let expected = "a non-negative integer (minutes; 0 for never)";
        let minutes = self.non_negative(path, value, expected, MINUTES)?;
        Ok(Duration::from_secs(minutes * 60))
    }

    pub(super) fn count(&self, path: &str, value: &Value) -> Result<usize, ConfigError> {
        let n = self.non_negative(path, value, "a non-negative integer", COUNT)?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    pub(super) fn string<'v>(
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
    pub(super) fn name(
        &self,
        path: &str,
        value: &Value,
        what: &str,
    ) -> Result<String, ConfigError> {
        let expected = format!("{what} (a non-empty string)");
        match self.string(path, value, &expected)? {
            "" => Err(self.invalid(path, format!("expected {expected}, found an empty string"))),
            s => Ok(s.to_string()),
        }
    }

    /// A `connect` value: a loopback `address:port` or a socket path.
    pub(super) fn endpoint(&self, path: &str, value: &Value) -> Result<Endpoint, ConfigError> {
        let text = self.string(path, value, EXPECTED)?;
        Endpoint::parse(text).map_err(|e| self.invalid(path, format!("expected {EXPECTED}: {e}")))
    }

    pub(super) fn array<'v>(
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

    pub(super) fn table<'v>(
        &self,
        path: &str,
        value: &'v Value,
        expected: &str,
    ) -> Result<&'v toml::Table, ConfigError> {
        value
            .as_table()
            .ok_or_else(|| self.expected(path, expected, value))
    }

    pub(super) fn strings(&self, path: &str, value: &Value) -> Result<Vec<String>, ConfigError> {
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

    pub(super) fn extensions(&self, path: &str, value: &Value) -> Result<Vec<String>, ConfigError> {
        let kind = ItemKind {
            expected: "an array of file extensions such as [\".py\"]",
            what: "a file extension with its leading dot, such as \".py\"",
            valid: |ext| ext.len() >= 2 && ext.starts_with('.') && !ext.contains(['/', '\\']),
        };
        self.checked_strings(path, value, &kind)
    }

    pub(super) fn markers(&self, path: &str, value: &Value) -> Result<Vec<String>, ConfigError> {
        let kind = ItemKind {
            expected: "an array of file names such as [\"pyproject.toml\"]",
            what: "a file name without directories, such as \"pyproject.toml\"",
            valid: |m| !m.is_empty() && !m.contains(['/', '\\']) && m != "." && m != "..",
        };
        self.checked_strings(path, value, &kind)
    }

    /// An array of strings, each one `kind.valid` accepts.
    fn checked_strings(
        &self,
        path: &str,
        value: &Value,
        kind: &ItemKind,
    ) -> Result<Vec<String>, ConfigError> {
        let items = self.array(path, value, kind.expected)?;
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let key = format!("{path}[{i}]");
            let text = self.string(&key, item, kind.what)?;
            if !(kind.valid)(text) {
                let found = describe(item);
                return Err(self.invalid(&key, format!("expected {}, found {found}", kind.what)));
            }
            out.push(text.to_string());
        }
        Ok(out)
    }

    pub(super) fn env(
        &self,
        path: &str,
        value: &Value,
    ) -> Result<BTreeMap<String, String>, ConfigError> {
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

    pub(super) fn severities(
        &self,
        path: &str,
        value: &Value,
    ) -> Result<Vec<Severity>, ConfigError> {
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

    pub(super) fn report(&self, path: &str, value: &Value) -> Result<ReportMode, ConfigError> {
        match value.as_str() {
            Some("all") => Ok(ReportMode::All),
            Some("new") => Ok(ReportMode::New),
            _ => Err(self.expected(path, "\"all\" or \"new\"", value)),
        }
    }

    pub(super) fn other_files(&self, path: &str, value: &Value) -> Result<OtherFiles, ConfigError> {
        match value.as_str() {
            Some("write") => Ok(OtherFiles::Write),
            Some("all") => Ok(OtherFiles::All),
            Some("none") => Ok(OtherFiles::None),
            _ => Err(self.expected(path, "\"write\", \"all\" or \"none\"", value)),
        }
    }

    pub(super) fn trusted(&self, path: &str, value: &Value) -> Result<Vec<PathBuf>, ConfigError> {
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

    pub(super) fn json(&self, path: &str, value: &Value) -> Result<serde_json::Value, ConfigError> {
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
}

/// The values a number may take: from `min` to `max` `unit`s (`said`
/// says `max` in words where that helps).
#[derive(Debug, Clone, Copy)]
pub(super) struct Bounds {
    pub(super) min: u64,
    pub(super) max: u64,
    pub(super) unit: &'static str,
    pub(super) said: Option<&'static str>,
}

/// `diagnosticTimeout`: one check's wait.
pub(super) const CHECK_MS: Bounds = Bounds {
    min: 1,
    max: 600_000,
    unit: "milliseconds",
    said: Some("10 minutes"),
};

/// `firstTouchTimeout`: a cold start and its indexing.
pub(super) const FIRST_TOUCH_MS: Bounds = Bounds {
    min: 1,
    max: 3_600_000,
    unit: "milliseconds",
    said: Some("one hour"),
};

/// A server's wait timings (`settleMs` and the like).
const WAIT_MS: Bounds = Bounds {
    min: 0,
    max: 60_000,
    unit: "milliseconds",
    said: Some("one minute"),
};

/// Idle times in minutes: the daemon's, a server's, a document's.
pub(super) const MINUTES: Bounds = Bounds {
    min: 0,
    max: 10_080,
    unit: "minutes",
    said: Some("one week"),
};

/// The caps on what a rendering shows.
const COUNT: Bounds = Bounds {
    min: 0,
    max: 100_000,
    unit: "entries",
    said: None,
};

/// `maxInstancesPerServer`.
const INSTANCES: Bounds = Bounds {
    min: 1,
    max: 1_024,
    unit: "instances",
    said: None,
};

/// What every item of a string array must be: `expected` names the whole
/// array, `what` one item, and `valid` says whether a string is one.
struct ItemKind {
    expected: &'static str,
    what: &'static str,
    valid: fn(&str) -> bool,
}
