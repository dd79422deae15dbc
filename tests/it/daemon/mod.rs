//! The per-workspace daemon: its life (start, reuse, stop, idle, races,
//! permissions), another user refused, and a soak with many clients at
//! once.

mod lifecycle;
mod other_user;
mod soak;
