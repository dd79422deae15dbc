//! `squiggle install <server>…`: the command-line face of `crate::install`.
//! Progress goes to stderr; the package managers' own output is shown on a
//! terminal and kept back when stderr is piped (shown only on failure).
//! Exit 0 when every server was installed, 2 otherwise.

use std::io::IsTerminal;
use std::path::PathBuf;

use crate::install::{self, Source};

#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    /// Server ids to install (as `squiggle status` names them).
    #[arg(required = true)]
    pub servers: Vec<String>,
    /// Install into DIR instead of squiggle's servers directory
    /// ($SQUIGGLE_SERVERS_DIR, else $XDG_DATA_HOME/squiggle/servers). Server
    /// lookup reads only the default directory.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub async fn run(args: Args) -> u8 {
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
        let Some(source) = install::source_of(server) else {
            continue;
        };
        let what = match source {
            Source::Npm(p) => format!("{} from npm", describe(p)),
            Source::PyPi(p) => format!("{} from PyPI", describe(p)),
            Source::Elsewhere(_) => String::new(),
        };
        if !what.is_empty() {
            eprintln!(
                "squiggle: installing {server}: {what} into {}",
                root.join(server).display()
            );
        }
        let server = server.clone();
        let root2 = root.clone();
        let result =
            tokio::task::spawn_blocking(move || install::install(&server, source, &root2, verbose))
                .await
                .unwrap_or_else(|e| Err(format!("the install task failed: {e}")));
        match result {
            Ok(()) => eprintln!("squiggle: installed; `squiggle status` shows where it is found"),
            Err(e) => {
                eprintln!("squiggle: {e}");
                failed = true;
            }
        }
    }
    if failed { 2 } else { 0 }
}

fn describe(packages: &[(&str, &str)]) -> String {
    let names: Vec<String> = packages.iter().map(|(n, v)| format!("{n} {v}")).collect();
    names.join(", ")
}
