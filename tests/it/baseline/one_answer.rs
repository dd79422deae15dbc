//! One answer for one change: the hook prints the daemon's rendering as it
//! came, gives what the wrapped tools give, and for an `Edit` takes "before" from
//! the payload, so that another agent's hook on the same file cannot hide
//! this edit's errors.

#[cfg(unix)]
use std::io::{BufRead, BufReader, Write};
#[cfg(unix)]
use std::os::unix::net::UnixListener;

use serde_json::Value;
#[cfg(unix)]
use serde_json::json;

use super::{Ws, block};

/// Reads one `Content-Length` frame's JSON body from `reader`.
#[cfg(unix)]
fn read_frame(reader: &mut impl BufRead) -> Value {
    let mut length = 0;
    loop {
        let mut line = String::new();
        reader
            .read_line(&mut line)
            .unwrap_or_else(|e| panic!("read header: {e}"));
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse().unwrap_or_else(|e| panic!("length {n:?}: {e}"));
        }
    }
    let mut body = vec![0; length];
    reader
        .read_exact(&mut body)
        .unwrap_or_else(|e| panic!("read body: {e}"));
    serde_json::from_slice(&body).unwrap_or_else(|e| panic!("frame is not JSON: {e}"))
}

/// A stand-in for the workspace's daemon, listening on its socket: it
/// answers each of `replies.len()` connections' one request with the next
/// `result`, and returns the requests it got. (The daemon's socket is a
/// Unix socket here; Windows' loopback transport would need its own.)
#[cfg(unix)]
fn stand_in_daemon(ws: &Ws, replies: Vec<Value>) -> std::thread::JoinHandle<Vec<Value>> {
    let paths = squiggle::daemon::socket::paths(&ws.root, false, Some(&ws.runtime_dir));
    squiggle::daemon::socket::ensure_private_dir(&paths.dir)
        .unwrap_or_else(|e| panic!("socket dir: {e}"));
    let listener = UnixListener::bind(&paths.socket).unwrap_or_else(|e| panic!("bind: {e}"));
    std::thread::spawn(move || {
        let mut requests = Vec::new();
        for result in replies {
            let (stream, _) = listener.accept().unwrap_or_else(|e| panic!("accept: {e}"));
            let mut reader = BufReader::new(&stream);
            let request = read_frame(&mut reader);
            let body = json!({"jsonrpc": "2.0", "id": request["id"], "result": result}).to_string();
            let mut writer = &stream;
            write!(writer, "Content-Length: {}\r\n\r\n{body}", body.len())
                .unwrap_or_else(|e| panic!("reply: {e}"));
            requests.push(request);
        }
        requests
    })
}

/// The hook's reply is the daemon's rendering byte for
/// byte. The stand-in daemon answers with a report whose own rendering
/// would read otherwise; a hook that rendered again would print that.
#[cfg(unix)]
#[test]
fn the_hook_prints_the_daemons_rendering_byte_for_byte() {
    let ws = Ws::fake("");
    ws.write("a.fk", "x = 1\n");
    let edit = ws.claude_edit("a.fk", "x = 1", "x = 2");
    let file = ws.root.join("a.fk").display().to_string();
    let rendered = "LSP errors detected in this file, please fix:\n<diagnostics file=\"a.fk\">\nERROR [1:1] as the daemon rendered it: Array&lt;T&gt;\n</diagnostics>\n";
    let readable = "LSP errors detected in this file, please fix:\n<diagnostics file=\"a.fk\">\nERROR [1:1] as the daemon rendered it: Array<T>\n</diagnostics>\n";
    let report = |feedback: &str| {
        json!({"message": "", "feedback": feedback,
            "diagnostics": [{"file": "a.fk", "line": 7, "column": 7, "endLine": 7, "endColumn": 8,
                "severity": "error", "message": "what a rendering of its own would show", "server": "fake",
                "new": true}],
            "classification": "new_errors", "baselineKnown": true,
            "outcomes": {"a.fk": [{"server": "fake", "outcome": "pulled", "elapsedMs": 1}]},
            "otherFiles": [], "dryRun": false})
    };
    let daemon = stand_in_daemon(&ws, vec![report(rendered), report(readable)]);
    let context = ws.hook("claude", &edit);

    // Gemini: the block for the next model request, in the readable form
    // the daemon rendered it in (no un-escaping afterwards).
    let gemini = json!({"session_id": "g1", "cwd": ws.root.display().to_string(),
        "hook_event_name": "AfterTool", "tool_name": "replace",
        "tool_input": {"file_path": file, "old_string": "x = 1", "new_string": "x = 2"},
        "tool_response": {"llmContent": "ok", "returnDisplay": {"fileDiff": "", "fileName": "a.fk",
            "originalContent": "x = 1\n", "newContent": "x = 2\n", "isNewFile": false}}});
    assert_eq!(
        ws.hook("gemini", &gemini),
        "",
        "AfterTool stashes the block"
    );
    let requests = daemon
        .join()
        .unwrap_or_else(|_| panic!("stand-in daemon failed"));
    let before_model = json!({"session_id": "g1", "hook_event_name": "BeforeModel",
        "llm_request": {"model": "m", "messages": [{"role": "user", "content": "hi"}]}});
    let out = ws.run(&["hook", "gemini"], &before_model.to_string());
    let handed: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", crate::support::both(&out)));

    assert_eq!(context, rendered);
    assert_eq!(
        handed["hookSpecificOutput"]["llm_request"]["messages"][1]["content"],
        readable
    );
    let claude = &requests[0];
    assert_eq!(claude["method"], "squiggle/check", "{claude}");
    assert_eq!(
        claude["params"],
        json!({"filePaths": [file], "before": {file.clone(): "x = 1\n"},
            "options": {"maxChars": 10000},
            "origin": {"surface": "hook", "agent": "claude-code", "tool": "Edit"}}),
        "the Edit's before is the file before it, the reply is capped for Claude Code, and who asks is said"
    );
    assert_eq!(
        requests[1]["params"]["options"],
        json!({"maxChars": 10000, "escape": "readable"})
    );
    assert_eq!(requests[1]["params"]["before"], json!({file: "x = 1\n"}));
    assert_eq!(
        requests[1]["params"]["origin"],
        json!({"surface": "hook", "agent": "gemini-cli", "tool": "replace"})
    );
}

