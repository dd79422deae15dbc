//! TypeScript and JavaScript: `typescript-language-server` as the type
//! checker, the native-preview `tsgo` as its opt-in alternative, and the
//! ESLint server as a linter alongside, started only where the project has an
//! ESLint config, because without one it has nothing to say but errors.

use serde_json::json;

use crate::registry::{ServerRole, ServerSpec, spec};

const LANGUAGES: &[&str] = &[
    "typescript",
    "typescriptreact",
    "javascript",
    "javascriptreact",
];
const ROOT_MARKERS: &[&str] = &["tsconfig.json", "jsconfig.json", "package.json"];

/// ESLint configuration files, flat (ESLint 9 and later) and legacy. A legacy
/// `eslintConfig` key in `package.json` is not detected.
const ESLINT_CONFIGS: &[&str] = &[
    "eslint.config.js",
    "eslint.config.mjs",
    "eslint.config.cjs",
    "eslint.config.ts",
    "eslint.config.mts",
    "eslint.config.cts",
    ".eslintrc",
    ".eslintrc.js",
    ".eslintrc.cjs",
    ".eslintrc.yaml",
    ".eslintrc.yml",
    ".eslintrc.json",
];

pub fn servers() -> Vec<ServerSpec> {
    vec![
        ServerSpec {
            initialization_options: json!({}),
            exclusive_group: Some("ts-types".to_string()),
            // Unversioned publishes in waves: an early (often empty) set,
            // then the semantic one about 200 ms later (measured here; see
            // docs/servers.md), later still on a loaded machine. 150 ms cut
            // the second wave off under CI load.
            settle_ms: 300,
            // After a didChange it waits at least 300 ms before asking
            // tsserver for errors, then publishes 50 ms after the last kind
            // arrives; a publish sooner than that comes from a round that
            // began before the change, and may carry the old text's
            // diagnostics (scripts/ts-wave-probe; docs/servers.md).
            stale_window_ms: 300,
            ..spec(
                "typescript-language-server",
                &["typescript-language-server", "--stdio"],
                LANGUAGES,
                ROOT_MARKERS,
                "npm i -g typescript-language-server typescript@6",
            )
        },
        ServerSpec {
            // tsgo answers pull requests only, once per document version.
            settle_ms: 0,
            enabled_by_default: false,
            exclusive_group: Some("ts-types".to_string()),
            ..spec(
                "tsgo",
                &["tsgo", "--lsp", "--stdio"],
                LANGUAGES,
                ROOT_MARKERS,
                "npm i -g @typescript/native-preview",
            )
        },
        eslint(),
    ]
}

fn eslint() -> ServerSpec {
    ServerSpec {
        requires_marker: ESLINT_CONFIGS.iter().map(|m| m.to_string()).collect(),
        settings: eslint_settings(),
        role: ServerRole::Linter,
        ..spec(
            "eslint",
            &["vscode-eslint-language-server", "--stdio"],
            LANGUAGES,
            // The directory of the nearest config: ESLint's working directory.
            ESLINT_CONFIGS,
            "npm i -g vscode-langservers-extracted",
        )
    }
}

/// What the VS Code extension answers when the server asks for the empty
/// section (its whole configuration, `ConfigurationSettings` in
/// vscode-eslint's `$shared/settings.ts`). The server reads these fields
/// without defaults, so a `null` answer breaks validation.
///
/// `useFlatConfig` is left out so that the server lets the installed ESLint
/// pick flat or legacy config by its version. `workingDirectory` mode
/// `location` makes the workspace folder ESLint's working directory; the
/// client is expected to add `workspaceFolder: {uri, name}` for the root it
/// started the server in, as VS Code does.
fn eslint_settings() -> serde_json::Value {
    json!({
        "validate": "on",
        "run": "onType",
        "packageManager": "npm",
        "useESLintClass": false,
        "experimental": {},
        "nodePath": null,
        "workingDirectory": { "mode": "location" },
        "options": {},
        "rulesCustomizations": [],
        "problems": { "shortenToSingleLine": false },
        "quiet": false,
        "onIgnoredFiles": "off",
        "format": false,
        "codeAction": {
            "disableRuleComment": { "enable": true, "location": "separateLine" },
            "showDocumentation": { "enable": true }
        },
        "codeActionOnSave": { "enable": false, "mode": "all" }
    })
}
