//! The servers this workspace may use: built-in entries with the user's and
//! workspace's configuration applied, plus custom servers the configuration
//! defines. Untrusted overrides keep the server from running at all.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::config::{Config, ServerOverride, Trust, deep_merge};
use crate::platform::endpoint::Endpoint;
use crate::registry::{CommandCandidate, ServerRole, ServerSpec, builtin_servers, languages};

/// A server entry after configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedServer {
    pub spec: ServerSpec,
    pub enabled: bool,
    pub env: Vec<(String, String)>,
    /// Extensions (with dot) this server serves beyond its languages, from config.
    pub extensions: Vec<String>,
    /// Language id for files matched by `extensions`.
    pub language_id: Option<String>,
    /// Why the server may not run: an untrusted workspace asked for its command.
    pub untrusted: Option<String>,
    /// Why it is not started although installed and enabled: strict mode
    /// (or `autoDetect = false`) and the configuration never names it.
    pub held: Option<String>,
    /// The configuration files, when they set the server's command (a
    /// custom server, or a built-in one pointed elsewhere): what to correct
    /// when that program is not found.
    pub command_from: Option<String>,
    /// Where the server already runs (`connect`): squiggle attaches to it
    /// instead of starting a program, and never stops it.
    pub connect: Option<Endpoint>,
}

impl ResolvedServer {
    /// Whether a running instance of `other` is one of this server too:
    /// every setting the same (where the configuration names them is not a
    /// setting).
    pub fn runs_as(&self, other: &ResolvedServer) -> bool {
        let unnamed = |s: &ResolvedServer| ResolvedServer {
            command_from: None,
            ..s.clone()
        };
        unnamed(self) == unnamed(other)
    }

    /// What to do when the server's program is not found: the one hint
    /// `status`, `doctor`, `check`, an edit's unknown line and `squiggle
    /// install --missing` all give.
    pub fn remedy(&self) -> String {
        match (&self.command_from, &self.connect) {
            (Some(files), Some(endpoint)) => {
                format!("start it listening at {endpoint}, or correct `connect` in {files}")
            }
            (Some(files), None) => format!("put it on PATH, or correct `command` in {files}"),
            (None, _) => crate::install::hint(&self.spec.id, &self.spec.install_hint),
        }
    }
}

/// Applies `config` to the built-in registry.
pub fn resolve(config: &Config) -> Vec<ResolvedServer> {
    let mut servers: Vec<ResolvedServer> = builtin_servers()
        .into_iter()
        .map(|spec| {
            let enabled = spec.enabled_by_default;
            ResolvedServer {
                enabled,
                ..ResolvedServer::of(spec)
            }
        })
        .collect();
    for (id, o) in &config.servers {
        match servers.iter_mut().find(|s| &s.spec.id == id) {
            Some(server) => apply(server, o, config),
            None => {
                let Some(spec) = custom_spec(id, o) else {
                    continue;
                };
                let mut server = ResolvedServer::of(spec);
                apply(&mut server, o, config);
                servers.push(server);
            }
        }
    }
    for server in &mut servers {
        server.held = held_back(config, &server.spec.id);
    }
    servers
}

impl ResolvedServer {
    /// `spec` as it stands, enabled, before the configuration is applied.
    fn of(spec: ServerSpec) -> ResolvedServer {
        ResolvedServer {
            spec,
            enabled: true,
            env: Vec::new(),
            extensions: Vec::new(),
            language_id: None,
            untrusted: None,
            held: None,
            command_from: None,
            connect: None,
        }
    }
}

/// The spec of a server the configuration adds (`id` no built-in's). It
/// needs a command; an untrusted workspace's was dropped, but the server is
/// still listed (as untrusted, never run), so that `status` can say why it
/// does not run. One that attaches (`connect`) has no command either.
fn custom_spec(id: &str, o: &ServerOverride) -> Option<ServerSpec> {
    let untrusted = matches!(o.trust, Trust::Untrusted { .. });
    let command = o
        .command
        .clone()
        .or_else(|| (untrusted || o.connect.is_some()).then(String::new))?;
    Some(ServerSpec {
        id: id.to_string(),
        commands: (!command.is_empty())
            .then(|| CommandCandidate {
                program: command.clone(),
                args: Vec::new(),
            })
            .into_iter()
            .collect(),
        languages: o.language_id.iter().cloned().collect(),
        root_markers: Vec::new(),
        root_strategy: crate::registry::RootStrategy::Nearest,
        declared_roots: Vec::new(),
        requires_marker: Vec::new(),
        initialization_options: serde_json::Value::Null,
        settings: serde_json::Value::Null,
        wait: crate::lsp::WaitProfile::default(),
        install_hint: match &o.connect {
            Some(endpoint) => format!("start it listening at {endpoint}"),
            None => format!("put `{command}` on PATH"),
        },
        role: ServerRole::Primary,
        enabled_by_default: true,
        exclusive_group: None,
        packages: Vec::new(),
        plugins: Vec::new(),
        full_sync_languages: Vec::new(),
    })
}

