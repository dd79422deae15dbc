//! What `squiggle init <host> --print` writes for the hosts squiggle runs
//! from a file of its own: `golden/init/<host>.txt`
//! (`SQUIGGLE_BLESS=1 cargo test --test it golden::init` rewrites them).
//! The OpenCode plugin is also the file `plugins/opencode/squiggle.js`
//! that the repository ships, so the two never drift apart.

use super::Golden;
use std::fs;

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
    let root = super::root();
    let scratch = Scratch::with_git_root();
    let mut golden = Golden::new();
    for host in ["opencode", "kilo", "aider"] {
        golden.compare(&format!("golden/init/{host}.txt"), &printed(&scratch, host));
    }
    golden.finish();
    let shipped = fs::read_to_string(root.join("plugins/opencode/squiggle.js"))
        .unwrap_or_else(|e| panic!("plugins/opencode/squiggle.js: {e}"));
    assert_eq!(printed(&scratch, "opencode"), shipped);
    assert_eq!(printed(&scratch, "kilo"), shipped);
}
