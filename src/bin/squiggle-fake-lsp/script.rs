//! The test's instructions to the fake: what to declare, when to publish, which fault to show.
//!
//! A script is JSON so that tests in any language (and shell one-liners) can write one. It is
//! read strictly, since a typo in a test's script would otherwise silently test nothing: an
//! unknown key is an error naming the key.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::position::Encoding;

/// Everything a test can ask of the fake; every key is optional.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Script {
    pub diagnostic_mode: DiagnosticMode,
    pub register_pull_dynamically: bool,
    pub push_off_when_client_pulls: bool,
    pub sync: SyncKind,
    pub save_notify: bool,
    pub open_close: bool,
    pub position_encoding: Encoding,
    pub publish_version: bool,
    pub capabilities: Map<String, Value>,
    pub server_info: ServerInfo,
    pub initialize_delay_ms: u64,
    pub publish_delay_ms: u64,
    /// Added to `publish_delay_ms` for a didChange's diagnostics only: a
    /// debounce on changes, none on opens (intelephense).
    pub change_delay_ms: u64,
    pub pull_delay_ms: u64,
    pub request_delay_ms: HashMap<String, u64>,
    pub waves: Vec<u64>,
    pub stale_publish: bool,
    pub empty_first: bool,
    pub silent_when_unchanged: bool,
    pub publish_on_save: bool,
    pub progress_on_save: bool,
    pub check_restart_gap_ms: Option<u64>,
    pub aborted_check_first: bool,
    /// How long that check that does nothing runs (0: it ends at once).
    pub aborted_check_ms: u64,
    /// Checks report no crate, and publish a file only when it has
    /// diagnostics or had some (a `check.overrideCommand` that prints no
    /// crates).
    pub quiet_checks: bool,
    /// A check's progress ends before its last wave is published (as
    /// rust-analyzer's main loop may send it).
    pub end_before_publish: bool,
    pub pushed_from_wave: Option<usize>,
    pub cancel_pulls: Option<CancelPulls>,
    /// After a save, every other open document's status goes queued,
    /// "parsing includes", idle (clangd's `textDocument/clangd.fileStatus`
    /// for a file including the saved one): re-read, not republished.
    pub file_status: Option<FileStatus>,
    pub check_files_on_disk: bool,
    pub stale_pull_ms: Option<u64>,
    pub progress_on_initialized: Option<Progress>,
    pub require_configuration: bool,
    pub server_requests: Vec<ServerRequest>,
    pub refresh_after_ms: Option<u64>,
    pub other_files: bool,
    pub responses: HashMap<String, Value>,
    pub log_file: Option<PathBuf>,
    pub stderr_on_start: Option<String>,
    pub fault: Option<Fault>,
    pub header: Option<String>,
    pub lowercase_headers: bool,
    pub respell_uris: bool,
}

impl Default for Script {
    fn default() -> Self {
        Script {
            diagnostic_mode: DiagnosticMode::Push,
            register_pull_dynamically: false,
            push_off_when_client_pulls: false,
            sync: SyncKind::Incremental,
            save_notify: true,
            open_close: true,
            position_encoding: Encoding::Utf16,
            publish_version: true,
            capabilities: Map::new(),
            server_info: ServerInfo::default(),
            initialize_delay_ms: 0,
            publish_delay_ms: 0,
            change_delay_ms: 0,
            pull_delay_ms: 0,
            request_delay_ms: HashMap::new(),
            waves: vec![0],
            stale_publish: false,
            empty_first: false,
            silent_when_unchanged: false,
            publish_on_save: false,
            progress_on_save: false,
            check_restart_gap_ms: None,
            aborted_check_first: false,
            aborted_check_ms: 0,
            quiet_checks: false,
            end_before_publish: false,
            pushed_from_wave: None,
            cancel_pulls: None,
            file_status: None,
            check_files_on_disk: false,
            stale_pull_ms: None,
            progress_on_initialized: None,
            require_configuration: false,
            server_requests: Vec::new(),
            refresh_after_ms: None,
            other_files: false,
            responses: HashMap::new(),
            log_file: None,
            stderr_on_start: None,
            fault: None,
            header: None,
            lowercase_headers: false,
            respell_uris: false,
        }
    }
}

/// The first `count` pulls are answered with ServerCancelled (-32802),
/// whose data says whether to `retrigger` the request.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CancelPulls {
    pub count: u64,
    pub retrigger: bool,
}

/// `fileStatus`: with `republishAfterMs`, each such document is rebuilt
/// after all, and published that long after its idle status with its
/// markers of wave 1 (an includer rebuilt after clangd's debounce); with
/// `queuedAfterMs`, the statuses begin that long after the save (a server
/// that reads the save late).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FileStatus {
    pub republish_after_ms: Option<u64>,
    #[serde(default)]
    pub queued_after_ms: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DiagnosticMode {
    Push,
    Pull,
    Both,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SyncKind {
    None,
    Full,
    Incremental,
}

impl SyncKind {
    /// The `TextDocumentSyncKind` number the spec assigns.
    pub fn lsp_number(self) -> u8 {
        match self {
            SyncKind::None => 0,
            SyncKind::Full => 1,
            SyncKind::Incremental => 2,
        }
    }
}

#[derive(Debug, Clone, serde::Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerInfo {
    pub name: String,
    #[serde(default)]
    pub version: Option<String>,
}

