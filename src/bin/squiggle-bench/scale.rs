//! Scenario `scale`: squiggle over a generated monorepo of 1 to 200
//! packages (TypeScript and Python, [`generate`]) through the real daemon
//! and the real servers, an agent's edits spread over the packages. Per
//! size: live server instances and processes, the total RSS of the daemon
//! and everything under it (from `/proc`), warm edit latency, the first
//! edit in a package not touched before, the dependents scan, and whether a
//! signature change reported its importer in another package. Also three
//! git worktrees of one repository edited in turn, and a long session
//! printing the daemon's own RSS over thousands of edits ([`long`]).
//!
//! Each visit to a package makes three edits to one module that other
//! packages import: a body change, a signature change that breaks its
//! importers, and the revert. The first of them in a package never visited
//! is the "first edit in a package"; every other edit is warm.

mod generate;
mod long;
mod procs;
mod session;

use std::time::Duration;

use anyhow::{Result, ensure};

pub use generate::{Lang, Layout};
use generate::{Repo, Shape, generate};
use procs::{Tree, mib, tree};
use session::{Daemon, configure, edit, target_module, time_dependents_scan, visit_order};

use crate::fixtures::runtime;
use crate::stats::{Samples, ms};

/// The command line of `squiggle-bench scale`.
#[derive(clap::Args)]
pub struct Args {
    /// Package counts, comma-separated (0: none, to run only `--worktrees`).
    #[arg(long, value_delimiter = ',', default_value = "1,10,50,200")]
    sizes: Vec<usize>,
    /// Languages: ts, py.
    #[arg(long = "lang", value_delimiter = ',', default_value = "ts,py")]
    langs: Vec<String>,
    /// Layouts: declared (the root declares its packages), packages (it does not).
    #[arg(
        long = "layout",
        value_delimiter = ',',
        default_value = "declared,packages"
    )]
    layouts: Vec<String>,
    /// Files per package, MIN-MAX (spread deterministically).
    #[arg(long, default_value = "20-100")]
    files: String,
    /// Package visits per size, three edits each.
    #[arg(long, default_value_t = 8)]
    visits: usize,
    /// Packages of the three-worktree run (0 skips it).
    #[arg(long, default_value_t = 0)]
    worktrees: usize,
    /// A long session of this many edits over every package of the first
    /// size, language and layout instead (0: none), printing the daemon's RSS.
    #[arg(long, default_value_t = 0)]
    long: usize,
    /// Long session: a row every this many edits.
    #[arg(long, default_value_t = 250)]
    every: usize,
}

/// What to run, parsed from [`Args`].
pub struct Options {
    pub sizes: Vec<usize>,
    pub langs: Vec<Lang>,
    pub layouts: Vec<Layout>,
    pub min_files: usize,
    pub max_files: usize,
    /// Package visits per size; three edits each.
    pub visits: usize,
    /// Packages in the three-worktree run; 0 skips it.
    pub worktree_packages: usize,
    /// Edits of the long session; 0 skips it.
    pub long_edits: usize,
    pub every: usize,
}

impl Options {
    pub fn parse(args: Args) -> Result<Options> {
        let files = args.files.as_str();
        let (min, max) = files.split_once('-').unwrap_or((files, files));
        let number = |s: &str| {
            s.trim()
                .parse::<usize>()
                .map_err(|_| anyhow::anyhow!("--files {files:?}: expected MIN-MAX, like 20-100"))
        };
        let (min_files, max_files) = (number(min)?, number(max)?);
        ensure!(
            min_files >= 4 && max_files >= min_files,
            "--files {files:?}: expected MIN-MAX with 4 <= MIN <= MAX"
        );
        Ok(Options {
            sizes: args.sizes,
            langs: args
                .langs
                .iter()
                .map(|l| Lang::parse(l))
                .collect::<Result<_>>()?,
            layouts: args
                .layouts
                .iter()
                .map(|l| Layout::parse(l))
                .collect::<Result<_>>()?,
            min_files,
            max_files,
            visits: args.visits,
            worktree_packages: args.worktrees,
            long_edits: args.long,
            every: args.every,
        })
    }
}

/// One size's numbers.
#[derive(Default)]
struct Row {
    lang: &'static str,
    layout: &'static str,
    packages: usize,
    files: usize,
    peak: Tree,
    end: Tree,
    cold: Samples,
    first_in_package: Samples,
    warm: Samples,
    /// Per warm edit, how many other files were checked with it.
    warm_checked: Vec<usize>,
    scan: Samples,
    scanned: usize,
    breaks: usize,
    cross_reported: usize,
    stale: usize,
    slowest_visit: Duration,
    /// Per edit, the edited file's own diagnostics (to compare layouts).
    own: Vec<Vec<String>>,
}

pub fn run(opts: &Options) -> Result<()> {
    ensure!(
        opts.min_files >= 4 && opts.max_files >= opts.min_files,
        "--files must be MIN-MAX with 4 <= MIN <= MAX"
    );
    if opts.long_edits > 0 {
        return long::run(opts);
    }
    let rt = runtime()?;
    let mut rows = Vec::new();
    for &lang in &opts.langs {
        for &layout in &opts.layouts {
            for &packages in opts.sizes.iter().filter(|&&n| n > 0) {
                let shape = Shape {
                    lang,
                    layout,
                    packages,
                    min_files: opts.min_files,
                    max_files: opts.max_files,
                };
                let row = rt.block_on(one_size(shape, opts.visits))?;
                eprintln!(
                    "scale: {} {} {} packages done",
                    lang.name(),
                    layout.name(),
                    packages
                );
                print_row_header_once(rows.is_empty());
                print_row(&row);
                rows.push(row);
            }
        }
    }
    compare_layouts(&rows);
    if opts.worktree_packages > 0 {
        for &lang in &opts.langs {
            rt.block_on(long::worktrees(lang, opts))?;
        }
    }
    Ok(())
}

