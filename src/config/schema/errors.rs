//! Error messages for configuration files: the file, the dotted key path,
//! what was expected and what was found, and the known key a typo most
//! likely meant.

use toml::Value;

use super::Reader;
use crate::config::ConfigError;

pub(super) const SEVERITIES: &str = "\"error\", \"warning\", \"info\" or \"hint\"";

impl Reader<'_> {
    pub(super) fn invalid(&self, key: &str, message: String) -> ConfigError {
        ConfigError::Invalid {
            path: self.file.to_path_buf(),
            key: key.to_string(),
            message,
        }
    }

    pub(super) fn expected(&self, key: &str, expected: &str, found: &Value) -> ConfigError {
        self.invalid(
            key,
            format!("expected {expected}, found {}", describe(found)),
        )
    }

    pub(super) fn unknown(&self, path: &str, key: &str, known: &[&str]) -> ConfigError {
        let message = match suggestion(key, known) {
            Some(near) => format!("unknown key; did you mean \"{near}\"?"),
            None => format!("unknown key; expected one of {}", known.join(", ")),
        };
        self.invalid(path, message)
    }
}

/// A key as it appears in a dotted path: bare when TOML allows, else quoted.
pub(crate) fn segment(key: &str) -> String {
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
pub(super) fn describe(value: &Value) -> String {
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
pub(super) fn line_column(text: &str, offset: usize) -> (usize, usize) {
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
    use super::super::SERVER_KEYS;
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
