//! What every scenario needs: the machine line, the binaries next to this
//! one, a tokio runtime, and an engine whose `.fk` files go to the fake.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use squiggle::config::{Config, ServerOverride};
use squiggle::engine::Engine;
use squiggle::workspace::Workspace;

/// Prints the command line, date, machine and load: every table needs them.
pub fn print_machine() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown cpu".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let date = std::process::Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    println!("squiggle-bench {}", args.join(" "));
    println!(
        "{date}; {cpu}, {cores} cores; load average {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!();
}

/// A binary built next to this one (`squiggle`, `squiggle-fake-lsp`).
pub fn sibling(name: &str) -> Result<PathBuf> {
    let exe = std::env::current_exe().context("current_exe")?;
    let path = exe
        .parent()
        .context("executable without a directory")?
        .join(name);
    anyhow::ensure!(
        path.exists(),
        "{} not found; run `cargo build --release --bins` first",
        path.display()
    );
    Ok(path)
}

/// The runtime the engine runs on in the bench: two workers, as `squiggle`
/// itself uses, unless `SQUIGGLE_BENCH_WORKERS` says otherwise (to measure
/// what waking tasks across threads costs; see docs/performance.md).
pub fn runtime() -> Result<tokio::runtime::Runtime> {
    let workers = std::env::var("SQUIGGLE_BENCH_WORKERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .context("tokio runtime")
}

/// A directory removed when dropped (`tempfile` is only a dev-dependency).
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new() -> Result<TempDir> {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("squiggle-bench-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&path).with_context(|| format!("mkdir {}", path.display()))?;
        Ok(TempDir(path.canonicalize()?))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A canonical temp dir holding a `.git` (so it is a workspace root).
pub fn workspace_dir() -> Result<(TempDir, PathBuf)> {
    let tmp = TempDir::new()?;
    let root = tmp.path().to_path_buf();
    std::fs::create_dir_all(root.join(".git")).context("mkdir .git")?;
    Ok((tmp, root))
}

/// An engine at `root` whose `.fk` files are served by the fake with `script`.
pub fn fake_engine(root: &Path, script: serde_json::Value) -> Result<Arc<Engine>> {
    fake_engine_with(root, script, |_| {})
}

/// [`fake_engine`] with `tune` applied to its configuration.
pub fn fake_engine_with(
    root: &Path,
    script: serde_json::Value,
    tune: impl FnOnce(&mut Config),
) -> Result<Arc<Engine>> {
    let mut config = Config::default();
    config.servers.insert(
        "fake".into(),
        ServerOverride {
            command: Some(sibling("squiggle-fake-lsp")?.display().to_string()),
            extensions: Some(vec![".fk".into()]),
            language_id: Some("fake".into()),
            env: Some(BTreeMap::from([(
                "SQUIGGLE_FAKE_SCRIPT_JSON".to_string(),
                script.to_string(),
            )])),
            settle_ms: Some(0),
            ..Default::default()
        },
    );
    tune(&mut config);
    let workspace = Workspace::discover(Some(root), root).context("workspace")?;
    Ok(Arc::new(Engine::with(workspace, config)))
}

/// `.squiggle.toml` naming the fake (pull mode) and a user config under
/// `xdg/` trusting the workspace, as `tests/it/cli/hook.rs` sets them up.
pub fn fake_workspace_config(outer: &Path, root: &Path) -> Result<()> {
    let toml = format!(
        "[lsp.servers.fake]\ncommand = \"{}\"\nextensions = [\".fk\"]\nlanguageId = \"fake\"\nsettleMs = 0\nenv = {{ SQUIGGLE_FAKE_SCRIPT_JSON = '{{\"diagnosticMode\":\"pull\"}}' }}\n",
        sibling("squiggle-fake-lsp")?.display()
    );
    std::fs::write(root.join(".squiggle.toml"), toml)?;
    let user = outer.join("xdg/squiggle/config.toml");
    std::fs::create_dir_all(user.parent().unwrap_or(outer))?;
    std::fs::write(
        &user,
        format!("[lsp]\ntrustedWorkspaces = [\"{}\"]\n", root.display()),
    )?;
    Ok(())
}

/// A private runtime dir (0700) for the daemon's socket.
pub fn runtime_dir(outer: &Path) -> Result<PathBuf> {
    let dir = outer.join("run");
    if let Err(not) = squiggle::platform::paths::ensure_private_dir(&dir)? {
        anyhow::bail!("{} is not private: {not:?}", dir.display());
    }
    Ok(dir)
}

/// Resident set size in KiB and open fds of a process.
pub fn rss_and_fds(pid: u32) -> (u64, usize) {
    let rss = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0);
    let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count());
    (rss, fds)
}
