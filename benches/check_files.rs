//! Wall time of `Engine::check_files` for 1, 10 and 100 files against the
//! fake server in pull mode: shows that files are waited on in parallel
//! (100 files should cost far less than 100 × one file). Every iteration
//! changes every file, so each check is a real didChange + pull per file.
//!
//! A second group scripts a 20 ms server delay per answer: if waits were
//! sequential, 100 files would take two seconds.
//!
//! Run: `cargo bench --bench check_files`

#[path = "../tests/it/support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use squiggle::config::Config;
use squiggle::engine::HeldOthers;
use squiggle::engine::{Engine, FileInput};
use support::fake_server::FakeServer;

fn engine(root: &std::path::Path, pull_delay_ms: u64) -> Arc<Engine> {
    let script = serde_json::json!({"diagnosticMode": "pull", "sync": "incremental", "pullDelayMs": pull_delay_ms});
    let mut config = Config::default();
    config
        .servers
        .insert("fake".into(), FakeServer::new(script).to_override());
    support::engine(root, config)
}

fn check_files(c: &mut Criterion) {
    // Server answers at once: the cost is squiggle's plus the fake's own work.
    bench_group(c, "check_files_pull", 0);
    // Server takes 20 ms per answer: parallel waits cost one delay, not N.
    bench_group(c, "check_files_pull_20ms", 20);
}

fn bench_group(c: &mut Criterion, name: &str, pull_delay_ms: u64) {
    let Ok(runtime) = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    else {
        return;
    };
    let Ok(dir) = tempfile::tempdir() else { return };
    let engine = engine(dir.path(), pull_delay_ms);
    let body: String = (0..100)
        .map(|i| format!("let value_{i} = compute({i});\n"))
        .collect();
    let mut group = c.benchmark_group(name);
    group
        .sample_size(50)
        .measurement_time(Duration::from_secs(8));
    for count in [1usize, 10, 100] {
        let paths: Vec<_> = (0..count)
            .map(|i| dir.path().join(format!("f{i}.fk")))
            .collect();
        let mut n = 0u64;
        group.bench_with_input(BenchmarkId::from_parameter(count), &count, |b, _| {
            b.iter(|| {
                n += 1;
                let inputs: Vec<FileInput> = paths
                    .iter()
                    .map(|p| FileInput {
                        path: p.clone(),
                        content: Some(Arc::from(format!("{body}x = {n} @error(e{n})\n"))),
                        before: None,
                    })
                    .collect();
                let report = runtime.block_on(engine.check_files(inputs, HeldOthers::Skip));
                assert_eq!(
                    report
                        .files
                        .iter()
                        .map(|f| f.diagnostics.len())
                        .sum::<usize>(),
                    count
                );
            })
        });
    }
    group.finish();
    runtime.block_on(engine.shutdown());
}

criterion_group!(benches, check_files);
criterion_main!(benches);
