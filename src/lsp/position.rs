//! (temporary stub; replaced by the position-encoding change)
use lsp_types::Position;
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PositionEncoding {
    Utf8,
    #[default]
    Utf16,
    Utf32,
}
impl PositionEncoding {
    pub fn from_lsp(kind: &str) -> Option<Self> {
        match kind {
            "utf-8" => Some(Self::Utf8),
            "utf-16" => Some(Self::Utf16),
            "utf-32" => Some(Self::Utf32),
            _ => None,
        }
    }
    pub fn as_lsp(self) -> &'static str {
        match self {
            Self::Utf8 => "utf-8",
            Self::Utf16 => "utf-16",
            Self::Utf32 => "utf-32",
        }
    }
}
pub struct LineIndex {
    starts: Vec<usize>,
}
impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                starts.push(i + 1);
            }
        }
        LineIndex { starts }
    }
    pub fn to_one_based(&self, text: &str, pos: Position, enc: PositionEncoding) -> (u32, u32) {
        let Some(&start) = self.starts.get(pos.line as usize) else {
            return (pos.line + 1, 1);
        };
        let line = text[start..].split('\n').next().unwrap_or("");
        let mut units = 0u32;
        let mut col = 1u32;
        for c in line.chars() {
            if units >= pos.character {
                break;
            }
            units += match enc {
                PositionEncoding::Utf8 => c.len_utf8() as u32,
                PositionEncoding::Utf16 => c.len_utf16() as u32,
                PositionEncoding::Utf32 => 1,
            };
            col += 1;
        }
        (pos.line + 1, col)
    }
}
