//! Finding the files, checking what only makes sense across files (server
//! ids), applying the trust rule and merging the layers over the defaults.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};

use super::schema::segment;
use super::{
    Config, ConfigError, FileKind, LoadOptions, PartialConfig, ServerOverride, parse_str, trust,
};

/// The workspace file's name, looked for at the workspace root only.
pub const WORKSPACE_FILE: &str = ".squiggle.toml";

/// The user file from the environment: `$XDG_CONFIG_HOME/squiggle/config.toml`,
/// else `~/.config/squiggle/config.toml` (`~` is `%USERPROFILE%` on
/// Windows, see [`crate::platform::paths::home_dir`]).
pub fn user_config_path() -> Option<PathBuf> {
    user_config_path_from(
        std::env::var_os("XDG_CONFIG_HOME"),
        crate::platform::paths::home_dir().map(Into::into),
    )
}

/// [`user_config_path`] with the environment passed in. Relative or empty
/// values are ignored, as the XDG base directory specification asks.
pub fn user_config_path_from(
    xdg_config_home: Option<OsString>,
    home: Option<OsString>,
) -> Option<PathBuf> {
    let absolute = |value: Option<OsString>| value.map(PathBuf::from).filter(|p| p.is_absolute());
    let config_home =
        absolute(xdg_config_home).or_else(|| absolute(home).map(|h| h.join(".config")))?;
    Some(config_home.join("squiggle").join("config.toml"))
}

/// Reads and merges every layer: command line > workspace > user > defaults.
pub fn load(opts: &LoadOptions) -> Result<Config, ConfigError> {
    let user_path = opts.user_config.clone().or_else(user_config_path);
    let user = match &user_path {
        Some(path) => read(path, FileKind::User)?,
        None => None,
    };
    let workspace_path = opts.workspace_root.join(WORKSPACE_FILE);
    let workspace = read(&workspace_path, FileKind::Workspace)?;

    let trusted = opts.trust_workspace
        || user
            .as_ref()
            .is_some_and(|u| trust::is_trusted(&opts.workspace_root, &u.trusted_workspaces));

    let mut layers: Vec<(PathBuf, PartialConfig)> = Vec::new();
    layers.extend(user.zip(user_path.clone()).map(|(u, path)| (path, u)));
    layers.extend(workspace.map(|w| (workspace_path.clone(), w)));
    check_server_ids(&layers, &opts.cli, &opts.known_server_ids)?;
    if !trusted {
        for (path, partial) in &mut layers {
            if *path == workspace_path {
                trust::restrict(partial, path, &opts.workspace_root, user_path.as_deref());
            }
        }
    }

    check_launch_over_connect(&layers, &opts.cli)?;

    let mut config = Config::default();
    for (path, partial) in layers {
        config.sources.push(path);
        apply(&mut config, partial);
    }
    apply(&mut config, opts.cli.clone());
    Ok(config)
}

