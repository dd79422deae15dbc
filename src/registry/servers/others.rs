//! The remaining languages, one server each, with the best-known command:
//! Java, Kotlin, Ruby, C#, Lua, Zig, Swift, PHP, Elixir, Dockerfile and
//! Terraform. Build tools that nest projects (Gradle, Maven, Mix umbrellas)
//! are rooted at the outermost build file so one server sees the whole build.

use std::time::Duration;

use crate::registry::{CommandCandidate, RootStrategy, ServerSpec, WaitProfile, settle, spec};

pub fn servers() -> Vec<ServerSpec> {
    vec![
        ServerSpec {
            root_strategy: RootStrategy::Outermost,
            ..spec(
                "jdtls",
                &["jdtls"],
                &["java"],
                &[
                    "settings.gradle",
                    "settings.gradle.kts",
                    "pom.xml",
                    "build.gradle",
                    "build.gradle.kts",
                    "build.xml",
                ],
                "brew install jdtls",
            )
        },
        ServerSpec {
            root_strategy: RootStrategy::Outermost,
            ..spec(
                "kotlin-language-server",
                &["kotlin-language-server"],
                &["kotlin"],
                &[
                    "settings.gradle",
                    "settings.gradle.kts",
                    "pom.xml",
                    "build.gradle",
                    "build.gradle.kts",
                ],
                "brew install kotlin-language-server",
            )
        },
        ServerSpec {
            // Ruby LSP reports diagnostics by pull, once per version.
            wait: settle(0),
            ..spec(
                "ruby-lsp",
                &["ruby-lsp"],
                &["ruby"],
                &["Gemfile", ".ruby-version"],
                "gem install ruby-lsp",
            )
        },
        spec(
            "csharp-ls",
            &["csharp-ls"],
            &["csharp"],
            &["*.sln", "*.slnx", "*.csproj", "global.json"],
            "dotnet tool install --global csharp-ls",
        ),
        spec(
            "lua-language-server",
            &["lua-language-server"],
            &["lua"],
            &[
                ".luarc.json",
                ".luarc.jsonc",
                ".stylua.toml",
                "stylua.toml",
                "selene.toml",
            ],
            "brew install lua-language-server",
        ),
        spec(
            "zls",
            &["zls"],
            &["zig"],
            &["build.zig", "zls.json"],
            "brew install zls",
        ),
        spec(
            "sourcekit-lsp",
            &["sourcekit-lsp"],
            &["swift"],
            &["Package.swift", "buildServer.json"],
            "xcode-select --install",
        ),
        ServerSpec {
            // One unversioned publish per change, 1 s after the last
            // change (its own debounce), also when nothing changed: a
            // publish sooner than that after a change is an earlier
            // round's. A file opened once the workspace is indexed gets
            // one complete publish at once (4-9 ms), and a close one
            // clear: once indexed, a new text is sent as a reopen and
            // that publish is the answer. Before (an open while it
            // indexes is answered at once with an incomplete set) the
            // stale window sets the early publish aside: with no later
            // one it stands after `unchanged_quiet` (docs/servers.md).
            wait: WaitProfile {
                stale_window: Duration::from_millis(600),
                unchanged_quiet: Duration::from_millis(2000),
                reopen_when_indexed: true,
                ..settle(0)
            },
            ..spec(
                "intelephense",
                &["intelephense", "--stdio"],
                &["php"],
                &["composer.json"],
                "npm i -g intelephense",
            )
        },
        ServerSpec {
            root_strategy: RootStrategy::Outermost,
            commands: vec![
                CommandCandidate::new("elixir-ls", &[]),
                CommandCandidate::new("language_server.sh", &[]),
            ],
            ..spec(
                "elixir-ls",
                &["elixir-ls"],
                &["elixir", "phoenix-heex"],
                &["mix.exs"],
                "brew install elixir-ls",
            )
        },
        ServerSpec {
            // One unversioned publish for every change of the text, made
            // as the change is read (docs/servers.md).
            wait: settle(0),
            ..spec(
                "docker-langserver",
                &["docker-langserver", "--stdio"],
                &["dockerfile"],
                &[],
                "npm i -g dockerfile-language-server-nodejs",
            )
        },
        spec(
            "terraform-ls",
            &["terraform-ls", "serve"],
            &["terraform", "terraform-vars"],
            &[".terraform", ".terraform.lock.hcl"],
            "brew install hashicorp/tap/terraform-ls",
        ),
    ]
}
