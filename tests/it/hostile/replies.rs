//! What the model and the user read. A server that could
//! not run is said, in one line; hook stderr is one plain line; control
//! characters are escaped in every rendering; one long message cannot push
//! the first error out of a capped reply; an impossible frame is answered.

use serde_json::json;

use super::{IN_PROCESS, claude_edit, hook_context, pull, squiggle, stderr, stdout, workspace};
use crate::support::both;
use crate::support::scratch::write_under;
use crate::support::service::{Framing, Service};

/// A configured server whose command does not exist left the
/// edit's text at "Edit applied successfully." (a clean file, to the model)
/// and the hook silent. Both say in one line that it could not check the
/// file, and why. A built-in server the configuration never names is said
/// only when nothing else checked the file.
#[test]
fn a_server_that_could_not_run_is_said_in_the_edit_and_the_hook() {
    let ws = workspace("", pull());
    let user = ws.config_home.join("squiggle/config.toml");
    let mut config = std::fs::read_to_string(&user).unwrap_or_default();
    config.push_str(
        "\n[lsp.servers.my-lint]\ncommand = \"squiggle-no-such-lint\"\nextensions = [\".zz\", \".fk\"]\n",
    );
    write_under(&ws.config_home, "squiggle/config.toml", config.as_bytes());
    ws.write("a.zz", "a\n");
    ws.write("b.fk", "a\n");
    let said = "my-lint could not check a.zz: squiggle-no-such-lint not found on PATH";

    let edit = ["edit", "a.zz", "--old-string", "a", "--new-string", "b"];
    let out = squiggle(&ws, &edit, IN_PROCESS, b"");
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let text = stdout(&out);
    assert!(text.starts_with("Edit applied successfully.\n\n"), "{text}");
    assert!(text.contains(said), "{text}");
    assert_eq!(text.matches("my-lint").count(), 1, "one line: {text}");

    ws.write("a.zz", "c\n");
    let out = squiggle(
        &ws,
        &["hook", "claude"],
        IN_PROCESS,
        &claude_edit(&ws, "a.zz"),
    );
    let context = hook_context(&out);
    assert!(context.contains(said), "{context}");

    // Beside a server that answered, the configured one is still named.
    let out = squiggle(
        &ws,
        &["hook", "claude"],
        IN_PROCESS,
        &claude_edit(&ws, "b.fk"),
    );
    let context = hook_context(&out);
    assert!(
        context.contains("my-lint could not check b.fk: "),
        "{context}"
    );

    // Built-in Python servers nobody configured and this PATH lacks: said
    // when nothing checked the file, and not once the fake checks it too.
    ws.write("c.py", "x = 1\n");
    let python = |ws: &crate::support::scratch::Scratch| {
        let mut command = ws.command(&["edit", "c.py", "--old-string", "1", "--new-string", "2"]);
        command
            .env("SQUIGGLE_NO_DAEMON", "1")
            .env("PATH", "/usr/bin:/bin");
        let out = super::bounded(&mut command, b"");
        assert_eq!(out.status.code(), Some(0), "{}", both(&out));
        stdout(&out)
    };
    let text = python(&ws);
    assert!(text.contains("pyright could not check c.py: "), "{text}");
    ws.write("c.py", "x = 1\n");
    let fake = crate::support::fake_server::FakeServer::new(pull())
        .extensions(&[".py"])
        .toml("fakepy");
    ws.write(".squiggle.toml", "");
    write_under(
        &ws.config_home,
        "squiggle/config.toml",
        format!("{config}\n{fake}").as_bytes(),
    );
    let text = python(&ws);
    assert_eq!(text, "Edit applied successfully.\n", "{text}");
}

