//! What squiggle tells a server it can do, and what it reads back.
//!
//! The client capabilities are honest: everything declared here is handled
//! (versioned publishes, pull diagnostics with dynamic registration, progress,
//! configuration, watched files). Server capabilities are read from raw JSON
//! by small accessors rather than deserialized whole, so an odd or newer shape
//! in one field never loses the rest.

use serde_json::{Value, json};

use super::position::PositionEncoding;

/// The `capabilities` member of our `initialize` request.
pub fn client_capabilities() -> Value {
    let markup = json!(["markdown", "plaintext"]);
    json!({
        "general": {
            "positionEncodings": ["utf-8", "utf-16"],
        },
        "workspace": {
            "configuration": true,
            "workspaceFolders": true,
            "didChangeWatchedFiles": { "dynamicRegistration": true, "relativePatternSupport": true },
            "diagnostics": { "refreshSupport": true },
            "applyEdit": false,
            "symbol": { "dynamicRegistration": false },
        },
        "textDocument": {
            "synchronization": {
                "dynamicRegistration": false,
                "didSave": true,
                "willSave": false,
                "willSaveWaitUntil": false,
            },
            "publishDiagnostics": {
                "relatedInformation": true,
                "versionSupport": true,
                "codeDescriptionSupport": true,
                "dataSupport": true,
                "tagSupport": { "valueSet": [1, 2] },
            },
            "diagnostic": {
                "dynamicRegistration": true,
                "relatedDocumentSupport": true,
            },
            "hover": { "contentFormat": markup.clone() },
            "definition": { "linkSupport": true },
            "typeDefinition": { "linkSupport": true },
            "implementation": { "linkSupport": true },
            "references": {},
            "documentSymbol": { "hierarchicalDocumentSymbolSupport": true },
            "signatureHelp": {
                "signatureInformation": {
                    "documentationFormat": markup,
                    "parameterInformation": { "labelOffsetSupport": true },
                },
            },
            "codeAction": {
                "codeActionLiteralSupport": {
                    "codeActionKind": { "valueSet": ["", "quickfix", "refactor", "source"] },
                },
            },
            "rename": { "prepareSupport": false },
            "callHierarchy": {},
        },
        "window": {
            "workDoneProgress": true,
            "showMessage": {},
        },
    })
}

/// How a server wants documents synchronized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncKind {
    None,
    Full,
    Incremental,
}

/// The facts squiggle needs from a server's `InitializeResult`.
#[derive(Debug, Clone)]
pub struct ServerFacts {
    pub raw: Value,
    pub sync: SyncKind,
    pub open_close: bool,
    /// `Some(include_text)` when the server wants didSave.
    pub save: Option<bool>,
    pub static_pull: bool,
    pub encoding: PositionEncoding,
    pub name: Option<String>,
    pub version: Option<String>,
}

impl ServerFacts {
    /// Reads an `InitializeResult`; anything missing takes the protocol default.
    pub fn from_initialize_result(result: &Value) -> ServerFacts {
        let caps = result.get("capabilities").cloned().unwrap_or(Value::Null);
        let sync_value = caps.get("textDocumentSync");
        let (sync, open_close, save) = match sync_value {
            Some(Value::Number(n)) => {
                let kind = sync_kind(n.as_i64());
                (kind, kind != SyncKind::None, None)
            }
            Some(Value::Object(o)) => {
                let kind = sync_kind(o.get("change").and_then(Value::as_i64));
                let open_close = o.get("openClose").and_then(Value::as_bool).unwrap_or(false);
                let save = match o.get("save") {
                    Some(Value::Bool(true)) => Some(false),
                    Some(Value::Object(s)) => Some(
                        s.get("includeText")
                            .and_then(Value::as_bool)
                            .unwrap_or(false),
                    ),
                    _ => None,
                };
                (kind, open_close, save)
            }
            _ => (SyncKind::None, false, None),
        };
        let static_pull = matches!(
            caps.get("diagnosticProvider"),
            Some(Value::Object(_)) | Some(Value::Bool(true))
        );
        let encoding = caps
            .get("positionEncoding")
            .and_then(Value::as_str)
            .and_then(PositionEncoding::from_lsp)
            .unwrap_or(PositionEncoding::Utf16);
        let info = result.get("serverInfo");
        let text = |key: &str| {
            info.and_then(|i| i.get(key))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        ServerFacts {
            sync,
            open_close,
            save,
            static_pull,
            encoding,
            name: text("name"),
            version: text("version"),
            raw: caps,
        }
    }

    /// Whether the server declared a capability (`definitionProvider`, …):
    /// present and not `false`/`null`.
    pub fn declares(&self, provider: &str) -> bool {
        !matches!(
            self.raw.get(provider),
            None | Some(Value::Null) | Some(Value::Bool(false))
        )
    }
}

fn sync_kind(n: Option<i64>) -> SyncKind {
    match n {
        Some(1) => SyncKind::Full,
        Some(2) => SyncKind::Incremental,
        _ => SyncKind::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sync_save_pull_and_encoding() {
        let facts = ServerFacts::from_initialize_result(&json!({
            "capabilities": {
                "textDocumentSync": {"openClose": true, "change": 2, "save": {"includeText": true}},
                "diagnosticProvider": {"interFileDependencies": true, "workspaceDiagnostics": false},
                "positionEncoding": "utf-8",
                "hoverProvider": true,
                "renameProvider": false,
            },
            "serverInfo": {"name": "x", "version": "1.2"}
        }));
        assert_eq!(facts.sync, SyncKind::Incremental);
        assert!(facts.open_close);
        assert_eq!(facts.save, Some(true));
        assert!(facts.static_pull);
        assert_eq!(facts.encoding, PositionEncoding::Utf8);
        assert!(facts.declares("hoverProvider"));
        assert!(!facts.declares("renameProvider"));
        assert!(!facts.declares("definitionProvider"));
        assert_eq!(facts.version.as_deref(), Some("1.2"));
    }

    #[test]
    fn numeric_sync_and_missing_everything_take_defaults() {
        let facts =
            ServerFacts::from_initialize_result(&json!({"capabilities": {"textDocumentSync": 1}}));
        assert_eq!(
            (facts.sync, facts.open_close, facts.save, facts.static_pull),
            (SyncKind::Full, true, None, false)
        );
        assert_eq!(facts.encoding, PositionEncoding::Utf16);
        let empty = ServerFacts::from_initialize_result(&json!(null));
        assert_eq!(empty.sync, SyncKind::None);
    }

    #[test]
    fn client_declares_what_the_issue_requires() {
        let caps = client_capabilities();
        assert_eq!(
            caps["textDocument"]["publishDiagnostics"]["versionSupport"],
            json!(true)
        );
        assert_eq!(
            caps["textDocument"]["diagnostic"]["dynamicRegistration"],
            json!(true)
        );
        assert_eq!(
            caps["general"]["positionEncodings"],
            json!(["utf-8", "utf-16"])
        );
        assert_eq!(
            caps["workspace"]["didChangeWatchedFiles"]["dynamicRegistration"],
            json!(true)
        );
        assert_eq!(caps["window"]["workDoneProgress"], json!(true));
        assert_eq!(
            caps["textDocument"]["synchronization"]["didSave"],
            json!(true)
        );
    }
}
