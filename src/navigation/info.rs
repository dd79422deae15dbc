//! What the server says about a position: hover text and signature help.
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::parse::{hover_text, lsp_range};
use super::render::position as render_position;
use super::session::{Need, open};
use super::{Location, PositionArgs};
use crate::engine::Engine;

use super::requests::*;

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

pub(super) fn doc_text(v: Option<&Value>) -> Option<String> {
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
        .filter_map(|s| signature(s, top_active))
        .collect();
    let here = session.here(pos, pos);
    let text = render_signatures(&signatures, &here);
    Ok((
        SignatureResult {
            server: session.server,
            signatures,
            active_signature,
        },
        text,
    ))
}

/// One `SignatureInformation`; a parameter label may be a string or a span
/// of the signature's label (UTF-16 offsets). `top_active` is the active
/// parameter the whole answer names, for signatures that name none.
fn signature(s: &Value, top_active: Option<u64>) -> Option<Signature> {
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
}

fn render_signatures(signatures: &[Signature], here: &Location) -> String {
    if signatures.is_empty() {
        return format!(
            "No signature help at {} (put the position inside a call's parentheses)",
            render_position(here)
        );
    }
    let mut out = String::new();
    for s in signatures {
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
}