/// A broken `.squiggle.toml` in a hook wrote two stderr lines,
/// one of them a `tracing` line in colour (raw ANSI codes in the agent's
/// log). One plain line names the file; `tracing` colours only a terminal.
#[test]
fn hook_stderr_is_one_plain_line_and_logs_are_plain_off_a_terminal() {
    let ws = workspace("", pull());
    ws.write("a.fk", "a\n");
    let config = ws.write(".squiggle.toml", "[lsp\n");
    let out = squiggle(
        &ws,
        &["hook", "claude"],
        IN_PROCESS,
        &claude_edit(&ws, "a.fk"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(out.stdout.is_empty(), "{}", both(&out));
    let text = stderr(&out);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.starts_with(&format!("squiggle hook: {}:1:", config.display())),
        "{text}"
    );
    assert!(!text.contains('\u{1b}'), "{text:?}");

    std::fs::remove_file(&config).unwrap_or_else(|e| panic!("{e}"));
    let env = [("SQUIGGLE_NO_DAEMON", "1"), ("RUST_LOG", "debug")];
    let out = squiggle(&ws, &["hook", "claude"], &env, &claude_edit(&ws, "a.fk"));
    let text = stderr(&out);
    assert!(text.contains("DEBUG"), "logs were asked for: {text}");
    assert!(!text.contains('\u{1b}'), "colour off a terminal: {text:?}");
}

/// A server message holding ESC sequences or BEL went raw into
/// the edit's text, the hook's context and `check`'s output. Every C0
/// control but tab and newline is written as a visible escape.
#[test]
fn control_characters_never_reach_a_reply_raw() {
    let ws = workspace("", pull());
    let hostile = "@error(\u{1b}[2J\u{1b}[31mred\u{7} bell\u{8}back)\n";
    let raw = |text: &str| {
        text.chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
    };
    let escaped = "ERROR [1:1] \\x1b[2J\\x1b[31mred\\x07 bell\\x08back";

    let out = squiggle(&ws, &["write", "a.fk"], IN_PROCESS, hostile.as_bytes());
    let text = stdout(&out);
    assert!(!raw(&text) && text.contains(escaped), "edit: {text:?}");

    let out = squiggle(
        &ws,
        &["hook", "claude"],
        IN_PROCESS,
        &claude_edit(&ws, "a.fk"),
    );
    let context = hook_context(&out);
    assert!(
        !raw(&context) && context.contains(escaped),
        "hook: {context:?}"
    );

    let out = squiggle(&ws, &["check", "a.fk"], IN_PROCESS, b"");
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let text = stdout(&out);
    assert!(!raw(&text) && text.contains(escaped), "check: {text:?}");
}

/// A 100 KB message made the edit tool's text 100,136
/// characters, and the hook's capped reply an empty block: the error was
/// gone. Each message is cut before the caps count, so the edit's text is
/// bounded and both hooks' capped replies keep the first error's line.
#[test]
fn a_100_kb_message_keeps_its_first_line_in_every_capped_reply() {
    let ws = workspace("", pull());
    let message = format!("huge {}", "x".repeat(100_000));
    ws.write("a.fk", "plain\n");
    let edit = [
        "edit",
        "a.fk",
        "--old-string",
        "plain",
        "--new-string",
        &format!("@error({message})"),
    ];
    let out = squiggle(&ws, &edit, IN_PROCESS, b"");
    let text = stdout(&out);
    assert!(text.chars().count() < 2_500, "{} characters", text.len());
    assert!(text.contains("ERROR [1:1] huge xxx"), "{text}");
    assert!(text.contains(" ... (98005 more characters)"), "{text}");

    let claude = hook_context(&squiggle(
        &ws,
        &["hook", "claude"],
        IN_PROCESS,
        &claude_edit(&ws, "a.fk"),
    ));
    assert!(claude.contains("ERROR [1:1] huge xxx"), "{claude}");
    let patch =
        "*** Begin Patch\n*** Update File: a.fk\n@@\n-plain\n+@error(huge)\n*** End Patch\n";
    let codex = json!({
        "session_id": "s1",
        "cwd": ws.root.display().to_string(),
        "hook_event_name": "PostToolUse",
        "tool_name": "apply_patch",
        "tool_input": {"command": patch},
        "tool_response": "Success. Updated the following files:\nM a.fk\n"
    });
    let out = squiggle(
        &ws,
        &["hook", "codex"],
        IN_PROCESS,
        codex.to_string().as_bytes(),
    );
    let codex = hook_context(&out);
    assert!(codex.chars().count() <= 5_000, "{} characters", codex.len());
    assert!(codex.contains("ERROR [1:1] huge xxx"), "{codex}");
}

/// `squiggle serve` given `Content-Length: 100000000000000`
/// and then the end of input never answered: it tried to skip 100 TB
/// first. The parse error comes from the header alone.
#[test]
fn an_impossible_content_length_is_answered_without_reading_it() {
    let ws = workspace("", pull());
    let mut command = ws.command(&["serve", "--root"]);
    command.arg(&ws.root).env_remove("RUST_LOG");
    let mut service = Service::spawn(&mut command, Framing::Headers);
    service.send_bytes(b"Content-Length: 100000000000000\r\n\r\n{\"jsonrpc\":");
    let answer = service.next_frame();
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert_eq!(answer["id"], serde_json::Value::Null, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("100000000000000-byte message"), "{answer}");
    service.close_stdin();
    assert_eq!(service.wait(), Some(0));
}
