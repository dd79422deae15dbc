//! Fixes and signal against the real servers: other files show
//! only what the edit changed there; a fix line under an error, and the
//! fix applied through the checked path.

mod auto;
mod importers;
mod others;
mod quick;
mod snippet;
mod surfaces;
mod wait;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use squiggle::config::{Config, OtherFiles, ServerOverride};
use squiggle::engine::Engine;

use crate::support;

/// An engine on `root` reporting other files after every mutation, with
/// budgets for a loaded machine; fix lines are waited for (`fixWaitMs`),
/// so that a test of a fix line does not hang on the server's speed.
fn engine(root: &Path) -> Arc<Engine> {
    engine_with(root, &[])
}

/// [`engine`] with these server overrides.
fn engine_with(root: &Path, servers: &[(&str, ServerOverride)]) -> Arc<Engine> {
    let mut config = Config {
        first_touch_timeout: Duration::from_secs(60),
        diagnostic_timeout: Duration::from_secs(30),
        other_files: OtherFiles::All,
        fix_wait: Duration::from_secs(60),
        ..Config::default()
    };
    for (id, over) in servers {
        config.servers.insert(id.to_string(), over.clone());
    }
    support::engine(root, config)
}

const PACKAGE_JSON: (&str, &str) = (
    "package.json",
    "{\"name\": \"demo\", \"version\": \"0.0.0\", \"private\": true}\n",
);
const TSCONFIG: (&str, &str) = (
    "tsconfig.json",
    "{\"compilerOptions\": {\"strict\": true, \"target\": \"es2022\", \"module\": \"esnext\", \"moduleResolution\": \"bundler\", \"noEmit\": true}, \"include\": [\"src\"]}\n",
);

/// `scale`, which the tests' other files import.
const TS_LIB: (&str, &str) = (
    "src/lib.ts",
    "export function scale(x: number, by: number): number {\n  return x * by;\n}\n",
);

/// Applies the fix `which` names in `file`; a refusal fails the test.
async fn fixed(
    engine: &Arc<Engine>,
    file: &Path,
    which: squiggle::engine::fixes::Which,
) -> squiggle::engine::tools::ToolResult {
    engine
        .fix(file, &which, squiggle::engine::tools::Mode::Apply)
        .await
        .unwrap_or_else(|e| panic!("fix refused: {e}"))
}
