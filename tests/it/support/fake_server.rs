//! The scripted fake server (`squiggle-fake-lsp`, docs/fake-server.md) as a
//! custom server of squiggle's configuration, written one way for every
//! test: as a `ServerOverride` for an engine built in the test, or as the
//! `[lsp.servers.ID]` table of a `.squiggle.toml` for the binary. By default
//! it serves `.fk` files as language `fake` with no settle window.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use squiggle::config::ServerOverride;

/// A fake server's configuration, built up from its script.
#[derive(Debug, Clone)]
pub struct FakeServer {
    script: Value,
    extensions: Vec<String>,
    language_id: Option<String>,
    root_markers: Option<Vec<String>>,
    settle_ms: Option<u64>,
}

impl FakeServer {
    /// The fake running `script` (its JSON script).
    pub fn new(script: Value) -> FakeServer {
        FakeServer {
            script,
            extensions: vec![".fk".into()],
            language_id: Some("fake".into()),
            root_markers: None,
            settle_ms: Some(0),
        }
    }

    /// The fake's executable.
    pub fn command() -> &'static str {
        env!("CARGO_BIN_EXE_squiggle-fake-lsp")
    }

    /// The extensions it serves instead of `.fk`.
    pub fn extensions(mut self, extensions: &[&str]) -> FakeServer {
        self.extensions = extensions.iter().map(|e| e.to_string()).collect();
        self
    }

    /// The files that mark a project root for it (a directory holding one
    /// gets an instance of its own).
    pub fn root_markers(mut self, markers: &[&str]) -> FakeServer {
        self.root_markers = Some(markers.iter().map(|m| m.to_string()).collect());
        self
    }

    /// Leaves `settleMs` to squiggle's default.
    pub fn default_settle(mut self) -> FakeServer {
        self.settle_ms = None;
        self
    }

    /// For an engine built in the test.
    pub fn to_override(&self) -> ServerOverride {
        ServerOverride {
            command: Some(Self::command().to_string()),
            extensions: Some(self.extensions.clone()),
            language_id: self.language_id.clone(),
            root_markers: self.root_markers.clone(),
            env: Some(BTreeMap::from([(
                "SQUIGGLE_FAKE_SCRIPT_JSON".to_string(),
                self.script.to_string(),
            )])),
            settle_ms: self.settle_ms,
            ..Default::default()
        }
    }

    /// The fake running `script` in place of a built-in server: only its
    /// command and script, so the registry's languages, root markers and
    /// wait profile stay (a test of a real server's profile, played).
    pub fn in_place(script: &Value) -> ServerOverride {
        ServerOverride {
            command: Some(Self::command().to_string()),
            env: Some(BTreeMap::from([(
                "SQUIGGLE_FAKE_SCRIPT_JSON".to_string(),
                script.to_string(),
            )])),
            ..Default::default()
        }
    }

    /// The `[lsp.servers.ID]` table for a `.squiggle.toml`.
    pub fn toml(&self, id: &str) -> String {
        let extensions: Vec<String> = self.extensions.iter().map(|e| toml_string(e)).collect();
        let mut table = format!(
            "[lsp.servers.{id}]\ncommand = {}\nextensions = [{}]\n",
            toml_string(Self::command()),
            extensions.join(", ")
        );
        if let Some(language) = &self.language_id {
            table += &format!("languageId = {}\n", toml_string(language));
        }
        if let Some(markers) = &self.root_markers {
            let markers: Vec<String> = markers.iter().map(|m| toml_string(m)).collect();
            table += &format!("rootMarkers = [{}]\n", markers.join(", "));
        }
        if let Some(ms) = self.settle_ms {
            table += &format!("settleMs = {ms}\n");
        }
        table += &format!(
            "env = {{ SQUIGGLE_FAKE_SCRIPT_JSON = {} }}\n",
            toml_string(&self.script.to_string())
        );
        table
    }
}

/// A whole `.squiggle.toml`: an `[lsp]` table holding `lsp` (lines such as
/// `diagnosticTimeout = 5000`, or nothing), then `fake` as `[lsp.servers.fake]`.
pub fn squiggle_toml(lsp: &str, fake: &FakeServer) -> String {
    format!("[lsp]\n{lsp}\n\n{}", fake.toml("fake"))
}

/// `text` as a TOML basic string (a JSON string is one, for the text here).
pub fn toml_string(text: &str) -> String {
    Value::String(text.to_string()).to_string()
}

/// Every line of a fake's log (its script's `logFile`), in the order written:
/// fakes that share a log append to it, so its order is the order on the wire.
pub fn logged(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

/// The pid of every fake process started with that log, in start order.
pub fn started_pids(log: &Path) -> Vec<u32> {
    logged(log)
        .iter()
        .filter(|v| v["event"] == "start")
        .filter_map(|v| v["pid"].as_u64())
        .map(|p| p as u32)
        .collect()
}
