//! `connect` as the configuration reads it: checked where it is written,
//! trusted like `command`, and exclusive with what starts a server; and as
//! `status` shows it.

use std::path::{Path, PathBuf};

use squiggle::config::{self, LoadOptions, PartialConfig, Trust};
use squiggle::platform::endpoint::Endpoint;

struct Files {
    _dir: tempfile::TempDir,
    user: PathBuf,
    workspace: PathBuf,
}

fn files(user: &str, workspace: &str) -> Files {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"));
    let base = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let user_file = base.join("squiggle/config.toml");
    let root = base.join("repo");
    std::fs::create_dir_all(&root).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(base.join("squiggle")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&user_file, user).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(root.join(".squiggle.toml"), workspace).unwrap_or_else(|e| panic!("{e}"));
    Files {
        _dir: dir,
        user: user_file,
        workspace: root,
    }
}

/// The `XDG_CONFIG_HOME` under which `f.user` is the user file.
fn xdg(f: &Files) -> &Path {
    f.user
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("/"))
}

fn load(f: &Files) -> Result<config::Config, String> {
    config::load(&LoadOptions {
        workspace_root: f.workspace.clone(),
        user_config: Some(f.user.clone()),
        trust_workspace: false,
        known_server_ids: vec!["gopls".into()],
        cli: PartialConfig::default(),
    })
    .map_err(|e| e.to_string())
}

fn error(user: &str) -> String {
    let f = files(user, "");
    load(&f).err().unwrap_or_else(|| panic!("{user:?} loaded"))
}

#[test]
fn a_bad_endpoint_names_the_key_and_says_why() {
    for (value, says) in [
        ("\"10.1.2.3:4389\"", "not a loopback address"),
        ("\"127.0.0.1:0\"", "port 0"),
        (
            "\"gopls.sock\"",
            "neither an address:port nor an absolute path",
        ),
        ("4389", "the absolute path of a Unix socket, found 4389"),
    ] {
        let error = error(&format!("[lsp.servers.gopls]\nconnect = {value}\n"));
        assert!(error.contains("lsp.servers.gopls.connect"), "{error}");
        assert!(error.contains(says), "{value}: {error}");
    }
}

#[test]
fn connect_excludes_what_starts_a_server() {
    for other in [
        "command = \"gopls\"",
        "args = [\"serve\"]",
        "env = { A = \"b\" }",
    ] {
        let error = error(&format!(
            "[lsp.servers.gopls]\nconnect = \"127.0.0.1:4389\"\n{other}\n"
        ));
        let key = other.split(' ').next().unwrap_or_default();
        assert!(
            error.contains("lsp.servers.gopls.connect")
                && error.contains(&format!("cannot be combined with {key}")),
            "{error}"
        );
    }
}

#[test]
fn a_custom_server_may_attach_and_still_needs_extensions() {
    let f = files(
        "[lsp.servers.mine]\nconnect = \"localhost:4389\"\nextensions = [\".mine\"]\n",
        "",
    );
    let config = load(&f).unwrap_or_else(|e| panic!("{e}"));
    let mine = &config.servers["mine"];
    assert_eq!(
        mine.connect,
        Endpoint::parse("127.0.0.1:4389").ok(),
        "{mine:?}"
    );
    let servers = squiggle::engine::servers::resolve(&config);
    let mine = servers.iter().find(|s| s.spec.id == "mine");
    assert!(mine.is_some_and(|s| s.connect.is_some() && s.spec.commands.is_empty()));
    let error = error("[lsp.servers.mine]\nconnect = \"/run/mine.sock\"\n");
    assert!(error.contains("needs extensions"), "{error}");
}

