//! The speculative sessions' methods (`squiggle/session*`): params read
//! into their structs, the engine's sessions called; a refusal is a
//! `Failure::Refused` (JSON-RPC code `REFUSED`) with the session's message.
//! Each is called for the connection that asks: it reaches only the
//! sessions that connection opened.

use std::sync::Arc;

use serde_json::Value;

use super::failure::{Failure, Reply};
use super::methods::respond;
use super::wire::method::{
    SessionChain, SessionCommit, SessionDiscard, SessionEdit, SessionEvaluate, SessionOpen,
};
use super::wire::{Method, WireEdit};
use crate::engine::Engine;
use crate::engine::request::{Operation, Request};
use crate::sessions::{Edit, Owner, SessionError};

fn refused(e: impl ToString) -> Failure {
    Failure::Refused(e.to_string())
}

fn edits(wire: &[WireEdit]) -> Result<Vec<Edit>, Failure> {
    wire.iter()
        .map(|e| e.edit().map_err(super::extract::invalid))
        .collect()
}

fn answer<T>(result: Result<T, SessionError>) -> Result<T, Failure> {
    result.map_err(refused)
}

/// Runs a session method for `owner`'s connection, or `None` when
/// `method` is not one.
pub async fn handle(
    engine: &Arc<Engine>,
    owner: Owner,
    method: &str,
    params: Value,
) -> Option<Reply> {
    let (e, me) = (engine, owner);
    let reply = match method {
        SessionOpen::NAME => {
            respond::<SessionOpen, _>(params, |p| async move {
                let paths: Vec<String> = p.paths.iter().map(|p| p.display().to_string()).collect();
                answer(e.session_open(me, &paths).await)
            })
            .await
        }
        SessionEdit::NAME => {
            respond::<SessionEdit, _>(params, |p| async move {
                let edits = edits(&p.edits)?;
                let evaluate = p.evaluate.unwrap_or(true);
                answer(e.session_edit(me, &p.session, &edits, evaluate).await)
            })
            .await
        }
        SessionEvaluate::NAME => {
            respond::<SessionEvaluate, _>(params, |p| async move {
                answer(e.session_evaluate(me, &p.session).await)
            })
            .await
        }
        SessionChain::NAME => {
            respond::<SessionChain, _>(params, |p| async move {
                let edits = edits(&p.edits)?;
                let stop = p.stop_on_new_errors.unwrap_or(true);
                answer(e.session_chain(me, &p.session, &edits, stop).await)
            })
            .await
        }
        SessionCommit::NAME => {
            respond::<SessionCommit, _>(params, |p| async move {
                let commit = Operation::Commit {
                    session: p.session,
                    owner: me,
                };
                e.handle(Request::new(commit, false)).await.map_err(refused)
            })
            .await
        }
        SessionDiscard::NAME => {
            respond::<SessionDiscard, _>(params, |p| async move {
                answer(e.session_discard(me, &p.session).await)
            })
            .await
        }
        _ => return None,
    };
    Some(reply)
}
