//! The Rust matrix's cases, for any rust-analyzer: the one on PATH
//! (`matrix_rust`) and today's stable toolchain's (`ra199_matrix`), chosen
//! by the server's environment (`RUSTUP_TOOLCHAIN` for rustup's proxy, which
//! also picks that toolchain's cargo for the on-save check).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::time::Duration;

use squiggle::config::{Config, ServerOverride};
use squiggle::diagnostic::Outcome;

use super::*;

const MAIN: &str = "src/main.rs";
const GEOMETRY: &str = "src/geometry.rs";
const CALL: &str = "let total = area(width, height);";

/// The first edit of a fresh engine carries cargo check's type error;
/// then an undefined name and its fix; then a narrowed signature reported
/// in its caller. `toolchain`: the rustup toolchain rust-analyzer runs
/// from, `None` for the default. Returns the version the server reported.
pub async fn rust_analyzer_matrix(toolchain: Option<&str>) -> Option<String> {
    let dir = fixture("rust");
    let mut config = Config {
        first_touch_timeout: Duration::from_secs(60),
        diagnostic_timeout: Duration::from_secs(30),
        ..Config::default()
    };
    if let Some(toolchain) = toolchain {
        let env = BTreeMap::from([("RUSTUP_TOOLCHAIN".to_string(), toolchain.to_string())]);
        config.servers.insert(
            "rust-analyzer".into(),
            ServerOverride {
                env: Some(env),
                ..ServerOverride::default()
            },
        );
    }
    let engine = crate::support::engine(dir.path(), config);
    let main = path(&dir, MAIN);

    // Type mismatch on the first edit of a fresh engine.
    let typed = "let total: i32 = area(width, height);";
    let broken = edit(&engine, &main, CALL, typed).await;
    assert_eq!(servers_of(&broken), ["rust-analyzer"]);
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 6,
            column: 22,
            code: Some("E0308"),
            words: &["mismatched types"],
        },
    );
    let fixed = edit(&engine, &main, typed, CALL).await;
    assert_fixed(&fixed, EDITED, "mismatched types");
    assert_clean(&engine, &main).await;

    // Undefined name.
    let undefined = "let total = aera(width, height);";
    let broken = edit(&engine, &main, CALL, undefined).await;
    assert_error(
        &broken,
        &Expect {
            file: MAIN,
            line: 6,
            column: 17,
            code: Some("E0425"),
            words: &["aera"],
        },
    );
    let fixed = edit(&engine, &main, undefined, CALL).await;
    assert_fixed(&fixed, EDITED, "aera");

    // Cross-file: narrowing `area` breaks its caller.
    let geometry = path(&dir, GEOMETRY);
    let original = std::fs::read_to_string(&geometry).unwrap_or_default();
    let narrowed = original.replace(
        "pub fn area(width: f64, height: f64) -> f64 {\n    width * height",
        "pub fn area(width: f64) -> f64 {\n    width * width",
    );
    assert_ne!(narrowed, original);
    let result = write(&engine, &geometry, &narrowed).await;
    let text = result.text();
    assert!(block(&text, THIS_FILE, GEOMETRY).is_none(), "{text}");
    assert_row(
        &text,
        OTHER_FILES,
        &Expect {
            file: MAIN,
            line: 6,
            column: 17,
            code: Some("E0061"),
            words: &["takes 1 argument but 2 arguments were supplied"],
        },
    );
    let restored = write(&engine, &geometry, &original).await;
    assert_fixed(&restored, WRITTEN, "arguments were supplied");
    let version = engine
        .pool()
        .statuses()
        .into_iter()
        .find(|s| s.id == "rust-analyzer")
        .and_then(|s| s.version);
    engine.shutdown().await;
    version
}

/// rust-analyzer whose check command prints no crates
/// (`check.overrideCommand`, as a Bazel or Buck workspace has it; here
/// `true`, which checks nothing): every check ends with nothing reported
/// or published. The client learns so at a deadline — the cold first
/// touch's, or the first warm edit's when rust-analyzer was still loading
/// then — and from then on an edit is answered when its check ends, with
/// rust-analyzer's own diagnostics. Returns each edit's outcome in order.
pub async fn quiet_check_matrix(toolchain: &str) -> Vec<Outcome> {
    let dir = fixture("rust");
    let mut config = Config {
        first_touch_timeout: Duration::from_secs(20),
        diagnostic_timeout: Duration::from_secs(5),
        ..Config::default()
    };
    let env = BTreeMap::from([("RUSTUP_TOOLCHAIN".to_string(), toolchain.to_string())]);
    let quiet = serde_json::json!({"check": {"overrideCommand": ["true"]}});
    config.servers.insert(
        "rust-analyzer".into(),
        ServerOverride {
            env: Some(env),
            initialization_options: Some(quiet),
            ..ServerOverride::default()
        },
    );
    let engine = crate::support::engine(dir.path(), config);
    let main = path(&dir, MAIN);
    let typed = "let total: i32 = area(width, height);";
    let mismatch = Expect {
        file: MAIN,
        line: 6,
        column: 22,
        code: Some("E0308"),
        words: &["expected i32, found f64"],
    };
    let mut outcomes = Vec::new();
    for _ in 0..4 {
        let broken = edit(&engine, &main, CALL, typed).await;
        outcomes.push(broken.outcomes[MAIN][0].outcome);
        if broken.outcomes[MAIN][0].outcome != Outcome::TimedOut {
            assert_error(&broken, &mismatch);
        }
        let fixed = edit(&engine, &main, typed, CALL).await;
        outcomes.push(fixed.outcomes[MAIN][0].outcome);
    }
    engine.shutdown().await;
    outcomes
}
