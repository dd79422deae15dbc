//! The per-server matrix for scripts and data files: bash-language-server
//! (shellcheck), yaml-language-server, vscode-json-language-server and
//! tombi, each on its fixture under `tests/fixtures/`. These servers see one
//! file at a time, so there is no cross-file case: clean, a syntax error,
//! the fix.

use crate::support;
use crate::support::matrix::*;

/// Clean, then `old` → `new` must report `expect`, then back must be clean.
async fn syntax_matrix(
    fixture_name: &str,
    id: &str,
    file: &str,
    old: &str,
    new: &str,
    expect: Expect<'_>,
) {
    let dir = fixture(fixture_name);
    let engine = engine(dir.path(), &[]);
    let target = path(&dir, file);
    assert_clean(&engine, &target).await;
    let broken = edit(&engine, &target, old, new).await;
    assert_eq!(servers_of(&broken), [id]);
    assert_error(&broken, &expect);
    let fixed = edit(&engine, &target, new, old).await;
    assert_fixed(&fixed, EDITED, expect.words[0]);
    engine.shutdown().await;
}

#[tokio::test]
async fn bash_language_server() {
    if support::require_program("bash-language-server").is_none()
        || support::require_program("shellcheck").is_none()
    {
        return;
    }
    syntax_matrix(
        "shell",
        "bash-language-server",
        "main.sh",
        "  greet \"$1\"\nfi",
        "  greet \"$1\"",
        Expect {
            file: "main.sh",
            line: 7,
            column: 1,
            code: Some("SC1046"),
            words: &["Couldn't find 'fi' for this 'if'"],
        },
    )
    .await;
}

#[tokio::test]
async fn yaml_language_server() {
    if support::require_program("yaml-language-server").is_none() {
        return;
    }
    syntax_matrix(
        "yaml",
        "yaml-language-server",
        "config.yaml",
        "version: 1",
        "version: [1, 2",
        Expect {
            file: "config.yaml",
            line: 3,
            column: 1,
            code: Some("0"),
            words: &["Flow sequence", "end with a ]"],
        },
    )
    .await;
}

#[tokio::test]
async fn vscode_json_language_server() {
    if support::require_program("vscode-json-language-server").is_none() {
        return;
    }
    syntax_matrix(
        "json",
        "vscode-json-language-server",
        "settings.json",
        "\"width\": 2,",
        "\"width\": 2",
        Expect {
            file: "settings.json",
            line: 3,
            column: 3,
            code: Some("514"),
            words: &["Expected comma"],
        },
    )
    .await;
}

#[tokio::test]
async fn tombi() {
    if support::require_program("tombi").is_none() {
        return;
    }
    syntax_matrix(
        "toml",
        "tombi",
        "settings.toml",
        "width = 2",
        "width = ",
        Expect {
            file: "settings.toml",
            line: 4,
            column: 9,
            code: None,
            words: &["expected value"],
        },
    )
    .await;
}
