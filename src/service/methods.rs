//! The method table: each method's params are read into its typed struct
//! (`extract`), a change's params into the engine's `Request` (answered by
//! `Engine::handle`), the engine is called and the answer serialized
//! (`failure::respond`, where a [`Failure`] becomes the method's JSON-RPC
//! error). Mutations refused by the engine (nothing written) are errors
//! with code `REFUSED`.

use std::collections::BTreeMap;
use std::future::Future;

use std::sync::Arc;

use serde_json::Value;

use super::extract::extract;
use super::failure::{Failure, Reply};
use super::wire::method::{
    ApplyPatch, ByFile, Check, CheckFile, CheckFiles, Delete, Diagnostics, Edit, Fix, Render,
    Shutdown, Status, Warm, Write,
};
use super::wire::{
    CheckFileParams, CheckFilesParams, Method, RenderParams, RenderReply, WarmReply, WireDiagnostic,
};
use crate::diagnostic::Diagnostic;
use crate::engine::tools::ToolResult;
use crate::engine::{Engine, FileInput, HeldOthers, Request};
use crate::jsonrpc::message::ResponseError;
use crate::render::{FileDiagnostics, render_feedback};

/// Runs `method`, or `None` when the service has no such method.
pub async fn handle(engine: &Arc<Engine>, method: &str, params: Value) -> Option<Reply> {
    let e = engine;
    let reply = match method {
        CheckFile::NAME => respond::<CheckFile, _>(params, |p| check_file(e, p)).await,
        CheckFiles::NAME => respond::<CheckFiles, _>(params, |p| check_files(e, p)).await,
        Diagnostics::NAME => {
            respond::<Diagnostics, _>(params, |_| async { Ok(all_diagnostics(e)) }).await
        }
        Status::NAME => respond::<Status, _>(params, |_| async { Ok(e.status()) }).await,
        Shutdown::NAME => {
            respond::<Shutdown, _>(params, |_| async {
                e.shutdown().await;
                Ok(())
            })
            .await
        }
        Edit::NAME => respond::<Edit, _>(params, |p| change(e, p)).await,
        Write::NAME => respond::<Write, _>(params, |p| change(e, p)).await,
        ApplyPatch::NAME => respond::<ApplyPatch, _>(params, |p| change(e, p)).await,
        Fix::NAME => respond::<Fix, _>(params, |p| change(e, p)).await,
        Delete::NAME => respond::<Delete, _>(params, |p| change(e, p)).await,
        Render::NAME => respond::<Render, _>(params, |p| async { render(e, p) }).await,
        Check::NAME => respond::<Check, _>(params, |p| change(e, p)).await,
        Warm::NAME => {
            respond::<Warm, _>(params, |p| async move { Ok(warm(e, p.wait).await) }).await
        }
        _ => return None,
    };
    Some(reply)
}

/// Reads `M`'s params, runs `answer` on them and serializes its answer; a
/// failure becomes `M`'s JSON-RPC error here.
pub async fn respond<M: Method, F: Future<Output = Result<M::Answer, Failure>>>(
    params: Value,
    answer: impl FnOnce(M::Params) -> F,
) -> Reply {
    let answered = match extract::<M::Params>(params) {
        Ok(params) => answer(params).await,
        Err(failure) => Err(failure),
    };
    finish::<M>(answered)
}

/// [`respond`] for an answer that needs no waiting (the daemon's own
/// methods).
pub fn respond_now<M: Method>(
    params: Value,
    answer: impl FnOnce(M::Params) -> Result<M::Answer, Failure>,
) -> Reply {
    finish::<M>(extract::<M::Params>(params).and_then(answer))
}

fn finish<M: Method>(answered: Result<M::Answer, Failure>) -> Reply {
    match answered {
        Ok(answer) => Ok(serde_json::to_value(answer).unwrap_or(Value::Null)),
        Err(failure) => {
            tracing::debug!(
                method = M::NAME,
                reason = failure.message(),
                "request refused"
            );
            Err(ResponseError {
                code: failure.code(),
                message: failure.message().to_string(),
                data: None,
            })
        }
    }
}

/// Only the severities the configuration includes (errors by default).
fn shown(engine: &Engine, diagnostics: &[Diagnostic]) -> Vec<WireDiagnostic> {
    diagnostics
        .iter()
        .filter(|d| engine.config().include_severities.contains(&d.severity))
        .map(WireDiagnostic::from)
        .collect()
}

/// Starts warming the workspace's servers and then surveying its files in
/// the background (see `engine::warm`) and answers at once with the files
/// it warms with, relative to the workspace root: a session start must not
/// wait for servers. With `wait`, answers when both have ended.
async fn warm(engine: &Arc<Engine>, wait: bool) -> WarmReply {
    let targets = engine.warm_targets();
    let files: Vec<String> = targets
        .iter()
        .filter_map(|p| engine.workspace().relative(p))
        .collect();
    let engine = Arc::clone(engine);
    let work = tokio::spawn(async move {
        engine.warm(&targets).await;
        let survey = engine.survey_targets();
        engine.survey(&survey).await
    });
    let surveyed = if wait { work.await.ok() } else { None };
    WarmReply { files, surveyed }
}

async fn check_file(
    engine: &Arc<Engine>,
    params: CheckFileParams,
) -> Result<Vec<WireDiagnostic>, Failure> {
    let mut report = engine
        .check_files(vec![FileInput::on_disk(params.file_path)], HeldOthers::Skip)
        .await;
    engine.hide_ignored(&mut report, &Default::default());
    let diagnostics = report
        .files
        .first()
        .map(|f| shown(engine, &f.diagnostics))
        .unwrap_or_default();
    Ok(diagnostics)
}

async fn check_files(engine: &Arc<Engine>, params: CheckFilesParams) -> Result<ByFile, Failure> {
    let inputs = params
        .file_paths
        .into_iter()
        .map(FileInput::on_disk)
        .collect();
    let mut report = engine.check_files(inputs, HeldOthers::Skip).await;
    engine.hide_ignored(&mut report, &Default::default());
    let by_file: ByFile = report
        .files
        .iter()
        .map(|f| (f.file.clone(), shown(engine, &f.diagnostics)))
        .collect();
    Ok(by_file)
}

/// Every file with diagnostics known to a running server, sorted by path
/// (`Engine::known_diagnostics`), the severities the configuration includes.
fn all_diagnostics(engine: &Engine) -> BTreeMap<String, Vec<WireDiagnostic>> {
    let (known, _) = engine.hide_ignored_in(engine.known_diagnostics());
    known
        .into_iter()
        .filter_map(|(file, list)| {
            let list = shown(engine, &list);
            (!list.is_empty()).then_some((file, list))
        })
        .collect()
}

/// A change method: its params read into the engine's request, answered
/// by the engine's one door. The command line runs it in its own process
/// when the daemon cannot be reached.
pub async fn change<P>(engine: &Arc<Engine>, params: P) -> Result<ToolResult, Failure>
where
    P: TryInto<Request>,
    Failure: From<P::Error>,
{
    Ok(engine.handle(params.try_into()?).await?)
}

/// Pure: `render_feedback` over the given files, under the engine's render
/// options with the given ones on top.
fn render(engine: &Engine, p: RenderParams) -> Result<RenderReply, Failure> {
    let files = |list: Vec<_>| -> Vec<FileDiagnostics> {
        list.into_iter().map(FileDiagnostics::from).collect()
    };
    let options = p.options.over(engine.render_options());
    let text = render_feedback(&files(p.edited), &files(p.others), &options);
    Ok(RenderReply { text })
}
