//! `lsp_file_context`: what a model needs before editing a file, in one
//! call and within a size budget: the file's outline, the signatures of
//! symbols it uses from other files (definition elsewhere → hover), and its
//! current diagnostics.

use std::collections::HashSet;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::json;

use super::diagnostics::{DiagnosticsResult, diagnostics};
use super::parse::{hover_text, locations};
use super::session::{NavError, Need, open};
use super::symbols::document_symbols;
use super::{Location, Symbol};
use crate::engine::Engine;

/// At most this many distinct names are looked up.
const MAX_LOOKUPS: usize = 60;

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct External {
    pub name: String,
    /// Where it is defined.
    pub definition: Location,
    /// The first lines of its hover (the signature).
    pub signature: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileContextResult {
    pub path: String,
    pub outline: Vec<Symbol>,
    pub external: Vec<External>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<DiagnosticsResult>,
    /// True when the text was cut to the budget.
    pub truncated: bool,
}

fn identifiers(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let word = c.is_alphanumeric() || c == '_' || c == '$';
        match (start, word) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                let w = &text[s..i];
                if !w.chars().next().is_some_and(|c| c.is_ascii_digit()) && w.len() > 1 {
                    out.push((s, w));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Outline, external signatures and diagnostics of `path`, within `budget` characters.
pub async fn file_context(
    engine: &Arc<Engine>,
    path: &str,
    budget: usize,
) -> Result<(FileContextResult, String), NavError> {
    let (outline, outline_text) = match document_symbols(engine, path, 200).await {
        Ok((r, text)) => (r.symbols, text),
        Err(e) => (Vec::new(), format!("(no outline: {e})")),
    };
    let mut external = externals(engine, path, &outline).await;
    // Workspace definitions first: they are what the file is built on.
    external.sort_by_key(|e| e.definition.outside);
    let diags = diagnostics(engine, Some(path)).await;
    let mut sections = vec![outline_text];
    if !external.is_empty() {
        sections.push(render_externals(&external));
    }
    let (diagnostics, diag_text) = match diags {
        Ok((r, text)) => (Some(r), text),
        Err(e) => (None, format!("(no diagnostics: {e})")),
    };
    sections.push(diag_text);
    let mut text = sections.join("\n\n");
    let mut truncated = false;
    if text.chars().count() > budget {
        text = text.chars().take(budget.saturating_sub(30)).collect();
        text.push_str("\n… (cut to the budget)");
        truncated = true;
    }
    Ok((
        FileContextResult {
            path: path.to_string(),
            outline,
            external,
            diagnostics,
            truncated,
        },
        text,
    ))
}

/// The names `path` uses that are defined in other files (at most
/// [`MAX_LOOKUPS`] distinct names asked), each with the signature its hover
/// shows. Empty when no server answers definitions for the file.
async fn externals(engine: &Arc<Engine>, path: &str, outline: &[Symbol]) -> Vec<External> {
    let need = Need {
        capability: "definitionProvider",
        method: "textDocument/definition",
        feature: "definition",
    };
    let mut external = Vec::new();
    let Ok(session) = open(engine, path, &need).await else {
        return external;
    };
    session.wait_indexed().await;
    let declared: HashSet<&str> = outline.iter().map(|s| s.name.as_str()).collect();
    let mut seen: HashSet<&str> = HashSet::new();
    let text = session.text.clone();
    let hover_ok = session
        .client
        .facts()
        .is_some_and(|f| f.declares("hoverProvider"));
    for (offset, word) in identifiers(&text) {
        if seen.len() >= MAX_LOOKUPS {
            break;
        }
        if declared.contains(word) || !seen.insert(word) {
            continue;
        }
        let pos = session.index.position(&text, offset, session.encoding);
        let params = json!({
            "textDocument": { "uri": session.uri },
            "position": { "line": pos.line, "character": pos.character },
        });
        let Ok(found) = session
            .request("textDocument/definition", params.clone())
            .await
        else {
            continue;
        };
        let raws = locations(&found);
        let Some(raw) = raws.iter().find(|r| r.uri != session.uri) else {
            continue;
        };
        let definition = session.locate(std::slice::from_ref(raw)).remove(0);
        let signature = if hover_ok {
            match session.request("textDocument/hover", params).await {
                Ok(h) => signature_of(&hover_text(&h)),
                Err(_) => String::new(),
            }
        } else {
            String::new()
        };
        external.push(External {
            name: word.to_string(),
            definition,
            signature,
        });
    }
    external
}

fn render_externals(external: &[External]) -> String {
    let mut s = String::from("Used from other files:\n");
    for e in external {
        let sig = if e.signature.is_empty() {
            e.name.clone()
        } else {
            e.signature.clone()
        };
        s.push_str(&format!(
            "- {sig}  ({}:{})\n",
            e.definition.path, e.definition.line
        ));
    }
    s.trim_end().to_string()
}

/// The signature in a hover: its first code block (or first line) on one
/// line, whitespace collapsed.
fn signature_of(hover: &str) -> String {
    let code: Vec<&str> = match hover.find("```") {
        Some(start) => hover[start..]
            .lines()
            .skip(1)
            .take_while(|l| !l.starts_with("```"))
            .collect(),
        None => hover.lines().take(1).collect(),
    };
    let joined = code.join(" ");
    let collapsed: Vec<&str> = joined.split_whitespace().collect();
    let mut sig = collapsed.join(" ").replace("( ", "(").replace(" )", ")");
    if sig.chars().count() > 200 {
        sig = sig.chars().take(200).collect::<String>() + "…";
    }
    sig
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_are_one_line() {
        let hover = "```python\n(function) def print(\n    *values: object,\n    sep: str | None = \" \"\n) -> None\n```\n---\nPrints.";
        assert_eq!(
            signature_of(hover),
            "(function) def print(*values: object, sep: str | None = \" \") -> None"
        );
        assert_eq!(signature_of("plain text\nmore"), "plain text");
    }
}