/// A missing file is an empty layer; anything else unreadable is an error
/// (a named pipe is refused before it is opened: reading it would block).
fn read(path: &Path, kind: FileKind) -> Result<Option<PartialConfig>, ConfigError> {
    if let Some(what) = crate::edit::special_file(path) {
        return Err(ConfigError::Read {
            path: path.to_path_buf(),
            source: io::Error::other(format!("it is {what}, not a regular file")),
        });
    }
    match crate::edit::read_regular_string(path, crate::edit::MAX_READ_BYTES) {
        Ok(text) => parse_str(&text, path, kind).map(Some),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ConfigError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Every server entry must name a built-in server or define a custom one
/// (`command`, in some layer); a custom server also needs `extensions`,
/// or nothing would ever be sent to it.
fn check_server_ids(
    layers: &[(PathBuf, PartialConfig)],
    cli: &PartialConfig,
    known: &[String],
) -> Result<(), ConfigError> {
    let command_line = Path::new("command line");
    let all = || {
        layers
            .iter()
            .map(|(path, partial)| (path.as_path(), partial))
            .chain(std::iter::once((command_line, cli)))
    };
    let any = |id: &str, has: fn(&ServerOverride) -> bool| {
        all().any(|(_, p)| p.servers.get(id).is_some_and(has))
    };
    for (path, partial) in all() {
        for (id, server) in &partial.servers {
            if known.iter().any(|k| k == id) {
                continue;
            }
            let key = format!("lsp.servers.{}", segment(id));
            if !any(id, |s| s.command.is_some() || s.connect.is_some()) {
                let builtins = if known.is_empty() {
                    "there are no built-in servers".to_string()
                } else {
                    format!("built-in servers are {}", known.join(", "))
                };
                let key = if server.enabled.is_some() {
                    format!("{key}.enabled")
                } else {
                    key
                };
                return Err(ConfigError::Invalid {
                    path: path.to_path_buf(),
                    key,
                    message: format!(
                        "unknown server id \"{id}\"; {builtins}; a custom server needs command (or connect) and extensions"
                    ),
                });
            }
            let enabled = all()
                .filter_map(|(_, p)| p.servers.get(id)?.enabled)
                .next_back();
            let disabled = enabled == Some(false);
            let custom = server.command.is_some() || server.connect.is_some();
            if custom && !disabled && !any(id, |s| s.extensions.is_some()) {
                return Err(ConfigError::Invalid {
                    path: path.to_path_buf(),
                    key,
                    message: "a custom server needs extensions, such as extensions = [\".ext\"]"
                        .to_string(),
                });
            }
        }
    }
    Ok(())
}

/// A layer that sets `args` or `env` for a server an earlier layer attaches
/// to (`connect`, not replaced by a `command` since) would be ignored: nothing
/// is started, so there is nothing to pass them to. That is an error naming
/// both files, not a setting that silently does nothing. (One layer naming
/// both is refused by the schema; a later `connect` replaces earlier ones.)
fn check_launch_over_connect(
    layers: &[(PathBuf, PartialConfig)],
    cli: &PartialConfig,
) -> Result<(), ConfigError> {
    let command_line = Path::new("command line");
    let all = layers
        .iter()
        .map(|(path, partial)| (path.as_path(), partial))
        .chain(std::iter::once((command_line, cli)));
    let mut attached: BTreeMap<&str, &Path> = BTreeMap::new();
    for (path, partial) in all {
        for (id, server) in &partial.servers {
            if server.connect.is_some() {
                attached.insert(id, path);
                continue;
            }
            if server.command.is_some() {
                attached.remove(id.as_str());
                continue;
            }
            let Some(connect_from) = attached.get(id.as_str()) else {
                continue;
            };
            let key = if server.args.is_some() {
                "args"
            } else if server.env.is_some() {
                "env"
            } else {
                continue;
            };
            return Err(ConfigError::Invalid {
                path: path.to_path_buf(),
                key: format!("lsp.servers.{}.{key}", segment(id)),
                message: format!(
                    "server \"{id}\" attaches to a running server (connect, in {}), so {key} would do nothing; remove {key}, or set command here to start the server instead",
                    connect_from.display()
                ),
            });
        }
    }
    Ok(())
}

/// Lays one layer over `config`: whatever the layer says wins.
fn apply(config: &mut Config, layer: PartialConfig) {
    let PartialConfig {
        enabled,
        diagnostic_timeout,
        first_touch_timeout,
        max_diagnostics_per_file,
        max_project_diagnostics_files,
        max_diagnostic_lines,
        include_severities,
        navigation_tools,
        write_tools,
        auto_detect,
        report,
        other_files,
        report_unknown,
        fix_lines,
        fix_wait,
        daemon_idle,
        max_instances_per_server,
        server_idle,
        document_idle,
        trusted_workspaces: _,
        servers,
        strict,
        sessions,
        evidence,
        auto_fix,
        ignore,
    } = layer;
    // Rules add up across layers: a workspace's never lifts the user's.
    config.ignore.extend(ignore);
    super::features::merge(config, strict, sessions, evidence, auto_fix);
    set(&mut config.enabled, enabled);
    set(&mut config.diagnostic_timeout, diagnostic_timeout);
    set(&mut config.first_touch_timeout, first_touch_timeout);
    set(
        &mut config.max_diagnostics_per_file,
        max_diagnostics_per_file,
    );
    set(
        &mut config.max_project_diagnostics_files,
        max_project_diagnostics_files,
    );
    set(&mut config.max_diagnostic_lines, max_diagnostic_lines);
    set(&mut config.include_severities, include_severities);
    set(&mut config.navigation_tools, navigation_tools);
    set(&mut config.write_tools, write_tools);
    set(&mut config.auto_detect, auto_detect);
    set(&mut config.report, report);
    set(&mut config.other_files, other_files);
    set(&mut config.report_unknown, report_unknown);
    set(&mut config.fix_lines, fix_lines);
    set(&mut config.fix_wait, fix_wait);
    set(&mut config.daemon_idle, daemon_idle);
    set(
        &mut config.max_instances_per_server,
        max_instances_per_server,
    );
    set(&mut config.server_idle, server_idle);
    set(&mut config.document_idle, document_idle);
    for (id, over) in servers {
        merge_server(config.servers.entry(id).or_default(), over);
    }
}

fn set<T>(slot: &mut T, value: Option<T>) {
    if let Some(value) = value {
        *slot = value;
    }
}

fn merge_server(base: &mut ServerOverride, over: ServerOverride) {
    let ServerOverride {
        enabled,
        command,
        connect,
        args,
        extensions,
        language_id,
        env,
        root_markers,
        initialization_options,
        settings,
        settle_ms,
        stale_window_ms,
        unchanged_quiet_ms,
        others_quiet_ms,
        trust,
    } = over;
    set_some(&mut base.enabled, enabled);
    // A layer that names a command or an endpoint replaces the other.
    if command.is_some() {
        base.connect = None;
    }
    if connect.is_some() {
        base.command = None;
        base.args = None;
        base.env = None;
    }
    set_some(&mut base.command, command);
    set_some(&mut base.connect, connect);
    set_some(&mut base.args, args);
    set_some(&mut base.extensions, extensions);
    set_some(&mut base.language_id, language_id);
    if let Some(env) = env {
        base.env.get_or_insert_with(BTreeMap::new).extend(env);
    }
    set_some(&mut base.root_markers, root_markers);
    merge_json(&mut base.initialization_options, initialization_options);
    merge_json(&mut base.settings, settings);
    set_some(&mut base.settle_ms, settle_ms);
    set_some(&mut base.stale_window_ms, stale_window_ms);
    set_some(&mut base.unchanged_quiet_ms, unchanged_quiet_ms);
    set_some(&mut base.others_quiet_ms, others_quiet_ms);
    if trust != super::Trust::Trusted {
        base.trust = trust;
    }
}

fn set_some<T>(slot: &mut Option<T>, value: Option<T>) {
    if value.is_some() {
        *slot = value;
    }
}

/// Objects merge key by key, recursively; anything else replaces.
fn merge_json(base: &mut Option<serde_json::Value>, over: Option<serde_json::Value>) {
    match (base.as_mut(), over) {
        (_, None) => {}
        (Some(base), Some(over)) => deep_merge(base, over),
        (None, over) => *base = over,
    }
}

/// `over` into `base`: objects key by key, any other value replaced whole.
pub fn deep_merge(base: &mut serde_json::Value, over: serde_json::Value) {
    match (base, over) {
        (serde_json::Value::Object(base), serde_json::Value::Object(over)) => {
            for (key, value) in over {
                match base.get_mut(&key) {
                    Some(slot) => deep_merge(slot, value),
                    None => {
                        base.insert(key, value);
                    }
                }
            }
        }
        (base, over) => *base = over,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_path_prefers_xdg_and_ignores_relative_values() {
        // Absolute on every platform (a drive-less `/x` is not on Windows).
        let (x, h) = (
            std::env::temp_dir().join("x"),
            std::env::temp_dir().join("h"),
        );
        let path = |xdg: Option<&Path>, home: Option<&Path>| {
            user_config_path_from(xdg.map(OsString::from), home.map(OsString::from))
        };
        let file = |dir: PathBuf| Some(dir.join("squiggle").join("config.toml"));
        assert_eq!(path(Some(&x), Some(&h)), file(x.clone()));
        assert_eq!(
            path(Some(Path::new("rel")), Some(&h)),
            file(h.join(".config"))
        );
        assert_eq!(path(Some(Path::new("")), Some(&h)), file(h.join(".config")));
        assert_eq!(path(None, None), None);
    }

    #[test]
    fn json_objects_merge_deeply() {
        let mut base = Some(serde_json::json!({"python": {"a": 1, "b": 2}, "x": [1]}));
        merge_json(
            &mut base,
            Some(serde_json::json!({"python": {"b": 3}, "x": [2]})),
        );
        assert_eq!(
            base,
            Some(serde_json::json!({"python": {"a": 1, "b": 3}, "x": [2]}))
        );
    }
}
