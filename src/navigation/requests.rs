//! The navigation requests, one function each: open the file in the server
//! that declared the capability, resolve the position, send, read the answer
//! leniently, and return structure plus a rendered text.

use std::collections::HashMap;
use std::sync::Arc;

use lsp_types::Position;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

use super::parse::{RawLocation, RawSymbol, locations};
use super::render::{position as render_position, render_locations};
use super::resolve::to_location;
use super::session::{NavError, Need, Session, open};
use super::{Location, PositionArgs, Symbol};
use crate::engine::Engine;
use crate::lsp::position::LineIndex;
use crate::uri;

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
    pub(super) fn position_params(&self, pos: Position) -> Value {
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
                    Some(p) => match self.engine.workspace().classify(p).within() {
                        Ok((_, relative)) => (relative, false),
                        Err(_) => (p.display().to_string(), true),
                    },
                    None => (raw.uri.clone(), true),
                };
                let text = texts.entry(raw.uri.clone()).or_insert_with(|| {
                    let p = path.as_ref()?;
                    let text = match self.client.document(p) {
                        Some((_, t)) => t,
                        None => Arc::from(
                            crate::edit::read_regular_string(p, crate::edit::MAX_READ_BYTES)
                                .ok()?,
                        ),
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

    pub(super) fn symbol(&self, raw: &RawSymbol) -> Symbol {
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

pub(super) fn sort_locations(locations: &mut [Location]) {
    locations.sort_by(|a, b| {
        (a.outside, &a.path, a.line, a.column).cmp(&(b.outside, &b.path, b.line, b.column))
    });
}

pub(super) fn plural(n: usize, one: &str, many: &str) -> String {
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
