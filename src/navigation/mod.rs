//! Navigation requests against the running servers (placeholder until its change lands).
