//! Built-in language servers as data (placeholder).
