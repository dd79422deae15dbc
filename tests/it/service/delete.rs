//! `delete`, the operation added through the engine's one door
//! (`Engine::handle`): the same request from the service
//! (`squiggle/delete`), MCP (`delete_file`) and the command line
//! (`squiggle delete`) removes a workspace file, writes nothing on a dry
//! run, and refuses a path outside the workspace.

use serde_json::{Value, json};

use crate::support::service::{Framing, Service, Workspace};

#[test]
fn the_service_deletes_a_file_and_refuses_one_outside() {
    let ws = Workspace::pull();
    ws.write("a.fk", "fine\n");
    let mut svc = Service::start(&ws);
    let dry = svc.ok(
        "squiggle/delete",
        json!({"filePath": "a.fk", "dryRun": true}),
    );
    assert_eq!(dry["dryRun"], true, "{dry}");
    assert!(ws.root.join("a.fk").exists());
    let deleted = svc.ok("squiggle/delete", json!({"filePath": "a.fk"}));
    assert_eq!(
        deleted["message"], "File deleted; no file imported it.",
        "{deleted}"
    );
    assert!(!ws.root.join("a.fk").exists());
    std::fs::write(ws.outer.join("keep.fk"), "x\n").unwrap_or_default();
    let outside = svc.err("squiggle/delete", json!({"filePath": "../keep.fk"}));
    assert_eq!(outside["code"], -32001, "{outside}");
    assert!(ws.outer.join("keep.fk").exists());
    let gone = svc.err("squiggle/delete", json!({"filePath": "a.fk"}));
    assert_eq!(gone["code"], -32001, "{gone}");
    svc.ok("lsp/shutdown", json!({}));
}

#[test]
fn mcp_delete_file_deletes_through_the_same_door() {
    let ws = Workspace::pull();
    ws.write("a.fk", "fine\n");
    let mut command = ws.command(&["mcp", "--root"]);
    command.arg(&ws.root).env_remove("RUST_LOG");
    let mut mcp = Service::spawn(&mut command, Framing::Lines);
    mcp.ok(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "delete", "version": "0"}}),
    );
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    mcp.send_raw(initialized.to_string().as_bytes());
    let call = |mcp: &mut Service, path: &str| -> Value {
        mcp.ok(
            "tools/call",
            json!({"name": "delete_file", "arguments": {"path": path}}),
        )
    };
    let deleted = call(&mut mcp, "a.fk");
    assert_ne!(deleted["isError"], true, "{deleted}");
    assert_eq!(
        deleted["structuredContent"]["message"], "File deleted; no file imported it.",
        "{deleted}"
    );
    assert!(!ws.root.join("a.fk").exists());
    std::fs::write(ws.outer.join("keep.fk"), "x\n").unwrap_or_default();
    let outside = call(&mut mcp, "../keep.fk");
    assert_eq!(outside["isError"], true, "{outside}");
    assert!(ws.outer.join("keep.fk").exists());
}

#[test]
fn the_command_line_deletes_and_dry_run_keeps_the_file() {
    let ws = Workspace::pull();
    ws.write("a.fk", "fine\n");
    let run = |extra: &[&str]| {
        let mut args = vec!["delete"];
        args.extend_from_slice(extra);
        let mut command = ws.command(&args);
        command
            .arg("--root")
            .arg(&ws.root)
            .arg("--trust-workspace")
            .env("SQUIGGLE_NO_DAEMON", "1")
            .env_remove("RUST_LOG");
        command
            .output()
            .unwrap_or_else(|e| panic!("squiggle delete: {e}"))
    };
    let file = ws.root.join("a.fk").display().to_string();
    let dry = run(&[&file, "--dry-run"]);
    assert_eq!(dry.status.code(), Some(0), "{dry:?}");
    assert_eq!(
        String::from_utf8_lossy(&dry.stdout),
        "Dry run: the file was not deleted; no file imports it.\n"
    );
    assert!(ws.root.join("a.fk").exists());
    let deleted = run(&[&file]);
    assert_eq!(deleted.status.code(), Some(0), "{deleted:?}");
    assert!(!ws.root.join("a.fk").exists());
    let outside = ws.outer.join("keep.fk");
    std::fs::write(&outside, "x\n").unwrap_or_default();
    let refused = run(&[&outside.display().to_string()]);
    assert_eq!(refused.status.code(), Some(1), "{refused:?}");
    assert!(outside.exists());
}
