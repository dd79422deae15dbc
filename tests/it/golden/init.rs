//! What `squiggle init <host> --print` writes for the hosts squiggle runs
//! from a file of its own: `golden/init/<host>.txt`
//! (`SQUIGGLE_BLESS=1 cargo test --test it golden::init` rewrites them).
//! The OpenCode plugin is also the file `plugins/opencode/squiggle.js`
//! that the repository ships, so the two never drift apart.

use std::fs;
use std::path::Path;

use crate::support::scratch::Scratch;

fn printed(scratch: &Scratch, host: &str) -> String {
    let out = scratch
        .command(&["init", host, "--print"])
        .env("HOME", &scratch.home)
        .output()
        .unwrap_or_else(|e| panic!("squiggle init {host} --print: {e}"));
    assert!(
        out.status.success(),
        "init {host} --print: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn init_print_golden() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bless = std::env::var_os("SQUIGGLE_BLESS").is_some_and(|v| v == "1");
    let scratch = Scratch::with_git_root();
    let mut failed = Vec::new();
    for host in ["opencode", "kilo", "aider"] {
        let actual = printed(&scratch, host);
        let path = root.join(format!("golden/init/{host}.txt"));
        if bless {
            fs::write(&path, &actual).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
            continue;
        }
        let expected = fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{} is missing; run with SQUIGGLE_BLESS=1", path.display()));
        if actual != expected {
            failed.push(format!(
                "{host}:\n--- expected\n{expected}--- actual\n{actual}"
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    let shipped = fs::read_to_string(root.join("plugins/opencode/squiggle.js"))
        .unwrap_or_else(|e| panic!("plugins/opencode/squiggle.js: {e}"));
    assert_eq!(printed(&scratch, "opencode"), shipped);
    assert_eq!(printed(&scratch, "kilo"), shipped);
}
