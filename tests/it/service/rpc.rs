//! `squiggle serve` end to end: the real binary over stdio, the scripted fake
//! server behind it, every method once, and every kind of bad input answered
//! without ending the service.

use serde_json::{Value, json};

use crate::support::service::{Service, Workspace};

fn messages(diagnostics: &Value) -> Vec<String> {
    diagnostics
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {diagnostics}"))
        .iter()
        .map(|d| d["message"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn every_method_once() {
    let ws = Workspace::pull();
    ws.write("a.fk", "x @error(boom <b>)\n@warning(just a warning)\n");
    ws.write("b.fk", "@error(other)\n");
    let mut svc = Service::start(&ws);

    let a = svc.ok("lsp/checkFile", json!({"filePath": "a.fk"}));
    assert_eq!(
        messages(&a),
        ["boom &lt;b&gt;"],
        "errors only, escaped: {a}"
    );
    assert_eq!(a[0]["file"], "a.fk");
    assert_eq!(
        (a[0]["line"].clone(), a[0]["character"].clone()),
        (json!(1), json!(3))
    );
    assert_eq!(a[0]["column"], a[0]["character"]);
    assert_eq!(a[0]["severity"], "error");
    assert_eq!(a[0]["server"], "fake");

    let absolute = ws.root.join("b.fk").display().to_string();
    let both = svc.ok("lsp/checkFiles", json!({"filePaths": ["a.fk", absolute]}));
    let keys: Vec<&String> = both
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["a.fk", "b.fk"], "{both}");
    assert_eq!(messages(&both["b.fk"]), ["other"]);

    let all = svc.ok("lsp/diagnostics", json!({}));
    let keys: Vec<&String> = all
        .as_object()
        .map(|o| o.keys().collect())
        .unwrap_or_default();
    assert_eq!(keys, ["a.fk", "b.fk"], "{all}");
    assert_eq!(messages(&all["a.fk"]), ["boom &lt;b&gt;"]);

    let status = svc.ok("lsp/status", Value::Null);
    let fake = status
        .as_array()
        .and_then(|rows| rows.iter().find(|r| r["id"] == "fake"))
        .unwrap_or_else(|| panic!("no fake in {status}"));
    assert_eq!(fake["status"], "active", "{fake}");
    assert_eq!(fake["language"], "fake");
    assert_eq!(fake["starts"], 1);
    assert!(fake["serverPid"].as_u64().is_some(), "{fake}");
    assert_eq!(fake["root"], json!(ws.root.display().to_string()));
    let known = [
        "active",
        "starting",
        "broken",
        "idle",
        "disabled",
        "unavailable",
        "untrusted",
    ];
    for row in status.as_array().into_iter().flatten() {
        let s = row["status"].as_str().unwrap_or_default();
        assert!(known.contains(&s), "{row}");
    }

    let edited = svc.ok(
        "squiggle/edit",
        json!({"filePath": "a.fk", "oldString": "@error(boom <b>)", "newString": "fine"}),
    );
    assert_eq!(edited["message"], "Edit applied successfully.");
    assert_eq!(edited["classification"], "warnings_only", "{edited}");
    assert_eq!(edited["feedback"], "");
    assert!(edited["outcomes"]["a.fk"].is_array(), "{edited}");
    let on_disk = std::fs::read_to_string(ws.root.join("a.fk")).unwrap_or_default();
    assert!(on_disk.starts_with("x fine\n"), "{on_disk}");

    let dry = svc.ok(
        "squiggle/write",
        json!({"filePath": "c.fk", "content": "@error(dry)\n", "dryRun": true}),
    );
    assert_eq!(dry["dryRun"], true);
    assert!(!ws.root.join("c.fk").exists());
    let written = svc.ok(
        "squiggle/write",
        json!({"filePath": "c.fk", "content": "@error(new one)\n"}),
    );
    assert_eq!(written["classification"], "new_errors", "{written}");
    let feedback = written["feedback"].as_str().unwrap_or_default();
    assert!(
        feedback.contains("<diagnostics file=\"c.fk\">"),
        "{feedback}"
    );
    assert!(feedback.contains("ERROR [1:1] new one"), "{feedback}");

    let patch = "*** Begin Patch\n*** Add File: d.fk\n+@error(patched)\n*** End Patch\n";
    let patched = svc.ok("squiggle/applyPatch", json!({"patch": patch}));
    assert_eq!(patched["message"], "Patch applied successfully.");
    assert_eq!(patched["diagnostics"][0]["message"], "patched", "{patched}");

    let refused = svc.err(
        "squiggle/edit",
        json!({"filePath": "a.fk", "oldString": "not there", "newString": "x"}),
    );
    assert_eq!(refused["code"], -32001, "{refused}");
    let outside = svc.err(
        "squiggle/write",
        json!({"filePath": "../escape.fk", "content": "x"}),
    );
    assert_eq!(outside["code"], -32001, "{outside}");
    assert!(
        outside["message"]
            .as_str()
            .unwrap_or_default()
            .contains("outside the workspace"),
        "{outside}"
    );

    let diagnostic = json!({"file": "x.fk", "line": 2, "column": 3, "endLine": 2, "endColumn": 4,
        "severity": "error", "message": "bad <thing>", "server": "fake"});
    let rendered = svc.ok(
        "squiggle/render",
        json!({"edited": [{"file": "x.fk", "diagnostics": [diagnostic]}], "options": {"maxPerFile": 5}}),
    );
    assert_eq!(
        rendered["text"],
        "LSP errors detected in this file, please fix:\n<diagnostics file=\"x.fk\">\nERROR [2:3] bad &lt;thing&gt;\n</diagnostics>\n"
    );

    // Answered as every change is (`ToolResult`).
    let checked = svc.ok("squiggle/check", json!({"filePaths": ["b.fk"]}));
    assert_eq!(
        checked["outcomes"]["b.fk"][0]["outcome"], "pulled",
        "{checked}"
    );
    assert_eq!(checked["diagnostics"][0]["file"], "b.fk", "{checked}");
    assert_eq!(checked["diagnostics"][0]["message"], "other", "{checked}");
    for gone in ["files", "others", "text"] {
        assert!(checked.get(gone).is_none(), "{gone}: {checked}");
    }
    assert!(
        checked["feedback"]
            .as_str()
            .unwrap_or_default()
            .contains("please fix")
    );

    // `contents`: the text checked instead of the disk's, which is untouched.
    let text = svc.ok(
        "squiggle/check",
        json!({"filePaths": ["b.fk"], "contents": {"b.fk": "@error(given)\n"}}),
    );
    assert_eq!(text["diagnostics"][0]["message"], "given", "{text}");
    let e = svc.err(
        "squiggle/check",
        json!({"filePaths": ["b.fk"], "contents": {"c.fk": "x"}}),
    );
    assert_eq!(e["message"], "contents: c.fk is not one of filePaths");

    assert_eq!(svc.ok("lsp/shutdown", json!({})), Value::Null);
    assert_eq!(svc.wait(), Some(0));
}

#[test]
fn bad_input_is_answered_and_the_service_keeps_serving() {
    let ws = Workspace::pull();
    ws.write("a.fk", "@error(e)\n");
    let mut svc = Service::start(&ws);

    let e = svc.err("lsp/checkFile", json!({"filePath": 3}));
    assert_eq!(
        (e["code"].clone(), e["message"].clone()),
        (json!(-32602), json!("filePath: expected a string"))
    );
    let e = svc.err("lsp/checkFile", json!({}));
    assert_eq!(e["message"], "filePath: missing; expected a string");
    let e = svc.err("lsp/checkFiles", json!({"filePaths": ["a.fk", 1]}));
    assert_eq!(e["message"], "filePaths: expected an array of strings");
    let e = svc.err(
        "squiggle/edit",
        json!({"filePath": "a.fk", "oldString": "a", "newString": "b", "dryRun": "yes"}),
    );
    assert_eq!(e["message"], "dryRun: expected a boolean");
    let e = svc.err("lsp/status", json!([1]));
    assert_eq!(
        (e["code"].clone(), e["message"].clone()),
        (json!(-32602), json!("params: expected an object"))
    );
    let e = svc.err("squiggle/render", json!({"edited": [{"file": 1}]}));
    assert_eq!(e["code"], -32602);
    assert!(
        e["message"]
            .as_str()
            .unwrap_or_default()
            .starts_with("edited: "),
        "{e}"
    );
    let e = svc.err("lsp/noSuchMethod", json!({}));
    assert_eq!(e["code"], -32601);

    svc.send_raw(b"{this is not json");
    let frame = svc.next_frame();
    assert_eq!(
        (frame["id"].clone(), frame["error"]["code"].clone()),
        (Value::Null, json!(-32700)),
        "{frame}"
    );
    svc.send_raw(b"[1,2]");
    assert_eq!(svc.next_frame()["error"]["code"], -32600);
    svc.send_raw(br#"{"jsonrpc":"2.0","id":77}"#);
    let frame = svc.next_frame();
    assert_eq!(
        (frame["id"].clone(), frame["error"]["code"].clone()),
        (json!(77), json!(-32600))
    );
    svc.send_raw(br#"{"jsonrpc":"2.0","method":"$/someNotification","params":{}}"#);

    let a = svc.ok("lsp/checkFile", json!({"filePath": "a.fk"}));
    assert_eq!(messages(&a), ["e"]);
    svc.close_stdin();
    assert_eq!(svc.wait(), Some(0));
}

#[test]
fn a_slow_check_does_not_hold_up_status() {
    let ws = Workspace::new(json!({"diagnosticMode": "pull", "pullDelayMs": 1500}));
    ws.write("a.fk", "@error(slow)\n");
    let mut svc = Service::start(&ws);
    svc.send_raw(
        br#"{"jsonrpc":"2.0","id":"slow","method":"lsp/checkFile","params":{"filePath":"a.fk"}}"#,
    );
    svc.send_raw(br#"{"jsonrpc":"2.0","id":"fast","method":"lsp/status"}"#);
    assert_eq!(svc.next_frame()["id"], "fast");
    let slow = svc.next_frame();
    assert_eq!(slow["id"], "slow");
    assert_eq!(messages(&slow["result"]), ["slow"]);
}
