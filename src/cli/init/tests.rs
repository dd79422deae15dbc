//! `init`'s merging of hook groups and its reading of commands.

use super::ordered::Json;
use super::*;

/// What `init AGENT` adds, with no option.
fn add_hook(settings: &mut Json, agent: Agent) -> Result<bool, String> {
    add_hooks(settings, agent, &events(agent, false, false))
}

fn merged(text: &str, agent: Agent) -> (bool, String) {
    let mut v: Json = serde_json::from_str(text).unwrap_or(Json::Null);
    let changed = add_hook(&mut v, agent).unwrap_or_else(|e| panic!("{e}"));
    (changed, serde_json::to_string(&v).unwrap_or_default())
}

#[test]
fn each_agent_gets_its_own_shape() {
    assert_eq!(
        merged("{}", Agent::Claude).1,
        r#"{"hooks":{"PostToolUse":[{"matcher":"Write|Edit|Bash","hooks":[{"type":"command","command":"squiggle hook claude"}]}],"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"squiggle hook claude"}]}],"SessionStart":[{"hooks":[{"type":"command","command":"squiggle hook claude"}]}]}}"#
    );
    assert_eq!(
        merged("{}", Agent::Codex).1,
        r#"{"hooks":{"PostToolUse":[{"matcher":"apply_patch|Bash","hooks":[{"type":"command","command":"squiggle hook codex"}]}],"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"squiggle hook codex"}]}],"SessionStart":[{"hooks":[{"type":"command","command":"squiggle hook codex"}]}]}}"#
    );
    let g = r#"{"name":"squiggle","type":"command","command":"squiggle hook gemini"}"#;
    assert_eq!(
        merged(r#"{"theme":"x","hooks":{"BeforeTool":[]}}"#, Agent::Gemini).1,
        format!(
            r#"{{"theme":"x","hooks":{{"BeforeTool":[{{"matcher":"run_shell_command","hooks":[{g}]}}],"AfterTool":[{{"matcher":"write_file|replace|run_shell_command","hooks":[{g}]}}],"BeforeModel":[{{"hooks":[{g}]}}],"SessionStart":[{{"hooks":[{g}]}}]}}}}"#
        )
    );
}

#[test]
fn an_existing_squiggle_hook_counts_even_with_a_path() {
    let text = r#"{"hooks":{"PostToolUse":[{"matcher":"Edit","hooks":[{"type":"command","command":"/opt/bin/squiggle hook claude --root ."}]}],"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"squiggle hook claude"}]}],"SessionStart":[{"hooks":[{"type":"command","command":"squiggle hook claude"}]}]}}"#;
    assert_eq!(merged(text, Agent::Claude), (false, text.to_string()));
    // Another agent's hook is not this one's.
    assert!(merged(text, Agent::Codex).0);
}

#[test]
fn an_older_init_is_brought_up_to_date_once() {
    let old = r#"{"hooks":{"PostToolUse":[{"matcher":"Write|Edit|MultiEdit","hooks":[{"type":"command","command":"squiggle hook claude"}]}]}}"#;
    let (changed, text) = merged(old, Agent::Claude);
    assert!(changed);
    assert_eq!(text, merged("{}", Agent::Claude).1);
    assert_eq!(merged(&text, Agent::Claude), (false, text.clone()));
}

#[test]
fn wrong_shapes_are_named() {
    let mut v: Json = serde_json::from_str(r#"{"hooks":{"PostToolUse":{}}}"#).unwrap_or(Json::Null);
    assert_eq!(
        add_hook(&mut v, Agent::Claude),
        Err("`hooks.PostToolUse` is an object, expected an array".into())
    );
    let mut v = Json::Array(vec![]);
    assert_eq!(
        add_hook(&mut v, Agent::Claude),
        Err("expected a JSON object at the top level, found an array".into())
    );
    let mut v: Json = serde_json::from_str(r#"{"hooks":[]}"#).unwrap_or(Json::Null);
    assert_eq!(
        add_hook(&mut v, Agent::Claude),
        Err("`hooks` is an array, expected an object".into())
    );
}

#[test]
fn a_hook_is_recognised_however_a_shell_spells_it() {
    for command in [
        "squiggle hook claude",
        "squiggle.exe hook claude",
        "SQUIGGLE.EXE hook claude --root .",
        r#""C:\Program Files\squiggle\squiggle.exe" hook claude"#,
        r#"& "C:\Program Files\squiggle\squiggle.exe" hook claude"#,
        r"C:\tools\squiggle.exe hook claude",
        "'/opt/my tools/squiggle' hook claude",
    ] {
        assert!(runs_hook(command, Agent::Claude), "{command}");
    }
    for command in [
        "squiggle hook codex",
        "squiggles hook claude",
        r#""C:\Program Files\squiggle\squiggle.exe hook claude"#,
        "squiggle check",
        "echo squiggle hook claude",
    ] {
        assert!(!runs_hook(command, Agent::Claude), "{command}");
    }
}
