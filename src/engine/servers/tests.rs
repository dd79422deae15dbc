use super::*;

/// The ids of the servers `serving` chooses for `path`.
fn ids<'a>(servers: &'a [ResolvedServer], path: &str) -> Vec<&'a str> {
    serving(Path::new(path), servers)
        .into_iter()
        .map(|(index, _)| servers[index].spec.id.as_str())
        .collect()
}

#[test]
fn every_language_gets_its_default_servers() {
    let servers = resolve(&Config::default());
    let cases: [(&str, &[&str]); 13] = [
        ("app/main.py", &["pyright", "ruff"]),
        ("stubs/lib.pyi", &["pyright", "ruff"]),
        ("src/index.ts", &["typescript-language-server", "eslint"]),
        ("src/App.jsx", &["typescript-language-server", "eslint"]),
        ("main.go", &["gopls"]),
        ("go.mod", &["gopls"]),
        ("src/lib.rs", &["rust-analyzer"]),
        ("src/main.cpp", &["clangd"]),
        ("Cargo.toml", &["tombi"]),
        (".bashrc", &["bash-language-server"]),
        ("Dockerfile", &["docker-langserver"]),
        ("README.md", &[]),
        ("notes.txt", &[]),
    ];
    for (path, expected) in cases {
        assert_eq!(ids(&servers, path), expected, "servers for {path}");
    }
}

#[test]
fn enabling_an_alternative_ahead_of_the_default_takes_the_group() {
    let mut servers = resolve(&Config::default());
    let ty = servers.iter().position(|s| s.spec.id == "ty").unwrap();
    let mut ty = servers.remove(ty);
    ty.enabled = true;
    servers.insert(0, ty);
    assert_eq!(ids(&servers, "a.py"), ["ty", "ruff"]);
}

#[test]
fn disabling_the_default_leaves_its_group_to_the_next_enabled() {
    let mut config = Config::default();
    for (id, enabled) in [("typescript-language-server", false), ("tsgo", true)] {
        let enabled = ServerOverride {
            enabled: Some(enabled),
            ..Default::default()
        };
        config.servers.insert(id.into(), enabled);
    }
    let servers = resolve(&config);
    assert_eq!(ids(&servers, "a.ts"), ["tsgo", "eslint"]);
}

#[test]
fn python_gets_pyright_and_ruff_by_default_and_config_can_swap_the_checker() {
    let config = Config::default();
    let servers = resolve(&config);
    assert_eq!(ids(&servers, "a.py"), ["pyright", "ruff"]);

    let mut config = Config::default();
    config.servers.insert(
        "pyright".into(),
        ServerOverride {
            enabled: Some(false),
            ..Default::default()
        },
    );
    config.servers.insert(
        "basedpyright".into(),
        ServerOverride {
            enabled: Some(true),
            ..Default::default()
        },
    );
    let servers = resolve(&config);
    assert_eq!(ids(&servers, "a.py"), ["basedpyright", "ruff"]);
}

/// Built-in timing comes from the registry; configuration overrides it
/// for built-in and custom servers alike.
#[test]
fn timing_windows_come_from_the_registry_and_config_overrides_them() {
    let find = |servers: &[ResolvedServer], id: &str| {
        let s = servers.iter().find(|s| s.spec.id == id).expect(id);
        (
            s.spec.wait.settle.as_millis() as u64,
            s.spec.wait.stale_window.as_millis() as u64,
        )
    };
    let servers = resolve(&Config::default());
    assert_eq!(find(&servers, "typescript-language-server"), (300, 300));
    assert_eq!(find(&servers, "gopls"), (0, 0));

    let mut config = Config::default();
    let timing = ServerOverride {
        settle_ms: Some(20),
        stale_window_ms: Some(40),
        ..Default::default()
    };
    config
        .servers
        .insert("typescript-language-server".into(), timing.clone());
    config.servers.insert(
        "mylsp".into(),
        ServerOverride {
            command: Some("/opt/mylsp".into()),
            ..timing
        },
    );
    let servers = resolve(&config);
    assert_eq!(find(&servers, "typescript-language-server"), (20, 40));
    assert_eq!(find(&servers, "mylsp"), (20, 40));
}

#[test]
fn custom_servers_serve_their_extensions() {
    let mut config = Config::default();
    config.servers.insert(
        "mylsp".into(),
        ServerOverride {
            command: Some("/opt/mylsp".into()),
            extensions: Some(vec![".xyz".into()]),
            language_id: Some("xyz".into()),
            ..Default::default()
        },
    );
    let servers = resolve(&config);
    let chosen = serving(Path::new("f.XYZ"), &servers);
    assert_eq!(chosen.len(), 1);
    let (index, language) = &chosen[0];
    assert_eq!(
        (servers[*index].spec.id.as_str(), language.as_str()),
        ("mylsp", "xyz")
    );
}

/// A server's `initializationOptions` and `settings` from configuration
/// merge key by key over the built-in ones: rust-analyzer given a check
/// command keeps the one worker thread its wait relies on.
#[test]
fn server_options_merge_key_by_key_over_the_built_in_ones() {
    let mut config = Config::default();
    config.servers.insert(
        "rust-analyzer".into(),
        ServerOverride {
            initialization_options: Some(serde_json::json!({
                "check": { "overrideCommand": ["true"] }
            })),
            ..Default::default()
        },
    );
    let servers = resolve(&config);
    let ra = servers
        .iter()
        .find(|s| s.spec.id == "rust-analyzer")
        .expect("rust-analyzer");
    assert_eq!(
        ra.spec.initialization_options,
        serde_json::json!({ "numThreads": 1, "check": { "overrideCommand": ["true"] } })
    );
}
