//! `squiggle-bench`: the numbers in `docs/performance.md`, one scenario per
//! subcommand. Every scenario repeats its measurement and prints median and
//! p95; comparisons are interleaved in one run (A, B, A, B, ...) so machine
//! load falls on both sides alike, and printed as ratios of the medians.
//!
//! Run: `cargo run --release --bin squiggle-bench -- <scenario> [options]`.
//! The fake server and the `squiggle` binary are taken from next to this
//! executable, so build all binaries first (`cargo build --release --bins`).

mod fixtures;
mod hook;
mod memory;
mod overhead;
mod prewarm;
mod projects;
mod real;
mod scale;
mod stats;
mod throughput;
mod watch;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(about = "squiggle's benchmarks (see docs/performance.md)")]
struct Cli {
    #[command(subcommand)]
    scenario: Scenario,
}

#[derive(Subcommand)]
enum Scenario {
    /// `check_files` against the fake server, pull and push-with-version,
    /// 1 / 10 / 100 files, minus the server's scripted delay.
    Overhead {
        #[arg(long, default_value_t = 200)]
        runs: usize,
        /// The fake's scripted delay per answer (pullDelayMs / publishDelayMs).
        #[arg(long, default_value_t = 10)]
        delay_ms: u64,
    },
    /// A whole `squiggle hook claude` process against a warm daemon.
    Hook {
        #[arg(long, default_value_t = 100)]
        runs: usize,
    },
    /// Real servers, warm: squiggle vs the server's own answer vs the CLI checker.
    Real {
        #[arg(long, default_value_t = 20)]
        runs: usize,
        /// Only these servers (pyright, typescript, gopls, clangd, rust-analyzer).
        #[arg(long = "server")]
        servers: Vec<String>,
        /// Override the servers' settle window (ms), to measure what it costs.
        #[arg(long)]
        settle_ms: Option<u64>,
    },
    /// First edit in a fresh workspace, per real server, through the daemon.
    Cold {
        #[arg(long, default_value_t = 3)]
        runs: usize,
        #[arg(long = "server")]
        servers: Vec<String>,
    },
    /// The session's first edit, cold vs pre-warmed by a session start.
    Prewarm {
        #[arg(long, default_value_t = 3)]
        runs: usize,
        #[arg(long = "server")]
        servers: Vec<String>,
        /// The pause between session start and the first edit (the model
        /// writing its first reply), in ms.
        #[arg(long, default_value_t = 3000)]
        think_ms: u64,
    },
    /// A burst of publishes for many files: time to store, then to render.
    Throughput {
        #[arg(long, default_value_t = 10_000)]
        files: usize,
        #[arg(long, default_value_t = 10)]
        runs: usize,
    },
    /// A generated monorepo (TypeScript, Python) of 1 to 200 packages through
    /// the daemon and the real servers: instances, RSS, latency per size.
    Scale(scale::Args),
    /// One drain of the disk watch at 1,000 and 20,000 files, through each
    /// way of keeping its query-time guarantee.
    Watch {
        #[arg(long, value_delimiter = ',', default_value = "1000,20000")]
        files: Vec<usize>,
        #[arg(long, default_value_t = 200)]
        runs: usize,
    },
    /// RSS and open fds of a daemon over many edits.
    Memory {
        #[arg(long, default_value_t = 10_000)]
        edits: usize,
        #[arg(long, default_value_t = 1_000)]
        every: usize,
    },
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    fixtures::print_machine();
    let result = match cli.scenario {
        Scenario::Overhead { runs, delay_ms } => overhead::run(runs, delay_ms),
        Scenario::Hook { runs } => hook::run(runs),
        Scenario::Real {
            runs,
            servers,
            settle_ms,
        } => real::warm(runs, &servers, settle_ms),
        Scenario::Cold { runs, servers } => real::cold(runs, &servers),
        Scenario::Prewarm {
            runs,
            servers,
            think_ms,
        } => prewarm::run(runs, &servers, think_ms),
        Scenario::Throughput { files, runs } => throughput::run(files, runs),
        Scenario::Memory { edits, every } => memory::run(edits, every),
        Scenario::Watch { files, runs } => watch::run(&files, runs),
        Scenario::Scale(args) => scale::Options::parse(args).and_then(|opts| scale::run(&opts)),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("squiggle-bench: {e:#}");
            std::process::ExitCode::from(1)
        }
    }
}