/// Why a server the configuration never names does not start: strict mode
/// in non-interactive use (the reference design's "no auto-start the
/// operator did not register"), or `autoDetect = false`.
fn held_back(config: &Config, id: &str) -> Option<String> {
    if config.servers.contains_key(id) {
        return None;
    }
    let why = if config.strict {
        "strict"
    } else if !config.auto_detect {
        "autoDetect = false"
    } else {
        return None;
    };
    Some(format!(
        "{why}: only servers named under [lsp.servers] start; add [lsp.servers.{id}] to use it"
    ))
}

/// The configuration files read, as a user would name them.
fn sources(config: &Config) -> String {
    let files: Vec<String> = config
        .sources
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    if files.is_empty() {
        "the configuration".into()
    } else {
        files.join(" or ")
    }
}

fn apply(server: &mut ResolvedServer, o: &ServerOverride, config: &Config) {
    if let Some(enabled) = o.enabled {
        server.enabled = enabled;
    }
    if let Trust::Untrusted { reason } = &o.trust {
        server.untrusted = Some(reason.clone());
    }
    if let Some(command) = &o.command {
        server.command_from = Some(sources(config));
        let args = o.args.clone().unwrap_or_default();
        server.spec.commands = vec![CommandCandidate {
            program: command.clone(),
            args,
        }];
    } else if let Some(endpoint) = &o.connect {
        server.command_from = Some(sources(config));
        server.connect = Some(endpoint.clone());
        server.spec.commands = Vec::new();
    } else if let Some(args) = &o.args {
        for c in &mut server.spec.commands {
            c.args = args.clone();
        }
    }
    if let Some(env) = &o.env {
        server.env = env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<BTreeMap<_, _>>()
            .into_iter()
            .collect();
    }
    if let Some(ext) = &o.extensions {
        server.extensions = ext.iter().map(|e| e.to_ascii_lowercase()).collect();
    }
    if let Some(lang) = &o.language_id {
        server.language_id = Some(lang.clone());
    }
    if let Some(markers) = &o.root_markers {
        server.spec.root_markers = markers.clone();
    }
    // Key by key over the built-in ones, as between configuration layers:
    // a user's one setting keeps the others the wait relies on.
    if let Some(v) = &o.initialization_options {
        deep_merge(&mut server.spec.initialization_options, v.clone());
    }
    if let Some(v) = &o.settings {
        deep_merge(&mut server.spec.settings, v.clone());
    }
    if let Some(ms) = o.settle_ms {
        server.spec.wait.settle = Duration::from_millis(ms);
    }
    if let Some(ms) = o.stale_window_ms {
        server.spec.wait.stale_window = Duration::from_millis(ms);
    }
    if let Some(ms) = o.unchanged_quiet_ms {
        server.spec.wait.unchanged_quiet = Duration::from_millis(ms);
    }
    if let Some(ms) = o.others_quiet_ms {
        server.spec.wait.others_quiet = Duration::from_millis(ms);
    }
}

/// The language id squiggle sends for `path` to `server`.
pub fn language_for(path: &Path, server: &ResolvedServer) -> Option<String> {
    let ext = path
        .extension()
        .map(|e| format!(".{}", e.to_string_lossy().to_ascii_lowercase()));
    if let Some(ext) = ext
        && server.extensions.contains(&ext)
    {
        // A configured extension always has a language id: the configured
        // one, the known one, or (as editors do for a language they do not
        // know) the extension without its dot.
        return server
            .language_id
            .clone()
            .or_else(|| languages::language_id(path).map(str::to_string))
            .or_else(|| Some(ext.trim_start_matches('.').to_string()));
    }
    let lang = languages::language_id(path)?;
    server
        .spec
        .languages
        .iter()
        .any(|l| l == lang)
        .then(|| lang.to_string())
}

/// The enabled servers that serve `path`, keeping one per exclusive group
/// (the first in list order, the group's default): each as its index into
/// `servers` and the language id it is sent. Required markers and project
/// packages are not looked at here (see `Engine::plan_file`, which may
/// choose another member of a group for the project's package).
pub fn serving(path: &Path, servers: &[ResolvedServer]) -> Vec<(usize, String)> {
    let mut groups: Vec<&str> = Vec::new();
    let mut chosen = Vec::new();
    for (index, lang) in candidates(path, servers) {
        if let Some(group) = servers[index].spec.exclusive_group.as_deref() {
            if groups.contains(&group) {
                continue;
            }
            groups.push(group);
        }
        chosen.push((index, lang));
    }
    chosen
}

/// Every enabled server that serves `path`, every member of an exclusive
/// group included, in list order.
pub fn candidates(path: &Path, servers: &[ResolvedServer]) -> Vec<(usize, String)> {
    servers
        .iter()
        .enumerate()
        .filter(|(_, s)| s.enabled)
        .filter_map(|(index, server)| language_for(path, server).map(|lang| (index, lang)))
        .collect()
}

#[cfg(test)]
mod tests;
