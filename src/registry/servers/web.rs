//! JSON, CSS, HTML, YAML, Svelte and Markdown: the servers extracted from
//! VS Code (one npm package serves the first three), the Red Hat YAML
//! server, Svelte's own language server, and marksman for Markdown, off by
//! default because its findings (broken links) are rarely what an agent's
//! edit is about.

use serde_json::json;

use std::time::Duration;

use crate::registry::{ServerSpec, WaitProfile, settle, spec};

const EXTRACTED: &str = "npm i -g vscode-langservers-extracted";

pub fn servers() -> Vec<ServerSpec> {
    vec![
        ServerSpec {
            settings: json!({ "json": { "validate": { "enable": true } } }),
            ..spec(
                "vscode-json-language-server",
                &["vscode-json-language-server", "--stdio"],
                &["json", "jsonc"],
                &["package.json", ".git"],
                EXTRACTED,
            )
        },
        ServerSpec {
            settings: json!({
                "css": { "validate": true },
                "scss": { "validate": true },
                "less": { "validate": true }
            }),
            ..spec(
                "vscode-css-language-server",
                &["vscode-css-language-server", "--stdio"],
                &["css", "scss", "less"],
                &["package.json", ".git"],
                EXTRACTED,
            )
        },
        ServerSpec {
            settings: json!({
                "html": { "validate": { "scripts": true, "styles": true } }
            }),
            ..spec(
                "vscode-html-language-server",
                &["vscode-html-language-server", "--stdio"],
                &["html"],
                &["package.json", ".git"],
                EXTRACTED,
            )
        },
        ServerSpec {
            settings: json!({
                "yaml": { "validate": true, "schemaStore": { "enable": true } }
            }),
            // Unversioned, and silent when a set did not change: after the
            // quiet window its earlier publish stands (as for
            // typescript-language-server).
            wait: WaitProfile {
                unchanged_quiet: Duration::from_millis(2000),
                ..WaitProfile::default()
            },
            ..spec(
                "yaml-language-server",
                &["yaml-language-server", "--stdio"],
                &["yaml"],
                &[".git"],
                "npm i -g yaml-language-server",
            )
        },
        ServerSpec {
            // It answers pulls for the text on the wire (its TypeScript
            // service over the component's generated code), and pushes
            // nothing once pull is advertised (docs/servers.md).
            wait: settle(0),
            ..spec(
                "svelte-language-server",
                &["svelteserver", "--stdio"],
                &["svelte"],
                &["svelte.config.js", "svelte.config.mjs", "package.json"],
                "npm i -g svelte-language-server",
            )
        },
        ServerSpec {
            enabled_by_default: false,
            ..spec(
                "marksman",
                &["marksman", "server"],
                &["markdown"],
                &[".marksman.toml", ".git"],
                "brew install marksman",
            )
        },
    ]
}
