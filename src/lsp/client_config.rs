//! What starting one server instance takes: the command, the root it serves,
//! the settings it is answered with, and how to tell when it is done. Its own
//! module so that the code answering server requests reads the settings
//! without depending on the client that owns them.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::process::Spawn;
use super::profile::WaitProfile;
use crate::jsonrpc::framing::DEFAULT_MAX_FRAME;

/// Everything needed to start one server instance.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// The server's id in squiggle's registry (`pyright`), for logs and results.
    pub server_id: String,
    /// What to run; not used when the client attaches to a running server.
    pub spawn: Spawn,
    /// The project root this instance serves: `rootUri` and the one workspace folder.
    pub root: PathBuf,
    pub initialization_options: Value,
    /// Answers to `workspace/configuration`, looked up by section.
    pub settings: Value,
    /// How the server signals it is done with a change (`lsp::profile`).
    pub wait: WaitProfile,
    /// Default timeout for requests that are not given one.
    pub request_timeout: Duration,
    /// How long a health probe waits for its answer (`lsp::health`).
    pub probe_timeout: Duration,
    pub max_frame: usize,
    /// Languages whose documents get their whole text on every change,
    /// whatever sync the server offers (the registry's
    /// `full_sync_languages`).
    pub full_sync_languages: Vec<String>,
}

impl ClientConfig {
    pub fn new(server_id: impl Into<String>, spawn: Spawn, root: PathBuf) -> Self {
        ClientConfig {
            server_id: server_id.into(),
            spawn,
            root,
            initialization_options: Value::Null,
            settings: Value::Null,
            wait: WaitProfile::default(),
            request_timeout: Duration::from_secs(10),
            probe_timeout: Duration::from_secs(3),
            max_frame: DEFAULT_MAX_FRAME,
            full_sync_languages: Vec::new(),
        }
    }

    /// The configuration of a client that attaches to a running server
    /// (`LspClient::attach`): nothing to spawn.
    pub fn attached(server_id: impl Into<String>, root: PathBuf) -> Self {
        let spawn = Spawn {
            program: PathBuf::new(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: root.clone(),
        };
        ClientConfig::new(server_id, spawn, root)
    }
}
