//! Reading one file into a [`PartialConfig`], by hand over `toml::Table`, so
//! that every error carries the file, the full key path and what was expected.

//!
//! `values` reads each kind of value (durations, counts, extensions, …);
//! `errors` builds the messages, with near-miss suggestions for unknown keys.

mod errors;
mod features;
mod ignore;
mod values;

use std::path::Path;
use std::time::Duration;

use toml::Value;

use super::{ConfigError, PartialConfig, ServerOverride};
use errors::line_column;
pub(crate) use errors::segment;

/// Which file is being read; some keys are only allowed in one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    User,
    Workspace,
}

pub(super) const LSP_KEYS: &[&str] = &[
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
    "otherFiles",
    "reportUnknown",
    "fixLines",
    "fixWaitMs",
    "autoFix",
    "autoFixMax",
    "daemonIdleMinutes",
    "maxInstancesPerServer",
    "serverIdleMinutes",
    "documentIdleMinutes",
    "trustedWorkspaces",
    "servers",
    "strict",
    "sessions",
    "evidence",
    "ignore",
];

pub(super) const SERVER_KEYS: &[&str] = &[
    "enabled",
    "command",
    "connect",
    "args",
    "extensions",
    "languageId",
    "env",
    "rootMarkers",
    "initializationOptions",
    "settings",
    "settleMs",
    "staleWindowMs",
    "unchangedQuietMs",
    "othersQuietMs",
    "ignore",
];

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

pub(super) struct Reader<'a> {
    pub(super) file: &'a Path,
    pub(super) kind: FileKind,
}

impl Reader<'_> {
    fn lsp(&self, lsp: &toml::Table, out: &mut PartialConfig) -> Result<(), ConfigError> {
        for (key, value) in lsp {
            let path = format!("lsp.{}", segment(key));
            match key.as_str() {
                "diagnosticTimeout" => {
                    out.diagnostic_timeout = Some(self.millis(&path, value, values::CHECK_MS)?)
                }
                "firstTouchTimeout" => {
                    out.first_touch_timeout =
                        Some(self.millis(&path, value, values::FIRST_TOUCH_MS)?)
                }
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
                "otherFiles" => out.other_files = Some(self.other_files(&path, value)?),
                "reportUnknown" => out.report_unknown = Some(self.boolean(&path, value)?),
                "fixLines" => out.fix_lines = Some(self.count(&path, value)?),
                "fixWaitMs" => out.fix_wait = Some(Duration::from_millis(self.ms(&path, value)?)),
                "daemonIdleMinutes" => {
                    let expected = "a non-negative integer (minutes)";
                    let minutes = self.non_negative(&path, value, expected, values::MINUTES)?;
                    out.daemon_idle = Some(Duration::from_secs(minutes * 60));
                }
                "maxInstancesPerServer" => {
                    out.max_instances_per_server = Some(self.positive(&path, value)?)
                }
                "serverIdleMinutes" => out.server_idle = Some(self.minutes(&path, value)?),
                "documentIdleMinutes" => out.document_idle = Some(self.minutes(&path, value)?),
                "trustedWorkspaces" => out.trusted_workspaces = self.trusted(&path, value)?,
                "servers" => {
                    let servers = self.table(&path, value, "a table of servers by id")?;
                    for (id, server) in servers {
                        let path = format!("{path}.{}", segment(id));
                        let table = self.table(&path, server, "a table of server settings")?;
                        out.servers.insert(id.clone(), self.server(&path, table)?);
                        if let Some(rules) = table.get("ignore") {
                            let path = format!("{path}.ignore");
                            out.ignore
                                .extend(self.ignore_rules(&path, rules, Some(id))?);
                        }
                    }
                }
                _ if self.feature(key, &path, value, out)? => {}
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
                "connect" => out.connect = Some(self.endpoint(&path, value)?),
                "args" => out.args = Some(self.strings(&path, value)?),
                "extensions" => out.extensions = Some(self.extensions(&path, value)?),
                "languageId" => out.language_id = Some(self.name(&path, value, "a language id")?),
                "env" => out.env = Some(self.env(&path, value)?),
                "rootMarkers" => out.root_markers = Some(self.markers(&path, value)?),
                "initializationOptions" => {
                    out.initialization_options = Some(self.json(&path, value)?)
                }
                "settings" => out.settings = Some(self.json(&path, value)?),
                "settleMs" => out.settle_ms = Some(self.ms(&path, value)?),
                "staleWindowMs" => out.stale_window_ms = Some(self.ms(&path, value)?),
                "unchangedQuietMs" => out.unchanged_quiet_ms = Some(self.ms(&path, value)?),
                "othersQuietMs" => out.others_quiet_ms = Some(self.ms(&path, value)?),
                // Read by the caller into the layer's rules.
                "ignore" => {}
                _ => return Err(self.unknown(&path, key, SERVER_KEYS)),
            }
        }
        let launched = [
            ("command", out.command.is_some()),
            ("args", out.args.is_some()),
            ("env", out.env.is_some()),
        ];
        if out.connect.is_some()
            && let Some((key, _)) = launched.iter().find(|(_, set)| *set)
        {
            return Err(self.invalid(
                &format!("{base}.connect"),
                format!("connect attaches to a server that already runs; it cannot be combined with {key}, which start one"),
            ));
        }
        Ok(out)
    }
}
