//! Fixes and signal (issue 26) against the real servers: other files show
//! only what the edit changed there.

mod others;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use squiggle::config::{Config, OtherFiles};
use squiggle::engine::Engine;

use crate::support;

/// An engine on `root` reporting other files after every mutation, with
/// budgets for a loaded machine.
fn engine(root: &Path) -> Arc<Engine> {
    let config = Config {
        first_touch_timeout: Duration::from_secs(60),
        diagnostic_timeout: Duration::from_secs(30),
        other_files: OtherFiles::All,
        ..Config::default()
    };
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
