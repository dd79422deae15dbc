//! The navigation requests, one function each: open the file in the server
//! that declared the capability, resolve the position, send, read the answer
//! leniently, and return structure plus a rendered text.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use lsp_types::Position;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::parse::{RawLocation, RawSymbol, flat_symbols, hover_text, locations, lsp_range};
use super::render::{position as render_position, render_locations, render_symbols};
use super::resolve::to_location;
use super::session::{NavError, Need, Session, open};
use super::{Location, PositionArgs, Symbol};
use crate::engine::Engine;
use crate::lsp::position::LineIndex;
use crate::lsp::uri;
use crate::workspace::PathClass;

/// What a navigation call returns: structure and the text for the model.
pub type Answer<T> = Result<(T, String), NavError>;

/// Default cap on listed results.
pub const DEFAULT_MAX_RESULTS: usize = 50;

/// Locations found by a goto or references request.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LocationsResult {
    /// The server that answered.
    pub server: String,
    /// The position asked about.
    pub origin: Location,
    /// At most `max_results` locations.
    pub locations: Vec<Location>,
    /// How many the server returned.
    pub total: usize,
}

/// Which goto request.
#[derive(Debug, Clone, Copy)]
pub enum Goto {
    Definition,
    TypeDefinition,
    Implementation,
}

impl Goto {
    fn need(self) -> Need<'static> {
        match self {
            Goto::Definition => Need {
                capability: "definitionProvider",
                method: "textDocument/definition",
                feature: "definition",
            },
            Goto::TypeDefinition => Need {
                capability: "typeDefinitionProvider",
                method: "textDocument/typeDefinition",
                feature: "type definition",
            },
            Goto::Implementation => Need {
                capability: "implementationProvider",
                method: "textDocument/implementation",
                feature: "implementation",
            },
        }
    }
}

impl Session {
    fn position_params(&self, pos: Position) -> Value {
        json!({
            "textDocument": { "uri": self.uri },
            "position": { "line": pos.line, "character": pos.character },
        })
    }

    /// Converts server locations, reading each target file once.
    pub(super) fn locate(&self, raws: &[RawLocation]) -> Vec<Location> {
        let mut texts: HashMap<String, Option<(Arc<str>, LineIndex)>> = HashMap::new();
        raws.iter()
            .map(|raw| {
                let path = uri::to_path(&raw.uri);
                let (shown, outside) = match &path {
                    Some(p) => match self.engine.workspace.classify(p) {
                        PathClass::Inside { relative, .. }
                        | PathClass::Ignored { relative, .. } => (relative, false),
                        PathClass::Outside { .. } => (p.display().to_string(), true),
                    },
                    None => (raw.uri.clone(), true),
                };
                let text = texts.entry(raw.uri.clone()).or_insert_with(|| {
                    let p = path.as_ref()?;
                    let text = match self.client.document(p) {
                        Some((_, t)) => t,
                        None => Arc::from(std::fs::read_to_string(p).ok()?),
                    };
                    let index = LineIndex::new(&text);
                    Some((text, index))
                });
                match text {
                    Some((text, index)) => to_location(
                        &shown,
                        outside,
                        text,
                        index,
                        self.encoding,
                        raw.start,
                        raw.end,
                    ),
                    None => Location {
                        path: shown,
                        line: raw.start.line + 1,
                        column: raw.start.character + 1,
                        end_line: raw.end.line + 1,
                        end_column: raw.end.character + 1,
                        text: String::new(),
                        outside,
                    },
                }
            })
            .collect()
    }

    fn symbol(&self, raw: &RawSymbol) -> Symbol {
        let location = match &raw.uri {
            Some(u) if *u != self.uri => self
                .locate(&[RawLocation {
                    uri: u.clone(),
                    start: raw.selection_start,
                    end: raw.selection_end,
                }])
                .remove(0),
            _ => self.here(raw.selection_start, raw.selection_end),
        };
        let end_line = match &raw.uri {
            Some(u) if *u != self.uri => location.end_line,
            _ => {
                self.index
                    .to_one_based(&self.text, raw.range_end, self.encoding)
                    .0
            }
        };
        Symbol {
            name: raw.name.clone(),
            kind: raw.kind.clone(),
            detail: raw.detail.clone(),
            container: raw.container.clone(),
            depth: raw.depth,
            location,
            end_line,
        }
    }
}

