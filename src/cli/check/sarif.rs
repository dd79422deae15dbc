//! SARIF 2.1.0 output, the format code-scanning services ingest (GitHub's
//! `upload-sarif` action among them).
//!
//! One rule per distinct (server, code): `pyright/reportMissingImports`, or
//! the server id alone when a diagnostic has no code. Locations are relative
//! to `%SRCROOT%` (the workspace root). squiggle's columns count Unicode
//! characters, so the run declares `columnKind: unicodeCodePoints`; the end
//! column is exclusive, as SARIF's is. Servers that could not answer become
//! tool execution notifications, so the upload says what was not checked.

use std::collections::BTreeMap;
use std::path::Path;

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Value, json};

use crate::diagnostic::{Diagnostic, Severity};
use crate::uri;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Bytes kept as they are in a relative URI: unreserved characters and `/`.
const URI_PATH: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'/')
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// The SARIF log for `diagnostics` (in the order given); `notices` are
/// warnings about the run itself.
pub fn sarif(diagnostics: &[Diagnostic], root: &Path, notices: &[String]) -> Value {
    let mut rules: BTreeMap<String, &Diagnostic> = BTreeMap::new();
    for d in diagnostics {
        rules.entry(rule_id(d)).or_insert(d);
    }
    let index: BTreeMap<&str, usize> = rules
        .keys()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    let rules: Vec<Value> = rules.iter().map(|(id, d)| rule(id, d)).collect();
    let results: Vec<Value> = diagnostics
        .iter()
        .map(|d| {
            let id = rule_id(d);
            let rule_index = index.get(id.as_str()).copied().unwrap_or(0);
            result(d, id, rule_index)
        })
        .collect();
    let notifications: Vec<Value> = notices
        .iter()
        .map(|text| json!({ "level": "warning", "message": { "text": text } }))
        .collect();
    let mut driver = json!({
        "name": "squiggle",
        "version": env!("CARGO_PKG_VERSION"),
        "rules": rules,
    });
    if let Some(uri) = information_uri() {
        driver["informationUri"] = json!(uri);
    }
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": driver },
            "originalUriBaseIds": {
                "%SRCROOT%": { "uri": format!("{}/", uri::from_path(root).trim_end_matches('/')) }
            },
            "columnKind": "unicodeCodePoints",
            "invocations": [{
                "executionSuccessful": true,
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
        }]
    })
}

/// The package's repository or homepage, when Cargo.toml names one.
fn information_uri() -> Option<&'static str> {
    [env!("CARGO_PKG_REPOSITORY"), env!("CARGO_PKG_HOMEPAGE")]
        .into_iter()
        .find(|u| !u.is_empty())
}

fn rule_id(d: &Diagnostic) -> String {
    let server = if d.server.is_empty() {
        d.source.as_deref().unwrap_or("squiggle")
    } else {
        d.server.as_str()
    };
    match &d.code {
        Some(code) => format!("{server}/{code}"),
        None => server.to_string(),
    }
}

fn rule(id: &str, example: &Diagnostic) -> Value {
    let reporter = example.source.as_deref().unwrap_or(example.server.as_str());
    let text = match &example.code {
        Some(code) => format!("{reporter} {code}"),
        None => format!("diagnostics reported by {reporter}"),
    };
    json!({
        "id": id,
        "shortDescription": { "text": text },
        "properties": { "server": example.server },
    })
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info | Severity::Hint => "note",
    }
}

fn result(d: &Diagnostic, rule_id: String, rule_index: usize) -> Value {
    let start_line = d.line.max(1);
    let start_column = d.column.max(1);
    let end_line = d.end_line.max(start_line);
    let end_column = if end_line == start_line {
        d.end_column.max(start_column)
    } else {
        d.end_column.max(1)
    };
    json!({
        "ruleId": rule_id,
        "ruleIndex": rule_index,
        "level": level(d.severity),
        "message": { "text": d.message },
        "locations": [{
            "physicalLocation": {
                "artifactLocation": {
                    "uri": utf8_percent_encode(&d.file, URI_PATH).to_string(),
                    "uriBaseId": "%SRCROOT%",
                },
                "region": {
                    "startLine": start_line,
                    "startColumn": start_column,
                    "endLine": end_line,
                    "endColumn": end_column,
                },
            }
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diag(file: &str, code: Option<&str>, severity: Severity) -> Diagnostic {
        Diagnostic {
            file: file.into(),
            line: 2,
            column: 3,
            end_line: 2,
            end_column: 7,
            severity,
            message: "bad <thing>".into(),
            code: code.map(str::to_string),
            source: Some("fake".into()),
            server: "fake".into(),
        }
    }

    #[test]
    fn one_rule_per_server_and_code_with_indexed_results() {
        let diagnostics = vec![
            diag("src/a b.fk", Some("E1"), Severity::Error),
            diag("src/a b.fk", None, Severity::Hint),
            diag("c.fk", Some("E1"), Severity::Warning),
        ];
        let log = sarif(
            &diagnostics,
            Path::new("/repo"),
            &["pyright unavailable".into()],
        );
        let run = &log["runs"][0];
        let rules: Vec<&str> = run["tool"]["driver"]["rules"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| r["id"].as_str())
            .collect();
        assert_eq!(rules, vec!["fake", "fake/E1"]);
        let results = run["results"].as_array().cloned().unwrap_or_default();
        assert_eq!(results[0]["ruleIndex"], 1);
        assert_eq!(results[1]["level"], "note");
        assert_eq!(results[2]["level"], "warning");
        let location = &results[0]["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], "src/a%20b.fk");
        assert_eq!(location["region"]["endColumn"], 7);
        assert_eq!(
            run["originalUriBaseIds"]["%SRCROOT%"]["uri"],
            "file:///repo/"
        );
        assert_eq!(
            run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"],
            "pyright unavailable"
        );
    }
}
