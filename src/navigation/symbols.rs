//! Symbols: a document's outline, a workspace-wide search, and the call
//! hierarchy around a function.
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::parse::{RawSymbol, flat_symbols, lsp_range};
use super::render::{position as render_position, render_symbols};
use super::session::{NavError, Need, Session, open};
use super::{PositionArgs, Symbol};
use crate::engine::Engine;
use crate::workspace::PathClass;

use super::requests::*;

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SymbolsResult {
    pub server: String,
    /// At most `max_results` symbols, in outline order.
    pub symbols: Vec<Symbol>,
    pub total: usize,
}

/// The outline of one file.
pub async fn document_symbols(
    engine: &Arc<Engine>,
    path: &str,
    max: usize,
) -> Answer<SymbolsResult> {
    let need = Need {
        capability: "documentSymbolProvider",
        method: "textDocument/documentSymbol",
        feature: "document symbols",
    };
    let session = open(engine, path, &need).await?;
    let result = session.request_list(need.method, session.params()).await?;
    let mut symbols: Vec<Symbol> = flat_symbols(&result)
        .iter()
        .map(|s| session.symbol(s))
        .collect();
    let total = symbols.len();
    symbols.truncate(max);
    let text = if total == 0 {
        format!("No symbols in {}", session.relative)
    } else {
        render_symbols(
            &format!("Symbols in {}:", session.relative),
            &symbols,
            total,
            false,
        )
    };
    Ok((
        SymbolsResult {
            server: session.server,
            symbols,
            total,
        },
        text,
    ))
}

/// Symbols matching `query` across the workspace. `path` picks the
/// language (any file of it); without it, every running server that
/// supports the search is asked.
pub async fn workspace_symbols(
    engine: &Arc<Engine>,
    query: &str,
    path: Option<&str>,
    max: usize,
) -> Answer<SymbolsResult> {
    let need = Need {
        capability: "workspaceSymbolProvider",
        method: "workspace/symbol",
        feature: "workspace symbols",
    };
    let Some(path) = path.map(str::to_string).or_else(|| any_open_file(engine)) else {
        return Err(NavError::new(
            "no language server is running yet; pass `path` (any file of the language to search) to start one",
        ));
    };
    let session = open(engine, &path, &need).await?;
    let result = session
        .request_list(need.method, json!({ "query": query }))
        .await?;
    let mut symbols: Vec<Symbol> = flat_symbols(&result)
        .iter()
        .map(|s| Symbol {
            depth: 0,
            ..session.symbol(s)
        })
        .collect();
    symbols.sort_by_key(|s| s.location.outside);
    let total = symbols.len();
    symbols.truncate(max);
    let text = if total == 0 {
        format!("No symbols match `{query}`")
    } else {
        render_symbols(
            &format!("{} matching `{query}`:", plural(total, "symbol", "symbols")),
            &symbols,
            total,
            true,
        )
    };
    Ok((
        SymbolsResult {
            server: session.server,
            symbols,
            total,
        },
        text,
    ))
}

/// A file some running server has open, to route a workspace-wide request.
pub(super) fn any_open_file(engine: &Arc<Engine>) -> Option<String> {
    engine.pool().clients().iter().find_map(|c| {
        c.open_paths()
            .into_iter()
            .find_map(|p| match engine.workspace().classify(&p) {
                PathClass::Inside { relative, .. } => Some(relative),
                _ => None,
            })
    })
}

#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Who calls this symbol.
    #[default]
    Incoming,
    /// What this symbol calls.
    Outgoing,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CallsResult {
    pub server: String,
    /// The symbol at the position.
    pub item: Symbol,
    pub direction: Direction,
    /// Callers (incoming) or callees (outgoing).
    pub calls: Vec<Symbol>,
    pub total: usize,
}

pub(super) fn item_symbol(session: &Session, item: &Value) -> Option<Symbol> {
    let raw = RawSymbol {
        name: item.get("name")?.as_str()?.to_string(),
        kind: super::parse::kind_name(item.get("kind").and_then(Value::as_u64).unwrap_or(0))
            .to_string(),
        detail: item
            .get("detail")
            .and_then(Value::as_str)
            .filter(|d| !d.is_empty())
            .map(str::to_string),
        container: None,
        depth: 0,
        uri: Some(item.get("uri")?.as_str()?.to_string()),
        selection_start: lsp_range(item.get("selectionRange")?)?.0,
        selection_end: lsp_range(item.get("selectionRange")?)?.1,
        range_end: lsp_range(item.get("range")?)?.1,
    };
    let mut symbol = session.symbol(&raw);
    if raw.uri.as_deref() != Some(session.uri.as_str()) {
        symbol.end_line = raw.range_end.line + 1;
    }
    Some(symbol)
}

/// Incoming or outgoing calls of the function at a position.
pub async fn call_hierarchy(
    engine: &Arc<Engine>,
    args: &PositionArgs,
    direction: Direction,
    max: usize,
) -> Answer<CallsResult> {
    let need = Need {
        capability: "callHierarchyProvider",
        method: "textDocument/prepareCallHierarchy",
        feature: "call hierarchy",
    };
    let session = open(engine, &args.path, &need).await?;
    let pos = session.position(args).await?;
    let prepared = session
        .request_list(need.method, session.position_params(pos))
        .await?;
    let Some(item) = prepared.as_array().and_then(|a| a.first()).cloned() else {
        let here = session.here(pos, pos);
        return Err(NavError(format!(
            "no function or method at {} to show calls for",
            render_position(&here)
        )));
    };
    let symbol = item_symbol(&session, &item)
        .ok_or_else(|| NavError::new("the server's call hierarchy item is malformed"))?;
    let (method, key) = match direction {
        Direction::Incoming => ("callHierarchy/incomingCalls", "from"),
        Direction::Outgoing => ("callHierarchy/outgoingCalls", "to"),
    };
    let result = session.request(method, json!({ "item": item })).await?;
    let mut calls: Vec<Symbol> = result
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|c| item_symbol(&session, c.get(key)?))
        .collect();
    let total = calls.len();
    calls.truncate(max);
    let text = if total == 0 {
        match direction {
            Direction::Incoming => format!("No calls to {} found", symbol.name),
            Direction::Outgoing => format!("{} calls nothing the server knows of", symbol.name),
        }
    } else {
        let header = match direction {
            Direction::Incoming => {
                format!("{} of {}:", plural(total, "caller", "callers"), symbol.name)
            }
            Direction::Outgoing => format!(
                "{} calls {}:",
                symbol.name,
                plural(total, "symbol", "symbols")
            ),
        };
        render_symbols(&header, &calls, total, true)
    };
    Ok((
        CallsResult {
            server: session.server,
            item: symbol,
            direction,
            calls,
            total,
        },
        text,
    ))
}
