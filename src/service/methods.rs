//! The method table: each method's params are read into its typed struct
//! (`extract`), the engine is called and the answer serialized. Mutations
//! refused by the engine (nothing written) are JSON-RPC errors with code
//! [`REFUSED`].

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use super::extract::{extract, invalid};
use super::wire::method::{
    ApplyPatch, ByFile, Check, CheckFile, CheckFiles, Diagnostics, Edit, Render, Shutdown, Status,
    Warm, Write,
};
use super::wire::{
    ApplyPatchParams, CheckFileParams, CheckFilesParams, CheckParams, CheckReply, EditParams,
    Method, RenderParams, RenderReply, WarmReply, WireDiagnostic, WriteParams,
};
use crate::diagnostic::{Diagnostic, sort_and_dedupe};
use crate::engine::tools::{Mode, Replace, ToolError, ToolResult};
use crate::engine::{Engine, FileInput, HeldOthers};
use crate::jsonrpc::message::ResponseError;
use crate::lsp::normalize::normalize;
use crate::lsp::uri;
use crate::render::{FileDiagnostics, render_feedback, render_files};
use crate::workspace::PathClass;

/// The error code of a refused mutation (`squiggle/edit` and friends).
pub const REFUSED: i64 = -32001;

pub type Reply = Result<Value, ResponseError>;

/// Runs `method`, or `None` when the service has no such method.
pub async fn handle(engine: &Arc<Engine>, method: &str, params: Value) -> Option<Reply> {
    let e = engine;
    let reply = match method {
        CheckFile::NAME => run::<CheckFile, _>(params, |p| check_file(e, p)).await,
        CheckFiles::NAME => run::<CheckFiles, _>(params, |p| check_files(e, p)).await,
        Diagnostics::NAME => {
            run::<Diagnostics, _>(params, |_| async { Ok(all_diagnostics(e)) }).await
        }
        Status::NAME => run::<Status, _>(params, |_| async { Ok(e.status()) }).await,
        Shutdown::NAME => {
            run::<Shutdown, _>(params, |_| async {
                e.shutdown().await;
                Ok(())
            })
            .await
        }
        Edit::NAME => run::<Edit, _>(params, |p| edit(e, p)).await,
        Write::NAME => run::<Write, _>(params, |p| write(e, p)).await,
        ApplyPatch::NAME => run::<ApplyPatch, _>(params, |p| apply_patch(e, p)).await,
        Render::NAME => run::<Render, _>(params, |p| async { render(e, p) }).await,
        Check::NAME => run::<Check, _>(params, |p| check(e, p)).await,
        Warm::NAME => run::<Warm, _>(params, |_| async { Ok(warm(e)) }).await,
        _ => return None,
    };
    Some(reply)
}

/// Reads `M`'s params, runs `answer` on them and serializes its answer.
async fn run<M: Method, F: Future<Output = Result<M::Answer, ResponseError>>>(
    params: Value,
    answer: impl FnOnce(M::Params) -> F,
) -> Reply {
    let params = extract::<M::Params>(params)?;
    Ok(serde_json::to_value(answer(params).await?).unwrap_or(Value::Null))
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
fn warm(engine: &Arc<Engine>) -> WarmReply {
    let targets = engine.warm_targets();
    let files: Vec<String> = targets
        .iter()
        .filter_map(|p| engine.workspace.relative(p))
        .collect();
    let engine = Arc::clone(engine);
    tokio::spawn(async move { engine.warm(&targets).await });
    WarmReply { files }
}

async fn check_file(
    engine: &Arc<Engine>,
    params: CheckFileParams,
) -> Result<Vec<WireDiagnostic>, ResponseError> {
    let report = engine
        .check_files(vec![FileInput::on_disk(params.file_path)], HeldOthers::Skip)
        .await;
    let diagnostics = report
        .files
        .first()
        .map(|f| shown(engine, &f.diagnostics))
        .unwrap_or_default();
    Ok(diagnostics)
}

async fn check_files(
    engine: &Arc<Engine>,
    params: CheckFilesParams,
) -> Result<ByFile, ResponseError> {
    let inputs = params
        .file_paths
        .into_iter()
        .map(FileInput::on_disk)
        .collect();
    let report = engine.check_files(inputs, HeldOthers::Skip).await;
    let by_file: ByFile = report
        .files
        .iter()
        .map(|f| (f.file.clone(), shown(engine, &f.diagnostics)))
        .collect();
    Ok(by_file)
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

fn tool_reply(result: Result<ToolResult, ToolError>) -> Result<ToolResult, ResponseError> {
    result.map_err(|e| ResponseError {
        code: REFUSED,
        message: e.to_string(),
        data: None,
    })
}

/// What `dryRun` asks of the engine.
fn mode(dry_run: bool) -> Mode {
    if dry_run { Mode::DryRun } else { Mode::Apply }
}

async fn edit(engine: &Arc<Engine>, p: EditParams) -> Result<ToolResult, ResponseError> {
    let replace = if p.replace_all {
        Replace::All
    } else {
        Replace::Once
    };
    let edit = engine.edit(
        &p.file_path,
        &p.old_string,
        &p.new_string,
        replace,
        mode(p.dry_run),
    );
    tool_reply(edit.await)
}

async fn write(engine: &Arc<Engine>, p: WriteParams) -> Result<ToolResult, ResponseError> {
    tool_reply(
        engine
            .write(&p.file_path, &p.content, mode(p.dry_run))
            .await,
    )
}

async fn apply_patch(
    engine: &Arc<Engine>,
    p: ApplyPatchParams,
) -> Result<ToolResult, ResponseError> {
    tool_reply(engine.apply_patch(&p.patch, mode(p.dry_run)).await)
}

/// Pure: `render_feedback` over the given files, under the engine's render
/// options with the given ones on top.
fn render(engine: &Engine, p: RenderParams) -> Result<RenderReply, ResponseError> {
    let files = |list: Vec<_>| -> Vec<FileDiagnostics> {
        list.into_iter().map(FileDiagnostics::from).collect()
    };
    let options = p.options.over(engine.render_options());
    let text = render_feedback(&files(p.edited), &files(p.others), &options);
    Ok(RenderReply { text })
}

async fn check(engine: &Arc<Engine>, p: CheckParams) -> Result<CheckReply, ResponseError> {
    // `contents`: the text to check instead of the disk's, per path (a
    // hook's baseline: the file as git has it).
    let mut contents = p.contents;
    if let Some(stray) = contents.keys().find(|k| !p.file_paths.contains(k)) {
        return Err(invalid(format!(
            "contents: {} is not one of filePaths",
            stray.display()
        )));
    }
    let inputs: Vec<FileInput> = p
        .file_paths
        .into_iter()
        .map(|path| {
            let content = contents.remove(&path).map(Arc::from);
            FileInput {
                content,
                ..FileInput::on_disk(path)
            }
        })
        .collect();
    // `otherFiles` decides from the mutation whether importers are looked at.
    let report = if engine.reports_other_files(p.mutation) {
        engine.check_with_dependents(inputs).await
    } else {
        engine.check_files(inputs, HeldOthers::Include).await
    };
    let opts = engine.render_options();
    let feedback = report.feedback(&opts);
    let text = render_files(&report.file_blocks(), &opts);
    Ok(CheckReply {
        report,
        feedback,
        text,
    })
}
