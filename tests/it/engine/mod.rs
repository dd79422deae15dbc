//! The engine through its library API against the scripted fake server:
//! edits, the instance pool, the importer-scan cache; and the pieces it
//! is built from that need files on disk (configuration loading, patches).

mod attach;
mod beside;
mod config_files;
mod dependents_cache;
mod fake;
mod health;
mod idle_request;
mod instant;
mod missing_server;
mod patch;
mod pool;
mod ra199_checks;
mod survey;
