//! The per-server matrix for scripts, data and configuration files:
//! bash-language-server (shellcheck), yaml-language-server and
//! vscode-json-language-server (syntax, and a schema the file names),
//! tombi, vscode-css-language-server, docker-langserver and intelephense,
//! each on its fixture under `tests/fixtures/`. These servers see one file
//! at a time, so there is no cross-file case: clean, an error, the fix.

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

#[tokio::test]
async fn yaml_language_server_with_a_schema() {
    if support::require_program("yaml-language-server").is_none() {
        return;
    }
    // `# yaml-language-server: $schema=./schema.json` in the file.
    syntax_matrix(
        "yaml",
        "yaml-language-server",
        "shape.yaml",
        "width: 2",
        "width: two",
        Expect {
            file: "shape.yaml",
            line: 3,
            column: 8,
            code: Some("0"),
            words: &["Incorrect type. Expected \"integer\"."],
        },
    )
    .await;
}

/// A schema violation is a warning in vscode-json-language-server (VS
/// Code's convention; syntax errors are errors), so this engine shows
/// warnings too.
#[tokio::test]
async fn vscode_json_language_server_with_a_schema() {
    if support::require_program("vscode-json-language-server").is_none() {
        return;
    }
    let dir = fixture("json");
    let config = squiggle::config::Config {
        include_severities: vec![
            squiggle::config::Severity::Error,
            squiggle::config::Severity::Warning,
        ],
        ..squiggle::config::Config::default()
    };
    let engine = support::engine(dir.path(), config);
    let target = path(&dir, "shape.json");
    assert_clean(&engine, &target).await;
    let broken = edit(&engine, &target, "\"width\": 2", "\"width\": \"two\"").await;
    let text = broken.text();
    assert!(
        text.contains(
            "<diagnostics file=\"shape.json\">\nWARN [4:12] Incorrect type. Expected \"integer\"."
        ),
        "{text}"
    );
    let fixed = edit(&engine, &target, "\"width\": \"two\"", "\"width\": 2").await;
    assert_fixed(&fixed, EDITED, "Incorrect type");
    engine.shutdown().await;
}

#[tokio::test]
async fn vscode_css_language_server() {
    if support::require_program("vscode-css-language-server").is_none() {
        return;
    }
    syntax_matrix(
        "css",
        "vscode-css-language-server",
        "style.css",
        "color: red;",
        "color: ;",
        Expect {
            file: "style.css",
            line: 8,
            column: 10,
            code: Some("css-propertyvalueexpected"),
            words: &["property value expected"],
        },
    )
    .await;
}

#[tokio::test]
async fn docker_langserver() {
    if support::require_program("docker-langserver").is_none() {
        return;
    }
    syntax_matrix(
        "dockerfile",
        "docker-langserver",
        "Dockerfile",
        "EXPOSE 8080",
        "EXPOSE 8080/tcpx",
        Expect {
            file: "Dockerfile",
            line: 6,
            column: 13,
            code: Some("25"),
            words: &["Invalid proto: tcpx"],
        },
    )
    .await;
}

#[tokio::test]
async fn intelephense() {
    if support::require_program("intelephense").is_none() {
        return;
    }
    syntax_matrix(
        "php",
        "intelephense",
        "src/main.php",
        "Geometry::area($width, $height)",
        "Geometry::aera($width, $height)",
        Expect {
            file: "src/main.php",
            line: 9,
            column: 20,
            code: Some("P1013"),
            words: &["Undefined method 'aera'."],
        },
    )
    .await;
}
