//! The two longer runs of `scale`: three git worktrees of one repository
//! edited in turn (one daemon each, as agents in worktrees get), and a long
//! session of thousands of edits over every package that prints the
//! daemon's own RSS as it goes — flat within 10% after warm-up is the
//! target of the Scale issue's bounded-squiggle item.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, ensure};

use super::Options;
use super::generate::{Lang, Repo, Shape, generate};
use super::procs::{Tree, mib, tree};
use super::session::{Daemon, configure, edit, target_module, visit_order};
use crate::fixtures::runtime;
use crate::stats::{Samples, ms};

/// Three worktrees of one generated repository (the first layout given),
/// visited in turn, three edits per visit.
pub async fn worktrees(lang: Lang, opts: &Options) -> Result<()> {
    let tmp = crate::fixtures::TempDir::new()?;
    let outer = tmp.path().to_path_buf();
    let shape = Shape {
        lang,
        layout: opts
            .layouts
            .first()
            .copied()
            .unwrap_or(super::Layout::Declared),
        packages: opts.worktree_packages,
        min_files: opts.min_files,
        max_files: opts.max_files,
    };
    let repos = three_worktrees(&outer, shape)?;
    let roots: Vec<_> = repos.iter().map(|r| r.root.clone()).collect();
    configure(&outer, &roots)?;
    let mut daemons = Vec::new();
    for root in &roots {
        daemons.push(Daemon::start(&outer, root).await?);
    }
    let (mut first_edit, mut warm) = (Samples::default(), Samples::default());
    let mut peak = Tree::default();
    let mut seen = [false; 3];
    let order = visit_order(shape.packages, opts.visits);
    for (v, p) in order.into_iter().enumerate() {
        let w = v % 3;
        let (repo, daemon) = (&repos[w], &mut daemons[w]);
        let k = target_module(repo, p, v);
        for (step, extra) in [0, 1, 0].into_iter().enumerate() {
            let e = edit(daemon, repo, p, k, extra, v + 1).await?;
            match (seen[w], step) {
                (false, 0) => first_edit.push(e.elapsed),
                _ => warm.push(e.elapsed),
            }
        }
        seen[w] = true;
        let now = daemons
            .iter()
            .map(|d| tree(d.pid))
            .fold(Tree::default(), Tree::add);
        if now.total_kib > peak.total_kib {
            peak = now;
        }
    }
    for daemon in daemons {
        daemon.stop().await?;
    }
    println!();
    println!(
        "three worktrees of one {} repository ({} packages, layout {}), visited in turn, {} visits:",
        lang.name(),
        shape.packages,
        shape.layout.name(),
        opts.visits
    );
    println!(
        "| daemons | instances | processes | total RSS at peak | daemons' RSS | first edit per worktree, median (n) | warm median | warm p95 (n) |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    println!(
        "| 3 | {} | {} | {} | {} | {} ({}) | {} | {} ({}) |",
        peak.instances,
        peak.processes,
        mib(peak.total_kib),
        mib(peak.daemon_kib),
        ms(first_edit.median()),
        first_edit.len(),
        ms(warm.median()),
        ms(warm.p95()),
        warm.len()
    );
    Ok(())
}

/// The generated repository committed at `outer/wt1`, and two more
/// worktrees of it at `wt2` and `wt3`.
fn three_worktrees(outer: &Path, shape: Shape) -> Result<Vec<Repo>> {
    let main = outer.join("wt1");
    let first = generate(&main, shape)?;
    std::fs::remove_dir_all(main.join(".git"))?;
    git(&main, &["init", "-q"])?;
    git(&main, &["add", "-A"])?;
    git(
        &main,
        &[
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@localhost",
            "commit",
            "-qm",
            "generated",
        ],
    )?;
    let mut repos = vec![first];
    for n in 2..=3 {
        let dir = outer.join(format!("wt{n}"));
        git(
            &main,
            &[
                "worktree",
                "add",
                "-q",
                "--detach",
                &dir.display().to_string(),
            ],
        )?;
        repos.push(Repo {
            root: dir,
            shape,
            modules: repos[0].modules.clone(),
        });
    }
    Ok(repos)
}

