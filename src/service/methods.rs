//! The method table: each method reads its params strictly, calls the engine
//! and shapes the answer. Mutations refused by the engine (nothing written)
//! are JSON-RPC errors with code [`REFUSED`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use super::params::Params;
use super::wire::{
    CheckReply, ServerStatus, WireDiagnostic, WireFileDiagnostics, WireRenderOptions,
};
use crate::diagnostic::{Diagnostic, sort_and_dedupe};
use crate::engine::tools::{Mode, Replace, ToolError, ToolResult};
use crate::engine::{Engine, FileInput, HeldOthers, Mutation, ServerState};
use crate::jsonrpc::message::ResponseError;
use crate::lsp::normalize::normalize;
use crate::lsp::uri;
use crate::registry::detect::find_command;
use crate::render::{FileDiagnostics, render_feedback, render_files};
use crate::workspace::PathClass;

/// The error code of a refused mutation (`squiggle/edit` and friends).
pub const REFUSED: i64 = -32001;

pub type Reply = Result<Value, ResponseError>;

/// Runs `method`, or `None` when the service has no such method.
pub async fn handle(engine: &Arc<Engine>, method: &str, params: Value) -> Option<Reply> {
    let params = match Params::new(params) {
        Ok(p) => p,
        Err(e) => return known(method).then_some(Err(e)),
    };
    let reply = match method {
        "lsp/checkFile" => check_file(engine, &params).await,
        "lsp/checkFiles" => check_files(engine, &params).await,
        "lsp/diagnostics" => Ok(to_value(&all_diagnostics(engine))),
        "lsp/status" => Ok(to_value(&status_rows(engine))),
        "lsp/shutdown" => {
            engine.shutdown().await;
            Ok(Value::Null)
        }
        "squiggle/edit" => edit(engine, &params).await,
        "squiggle/write" => write(engine, &params).await,
        "squiggle/applyPatch" => apply_patch(engine, &params).await,
        "squiggle/render" => render(engine, &params),
        "squiggle/check" => check(engine, &params).await,
        "squiggle/warm" => warm(engine),
        _ => return None,
    };
    Some(reply)
}

/// Every method this module answers.
pub const METHODS: &[&str] = &[
    "lsp/checkFile",
    "lsp/checkFiles",
    "lsp/diagnostics",
    "lsp/status",
    "lsp/shutdown",
    "squiggle/edit",
    "squiggle/write",
    "squiggle/applyPatch",
    "squiggle/render",
    "squiggle/check",
    "squiggle/warm",
];

fn known(method: &str) -> bool {
    METHODS.contains(&method)
}

fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Only the severities the configuration includes (errors by default).
fn shown(engine: &Engine, diagnostics: &[Diagnostic]) -> Vec<WireDiagnostic> {
    diagnostics
        .iter()
        .filter(|d| engine.config.include_severities.contains(&d.severity))
        .map(WireDiagnostic::from)
        .collect()
}

/// Starts warming the workspace's servers in the background (see
/// `engine::warm`) and answers at once with the files it checks, relative
/// to the workspace root: a session start must not wait for servers.
fn warm(engine: &Arc<Engine>) -> Reply {
    let targets = engine.warm_targets();
    let files: Vec<String> = targets
        .iter()
        .filter_map(|p| engine.workspace.relative(p))
        .collect();
    let engine = Arc::clone(engine);
    tokio::spawn(async move { engine.warm(&targets).await });
    Ok(serde_json::json!({ "files": files }))
}

async fn check_file(engine: &Arc<Engine>, params: &Params) -> Reply {
    let path = PathBuf::from(params.string("filePath")?);
    let report = engine
        .check_files(vec![FileInput::on_disk(path)], HeldOthers::Skip)
        .await;
    let diagnostics = report
        .files
        .first()
        .map(|f| shown(engine, &f.diagnostics))
        .unwrap_or_default();
    Ok(to_value(&diagnostics))
}

