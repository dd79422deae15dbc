//! Rendering diagnostics for the model (placeholder).