#[test]
fn an_untrusted_workspace_may_not_choose_the_endpoint() {
    let f = files("", "[lsp.servers.gopls]\nconnect = \"127.0.0.1:4389\"\n");
    let config = load(&f).unwrap_or_else(|e| panic!("{e}"));
    let gopls = &config.servers["gopls"];
    assert_eq!(gopls.connect, None);
    let Trust::Untrusted { reason } = &gopls.trust else {
        panic!("expected untrusted: {gopls:?}");
    };
    assert!(reason.starts_with("connect from "), "{reason}");
    // A later layer's command replaces an earlier one's endpoint.
    let f = files("[lsp.servers.gopls]\nconnect = \"127.0.0.1:4389\"\n", "");
    let mut options = load_options(&f);
    options.cli = config::parse_str(
        "[lsp.servers.gopls]\ncommand = \"gopls\"\n",
        Path::new("command line"),
        config::FileKind::User,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let config = config::load(&options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(config.servers["gopls"].connect, None);
    assert_eq!(config.servers["gopls"].command.as_deref(), Some("gopls"));
}

#[test]
fn a_later_layers_args_or_env_over_an_endpoint_is_an_error_not_ignored() {
    for (key, line) in [
        ("args", "args = [\"serve\"]"),
        ("env", "env = { A = \"b\" }"),
    ] {
        let f = files(
            "[lsp.servers.gopls]\nconnect = \"127.0.0.1:4389\"\n",
            &format!("[lsp.servers.gopls]\n{line}\n"),
        );
        let mut options = load_options(&f);
        options.trust_workspace = true;
        let error = config::load(&options)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_else(|| panic!("{key} over connect loaded"));
        assert!(
            error.contains(&format!("lsp.servers.gopls.{key}"))
                && error.contains(".squiggle.toml")
                && error.contains(&f.user.display().to_string())
                && error.contains("would do nothing"),
            "{error}"
        );
    }
    // A later connect replaces the earlier layer's launch, env included.
    let f = files(
        "[lsp.servers.gopls]\nenv = { A = \"b\" }\nargs = [\"serve\"]\n",
        "[lsp.servers.gopls]\nconnect = \"127.0.0.1:4389\"\n",
    );
    let mut options = load_options(&f);
    options.trust_workspace = true;
    let config = config::load(&options).unwrap_or_else(|e| panic!("{e}"));
    let gopls = &config.servers["gopls"];
    assert!(
        gopls.connect.is_some() && gopls.env.is_none() && gopls.args.is_none(),
        "{gopls:?}"
    );
}

fn load_options(f: &Files) -> LoadOptions {
    LoadOptions {
        workspace_root: f.workspace.clone(),
        user_config: Some(f.user.clone()),
        trust_workspace: false,
        known_server_ids: vec!["gopls".into()],
        cli: PartialConfig::default(),
    }
}

#[test]
fn the_binary_exits_two_on_a_bad_endpoint() {
    let f = files("", "[lsp.servers.gopls]\nconnect = \"192.168.1.9:4389\"\n");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_squiggle"))
        .arg("status")
        .current_dir(&f.workspace)
        .env("XDG_CONFIG_HOME", xdg(&f))
        .env_remove("SQUIGGLE_DAEMON")
        .output()
        .unwrap_or_else(|e| panic!("squiggle status: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("lsp.servers.gopls.connect"), "{stderr}");
}

#[test]
fn status_shows_where_a_server_is_attached() {
    let f = files(
        "[lsp.servers.mine]\nconnect = \"127.0.0.1:4389\"\nextensions = [\".mine\"]\n",
        "",
    );
    let status = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_squiggle"))
            .args(args)
            .current_dir(&f.workspace)
            .env("XDG_CONFIG_HOME", xdg(&f))
            .env_remove("SQUIGGLE_DAEMON")
            .output()
            .unwrap_or_else(|e| panic!("squiggle status: {e}"));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let text = status(&["status"]);
    let line = text.lines().find(|l| l.contains("mine"));
    assert!(
        line.is_some_and(|l| l.contains("idle") && l.contains("attaches to 127.0.0.1:4389")),
        "{text}"
    );
    let json = status(&["status", "--json"]);
    let json: serde_json::Value =
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("{e}: {json}"));
    let servers = json["servers"].as_array().cloned().unwrap_or_default();
    let mine = servers.iter().find(|s| s["id"] == "mine");
    assert!(
        mine.is_some_and(|m| m["endpoint"] == "127.0.0.1:4389" && m.get("command").is_none()),
        "{json}"
    );
}
