//! The client's own overhead per check against the fake server: one document
//! change plus the wait for its diagnostics, in pull mode and in
//! push-with-version mode (settle window 0, as for a server measured to
//! publish one wave per version). The fake does almost no work, so the
//! round trip is an upper bound on squiggle's overhead: serialization,
//! framing, two pipe hops, dispatch and the wait.
//!
//! Run: `cargo bench --bench client_overhead`

#[path = "../tests/it/support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use squiggle::lsp::LspClient;
use tokio::time::Instant;

fn bench_mode(c: &mut Criterion, name: &str, script: serde_json::Value) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build();
    let Ok(runtime) = runtime else { return };
    let Ok(dir) = tempfile::tempdir() else { return };
    let config = support::client_config(dir.path(), &script);
    let Ok(client) = runtime.block_on(LspClient::start(config, Duration::from_secs(10))) else {
        eprintln!("fake server did not start");
        return;
    };
    let path = dir.path().join("bench.py");
    // A realistic file: 300 lines, one marker that moves as the text changes.
    let body: String = (0..300)
        .map(|i| format!("value_{i} = compute({i})  # some code here\n"))
        .collect();
    let mut n = 0u64;
    c.bench_function(name, |b| {
        b.iter(|| {
            n += 1;
            let text: Arc<str> = Arc::from(format!("{body}x = {n} @error(problem {n})\n"));
            runtime.block_on(async {
                let doc = client.sync_document(&path, "python", text).await;
                let report = client
                    .diagnostics_for(&doc, Instant::now() + Duration::from_secs(5))
                    .await;
                assert_eq!(report.diagnostics.len(), 1);
            })
        })
    });
    runtime.block_on(client.shutdown());
}

fn overhead(c: &mut Criterion) {
    bench_mode(
        c,
        "check_pull",
        json!({"diagnosticMode": "pull", "sync": "incremental"}),
    );
    bench_mode(
        c,
        "check_push_versioned",
        json!({"diagnosticMode": "push", "sync": "incremental"}),
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(200).measurement_time(Duration::from_secs(5));
    targets = overhead
}
criterion_main!(benches);
