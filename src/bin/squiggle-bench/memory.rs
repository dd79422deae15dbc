//! Scenario 4b: a daemon's resident memory and open file descriptors over
//! many edits (10 files edited in turn, each check through the socket as a
//! hook makes it), sampled every `every` edits: flat means no leak.

use std::time::Instant;

use anyhow::{Context, Result};
use squiggle::daemon::client::{Options, stop, try_connect_or_spawn};
use squiggle::engine::Mutation;

use crate::fixtures::{fake_workspace_config, rss_and_fds, runtime, runtime_dir, sibling};
use crate::stats::{Samples, ms};

pub fn run(edits: usize, every: usize) -> Result<()> {
    let rt = runtime()?;
    let tmp = crate::fixtures::TempDir::new()?;
    let outer = tmp.path().to_path_buf();
    let root = outer.join("ws");
    std::fs::create_dir_all(root.join(".git"))?;
    fake_workspace_config(&outer, &root)?;
    let opts = Options {
        exe: sibling("squiggle")?,
        trust_workspace: true,
        runtime_dir: Some(runtime_dir(&outer)?),
        env: vec![("SQUIGGLE_DAEMON_IDLE_MS".into(), "600000".into())],
    };
    let files: Vec<_> = (0..10).map(|i| root.join(format!("f{i}.fk"))).collect();
    let result = rt.block_on(async {
        let mut connection = try_connect_or_spawn(&root, &opts).await?;
        let status = connection.status().await?;
        let pid = status.pid;
        println!("| edits | daemon RSS | daemon fds | fake server RSS | check median over the last {every} |");
        println!("| --- | --- | --- | --- | --- |");
        let mut window = Samples::default();
        for n in 0..=edits {
            let file = &files[n % files.len()];
            std::fs::write(file, format!("x = {n} @error(edit {n})\n"))?;
            let t = Instant::now();
            let reply = connection.check(std::slice::from_ref(file), Mutation::Edit).await?;
            window.push(t.elapsed());
            anyhow::ensure!(reply.feedback.contains(&format!("edit {n}")), "no diagnostic for edit {n}");
            if n % every == 0 {
                let (rss, fds) = rss_and_fds(pid);
                let server = connection
                    .status()
                    .await?
                    .servers
                    .iter()
                    .find_map(|s| s.server_pid)
                    .map_or(0, |p| rss_and_fds(p).0);
                println!(
                    "| {n} | {:.1} MiB | {fds} | {:.1} MiB | {} |",
                    rss as f64 / 1024.0,
                    server as f64 / 1024.0,
                    ms(window.median())
                );
                window = Samples::default();
            }
        }
        anyhow::Ok(())
    });
    rt.block_on(stop(&root, &opts)).context("daemon stop")?;
    result
}
