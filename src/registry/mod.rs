//! The built-in language servers, as plain data.
//!
//! squiggle ships knowing how to start the common language servers: which
//! program to run and with which arguments, which languages each one serves,
//! how to find its project root, and what a user types to install it. Keeping
//! that knowledge as data (one small module per language family under
//! `servers/`) lets the rest of squiggle stay generic: the client starts
//! whatever `ServerSpec` it is handed, and users can override an entry without
//! touching code. `languages` maps file names to LSP language ids and `detect`
//! finds a server's binary on disk.

pub mod detect;
pub mod languages;
mod paths;
pub mod plugins;
mod servers;
pub mod toolchain;

use std::path::Path;
use std::time::Duration;

pub use crate::lsp::profile::{OthersDone, ProgressPattern, WaitProfile};
pub use plugins::ServerPlugin;
pub use toolchain::{Given, Majors, ProjectPackage};

/// Everything squiggle needs to know to start and talk to one language server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerSpec {
    /// Stable name users refer to in config and that status output shows.
    pub id: String,
    /// Ways to start the server, tried in order: the first one found wins.
    pub commands: Vec<CommandCandidate>,
    /// LSP language ids the server is started for.
    pub languages: Vec<String>,
    /// The nearest directory holding one of these is the project root. A
    /// marker `*.sln` matches any name ending in `.sln` (see [`dir_has_marker`]).
    pub root_markers: Vec<String>,
    /// How `root_markers` pick the root when several directories match.
    pub root_strategy: RootStrategy,
    /// Declared monorepo roots the server serves whole from one instance
    /// (a root `tsconfig.json` with `references`, a node or uv workspace):
    /// they win over `root_markers` for the files of their packages. Empty
    /// for servers not measured to handle one (`docs/servers.md`, Scale).
    pub declared_roots: Vec<Declaration>,
    /// The server only starts when one of these exists between the file and
    /// the workspace root (see [`marker_present`]); empty means no requirement.
    pub requires_marker: Vec<String>,
    /// Sent as `initializationOptions`; `Null` when there are none.
    pub initialization_options: serde_json::Value,
    /// Answers `workspace/configuration` by section path: the section
    /// `"python.analysis"` is `settings["python"]["analysis"]`, and the empty
    /// section is the whole object. `Null` when there are none.
    pub settings: serde_json::Value,
    /// How the server signals it is done with a change: settle and stale
    /// windows, partial pulls, progress that holds or does not hold a wait,
    /// when other open files are current (`lsp::profile`; the measurements
    /// behind each entry are in `docs/servers.md`).
    pub wait: WaitProfile,
    /// The exact command a user runs to install the server.
    pub install_hint: String,
    pub role: ServerRole,
    /// Whether the server runs without the user asking for it; alternatives to
    /// a default server are off until chosen.
    pub enabled_by_default: bool,
    /// At most one enabled server of a group serves a file: the first whose
    /// project package is there in a version it takes (`packages`), else the
    /// first in list order.
    pub exclusive_group: Option<String>,
    /// The packages the server runs on when the project has one, the
    /// project's compiler (`toolchain`): empty for a server that runs only
    /// itself.
    pub packages: Vec<ProjectPackage>,
    /// Plugins it loads where they are installed, and the languages it
    /// serves only with them (`plugins`).
    pub plugins: Vec<ServerPlugin>,
    /// Languages whose documents are sent whole on every change even where
    /// the server takes incremental changes: its answers after incremental
    /// ones are wrong for them (docs/servers.md).
    pub full_sync_languages: Vec<String>,
}

/// One way to start a server: a program name (or absolute path) and its
/// arguments for stdio mode.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandCandidate {
    pub program: String,
    pub args: Vec<String>,
}

impl CommandCandidate {
    pub fn new(program: &str, args: &[&str]) -> CommandCandidate {
        CommandCandidate {
            program: program.to_string(),
            args: args.iter().map(|arg| arg.to_string()).collect(),
        }
    }
}

/// What a server contributes to a file's diagnostics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerRole {
    /// The language's type checker or compiler front end.
    Primary,
    /// A linter that runs alongside the primary server.
    Linter,
}

pub use crate::workspace::Declaration;
/// How root markers choose a project root: the workspace module's search,
/// named for the registry's entries.
pub use crate::workspace::RootSearch as RootStrategy;

/// The servers squiggle knows out of the box, in priority order: within an
/// exclusive group the first enabled entry wins.
pub fn builtin_servers() -> Vec<ServerSpec> {
    let families: [fn() -> Vec<ServerSpec>; 9] = [
        servers::typescript::servers,
        servers::python::servers,
        servers::go::servers,
        servers::rust::servers,
        servers::c::servers,
        servers::shell::servers,
        servers::web::servers,
        servers::toml::servers,
        servers::others::servers,
    ];
    families.iter().flat_map(|family| family()).collect()
}

/// Whether `spec` may start for a file in `file_dir`: true when it requires no
/// marker, or when one of its `requires_marker` files exists in `file_dir` or
/// an ancestor up to and including `workspace_root`. A file outside the
/// workspace is checked up to the filesystem root.
pub fn marker_present(spec: &ServerSpec, file_dir: &Path, workspace_root: &Path) -> bool {
    if spec.requires_marker.is_empty() {
        return true;
    }
    for dir in file_dir.ancestors() {
        if spec.requires_marker.iter().any(|m| dir_has_marker(dir, m)) {
            return true;
        }
        if dir == workspace_root {
            break;
        }
    }
    false
}

/// Whether `dir` holds `marker`: a file or directory of that name, or, for a
/// marker of the form `*.sln`, any entry whose name ends with `.sln`.
pub fn dir_has_marker(dir: &Path, marker: &str) -> bool {
    let Some(suffix) = marker.strip_prefix('*') else {
        return dir.join(marker).exists();
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|entry| {
        entry
            .file_name()
            .to_str()
            .is_some_and(|name| name.ends_with(suffix))
    })
}

/// A spec with the common defaults: started by `command`, nearest-marker root,
/// no options or settings, the default wait profile (150 ms settle), primary, enabled, no group. Entries
/// override fields with struct update syntax.
fn spec(
    id: &str,
    command: &[&str],
    languages: &[&str],
    root_markers: &[&str],
    install_hint: &str,
) -> ServerSpec {
    let (program, args) = command.split_first().expect("a command names a program");
    ServerSpec {
        id: id.to_string(),
        commands: vec![CommandCandidate::new(program, args)],
        languages: strings(languages),
        root_markers: strings(root_markers),
        root_strategy: RootStrategy::Nearest,
        declared_roots: Vec::new(),
        requires_marker: Vec::new(),
        initialization_options: serde_json::Value::Null,
        settings: serde_json::Value::Null,
        wait: WaitProfile::default(),
        install_hint: install_hint.to_string(),
        role: ServerRole::Primary,
        enabled_by_default: true,
        exclusive_group: None,
        packages: Vec::new(),
        plugins: Vec::new(),
        full_sync_languages: Vec::new(),
    }
}

/// A wait profile with `settle_ms` and otherwise the defaults.
fn settle(settle_ms: u64) -> WaitProfile {
    WaitProfile {
        settle: Duration::from_millis(settle_ms),
        ..WaitProfile::default()
    }
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|item| item.to_string()).collect()
}

#[cfg(test)]
mod tests;
