//! Text mutations the wrapped tools perform (placeholder).
