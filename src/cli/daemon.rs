//! `squiggle daemon start|stop|status`: manage the per-workspace daemon
//! (`src/daemon/`). `daemon run` (hidden) is the daemon itself, in the
//! foreground; `start` runs it detached and returns once it listens.

use std::path::{Path, PathBuf};

use crate::daemon::client::{self, Options};
use crate::daemon::{DaemonError, server};
use crate::engine::status_line::{kib, row_line};

#[derive(clap::Args, Debug, Clone)]
pub struct Args {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(clap::Args, Debug, Clone)]
pub struct Common {
    /// Workspace root (default: the git top-level, else the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// The daemon that honours the workspace's `command`/`args`/`env`
    /// (trusted and untrusted daemons are separate).
    #[arg(long)]
    pub trust_workspace: bool,
}

#[derive(clap::Args, Debug, Clone)]
pub struct StatusArgs {
    #[command(flatten)]
    pub common: Common,
    /// Print the daemon's status as JSON (`{"running": false}` when none).
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug, Clone)]
pub struct StartArgs {
    #[command(flatten)]
    pub common: Common,
    /// Also warm its servers and survey the workspace's files (as a
    /// session start does), and return when that has ended.
    #[arg(long)]
    pub warm: bool,
}

#[derive(clap::Subcommand, Debug, Clone)]
pub enum Action {
    /// Start the daemon for the workspace unless one is running.
    Start(StartArgs),
    /// Stop the workspace's daemon and wait for it to exit.
    Stop(Common),
    /// Show the workspace's daemon: pid, uptime, requests, memory, and its
    /// server instances with their memory and idle time.
    Status(StatusArgs),
    /// Be the daemon, in the foreground.
    #[command(hide = true)]
    Run(Common),
}

pub async fn run(args: Args) -> u8 {
    match args.action {
        Action::Run(common) => {
            let opts = server::Options {
                root: common.root,
                trust_workspace: common.trust_workspace,
                runtime_dir: None,
            };
            match server::run(opts).await {
                Ok(ended) => {
                    tracing::debug!(?ended, "daemon ended");
                    0
                }
                Err(e) => {
                    eprintln!("squiggle daemon: {e}");
                    2
                }
            }
        }
        Action::Start(StartArgs { common, warm }) => {
            let (root, opts) = setup(&common);
            if warm {
                return match client::warm_and_wait(&root, &opts).await {
                    Ok(surveyed) => {
                        crate::outln!(
                            "daemon for {} warm; {surveyed} file(s) surveyed",
                            shown(&root, &opts)
                        );
                        0
                    }
                    Err(e) => fail(e),
                };
            }
            match client::try_connect_or_spawn(&root, &opts).await {
                Ok(mut connection) => match connection.status().await {
                    Ok(status) => {
                        crate::outln!(
                            "daemon for {} running (pid {})",
                            status.workspace.display(),
                            status.pid
                        );
                        0
                    }
                    Err(e) => fail(e),
                },
                Err(e) => fail(e),
            }
        }
        Action::Stop(common) => {
            let (root, opts) = setup(&common);
            match client::stop(&root, &opts).await {
                Ok(pid) => {
                    crate::outln!("daemon for {} stopped (pid {pid})", shown(&root, &opts));
                    0
                }
                Err(DaemonError::NotRunning(root)) => {
                    crate::outln!("no daemon for {}", root.display());
                    0
                }
                Err(e) => fail(e),
            }
        }
        Action::Status(args) => status(args).await,
    }
}

/// `daemon status`, as text or `--json`.
async fn status(args: StatusArgs) -> u8 {
    let (root, opts) = setup(&args.common);
    match client::status(&root, &opts).await {
        Ok(status) if args.json => {
            let mut value = serde_json::to_value(&status).unwrap_or_default();
            value["running"] = serde_json::Value::Bool(true);
            crate::outln!(
                "{}",
                serde_json::to_string_pretty(&value).unwrap_or_default()
            );
            0
        }
        Ok(status) => {
            print_status(&status);
            0
        }
        Err(DaemonError::NotRunning(root)) if args.json => {
            let value = serde_json::json!({ "running": false, "workspace": root });
            crate::outln!(
                "{}",
                serde_json::to_string_pretty(&value).unwrap_or_default()
            );
            0
        }
        Err(DaemonError::NotRunning(root)) => {
            crate::outln!("no daemon for {}", root.display());
            0
        }
        Err(e) => fail(e),
    }
}

fn setup(common: &Common) -> (PathBuf, Options) {
    let root = common.root.clone().unwrap_or_else(|| {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        crate::workspace::Workspace::discover(None, &cwd)
            .map(|w| w.root().to_path_buf())
            .unwrap_or(cwd)
    });
    let opts = Options {
        trust_workspace: common.trust_workspace,
        ..Options::default()
    };
    (root, opts)
}

fn shown(root: &Path, opts: &Options) -> String {
    opts.locate(root)
        .map(|(r, _)| r.display().to_string())
        .unwrap_or_else(|_| root.display().to_string())
}

fn fail(e: DaemonError) -> u8 {
    eprintln!("squiggle daemon: {e}");
    2
}

fn print_status(status: &crate::daemon::DaemonStatus) {
    let pool = &status.pool;
    crate::outln!("daemon for {}", status.workspace.display());
    crate::outln!("  pid        {}", status.pid);
    crate::outln!("  uptime     {}s", status.uptime_secs);
    crate::outln!("  requests   {}", status.requests);
    crate::outln!("  trusted    {}", status.trusted);
    crate::outln!("  idle after {}", idle_words(status.idle_timeout_ms));
    crate::outln!(
        "  memory     {} (servers {})",
        kib(status.rss_kb),
        kib(pool.servers_rss_kb)
    );
    crate::outln!(
        "  instances  {} live, at most {} per server; over the cap {} time(s) (by at most {}); {} evicted, {} stopped idle",
        pool.live,
        pool.cap,
        pool.over_cap_moments,
        pool.max_over_cap,
        pool.evictions,
        pool.idle_stops
    );
    for s in status.servers.iter().filter(|s| s.root.is_some()) {
        crate::outln!("  server     {:<24} {}", s.id, row_line(s));
    }
}

/// An idle time as a person reads it: whole minutes or seconds when it is
/// one (`30 min`, `90 s`), else milliseconds.
fn idle_words(ms: u64) -> String {
    match ms {
        0 => "0 s".to_string(),
        ms if ms % 60_000 == 0 => format!("{} min", ms / 60_000),
        ms if ms % 1_000 == 0 => format!("{} s", ms / 1_000),
        ms => format!("{ms} ms"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn idle_times_are_said_in_minutes_or_seconds() {
        assert_eq!(super::idle_words(1_800_000), "30 min");
        assert_eq!(super::idle_words(90_000), "90 s");
        assert_eq!(super::idle_words(1_500), "1500 ms");
    }
}
