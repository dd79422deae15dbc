//! (temporary stub; replaced by the text-sync change)
use super::position::PositionEncoding;
use lsp_types::TextDocumentContentChangeEvent;
pub fn full_change(new: &str) -> TextDocumentContentChangeEvent {
    TextDocumentContentChangeEvent {
        range: None,
        range_length: None,
        text: new.to_string(),
    }
}
pub fn incremental_changes(
    _old: &str,
    new: &str,
    _enc: PositionEncoding,
) -> Vec<TextDocumentContentChangeEvent> {
    vec![full_change(new)]
}