async fn check_files(engine: &Arc<Engine>, params: &Params) -> Reply {
    let inputs = params
        .strings("filePaths")?
        .into_iter()
        .map(FileInput::on_disk)
        .collect();
    let report = engine.check_files(inputs, HeldOthers::Skip).await;
    let by_file: BTreeMap<String, Vec<WireDiagnostic>> = report
        .files
        .iter()
        .map(|f| (f.file.clone(), shown(engine, &f.diagnostics)))
        .collect();
    Ok(to_value(&by_file))
}

/// Every file with diagnostics known to a running server, sorted by path,
/// normalized against the server's copy of the file (or the file on disk).
fn all_diagnostics(engine: &Engine) -> BTreeMap<String, Vec<WireDiagnostic>> {
    let mut all: BTreeMap<String, Vec<Diagnostic>> = BTreeMap::new();
    for client in engine.pool.clients() {
        let encoding = client.facts().map(|f| f.encoding).unwrap_or_default();
        for (file_uri, diagnostics) in client.known_diagnostics() {
            let Some(path) = uri::to_path(&file_uri) else {
                continue;
            };
            let PathClass::Inside { relative, .. } = engine.workspace.classify(&path) else {
                continue;
            };
            let text: Arc<str> = match client.document(&path) {
                Some((_, text)) => text,
                None => match std::fs::read_to_string(&path) {
                    Ok(t) => Arc::from(t),
                    Err(_) => continue,
                },
            };
            let normalized =
                normalize(&diagnostics, &text, encoding, &relative, client.server_id());
            all.entry(relative).or_default().extend(normalized);
        }
    }
    all.into_iter()
        .filter_map(|(file, mut list)| {
            sort_and_dedupe(&mut list);
            let list = shown(engine, &list);
            (!list.is_empty()).then_some((file, list))
        })
        .collect()
}

/// Every running or tried instance, then every configured server that has
/// none: `disabled`, `untrusted`, `unavailable` (not installed) or `idle`
/// (installed, starts on the first file it serves).
pub fn status_rows(engine: &Engine) -> Vec<ServerStatus> {
    let language = |id: &str| {
        engine
            .servers
            .iter()
            .find(|s| s.spec.id == id)
            .and_then(|s| {
                s.language_id
                    .clone()
                    .or_else(|| s.spec.languages.first().cloned())
            })
            .unwrap_or_default()
    };
    let instances = engine.pool.statuses();
    let mut rows: Vec<ServerStatus> = instances
        .iter()
        .map(|i| ServerStatus {
            id: i.id.clone(),
            status: state_name(i.status).to_string(),
            language: language(&i.id),
            server_pid: i.server_pid,
            root: Some(i.root.clone()),
            version: i.version.clone(),
            detail: i.detail.clone(),
            starts: i.starts,
            rss_kb: i.rss_kb,
            idle_ms: i.idle_ms,
            in_flight: i.server_pid.map(|_| i.in_flight),
            open_documents: i.server_pid.map(|_| i.open_documents),
            stopped: i.stopped,
        })
        .collect();
    let root = engine.workspace.root();
    let path_var = std::env::var_os("PATH");
    for server in &engine.servers {
        if instances.iter().any(|i| i.id == server.spec.id) {
            continue;
        }
        let (status, detail) = if let Some(reason) = &server.untrusted {
            ("untrusted", Some(reason.clone()))
        } else if !server.enabled || !engine.config.enabled {
            ("disabled", None)
        } else if find_command(&server.spec, root, root, path_var.as_deref()).is_none() {
            let hint = format!("install it with `{}`", server.spec.install_hint);
            ("unavailable", Some(hint))
        } else {
            ("idle", None)
        };
        rows.push(ServerStatus {
            id: server.spec.id.clone(),
            status: status.to_string(),
            language: language(&server.spec.id),
            server_pid: None,
            root: None,
            version: None,
            detail,
            starts: 0,
            rss_kb: None,
            idle_ms: None,
            in_flight: None,
            open_documents: None,
            stopped: None,
        });
    }
    rows
}