/// After an earlier file with an error was touched,
/// an `Edit` of a newly written file reported that file's old error under
/// "other files" through the hook, and nothing through the wrapped `edit`.
/// The same three changes, through hooks in one workspace and through the
/// wrapped tools in another: the same text each time.
#[test]
fn the_hook_and_the_wrapped_tools_give_one_answer() {
    let (hooks, tools) = (Ws::fake(""), Ws::fake(""));
    for ws in [&hooks, &tools] {
        ws.write("old.fk", "x = 1 @error(old trouble)\n");
    }
    let touch = hooks.hook("claude", &hooks.claude_edit("old.fk", "x = 1", "x = 2"));
    let touched = tools.wrapped(
        &[
            "edit",
            "old.fk",
            "--old-string",
            "x = 1",
            "--new-string",
            "x = 2",
        ],
        "",
    );
    let write = hooks.hook("claude", &hooks.claude_write("n.fk", "y = 1\n"));
    let written = tools.wrapped(&["write", "n.fk"], "y = 1\n");
    let edit = hooks.hook(
        "claude",
        &hooks.claude_edit("n.fk", "y = 1", "y = 2 @error(new trouble)"),
    );
    let edited = tools.wrapped(
        &[
            "edit",
            "n.fk",
            "--old-string",
            "y = 1",
            "--new-string",
            "y = 2 @error(new trouble)",
        ],
        "",
    );
    hooks.stop();
    tools.stop();
    assert!(touch.contains("old trouble"), "{touch}");
    assert_eq!(touch, touched, "the first edit");
    assert_eq!(write, written, "the write of a new file");
    assert_eq!(
        edit,
        "LSP errors detected in this file, please fix:\n<diagnostics file=\"n.fk\">\nERROR [1:7] new trouble\n</diagnostics>\n",
        "the edit of the new file reports that file alone (otherFiles = \"write\")"
    );
    assert_eq!(edit, edited, "the edit of the new file");
}

/// Four agents edit one file, each followed by its own
/// hook, on one daemon (`report = "new"`). Each hook's "before" is the file
/// before its own edit (the payload says what was replaced), so no hook
/// takes another agent's look at the file for the state before its edit:
/// all 12 replies include the file, with their own edit's error.
#[test]
fn four_agents_on_one_file_each_hear_of_their_own_edit() {
    let ws = Ws::fake("report = \"new\"");
    let agents = ["a", "b", "c", "d"];
    let slots: String = agents.iter().map(|a| format!("slot {a}\n")).collect();
    ws.write("f.fk", &slots);
    let mut replies = Vec::new();
    for round in 1..=3 {
        // Every agent's edit lands, then the four hooks run at once.
        let events: Vec<(String, Value)> = agents
            .iter()
            .map(|agent| {
                let text = ws.read("f.fk");
                let old = text
                    .lines()
                    .find(|l| l.starts_with(&format!("slot {agent}")))
                    .unwrap_or_else(|| panic!("no slot {agent} in {text}"))
                    .to_string();
                let error = format!("agent {agent} round {round}");
                let new = format!("slot {agent} {round} @error({error})");
                (error, ws.claude_edit("f.fk", &old, &new))
            })
            .collect();
        let ws = &ws;
        let answered: Vec<(String, String)> = std::thread::scope(|scope| {
            let hooks: Vec<_> = events
                .iter()
                .map(|(error, event)| {
                    scope.spawn(move || (error.clone(), ws.hook("claude", event)))
                })
                .collect();
            hooks
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| panic!("hook thread panicked")))
                .collect()
        });
        replies.extend(answered);
    }
    ws.stop();
    assert_eq!(replies.len(), 12);
    let missing: Vec<&(String, String)> = replies
        .iter()
        .filter(|(error, reply)| !block(reply, "f.fk").is_some_and(|b| b.contains(error.as_str())))
        .collect();
    assert!(
        missing.is_empty(),
        "{} of 12 hook replies leave out their own edit's error:\n{missing:#?}",
        missing.len()
    );
}
