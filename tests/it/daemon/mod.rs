//! The per-workspace daemon: its life (start, reuse, stop, idle, races,
//! permissions) and a soak with many clients at once.

mod lifecycle;
mod soak;
