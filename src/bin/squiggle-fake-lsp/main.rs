//! Scripted fake language server (placeholder).
fn main() {}
