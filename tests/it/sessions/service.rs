//! Sessions through `squiggle serve`: the `squiggle/session*` methods
//! routed to the engine's sessions, refusals as -32001 errors naming the
//! problem, an unknown edit shape as -32602.

use serde_json::{Value, json};

use crate::support::service::{Service, Workspace};

#[test]
fn the_session_methods_open_edit_chain_commit_and_discard_through_serve() {
    let ws = Workspace::pull();
    ws.write("a.fk", "@error(old)\n");
    ws.write("b.fk", "fine\n");
    let mut svc = Service::start(&ws);
    let opened = svc.ok("squiggle/sessionOpen", json!({"paths": ["a.fk", "b.fk"]}));
    assert_eq!(opened["session"], "s1");
    assert_eq!(opened["result"]["classification"], "baseline_error");

    let edited = svc.ok(
        "squiggle/sessionEdit",
        json!({"session": "s1", "edits": [{"filePath": "b.fk", "oldString": "fine", "newString": "@error(new)"}]}),
    );
    let new: Vec<&Value> = edited["newErrors"]
        .as_array()
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(new.len(), 1, "{edited:#}");
    assert_eq!(new[0]["message"], "new");
    assert_eq!(edited["result"]["dryRun"], true);
    assert_eq!(
        std::fs::read_to_string(ws.root.join("b.fk")).unwrap_or_default(),
        "fine\n"
    );

    let chain = svc.ok(
        "squiggle/sessionChain",
        json!({"session": "s1", "edits": [{"filePath": "b.fk", "content": "fine again\n"}, {"patch": "--- a/a.fk\n+++ b/a.fk\n@@ -1 +1 @@\n-@error(old)\n+@error(later)\n"}]}),
    );
    assert_eq!(chain["stoppedAt"], 2, "{chain:#}");
    assert_eq!(chain["steps"][0]["newErrors"], json!([]));

    let bad = svc.err(
        "squiggle/sessionEdit",
        json!({"session": "s1", "edits": [{"filePath": "a.fk"}]}),
    );
    assert_eq!(bad["code"], -32602, "{bad}");
    let refused = svc.err("squiggle/sessionEvaluate", json!({"session": "s7"}));
    assert_eq!(refused["code"], -32001, "{refused}");

    let committed = svc.ok("squiggle/sessionCommit", json!({"session": "s1"}));
    assert_eq!(
        committed["message"],
        "Session s1 committed: 2 file(s) written."
    );
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.fk")).unwrap_or_default(),
        "@error(later)\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.root.join("b.fk")).unwrap_or_default(),
        "fine again\n"
    );

    svc.ok("squiggle/sessionOpen", json!({"paths": ["a.fk"]}));
    let discarded = svc.ok("squiggle/sessionDiscard", json!({"session": "s2"}));
    assert_eq!(
        discarded["message"],
        "Session s2 discarded; nothing was written."
    );
    assert_eq!(svc.ok("lsp/shutdown", json!({})), Value::Null);
    assert_eq!(svc.wait(), Some(0));
}