impl Default for ServerInfo {
    fn default() -> Self {
        ServerInfo {
            name: "squiggle-fake-lsp".to_owned(),
            version: Some("0".to_owned()),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Progress {
    pub token: String,
    pub title: String,
    #[serde(default)]
    pub duration_ms: u64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerRequest {
    pub method: String,
    #[serde(default)]
    pub params: Option<Value>,
    pub after: Trigger,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Trigger {
    Initialized,
    DidOpen,
}

/// One misbehaviour, chosen because some real server (or a broken installation) shows it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum Fault {
    CrashOnInitialize,
    ExitAfterInitialize,
    ExitImmediately,
    CrashOnRequest {
        method: String,
    },
    CrashAfterPublish,
    Hang,
    HangOnInitialize,
    NeverPublish,
    PublishLoop {
        #[serde(default = "default_interval_ms")]
        interval_ms: u64,
    },
    StderrFlood {
        #[serde(default = "default_flood_bytes")]
        bytes: usize,
    },
    GarbageFrames,
    JunkHeaderLines,
    OversizedFrame {
        #[serde(default = "default_oversized_bytes")]
        bytes: usize,
    },
    PartialFrame,
    StuckFrame,
    RequestStorm {
        #[serde(default = "default_storm_count")]
        count: usize,
    },
    IgnoreExit,
    IgnoreShutdown,
}

fn default_interval_ms() -> u64 {
    5
}

fn default_flood_bytes() -> usize {
    4_000_000
}

fn default_oversized_bytes() -> usize {
    70 * 1024 * 1024
}

fn default_storm_count() -> usize {
    1000
}

impl Script {
    /// Finds the script the way the docs promise: `--script PATH`, then `SQUIGGLE_FAKE_SCRIPT`
    /// (a path), then `SQUIGGLE_FAKE_SCRIPT_JSON` (inline JSON), else the defaults.
    pub fn load(args: &[String]) -> Result<Script> {
        match args {
            [] => {}
            [flag, path] if flag == "--script" => return Script::from_path(Path::new(path)),
            [flag] if flag == "--script" => bail!("--script needs a path: --script PATH"),
            other => {
                bail!("unexpected arguments {other:?}; usage: squiggle-fake-lsp [--script PATH]")
            }
        }
        if let Some(path) = std::env::var_os("SQUIGGLE_FAKE_SCRIPT") {
            return Script::from_path(Path::new(&path));
        }
        if let Ok(json) = std::env::var("SQUIGGLE_FAKE_SCRIPT_JSON") {
            return Script::from_json(&json).context("in SQUIGGLE_FAKE_SCRIPT_JSON");
        }
        Ok(Script::default())
    }

    fn from_path(path: &Path) -> Result<Script> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read script {}", path.display()))?;
        Script::from_json(&text).with_context(|| format!("in script {}", path.display()))
    }

    pub fn from_json(json: &str) -> Result<Script> {
        let script: Script = serde_json::from_str(json).context("invalid fake-server script")?;
        if script.waves.is_empty() {
            bail!("`waves` must list at least one delay, e.g. [0]");
        }
        Ok(script)
    }

    pub fn has_fault(&self, fault: &Fault) -> bool {
        self.fault.as_ref() == Some(fault)
    }

    /// Extra delay configured for `method` under `requestDelayMs`.
    pub fn request_delay(&self, method: &str) -> u64 {
        self.request_delay_ms.get(method).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_errors() {
        let err = Script::from_json(r#"{"diagnosticMod": "pull"}"#).unwrap_err();
        assert!(format!("{err:#}").contains("diagnosticMod"), "{err:#}");
        let err =
            Script::from_json(r#"{"fault": {"kind": "publishLoop", "interval": 3}}"#).unwrap_err();
        assert!(format!("{err:#}").contains("interval"), "{err:#}");
    }

    #[test]
    fn faults_parse_with_defaults() {
        let script = Script::from_json(r#"{"fault": {"kind": "oversizedFrame"}}"#).unwrap();
        assert_eq!(
            script.fault,
            Some(Fault::OversizedFrame {
                bytes: 70 * 1024 * 1024
            })
        );
        let script = Script::from_json(r#"{"fault": {"kind": "hang"}}"#).unwrap();
        assert_eq!(script.fault, Some(Fault::Hang));
        let script =
            Script::from_json(r#"{"fault": {"kind": "publishLoop", "intervalMs": 7}}"#).unwrap();
        assert_eq!(script.fault, Some(Fault::PublishLoop { interval_ms: 7 }));
    }
}
