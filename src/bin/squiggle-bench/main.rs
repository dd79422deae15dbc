//! The benchmark program (placeholder until its change lands).
fn main() {}
