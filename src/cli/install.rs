//! `squiggle install <server>…` / `--missing`: the command-line face of
//! `crate::install`. `--missing` walks the workspace (honouring .gitignore)
//! and takes the servers its files need that are not found.
//! Progress goes to stderr; the package managers' own output is shown on a
//! terminal and kept back when stderr is piped (shown only on failure).
//! Exit 0 when every server was installed, 2 otherwise.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use crate::install::{self, Source};

#[derive(clap::Args, Debug, Clone)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["servers", "missing"])))]
pub struct Args {
    /// Server ids to install (as `squiggle status` names them).
    #[arg(conflicts_with = "missing")]
    pub servers: Vec<String>,
    /// Install the servers this workspace's files need that are not found.
    #[arg(long)]
    pub missing: bool,
    /// Install into DIR instead of squiggle's servers directory
    /// ($SQUIGGLE_SERVERS_DIR, else $XDG_DATA_HOME/squiggle/servers). Server
    /// lookup reads only the default directory.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    #[command(flatten)]
    pub workspace: super::WorkspaceArgs,
}

/// Files `--missing` looks at, at most: enough for the languages of any
/// repository, bounded for a huge one.
const MISSING_WALK_CAP: usize = 20_000;

pub async fn run(mut args: Args) -> u8 {
    let uninstallable = match take_missing(&mut args) {
        Ok(uninstallable) => uninstallable,
        Err(code) => return code,
    };
    let Some(root) = args.dir.clone().or_else(install::servers_dir) else {
        eprintln!(
            "squiggle: no servers directory: set SQUIGGLE_SERVERS_DIR, XDG_DATA_HOME or HOME"
        );
        return 2;
    };
    // Refuse the whole command before installing anything when a name is wrong.
    let unknown: Vec<&str> = args
        .servers
        .iter()
        .map(String::as_str)
        .filter(|s| install::source_of(s).is_none())
        .collect();
    if !unknown.is_empty() {
        let known: Vec<&str> = install::PINS.iter().map(|(id, _)| *id).collect();
        eprintln!(
            "squiggle: unknown server {}; squiggle install knows: {}",
            unknown.join(", "),
            known.join(", ")
        );
        return 2;
    }
    let verbose = std::io::stderr().is_terminal();
    let mut failed = false;
    for server in &args.servers {
        if let Some(source) = install::source_of(server) {
            failed |= !install_one(server, source, &root, verbose).await;
        }
    }
    if !uninstallable.is_empty() {
        let ids: Vec<&str> = uninstallable.iter().map(|(id, _)| id.as_str()).collect();
        eprintln!(
            "squiggle: still missing, not installable by squiggle: {}",
            ids.join(", ")
        );
    }
    if failed || !uninstallable.is_empty() {
        2
    } else {
        0
    }
}

/// With `--missing`, the servers to install become those the workspace's
/// files need and squiggle can install; the others are named (with what to
/// do) before anything is installed and returned, their absence failing
/// the run. `Err`: the exit code when there is nothing to install.
fn take_missing(args: &mut Args) -> Result<Vec<(String, String)>, u8> {
    if !args.missing {
        return Ok(Vec::new());
    }
    let found = missing(args).map_err(|e| {
        eprintln!("squiggle: {e}");
        2
    })?;
    args.servers = found.installable;
    let uninstallable = found.uninstallable;
    for (id, remedy) in &uninstallable {
        eprintln!("squiggle: {id} is missing and squiggle cannot install it: {remedy}");
    }
    if !args.servers.is_empty() {
        return Ok(uninstallable);
    }
    if uninstallable.is_empty() {
        eprintln!("squiggle: every server this workspace's files need is found");
        return Err(0);
    }
    eprintln!(
        "squiggle: nothing squiggle can install is missing; {} still missing (above)",
        uninstallable.len()
    );
    Err(2)
}

/// Installs `server` from `source` under `root`, saying what and where;
/// whether it was installed.
async fn install_one(server: &str, source: &'static Source, root: &Path, verbose: bool) -> bool {
    let what = match source {
        Source::Npm(p) => format!("{} from npm", describe(p)),
        Source::PyPi(p) => format!("{} from PyPI", describe(p)),
        Source::Elsewhere => String::new(),
    };
    if !what.is_empty() {
        eprintln!(
            "squiggle: installing {server}: {what} into {}",
            root.join(server).display()
        );
    }
    let server = server.to_string();
    let root = root.to_path_buf();
    let install = move || {
        let registry = crate::registry::builtin_servers();
        let spec = registry.iter().find(|s| s.id == server);
        let install = install::Install {
            server: &server,
            root: &root,
            verbose,
            hint: spec.map_or("", |s| s.install_hint.as_str()),
        };
        install.run(source)
    };
    let result = tokio::task::spawn_blocking(install)
        .await
        .unwrap_or_else(|e| Err(format!("the install task failed: {e}")));
    match result {
        Ok(()) => {
            eprintln!("squiggle: installed; `squiggle status` shows where it is found");
            true
        }
        Err(e) => {
            eprintln!("squiggle: {e}");
            false
        }
    }
}

/// What `--missing` found: servers squiggle installs, and the others with
/// what to do about each.
struct Missing {
    installable: Vec<String>,
    uninstallable: Vec<(String, String)>,
}

/// The servers that serve some file of the workspace and whose program is
/// not found, in registry order.
fn missing(args: &Args) -> Result<Missing, String> {
    let engine = args.workspace.engine(Default::default())?;
    let root = engine.workspace().root().to_path_buf();
    let path_var = std::env::var_os("PATH");
    let mut needed = std::collections::BTreeSet::new();
    let walk = ignore::WalkBuilder::new(&root).build().flatten();
    for entry in walk.take(MISSING_WALK_CAP) {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(found) = engine.servers_for(entry.path()) else {
            continue;
        };
        for candidate in found.candidates {
            needed.insert(candidate.server_id);
        }
    }
    let mut found = Missing {
        installable: Vec::new(),
        uninstallable: Vec::new(),
    };
    let missing = engine
        .servers()
        .iter()
        .filter(|s| needed.contains(&s.spec.id))
        .filter(|s| {
            crate::registry::toolchain::launch(&s.spec, &root, &root, path_var.as_deref()).is_none()
        });
    for server in missing {
        let id = server.spec.id.clone();
        let pinned = matches!(
            install::source_of(&id),
            Some(Source::Npm(_) | Source::PyPi(_))
        );
        if pinned && server.command_from.is_none() {
            found.installable.push(id);
        } else {
            found.uninstallable.push((id, server.remedy()));
        }
    }
    Ok(found)
}

fn describe(packages: &[(&str, &str)]) -> String {
    let names: Vec<String> = packages.iter().map(|(n, v)| format!("{n} {v}")).collect();
    names.join(", ")
}
