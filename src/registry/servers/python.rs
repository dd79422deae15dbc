//! Python: pyright as the default type checker; basedpyright, ty, pyrefly,
//! pylsp and jedi-language-server as opt-in alternatives in the same
//! exclusive group; ruff as a linter alongside whichever one runs.

use serde_json::json;

use crate::registry::{Declaration, ServerRole, ServerSpec, settle, spec};

const ROOT_MARKERS: &[&str] = &[
    "pyproject.toml",
    "pyrightconfig.json",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
    "Pipfile",
];

const GROUP: &str = "python-types";

pub fn servers() -> Vec<ServerSpec> {
    vec![
        ServerSpec {
            settings: analysis_settings("python"),
            exclusive_group: Some(GROUP.to_string()),
            // One pyright at a uv workspace's root reads the root's
            // `[tool.pyright]` for every member (docs/servers.md, Scale).
            declared_roots: vec![Declaration::UvWorkspace],
            ..spec(
                "pyright",
                &["pyright-langserver", "--stdio"],
                &["python"],
                ROOT_MARKERS,
                "npm i -g pyright",
            )
        },
        ServerSpec {
            // basedpyright defaults to its strict "recommended" mode; agents
            // get the same checks pyright users do.
            settings: analysis_settings("basedpyright"),
            ..alternative(
                "basedpyright",
                &["basedpyright-langserver", "--stdio"],
                &[],
                "pip install basedpyright",
            )
        },
        alternative("ty", &["ty", "server"], &["ty.toml"], "uv tool install ty"),
        ServerSpec {
            // Without its own config file pyrefly hides type errors in the
            // editor unless told to show them. It publishes each version's
            // set one to three times within milliseconds, the same set each
            // time (docs/servers.md): the first is the answer.
            settings: json!({ "python": { "pyrefly": { "displayTypeErrors": "force-on" } } }),
            wait: settle(0),
            ..alternative(
                "pyrefly",
                &["pyrefly", "lsp"],
                &["pyrefly.toml"],
                "pip install pyrefly",
            )
        },
        alternative("pylsp", &["pylsp"], &[], "pip install python-lsp-server"),
        alternative(
            "jedi-language-server",
            &["jedi-language-server"],
            &[],
            "pip install jedi-language-server",
        ),
        ServerSpec {
            role: ServerRole::Linter,
            ..spec(
                "ruff",
                &["ruff", "server"],
                &["python"],
                &["ruff.toml", ".ruff.toml", "pyproject.toml"],
                "uv tool install ruff",
            )
        },
    ]
}

/// An opt-in alternative to pyright, with its own config file as the
/// strongest root marker.
fn alternative(id: &str, command: &[&str], own_markers: &[&str], hint: &str) -> ServerSpec {
    let markers: Vec<&str> = own_markers.iter().chain(ROOT_MARKERS).copied().collect();
    ServerSpec {
        enabled_by_default: false,
        exclusive_group: Some(GROUP.to_string()),
        ..spec(id, command, &["python"], &markers, hint)
    }
}

/// `<section>.analysis` settings: the standard rule set, and diagnostics for
/// open files only, so that a large project is not checked on every edit.
fn analysis_settings(section: &str) -> serde_json::Value {
    json!({
        section: {
            "analysis": {
                "typeCheckingMode": "standard",
                "diagnosticMode": "openFilesOnly"
            }
        }
    })
}
