//! One daemon over one generated monorepo, and the agent's edits through it:
//! each edit writes a module and asks the daemon to check it with its
//! dependents, as a hook does after a `write`. What each edit found is kept
//! for the tables: its time, whether an importer in another package was
//! reported, and whether an error outlived its revert. With
//! `SQUIGGLE_BENCH_VERBOSE=1` each edit's other files and their wait
//! outcomes go to stderr; `SQUIGGLE_BENCH_CONFIG` is appended to each
//! workspace's `.squiggle.toml`; with `SQUIGGLE_BENCH_LOGS=DIR` each daemon's log
//! (`RUST_LOG` decides what it holds) is copied into `DIR` when it stops.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use squiggle::daemon::client::{Connection, Options, stop, try_connect_or_spawn};
use squiggle::diagnostic::Severity;
use squiggle::engine::Mutation;
use squiggle::engine::tools::ToolResult;

use super::generate::{Lang, Repo};
use crate::fixtures::{runtime_dir, sibling};

/// A running daemon for `root`.
pub struct Daemon {
    pub root: PathBuf,
    pub pid: u32,
    opts: Options,
    connection: Connection,
}

impl Daemon {
    /// Starts the daemon for `root` (configured by [`configure`]).
    pub async fn start(outer: &Path, root: &Path) -> Result<Daemon> {
        let opts = Options {
            exe: sibling("squiggle")?,
            trust_workspace: true,
            runtime_dir: Some(runtime_dir(outer)?),
            env: vec![
                ("XDG_CONFIG_HOME".into(), outer.join("xdg").into()),
                ("SQUIGGLE_DAEMON_IDLE_MS".into(), "3600000".into()),
            ],
        };
        let mut connection = try_connect_or_spawn(root, &opts)
            .await
            .with_context(|| format!("daemon for {}", root.display()))?;
        let pid = connection.status().await?.pid;
        Ok(Daemon {
            root: root.to_path_buf(),
            pid,
            opts,
            connection,
        })
    }

    pub async fn check(&mut self, file: &Path) -> Result<ToolResult> {
        Ok(self
            .connection
            .check(std::slice::from_ref(&file.to_path_buf()), Mutation::Write)
            .await?)
    }

    pub async fn stop(self) -> Result<()> {
        stop(&self.root, &self.opts).await.context("daemon stop")?;
        if let (Some(keep), Some(dir)) = (
            std::env::var_os("SQUIGGLE_BENCH_LOGS"),
            self.opts.runtime_dir.as_ref(),
        ) {
            keep_logs(&dir.join("squiggle"), Path::new(&keep), self.pid)?;
        }
        Ok(())
    }
}

/// Copies the daemon logs in `from` to `to`, each name prefixed with the
/// pid of the daemon that stopped last.
fn keep_logs(from: &Path, to: &Path, pid: u32) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("mkdir {}", to.display()))?;
    for entry in std::fs::read_dir(from).with_context(|| format!("read {}", from.display()))? {
        let path = entry?.path();
        if let Some(file) = path
            .file_name()
            .filter(|_| path.extension().is_some_and(|e| e == "log"))
        {
            let name = format!("{pid}-{}", file.to_string_lossy());
            std::fs::copy(&path, to.join(&name))
                .with_context(|| format!("copy {} to {}", path.display(), name))?;
        }
    }
    Ok(())
}

/// A user config under `outer` trusting `roots`, and in each root a
/// workspace config giving cold servers room: the first check in a
/// 200-package root loads far more than one file's default budget allows.
pub fn configure(outer: &Path, roots: &[PathBuf]) -> Result<()> {
    // `SQUIGGLE_BENCH_CONFIG`: more workspace configuration, appended (to
    // measure another server, say).
    let extra = std::env::var("SQUIGGLE_BENCH_CONFIG").unwrap_or_default();
    for root in roots {
        std::fs::write(
            root.join(".squiggle.toml"),
            format!("[lsp]\ndiagnosticTimeout = 20000\nfirstTouchTimeout = 120000\n{extra}"),
        )?;
    }
    let user = outer.join("xdg/squiggle/config.toml");
    std::fs::create_dir_all(user.parent().unwrap_or(outer))?;
    let list: Vec<String> = roots
        .iter()
        .map(|r| format!("{:?}", r.display().to_string()))
        .collect();
    std::fs::write(
        &user,
        format!("[lsp]\ntrustedWorkspaces = [{}]\n", list.join(", ")),
    )?;
    Ok(())
}