async fn one_size(shape: Shape, visits: usize) -> Result<Row> {
    let tmp = crate::fixtures::TempDir::new()?;
    let outer = tmp.path().to_path_buf();
    let repo = generate(&outer.join("mono"), shape)?;
    configure(&outer, std::slice::from_ref(&repo.root))?;
    let mut daemon = Daemon::start(&outer, &repo.root).await?;
    let result = drive(&mut daemon, &repo, visits).await;
    let end = tree(daemon.pid);
    daemon.stop().await?;
    let mut row = result?;
    row.end = end;
    Ok(row)
}

/// The visits of one run, into `row`.
async fn drive(daemon: &mut Daemon, repo: &Repo, visits: usize) -> Result<Row> {
    let mut row = Row {
        lang: repo.shape.lang.name(),
        layout: repo.shape.layout.name(),
        packages: repo.shape.packages,
        files: repo.modules.iter().map(|m| m + 1).sum(),
        ..Row::default()
    };
    let mut visited = vec![false; repo.shape.packages];
    for (v, p) in visit_order(repo.shape.packages, visits)
        .into_iter()
        .enumerate()
    {
        let k = target_module(repo, p, v);
        let started = std::time::Instant::now();
        let salt = v + 1;
        let body = edit(daemon, repo, p, k, 0, salt).await?;
        row.own.push(body.own.clone());
        match (v, visited[p]) {
            (0, _) => row.cold.push(body.elapsed),
            (_, false) => row.first_in_package.push(body.elapsed),
            _ => {
                row.warm.push(body.elapsed);
                row.warm_checked.push(body.others_checked);
            }
        }
        visited[p] = true;
        let broken = edit(daemon, repo, p, k, 1, salt).await?;
        row.warm.push(broken.elapsed);
        row.warm_checked.push(broken.others_checked);
        row.own.push(broken.own.clone());
        if !repo.cross_importers(p, k).is_empty() {
            row.breaks += 1;
            row.cross_reported += usize::from(broken.cross_reported > 0);
        }
        let (scan, found) = time_dependents_scan(repo, &repo.module_path(p, k))?;
        row.scan.push(scan);
        row.scanned = row.scanned.max(found);
        let fixed = edit(daemon, repo, p, k, 0, salt).await?;
        row.warm.push(fixed.elapsed);
        row.warm_checked.push(fixed.others_checked);
        row.own.push(fixed.own.clone());
        row.stale += usize::from(fixed.errors > 0);
        row.slowest_visit = row.slowest_visit.max(started.elapsed());
        let now = tree(daemon.pid);
        row.peak = Tree {
            daemon_kib: row.peak.daemon_kib.max(now.daemon_kib),
            instances: row.peak.instances.max(now.instances),
            processes: row.peak.processes.max(now.processes),
            total_kib: row.peak.total_kib.max(now.total_kib),
            largest_instance_kib: row.peak.largest_instance_kib.max(now.largest_instance_kib),
        };
    }
    Ok(row)
}

/// Whether the same edits gave the edited files the same diagnostics with
/// one instance at the declared root and with one per package.
fn compare_layouts(rows: &[Row]) {
    for a in rows.iter().filter(|r| r.layout == "declared") {
        let Some(b) = rows
            .iter()
            .find(|b| b.layout == "packages" && b.lang == a.lang && b.packages == a.packages)
        else {
            continue;
        };
        let same = a.own.iter().zip(&b.own).filter(|(x, y)| x == y).count();
        let with_errors = a.own.iter().filter(|d| !d.is_empty()).count();
        println!(
            "{} {} packages: edited file's diagnostics identical in both layouts for {same}/{} edits ({with_errors} of them with diagnostics)",
            a.lang,
            a.packages,
            a.own.len().min(b.own.len())
        );
    }
}

fn print_row_header_once(first: bool) {
    if !first {
        return;
    }
    println!(
        "| lang | layout | packages | files | instances (peak) | processes (peak) | total RSS peak | daemon RSS end | largest instance | first edit (cold daemon) | first edit in a new package, median (n) | warm median | warm p95 (n) | other files checked per warm edit, median | dependents scan median / p95 | cross-package importer reported | stale after revert |"
    );
    println!(
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
    );
}

/// The median of counts (the lower middle), `-` when there are none.
fn median_count(counts: &[usize]) -> String {
    let mut sorted = counts.to_vec();
    sorted.sort_unstable();
    match sorted.len() {
        0 => "-".into(),
        n => sorted[(n - 1) / 2].to_string(),
    }
}

fn print_row(r: &Row) {
    println!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} ({}) | {} | {} ({}) | {} | {} / {} | {}/{} | {} |",
        r.lang,
        r.layout,
        r.packages,
        r.files,
        r.peak.instances,
        r.peak.processes,
        mib(r.peak.total_kib),
        mib(r.end.daemon_kib),
        mib(r.peak.largest_instance_kib),
        ms(r.cold.median()),
        ms(r.first_in_package.median()),
        r.first_in_package.len(),
        ms(r.warm.median()),
        ms(r.warm.p95()),
        r.warm.len(),
        median_count(&r.warm_checked),
        ms(r.scan.median()),
        ms(r.scan.p95()),
        r.cross_reported,
        r.breaks,
        r.stale,
    );
}
