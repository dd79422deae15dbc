//! Finding 10 and the configuration a daemon applies (finding 17).

use super::{IN_PROCESS, pull, squiggle, stderr, workspace};
use crate::support::both;
use crate::support::scratch::write_under;

/// Finding 10: `daemonIdleMinutes = 9223372036854775807` panicked the
/// daemon (a deadline overflowed), and the edit that started it exited 2
/// saying it "may have been applied". Every number a configuration holds
/// has a greatest value: past it, any command exits 2 with one line naming
/// the file and the key, before anything is written or started.
#[test]
fn every_number_in_the_configuration_is_range_checked() {
    let cases = [
        ("diagnosticTimeout = 600001", "lsp.diagnosticTimeout"),
        ("firstTouchTimeout = 3600001", "lsp.firstTouchTimeout"),
        (
            "maxDiagnosticsPerFile = 100001",
            "lsp.maxDiagnosticsPerFile",
        ),
        (
            "maxProjectDiagnosticsFiles = 100001",
            "lsp.maxProjectDiagnosticsFiles",
        ),
        (
            "maxDiagnosticLines = 9223372036854775807",
            "lsp.maxDiagnosticLines",
        ),
        (
            "daemonIdleMinutes = 9223372036854775807",
            "lsp.daemonIdleMinutes",
        ),
        ("maxInstancesPerServer = 1025", "lsp.maxInstancesPerServer"),
        ("serverIdleMinutes = 10081", "lsp.serverIdleMinutes"),
        (
            "documentIdleMinutes = 9223372036854775807",
            "lsp.documentIdleMinutes",
        ),
        ("servers.fake.settleMs = 60001", "lsp.servers.fake.settleMs"),
        (
            "servers.fake.staleWindowMs = 60001",
            "lsp.servers.fake.staleWindowMs",
        ),
        (
            "servers.fake.unchangedQuietMs = 60001",
            "lsp.servers.fake.unchangedQuietMs",
        ),
        (
            "servers.fake.othersQuietMs = 9223372036854775807",
            "lsp.servers.fake.othersQuietMs",
        ),
    ];
    for (line, key) in cases {
        let ws = workspace("", pull());
        let path = ws.write("a.fk", "x = 1\n");
        let file = write_under(
            &ws.root,
            ".squiggle.toml",
            format!("[lsp]\n{line}\n").as_bytes(),
        );
        let edit = ["edit", "a.fk", "--old-string", "1", "--new-string", "2"];
        for env in [&[][..], IN_PROCESS] {
            let out = squiggle(&ws, &edit, env, b"");
            assert_eq!(out.status.code(), Some(2), "{line}: {}", both(&out));
            let text = stderr(&out);
            let said = format!("{}: {key}: expected at most ", file.display());
            assert!(text.contains(&said), "{line}: {text}");
            assert_eq!(text.lines().count(), 1, "{line}: {text}");
            assert!(!text.contains("may have been applied"), "{text}");
            assert_eq!(std::fs::read(&path).unwrap_or_default(), b"x = 1\n");
        }
    }
}