fn state_name(state: ServerState) -> &'static str {
    match state {
        ServerState::Starting => "starting",
        ServerState::Active => "active",
        ServerState::Stopped => "stopped",
        ServerState::Broken => "broken",
        ServerState::Disabled => "disabled",
        ServerState::Unavailable => "unavailable",
        ServerState::Untrusted => "untrusted",
    }
}

fn tool_reply(result: Result<ToolResult, ToolError>) -> Reply {
    match result {
        Ok(result) => Ok(to_value(&result)),
        Err(e) => Err(ResponseError {
            code: REFUSED,
            message: e.to_string(),
            data: None,
        }),
    }
}

async fn edit(engine: &Arc<Engine>, params: &Params) -> Reply {
    let path = params.string("filePath")?;
    let old = params.string("oldString")?;
    let new = params.string("newString")?;
    let replace = if params.flag("replaceAll")? {
        Replace::All
    } else {
        Replace::Once
    };
    let mode = mode(params)?;
    tool_reply(
        engine
            .edit(Path::new(&path), &old, &new, replace, mode)
            .await,
    )
}

/// The `dryRun` flag of a mutation.
fn mode(params: &Params) -> Result<Mode, ResponseError> {
    Ok(if params.flag("dryRun")? {
        Mode::DryRun
    } else {
        Mode::Apply
    })
}

async fn write(engine: &Arc<Engine>, params: &Params) -> Reply {
    let path = params.string("filePath")?;
    let content = params.string("content")?;
    tool_reply(
        engine
            .write(Path::new(&path), &content, mode(params)?)
            .await,
    )
}

async fn apply_patch(engine: &Arc<Engine>, params: &Params) -> Reply {
    let patch = params.string("patch")?;
    tool_reply(engine.apply_patch(&patch, mode(params)?).await)
}

/// Pure: `render_feedback` over the given files, under the engine's render
/// options with the given ones on top.
fn render(engine: &Engine, params: &Params) -> Reply {
    let files = |list: Vec<WireFileDiagnostics>| -> Vec<FileDiagnostics> {
        list.into_iter().map(FileDiagnostics::from).collect()
    };
    let edited = files(params.required("edited", "an array of files")?);
    let others = files(params.typed("others")?);
    let options = params
        .typed::<WireRenderOptions>("options")?
        .over(engine.render_options());
    let text = render_feedback(&edited, &others, &options);
    Ok(serde_json::json!({ "text": text }))
}

async fn check(engine: &Arc<Engine>, params: &Params) -> Reply {
    let paths = params.strings("filePaths")?;
    // `contents`: the text to check instead of the disk's, per path (a
    // hook's baseline: the file as git has it).
    let mut contents: BTreeMap<String, String> = params.typed("contents")?;
    if let Some(stray) = contents.keys().find(|k| !paths.contains(k)) {
        return Err(super::params::invalid(format!(
            "contents: {stray} is not one of filePaths"
        )));
    }
    let inputs: Vec<FileInput> = paths
        .into_iter()
        .map(|path| {
            let content = contents.remove(&path).map(Arc::from);
            FileInput {
                content,
                ..FileInput::on_disk(path)
            }
        })
        .collect();
    // `withDependents`: the agent wrote the file whole (its Write tool);
    // `otherFiles` decides whether that, or any edit, looks at importers.
    let mutation = if params.flag("withDependents")? {
        Mutation::Write
    } else {
        Mutation::Edit
    };
    let report = if engine.reports_other_files(mutation) {
        engine.check_with_dependents(inputs).await
    } else {
        engine.check_files(inputs, HeldOthers::Include).await
    };
    let opts = engine.render_options();
    let feedback = report.feedback(&opts);
    let text = render_files(&report.file_blocks(), &opts);
    Ok(to_value(&CheckReply::new(&report, feedback, text)))
}