fn git(dir: &Path, args: &[&str]) -> Result<()> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .context("run git")?;
    ensure!(
        out.status.success(),
        "git {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}

/// `long_edits` edits over every package of the first size, language and
/// layout given: each visit edits the next module of the next package
/// (so thousands of files are touched), every fifth visit breaks and
/// reverts a signature importers depend on. Prints a row every `every`
/// edits and the daemon's RSS growth after warm-up.
pub fn run(opts: &Options) -> Result<()> {
    let shape = Shape {
        lang: opts.langs.first().copied().unwrap_or(Lang::Ts),
        layout: opts
            .layouts
            .first()
            .copied()
            .unwrap_or(super::Layout::Declared),
        packages: opts.sizes.first().copied().unwrap_or(200),
        min_files: opts.min_files,
        max_files: opts.max_files,
    };
    let rt = runtime()?;
    let tmp = crate::fixtures::TempDir::new()?;
    let outer = tmp.path().to_path_buf();
    let repo = generate(&outer.join("mono"), shape)?;
    configure(&outer, std::slice::from_ref(&repo.root))?;
    rt.block_on(async {
        let mut daemon = Daemon::start(&outer, &repo.root).await?;
        let result = session(&mut daemon, &repo, opts).await;
        daemon.stop().await?;
        result
    })
}

async fn session(daemon: &mut Daemon, repo: &Repo, opts: &Options) -> Result<()> {
    let every = opts.every.max(1);
    println!(
        "long session: {} {} packages (layout {}), {} edits",
        repo.shape.lang.name(),
        repo.shape.packages,
        repo.shape.layout.name(),
        opts.long_edits
    );
    println!(
        "| edits | daemon RSS | instances | processes | total RSS | edit median over the window | p95 |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    let order = visit_order(repo.shape.packages, repo.shape.packages);
    let (mut window, mut edits, mut v) = (Samples::default(), 0usize, 0usize);
    let mut daemon_rss: Vec<(usize, u64)> = Vec::new();
    while edits < opts.long_edits {
        let p = order[v % order.len()];
        let round = v / order.len();
        let plan: Vec<(usize, usize)> = if v % 5 == 4 {
            let k = target_module(repo, p, round);
            vec![(k, 1), (k, 0)]
        } else {
            vec![(round % repo.modules[p], 0)]
        };
        for (k, extra) in plan {
            let e = edit(daemon, repo, p, k, extra, v + 1).await?;
            window.push(e.elapsed);
            edits += 1;
            if edits % every == 0 || edits == opts.long_edits {
                let t = tree(daemon.pid);
                daemon_rss.push((edits, t.daemon_kib));
                println!(
                    "| {edits} | {} | {} | {} | {} | {} | {} |",
                    mib(t.daemon_kib),
                    t.instances,
                    t.processes,
                    mib(t.total_kib),
                    ms(window.median()),
                    ms(window.p95())
                );
                window = Samples::default();
            }
        }
        v += 1;
    }
    // Warm-up: the first fifth of the samples (at least one).
    let skip = (daemon_rss.len() / 5).max(1);
    if let Some(&(at, base)) = daemon_rss.get(skip - 1) {
        let max = daemon_rss[skip - 1..]
            .iter()
            .map(|&(_, k)| k)
            .max()
            .unwrap_or(base);
        let last = daemon_rss.last().map_or(base, |&(_, k)| k);
        println!();
        println!(
            "daemon RSS after warm-up (edit {at}): {}; highest since {}; at the end {} ({:+.1}% over the warm-up value at its highest)",
            mib(base),
            mib(max),
            mib(last),
            (max as f64 / base.max(1) as f64 - 1.0) * 100.0
        );
    }
    Ok(())
}
