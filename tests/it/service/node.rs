//! `squiggle serve` driven by the real npm `vscode-jsonrpc` client
//! (`tests/clients/node/service.mjs`): proof that an off-the-shelf LSP-style client
//! speaks the service's framing. The package comes from
//! `scripts/install-servers.sh` (`.tools/npm/node_modules`); without it (or
//! without node) the test is skipped with a notice, unless
//! `SQUIGGLE_REQUIRE_SERVERS` is set.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::service::Workspace;

fn node_modules() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("NODE_PATH").map(PathBuf::from),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/npm/node_modules")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|dir| dir.join("vscode-jsonrpc/package.json").is_file())
}

fn node() -> Option<PathBuf> {
    ["/usr/bin/node", "/usr/local/bin/node"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

#[test]
fn vscode_jsonrpc_client_calls_every_method() {
    let (Some(modules), Some(node)) = (node_modules(), node()) else {
        let message = "node or vscode-jsonrpc is missing; run scripts/install-servers.sh";
        assert!(
            std::env::var_os("SQUIGGLE_REQUIRE_SERVERS").is_none(),
            "{message}"
        );
        eprintln!("skipped: {message}");
        return;
    };
    let ws = Workspace::pull();
    ws.write("a.fk", "@error(boom)\n");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/node/service.mjs");
    let output = Command::new(node)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_squiggle"))
        .arg(&ws.root)
        .env("NODE_PATH", modules)
        .env("XDG_CONFIG_HOME", &ws.config_home)
        .output()
        .unwrap_or_else(|e| panic!("run node: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "node failed ({}):\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    assert!(stdout.contains("service.mjs: ok"), "{stdout}");
}