fn sort_locations(locations: &mut [Location]) {
    locations.sort_by(|a, b| {
        (a.outside, &a.path, a.line, a.column).cmp(&(b.outside, &b.path, b.line, b.column))
    });
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Definition, type definition or implementation of the symbol at a position.
pub async fn goto(
    engine: &Arc<Engine>,
    args: &PositionArgs,
    kind: Goto,
    max: usize,
) -> Answer<LocationsResult> {
    let need = kind.need();
    let session = open(engine, &args.path, &need).await?;
    let pos = session.position(args).await?;
    let result = session
        .request_list(need.method, session.position_params(pos))
        .await?;
    let mut found = session.locate(&locations(&result));
    found.dedup();
    let origin = session.here(pos, pos);
    let total = found.len();
    found.truncate(max);
    let text = if total == 0 {
        format!("No {} found at {}", need.feature, render_position(&origin))
    } else {
        let noun = match kind {
            Goto::Definition => plural(total, "definition", "definitions"),
            Goto::TypeDefinition => plural(total, "type definition", "type definitions"),
            Goto::Implementation => plural(total, "implementation", "implementations"),
        };
        render_locations(&format!("{noun}:"), &found, total)
    };
    Ok((
        LocationsResult {
            server: session.server,
            origin,
            locations: found,
            total,
        },
        text,
    ))
}

/// References to the symbol at a position.
pub async fn references(
    engine: &Arc<Engine>,
    args: &PositionArgs,
    include_declaration: bool,
    max: usize,
) -> Answer<LocationsResult> {
    let need = Need {
        capability: "referencesProvider",
        method: "textDocument/references",
        feature: "references",
    };
    let session = open(engine, &args.path, &need).await?;
    let pos = session.position(args).await?;
    let mut params = session.position_params(pos);
    params["context"] = json!({ "includeDeclaration": include_declaration });
    let result = session.request_list(need.method, params).await?;
    let mut found = session.locate(&locations(&result));
    sort_locations(&mut found);
    found.dedup();
    let origin = session.here(pos, pos);
    let total = found.len();
    found.truncate(max);
    let text = if total == 0 {
        format!("No references found to {}", render_position(&origin))
    } else {
        render_locations(
            &format!("{}:", plural(total, "reference", "references")),
            &found,
            total,
        )
    };
    Ok((
        LocationsResult {
            server: session.server,
            origin,
            locations: found,
            total,
        },
        text,
    ))
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HoverResult {
    pub server: String,
    /// The position asked about (the hovered range when the server gave one).
    pub location: Location,
    /// Markdown from the server; empty when it has nothing to show.
    pub contents: String,
}

/// Type information and documentation at a position.
pub async fn hover(engine: &Arc<Engine>, args: &PositionArgs) -> Answer<HoverResult> {
    let need = Need {
        capability: "hoverProvider",
        method: "textDocument/hover",
        feature: "hover",
    };
    let session = open(engine, &args.path, &need).await?;
    let pos = session.position(args).await?;
    session.wait_indexed().await;
    let result = session
        .request(need.method, session.position_params(pos))
        .await?;
    let contents = hover_text(&result);
    let (start, end) = result
        .get("range")
        .and_then(lsp_range)
        .unwrap_or((pos, pos));
    let location = session.here(start, end);
    let text = if contents.is_empty() {
        format!("No hover information at {}", render_position(&location))
    } else {
        contents.clone()
    };
    Ok((
        HoverResult {
            server: session.server,
            location,
            contents,
        },
        text,
    ))
}

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
fn any_open_file(engine: &Arc<Engine>) -> Option<String> {
    engine.pool.clients().iter().find_map(|c| {
        let open: Vec<String> = crate::lsp::client::lock(&c.inner.state)
            .documents
            .keys()
            .cloned()
            .collect();
        open.into_iter()
            .filter_map(|u| uri::to_path(&u))
            .find_map(|p| match engine.workspace.classify(&p) {
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

fn item_symbol(session: &Session, item: &Value) -> Option<Symbol> {
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

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Signature {
    pub label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documentation: Option<String>,
    pub parameters: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_parameter: Option<u32>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct SignatureResult {
    pub server: String,
    pub signatures: Vec<Signature>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_signature: Option<u32>,
}

fn doc_text(v: Option<&Value>) -> Option<String> {
    let v = v?;
    let text = v
        .as_str()
        .or_else(|| v.get("value").and_then(Value::as_str))?
        .trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// Signatures of the call around a position (inside the parentheses).
pub async fn signature_help(engine: &Arc<Engine>, args: &PositionArgs) -> Answer<SignatureResult> {
    let need = Need {
        capability: "signatureHelpProvider",
        method: "textDocument/signatureHelp",
        feature: "signature help",
    };
    let session = open(engine, &args.path, &need).await?;
    let pos = session.position(args).await?;
    session.wait_indexed().await;
    let result = session
        .request(need.method, session.position_params(pos))
        .await?;
    let active_signature = result
        .get("activeSignature")
        .and_then(Value::as_u64)
        .map(|n| n as u32);
    let top_active = result.get("activeParameter").and_then(Value::as_u64);
    let signatures: Vec<Signature> = result
        .get("signatures")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|s| {
            let label = s.get("label")?.as_str()?.to_string();
            let parameters = s
                .get("parameters")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default()
                .iter()
                .filter_map(|p| match p.get("label")? {
                    Value::String(l) => Some(l.clone()),
                    Value::Array(span) => {
                        let a = span.first()?.as_u64()? as usize;
                        let b = span.get(1)?.as_u64()? as usize;
                        // Offsets are UTF-16 units into the label.
                        let units: Vec<u16> = label.encode_utf16().collect();
                        String::from_utf16(units.get(a..b)?).ok()
                    }
                    _ => None,
                })
                .collect();
            Some(Signature {
                documentation: doc_text(s.get("documentation")),
                parameters,
                active_parameter: s
                    .get("activeParameter")
                    .and_then(Value::as_u64)
                    .or(top_active)
                    .map(|n| n as u32),
                label,
            })
        })
        .collect();
    let here = session.here(pos, pos);
    let text = if signatures.is_empty() {
        format!(
            "No signature help at {} (put the position inside a call's parentheses)",
            render_position(&here)
        )
    } else {
        let mut out = String::new();
        for s in &signatures {
            out.push_str(&s.label);
            if let Some(p) = s
                .active_parameter
                .and_then(|a| s.parameters.get(a as usize))
            {
                out.push_str(&format!("\n  active parameter: {p}"));
            }
            if let Some(d) = &s.documentation {
                out.push_str(&format!("\n  {}", d.replace('\n', "\n  ")));
            }
            out.push('\n');
        }
        out.trim_end().to_string()
    };
    Ok((
        SignatureResult {
            server: session.server,
            signatures,
            active_signature,
        },
        text,
    ))
}

/// Where code actions are asked for: a position (line and column or symbol)
/// up to an optional end; a bare line means the whole line.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct RangeArgs {
    #[serde(flatten)]
    pub start: PositionArgs,
    /// 1-based last line of the range (default: the start line).
    #[serde(default)]
    pub end_line: Option<u32>,
    /// 1-based column (characters) where the range ends (default: end of `end_line`).
    #[serde(default)]
    pub end_column: Option<u32>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CodeAction {
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub preferred: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CodeActionsResult {
    pub server: String,
    pub range: Location,
    pub actions: Vec<CodeAction>,
}

/// Titles and kinds of the code actions for a range. Never applies any.
pub async fn code_actions(engine: &Arc<Engine>, args: &RangeArgs) -> Answer<CodeActionsResult> {
    let need = Need {
        capability: "codeActionProvider",
        method: "textDocument/codeAction",
        feature: "code actions",
    };
    let session = open(engine, &args.start.path, &need).await?;
    let text = session.text.clone();
    let start = if args.start.column.is_some() || args.start.symbol.is_some() {
        session.position(&args.start).await?
    } else {
        let line = args
            .start
            .line
            .ok_or_else(|| NavError::new("give `line` (and optionally `column` or `symbol`)"))?;
        Position::new(line.saturating_sub(1), 0)
    };
    let end_line = args.end_line.map_or(start.line, |l| l.saturating_sub(1));
    let end = match args.end_column {
        Some(c) => {
            let probe = PositionArgs {
                path: args.start.path.clone(),
                line: Some(end_line + 1),
                column: Some(c),
                symbol: None,
            };
            session.position(&probe).await?
        }
        // Past the end of the line: clamped to its end by every server.
        None => Position::new(end_line, u32::MAX / 2),
    };
    let end = session.index.position(
        &text,
        session.index.offset(&text, end, session.encoding),
        session.encoding,
    );
    let diagnostics: Vec<Value> = session
        .client
        .known_diagnostics()
        .into_iter()
        .filter(|(u, _)| *u == session.uri)
        .flat_map(|(_, list)| list.to_vec())
        .filter(|d| d.range.start.line <= end.line && d.range.end.line >= start.line)
        .map(|d| {
            json!({
                "range": d.range,
                "severity": d.severity,
                "code": d.code,
                "source": d.source,
                "message": d.message,
            })
        })
        .collect();
    session.wait_indexed().await;
    let result = session
        .request(
            need.method,
            json!({
                "textDocument": { "uri": session.uri },
                "range": { "start": start, "end": end },
                "context": { "diagnostics": diagnostics, "triggerKind": 1 },
            }),
        )
        .await?;
    let actions: Vec<CodeAction> = result
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|a| {
            Some(CodeAction {
                title: a.get("title")?.as_str()?.to_string(),
                kind: a.get("kind").and_then(Value::as_str).map(str::to_string),
                preferred: a
                    .get("isPreferred")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            })
        })
        .collect();
    let range = session.here(start, end);
    let rendered = if actions.is_empty() {
        format!(
            "No code actions for {}-{}",
            render_position(&range),
            range.end_line
        )
    } else {
        let mut out = format!(
            "{} for {} (not applied):\n",
            plural(actions.len(), "code action", "code actions"),
            render_position(&range)
        );
        for a in &actions {
            out.push_str(&format!("- {}", a.title));
            if let Some(kind) = &a.kind {
                out.push_str(&format!(" [{kind}]"));
            }
            if a.preferred {
                out.push_str(" (preferred)");
            }
            out.push('\n');
        }
        out.trim_end().to_string()
    };
    Ok((
        CodeActionsResult {
            server: session.server,
            range,
            actions,
        },
        rendered,
    ))
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RenameFile {
    pub path: String,
    pub edits: usize,
    pub outside: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RenameResult {
    pub server: String,
    pub files: Vec<RenameFile>,
    /// The whole edit as a unified diff. Nothing was written.
    pub diff: String,
}

/// Applies LSP text edits to `text` in memory.
fn apply_edits(
    text: &str,
    encoding: crate::lsp::position::PositionEncoding,
    edits: &[Value],
) -> String {
    let index = LineIndex::new(text);
    let mut spans: Vec<(usize, usize, &str)> = edits
        .iter()
        .filter_map(|e| {
            let (start, end) = lsp_range(e.get("range")?)?;
            let new = e.get("newText")?.as_str()?;
            Some((
                index.offset(text, start, encoding),
                index.offset(text, end, encoding),
                new,
            ))
        })
        .collect();
    spans.sort_by_key(|s| std::cmp::Reverse((s.0, s.1)));
    let mut out = text.to_string();
    for (start, end, new) in spans {
        if start <= end && end <= out.len() {
            out.replace_range(start..end, new);
        }
    }
    out
}

/// A rename preview: the server's WorkspaceEdit as a unified diff. Never writes.
pub async fn rename(
    engine: &Arc<Engine>,
    args: &PositionArgs,
    new_name: &str,
) -> Answer<RenameResult> {
    let need = Need {
        capability: "renameProvider",
        method: "textDocument/rename",
        feature: "rename",
    };
    let session = open(engine, &args.path, &need).await?;
    let pos = session.position(args).await?;
    session.wait_indexed().await;
    let mut params = session.position_params(pos);
    params["newName"] = json!(new_name);
    let result = session.request(need.method, params).await?;
    let mut per_uri: Vec<(String, Vec<Value>)> = Vec::new();
    let mut push = |u: &str, edits: &[Value]| match per_uri.iter_mut().find(|(k, _)| k == u) {
        Some((_, list)) => list.extend_from_slice(edits),
        None => per_uri.push((u.to_string(), edits.to_vec())),
    };
    if let Some(changes) = result.get("changes").and_then(Value::as_object) {
        for (u, edits) in changes {
            push(u, edits.as_array().map(Vec::as_slice).unwrap_or_default());
        }
    }
    for change in result
        .get("documentChanges")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        if let (Some(u), Some(edits)) = (
            change.pointer("/textDocument/uri").and_then(Value::as_str),
            change.get("edits").and_then(Value::as_array),
        ) {
            push(u, edits);
        }
    }
    if per_uri.is_empty() {
        let here = session.here(pos, pos);
        return Err(NavError(format!(
            "{} cannot rename at {}",
            session.server,
            render_position(&here)
        )));
    }
    let mut files = Vec::new();
    let mut diff = String::new();
    for (u, edits) in &per_uri {
        let Some(path) = uri::to_path(u) else {
            continue;
        };
        let (shown, outside) = match engine.workspace.classify(&path) {
            PathClass::Inside { relative, .. } | PathClass::Ignored { relative, .. } => {
                (relative, false)
            }
            PathClass::Outside { .. } => (path.display().to_string(), true),
        };
        let before: String = match session.client.document(&path) {
            Some((_, t)) => t.to_string(),
            None => std::fs::read_to_string(&path).unwrap_or_default(),
        };
        let after = apply_edits(&before, session.encoding, edits);
        let patch = similar::TextDiff::from_lines(&before, &after)
            .unified_diff()
            .context_radius(2)
            .header(&format!("a/{shown}"), &format!("b/{shown}"))
            .to_string();
        diff.push_str(&patch);
        files.push(RenameFile {
            path: shown,
            edits: edits.len(),
            outside,
        });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let edits: usize = files.iter().map(|f| f.edits).sum();
    let mut text = format!(
        "Rename preview (nothing was written): {} in {}",
        plural(edits, "edit", "edits"),
        plural(files.len(), "file", "files")
    );
    if files.iter().any(|f| f.outside) {
        text.push_str("; some files are outside the workspace");
    }
    text.push_str(":\n");
    text.push_str(&diff);
    Ok((
        RenameResult {
            server: session.server,
            files,
            diff,
        },
        text.trim_end().to_string(),
    ))
}

/// The path the model gave, checked to be a workspace file.
pub fn workspace_path(
    engine: &Engine,
    path: &str,
) -> Result<(std::path::PathBuf, String), NavError> {
    let p = Path::new(path);
    let p = if p.is_absolute() {
        p.to_path_buf()
    } else {
        engine.workspace.root().join(p)
    };
    match engine.workspace.classify(&p) {
        PathClass::Inside {
            canonical,
            relative,
        } => Ok((canonical, relative)),
        PathClass::Ignored { relative, dir, .. } => Err(NavError(format!(
            "{relative} is under {dir}/, which squiggle does not serve"
        ))),
        PathClass::Outside { canonical } => Err(NavError(format!(
            "{} is outside the workspace {}; navigation only works inside it",
            canonical.display(),
            engine.workspace.root().display()
        ))),
    }
}
