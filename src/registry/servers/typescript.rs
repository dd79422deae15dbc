//! TypeScript and JavaScript: the project's own TypeScript checks it. With
//! TypeScript 7 (or `@typescript/native-preview`) in the project, its native
//! `tsc --lsp --stdio` (the `tsgo` entry); with TypeScript 6 or older, or
//! none, `typescript-language-server`, on the project's `tsserver.js` when
//! it has one (`registry::toolchain`). The ESLint server runs as a linter
//! alongside, started only where the project has an ESLint config, because
//! without one it has nothing to say but errors. Vue components are checked
//! by typescript-language-server with the Vue plugin for TypeScript where it
//! is installed (`registry::plugins`), so the tsserver that checks a
//! component also checks the TypeScript files that import it.

use serde_json::json;

use std::time::Duration;

use crate::lsp::SyncPull;
use crate::registry::{
    Declaration, Given, Majors, ProjectPackage, ServerPlugin, ServerRole, ServerSpec, WaitProfile,
    settle, spec,
};

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
            // One tsserver serves every project of a declared monorepo (it
            // finds each file's own tsconfig): measured in docs/servers.md
            // (Scale) to give the same diagnostics as per-package instances.
            declared_roots: vec![Declaration::TsconfigReferences, Declaration::NodeWorkspaces],
            // Unversioned waves with no completion signal: measured quiet
            // windows stand in for one (docs/servers.md). A publish within
            // the stale window after a change is the round before it's; the
            // settle window collects later waves; a set that did not change
            // is not published again, so silence past `unchanged_quiet`
            // keeps the earlier one; other open files are published after
            // the edited one, within the largest gap between waves measured
            // (docs/truth.md, "How the quiet windows were measured").
            // It answers tsserver's synchronous diagnostics requests on
            // the current text: the wait asks those first (docs/servers.md)
            // and falls back on the pushes only when they fail.
            // The project's TypeScript before 7, through its tsserver.js
            // (without it the server loads the nearest TypeScript it finds
            // itself, or its own).
            packages: vec![ProjectPackage {
                name: "typescript".into(),
                majors: Majors {
                    from: 0,
                    below: Some(7),
                },
                given: Given::InitOption {
                    pointer: "/tsserver/path".into(),
                    file: "lib/tsserver.js".into(),
                },
            }],
            plugins: vec![vue_plugin()],
            // After an incremental change inside a component's template,
            // tsserver with the Vue plugin (3.3.11) keeps answering for the
            // template before it: an edit reverted that way still reports
            // the edit's error (docs/servers.md, "Vue").
            full_sync_languages: vec!["vue".into()],
            wait: WaitProfile {
                sync_pull: Some(SyncPull::Tsserver),
                stale_window: Duration::from_millis(300),
                unchanged_quiet: Duration::from_millis(2000),
                others_quiet: Duration::from_millis(350),
                fixes_after_check: true,
                ..settle(300)
            },
            ..spec(
                "typescript-language-server",
                &["typescript-language-server", "--stdio"],
                &[LANGUAGES, &["vue"]].concat(),
                ROOT_MARKERS,
                "npm i -g typescript-language-server typescript@6",
            )
        },
        ServerSpec {
            // TypeScript 7's own language server: chosen where the project
            // has TypeScript 7 (or the native preview), not by a switch;
            // without either in the project, only when enabled in place of
            // typescript-language-server (then the `tsgo` on PATH).
            packages: vec![
                native_typescript("typescript", "tsc", 7),
                native_typescript("@typescript/native-preview", "tsgo", 0),
            ],
            // It answers pull requests only, for the version on the wire
            // before the request, for any file asked (docs/servers.md).
            wait: settle(0),
            exclusive_group: Some("ts-types".to_string()),
            ..spec(
                "tsgo",
                &["tsgo", "--lsp", "--stdio"],
                LANGUAGES,
                ROOT_MARKERS,
                "npm i -D typescript@7",
            )
        },
        eslint(),
    ]
}

/// `@vue/typescript-plugin` (Vue's language tools, the plugin `vue-tsc`
/// and Vue's own language server run on): tsserver reads `.vue` components
/// with it, and TypeScript files importing them see their types.
fn vue_plugin() -> ServerPlugin {
    ServerPlugin {
        package: "@vue/typescript-plugin".into(),
        pointer: "/plugins".into(),
        entry: json!({ "name": "@vue/typescript-plugin", "languages": ["vue"] }),
        languages: vec!["vue".into()],
    }
}

/// A native TypeScript package from major `from` on: its program `bin`
/// (a Node script that runs the platform build, which is started directly
/// when npm installed it beside the package) with `--lsp --stdio`.
fn native_typescript(name: &str, bin: &str, from: u64) -> ProjectPackage {
    let base = name.rsplit('/').next().unwrap_or(name);
    ProjectPackage {
        name: name.into(),
        majors: Majors { from, below: None },
        given: Given::Program {
            bin: bin.into(),
            args: vec!["--lsp".into(), "--stdio".into()],
            native: Some(format!(
                "@typescript/{base}-{{platform}}-{{arch}}/lib/{bin}"
            )),
        },
    }
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