/// What one edit measured.
pub struct Edit {
    pub elapsed: Duration,
    /// Other packages' files with diagnostics in the reply.
    pub cross_reported: usize,
    /// Errors anywhere in the reply (edited file and others).
    pub errors: usize,
    /// Other files checked (the importers the edit may break).
    pub others_checked: usize,
    /// The edited file's own diagnostics, as `line:col severity message`.
    pub own: Vec<String>,
}

/// Writes module `k` of package `p` (its function taking `extra` more
/// parameters than callers pass) and checks it through the daemon.
pub async fn edit(
    daemon: &mut Daemon,
    repo: &Repo,
    p: usize,
    k: usize,
    extra: usize,
    salt: usize,
) -> Result<Edit> {
    let path = repo.module_path(p, k);
    std::fs::write(&path, repo.module_text(p, k, extra, salt))
        .with_context(|| format!("write {}", path.display()))?;
    let started = Instant::now();
    let reply = squiggle::engine::CheckReport::from(daemon.check(&path).await?);
    let elapsed = started.elapsed();
    let own = format!("packages/{}/", Repo::package_name(p));
    let is_error = |d: &&squiggle::diagnostic::Diagnostic| d.severity == Severity::Error;
    let cross_reported = reply
        .others
        .iter()
        .filter(|(file, diagnostics)| {
            let own_package = file.starts_with(&own) || file.contains(&format!("/{own}"));
            !own_package && diagnostics.iter().any(|d| is_error(&d))
        })
        .count();
    let errors: Vec<&squiggle::diagnostic::Diagnostic> = reply
        .files
        .iter()
        .flat_map(|f| &f.diagnostics)
        .chain(reply.others.values().flatten())
        .filter(is_error)
        .collect();
    if std::env::var_os("SQUIGGLE_BENCH_VERBOSE").is_some() {
        let others: Vec<(&String, usize)> =
            reply.others.iter().map(|(f, d)| (f, d.len())).collect();
        eprintln!(
            "edit of {} (extra {extra}): {} errors; others {others:?}; outcomes {:?}",
            path.display(),
            errors.len(),
            reply
                .other_outcomes
                .iter()
                .map(|(f, o)| format!("{f}: {o:?}"))
                .collect::<Vec<_>>()
        );
    }
    Ok(Edit {
        elapsed,
        cross_reported,
        others_checked: reply.other_outcomes.len(),
        errors: errors.len(),
        own: reply
            .files
            .iter()
            .flat_map(|f| &f.diagnostics)
            .map(|d| format!("{}:{} {:?} {}", d.line, d.column, d.severity, d.message))
            .collect(),
    })
}

/// The packages in the order an agent visits them: a fixed shuffle, so
/// consecutive visits land in unrelated packages.
pub fn visit_order(packages: usize, visits: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..packages).collect();
    let mut state: u64 = 0x5eed_1234_abcd_0001;
    for i in (1..order.len()).rev() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        order.swap(i, (state >> 33) as usize % (i + 1));
    }
    (0..visits).map(|v| order[v % packages.max(1)]).collect()
}

/// The module a visit to `p` edits: one that other packages import when
/// there is one, so its signature change has importers to break.
pub fn target_module(repo: &Repo, p: usize, visit: usize) -> usize {
    let crossing: Vec<usize> = (0..repo.modules[p])
        .filter(|&j| !repo.cross_importers(p, j).is_empty())
        .collect();
    match crossing.is_empty() {
        true => visit % repo.modules[p],
        false => crossing[visit % crossing.len()],
    }
}

/// The dependents scan the daemon runs for `file`, timed in this process:
/// the same function over the same root the daemon's server uses (the
/// daemon does not report the scan's own time).
pub fn time_dependents_scan(repo: &Repo, file: &Path) -> Result<(Duration, usize)> {
    let id = match repo.shape.lang {
        Lang::Ts => "typescript-language-server",
        Lang::Py => "pyright",
    };
    let servers = squiggle::registry::builtin_servers();
    let spec = servers
        .iter()
        .find(|s| s.id == id)
        .with_context(|| format!("{id} not in the registry"))?;
    let root = squiggle::workspace::server_root(
        file,
        &repo.root,
        &spec.root_markers,
        spec.root_strategy,
        &spec.declared_roots,
    );
    let ext = match repo.shape.lang {
        Lang::Ts => "ts",
        Lang::Py => "py",
    };
    let serves = |p: &Path| p.extension().is_some_and(|e| e == ext);
    let started = Instant::now();
    let found = squiggle::engine::dependents::likely_dependents(file, &root, serves);
    let elapsed = started.elapsed();
    ensure!(
        found.len() <= squiggle::engine::dependents::MAX_DEPENDENTS,
        "more dependents than the cap"
    );
    Ok((elapsed, found.len()))
}
