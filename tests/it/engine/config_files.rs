//! Configuration as a user meets it: real files in a temp dir, loaded through
//! `config::load`, checked key by key and error message by error message.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use squiggle::config::{
    self, Config, ConfigError, FileKind, LoadOptions, PartialConfig, ServerOverride, Severity,
    Trust,
};
use squiggle::render::ReportMode;

const BUILTINS: &[&str] = &["pyright", "rust-analyzer", "typescript"];

/// A user config directory and a workspace, both in one temp dir.
struct Fixture {
    _dir: tempfile::TempDir,
    user_file: PathBuf,
    workspace: PathBuf,
}

impl Fixture {
    fn new(user: Option<&str>, workspace: Option<&str>) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let base = squiggle::platform::paths::canonicalize(dir.path()).unwrap();
        let user_file = base.join("xdg/squiggle/config.toml");
        let workspace_root = base.join("repo");
        fs::create_dir_all(user_file.parent().unwrap()).unwrap();
        fs::create_dir_all(&workspace_root).unwrap();
        if let Some(text) = user {
            fs::write(&user_file, text).unwrap();
        }
        if let Some(text) = workspace {
            fs::write(workspace_root.join(".squiggle.toml"), text).unwrap();
        }
        Fixture {
            _dir: dir,
            user_file,
            workspace: workspace_root,
        }
    }

    fn workspace_file(&self) -> PathBuf {
        self.workspace.join(".squiggle.toml")
    }

    fn options(&self) -> LoadOptions {
        LoadOptions {
            workspace_root: self.workspace.clone(),
            user_config: Some(self.user_file.clone()),
            trust_workspace: false,
            known_server_ids: BUILTINS.iter().map(|s| s.to_string()).collect(),
            cli: PartialConfig::default(),
        }
    }

    fn load(&self) -> Config {
        config::load(&self.options()).unwrap_or_else(|e| panic!("load failed: {e}"))
    }

    fn error(&self) -> String {
        match config::load(&self.options()) {
            Ok(config) => panic!("expected an error, loaded {config:#?}"),
            Err(e) => e.to_string(),
        }
    }
}

/// Asserts the whole message, with `{user}` and `{workspace}` standing for
/// the two files.
fn check_error(user: Option<&str>, workspace: Option<&str>, expected: &str) {
    let f = Fixture::new(user, workspace);
    let expected = expected
        .replace("{user}", &f.user_file.display().to_string())
        .replace("{workspace}", &f.workspace_file().display().to_string());
    let actual = f.error();
    assert_eq!(
        actual, expected,
        "\nexpected: {expected}\n  actual: {actual}"
    );
}

fn server<'c>(config: &'c Config, id: &str) -> &'c ServerOverride {
    config
        .servers
        .get(id)
        .unwrap_or_else(|| panic!("no override for {id}"))
}

#[test]
fn no_files_means_defaults() {
    let f = Fixture::new(None, None);
    let config = f.load();
    assert_eq!(config, Config::default());
    assert!(config.enabled);
    assert_eq!(config.diagnostic_timeout, Duration::from_millis(3000));
    assert_eq!(config.first_touch_timeout, Duration::from_millis(10_000));
    assert_eq!(config.max_diagnostics_per_file, 20);
    assert_eq!(config.max_project_diagnostics_files, 5);
    assert_eq!(config.max_diagnostic_lines, 50);
    assert_eq!(config.include_severities, vec![Severity::Error]);
    assert!(config.navigation_tools && config.write_tools && config.auto_detect);
    assert_eq!(config.report, ReportMode::All);
    assert_eq!(config.daemon_idle, Duration::from_secs(30 * 60));
    assert!(config.sources.is_empty());
}

#[test]
fn layers_win_key_by_key() {
    let f = Fixture::new(
        Some(
            r#"
            [lsp]
            diagnosticTimeout = 1000
            firstTouchTimeout = 20000
            maxDiagnosticsPerFile = 7
            includeSeverities = ["warning", "error", "warning"]
            report = "new"
            daemonIdleMinutes = 5
            fixWaitMs = 40

            [lsp.servers.pyright]
            settleMs = 100
            staleWindowMs = 50
            rootMarkers = ["setup.py"]
            settings = { python = { analysis = { typeCheckingMode = "basic", autoImport = true } } }
            "#,
        ),
        Some(
            r#"
            [lsp]
            diagnosticTimeout = 2000
            navigationTools = false
            maxDiagnosticLines = 0
            fixWaitMs = 0

            [lsp.servers.pyright]
            settleMs = 300
            settings = { python = { analysis = { typeCheckingMode = "strict" } } }
            "#,
        ),
    );
    let mut options = f.options();
    options.cli.first_touch_timeout = Some(Duration::from_millis(500));
    options.cli.report = Some(ReportMode::All);
    let config = config::load(&options).unwrap();

    assert_eq!(
        config.diagnostic_timeout,
        Duration::from_millis(2000),
        "workspace over user"
    );
    assert_eq!(
        config.first_touch_timeout,
        Duration::from_millis(500),
        "cli over user"
    );
    assert_eq!(config.report, ReportMode::All, "cli over user");
    assert_eq!(config.max_diagnostics_per_file, 7, "user over default");
    assert_eq!(config.max_diagnostic_lines, 0, "workspace over default");
    assert_eq!(config.max_project_diagnostics_files, 5, "default");
    assert_eq!(
        config.include_severities,
        vec![Severity::Error, Severity::Warning]
    );
    assert!(!config.navigation_tools);
    assert!(config.write_tools);
    assert_eq!(config.daemon_idle, Duration::from_secs(300));
    assert_eq!(config.fix_wait, Duration::ZERO, "workspace over user");
    assert_eq!(
        config.sources,
        vec![f.user_file.clone(), f.workspace_file()]
    );

    let pyright = server(&config, "pyright");
    assert_eq!(pyright.settle_ms, Some(300));
    assert_eq!(pyright.stale_window_ms, Some(50), "kept from the user file");
    assert_eq!(pyright.root_markers, Some(vec!["setup.py".to_string()]));
    assert_eq!(
        pyright.settings,
        Some(serde_json::json!({
            "python": { "analysis": { "typeCheckingMode": "strict", "autoImport": true } }
        })),
        "settings merge object by object"
    );
    assert_eq!(pyright.trust, Trust::Trusted);
}

#[test]
fn lsp_false_disables_everything() {
    let f = Fixture::new(Some("[lsp]\nreport = \"new\"\n"), Some("lsp = false\n"));
    let config = f.load();
    assert!(!config.enabled);
    assert_eq!(config.report, ReportMode::New, "the rest still loads");

    let f = Fixture::new(Some("lsp = false\n"), None);
    assert!(!f.load().enabled);

    // `lsp` is one key: a workspace table (enabled, with options) beats a
    // user `false`, and the command line beats both.
    let f = Fixture::new(Some("lsp = false\n"), Some("[lsp]\nreport = \"new\"\n"));
    assert!(f.load().enabled);
    let mut options = f.options();
    options.cli.enabled = Some(false);
    assert!(!config::load(&options).unwrap().enabled);
}

#[test]
fn servers_merge_and_custom_servers_load() {
    let f = Fixture::new(
        Some(
            r#"
            [lsp.servers.typescript]
            enabled = false

            [lsp.servers.my-lint]
            command = "my-lint"
            args = ["--lsp"]
            extensions = [".foo", ".bar"]
            languageId = "foo"
            env = { A = "1", B = "2" }
            initializationOptions = { level = 3, ratio = 0.5, tags = ["x"], at = 1979-05-27T07:32:00Z }
            "#,
        ),
        Some(
            r#"
            [lsp.servers.typescript]
            enabled = true

            [lsp.servers.my-lint]
            enabled = false
            "#,
        ),
    );
    let config = f.load();
    assert_eq!(server(&config, "typescript").enabled, Some(true));
    let lint = server(&config, "my-lint");
    assert_eq!(lint.enabled, Some(false));
    assert_eq!(lint.command.as_deref(), Some("my-lint"));
    assert_eq!(lint.args, Some(vec!["--lsp".to_string()]));
    assert_eq!(
        lint.extensions,
        Some(vec![".foo".to_string(), ".bar".to_string()])
    );
    assert_eq!(lint.language_id.as_deref(), Some("foo"));
    let env: BTreeMap<String, String> = [("A", "1"), ("B", "2")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert_eq!(lint.env, Some(env));
    assert_eq!(
        lint.initialization_options,
        Some(serde_json::json!({
            "level": 3, "ratio": 0.5, "tags": ["x"], "at": "1979-05-27T07:32:00Z"
        }))
    );
}

#[test]
fn unknown_keys_name_file_and_key() {
    check_error(
        None,
        Some("[lsp]\ndiagnosticTimout = 10\n"),
        "{workspace}: lsp.diagnosticTimout: unknown key; did you mean \"diagnosticTimeout\"?",
    );
    check_error(
        Some("[lsp.servers.pyright]\nsettle_ms = 10\n"),
        None,
        "{user}: lsp.servers.pyright.settle_ms: unknown key; did you mean \"settleMs\"?",
    );
    check_error(
        Some("[editor]\ntheme = \"dark\"\n"),
        None,
        "{user}: editor: unknown key; expected one of lsp",
    );
    check_error(
        Some("[lsp.servers.pyright]\nbanana = 1\n"),
        None,
        "{user}: lsp.servers.pyright.banana: unknown key; expected one of enabled, command, \
         connect, args, extensions, languageId, env, rootMarkers, initializationOptions, settings, settleMs, \
         staleWindowMs, unchangedQuietMs, othersQuietMs, ignore",
    );
}

#[test]
fn wrong_types_say_what_was_expected() {
    check_error(
        Some("[lsp.servers.pyright]\nsettleMs = \"fast\"\n"),
        None,
        "{user}: lsp.servers.pyright.settleMs: expected a non-negative integer (milliseconds), \
         found \"fast\"",
    );
    check_error(
        Some("[lsp.servers.pyright]\nsettleMs = -1\n"),
        None,
        "{user}: lsp.servers.pyright.settleMs: expected a non-negative integer (milliseconds), \
         found -1",
    );
    check_error(
        None,
        Some("[lsp]\ndiagnosticTimeout = 0\n"),
        "{workspace}: lsp.diagnosticTimeout: expected a positive integer (milliseconds), found 0",
    );
    check_error(
        None,
        Some("[lsp]\nfixWaitMs = 60001\n"),
        "{workspace}: lsp.fixWaitMs: expected at most 60000 milliseconds (one minute), found 60001",
    );
    check_error(
        Some("[lsp]\nwriteTools = \"yes\"\n"),
        None,
        "{user}: lsp.writeTools: expected true or false, found \"yes\"",
    );
    check_error(
        Some("lsp = \"off\"\n"),
        None,
        "{user}: lsp: expected false or an [lsp] table, found \"off\"",
    );
    check_error(
        Some("[lsp]\nreport = \"some\"\n"),
        None,
        "{user}: lsp.report: expected \"all\" or \"new\", found \"some\"",
    );
    check_error(
        Some("[lsp.servers.pyright]\nargs = [\"--stdio\", 3]\n"),
        None,
        "{user}: lsp.servers.pyright.args[1]: expected a string, found 3",
    );
    check_error(
        Some("[lsp.servers.pyright]\nextensions = [\"py\"]\n"),
        None,
        "{user}: lsp.servers.pyright.extensions[0]: expected a file extension with its leading \
         dot, such as \".py\", found \"py\"",
    );
    check_error(
        Some("[lsp.servers.pyright]\ncommand = \"\"\n"),
        None,
        "{user}: lsp.servers.pyright.command: expected a program name or path (a non-empty \
         string), found an empty string",
    );
    check_error(
        Some("[lsp.servers.pyright]\nenv = { A = 1 }\n"),
        None,
        "{user}: lsp.servers.pyright.env.A: expected a string, found 1",
    );
    check_error(
        Some("[lsp.servers]\npyright = true\n"),
        None,
        "{user}: lsp.servers.pyright: expected a table of server settings, found true",
    );
}

#[test]
fn bad_severity_names_are_errors() {
    check_error(
        Some("[lsp]\nincludeSeverities = [\"error\", \"critical\"]\n"),
        None,
        "{user}: lsp.includeSeverities[1]: expected \"error\", \"warning\", \"info\" or \"hint\", \
         found \"critical\"",
    );
    check_error(
        Some("[lsp]\nincludeSeverities = []\n"),
        None,
        "{user}: lsp.includeSeverities: expected a non-empty array of \"error\", \"warning\", \
         \"info\" or \"hint\", found an empty array",
    );
}

#[test]
fn unknown_server_ids_are_errors() {
    check_error(
        None,
        Some("[lsp.servers.pyrite]\nenabled = false\n"),
        "{workspace}: lsp.servers.pyrite.enabled: unknown server id \"pyrite\"; built-in servers \
         are pyright, rust-analyzer, typescript; a custom server needs command (or connect) and extensions",
    );
    check_error(
        Some("[lsp.servers.\"my.server\"]\nsettleMs = 5\n"),
        None,
        "{user}: lsp.servers.\"my.server\": unknown server id \"my.server\"; built-in servers \
         are pyright, rust-analyzer, typescript; a custom server needs command (or connect) and extensions",
    );
    check_error(
        Some("[lsp.servers.mine]\ncommand = \"mine\"\n"),
        None,
        "{user}: lsp.servers.mine: a custom server needs extensions, such as extensions = [\".ext\"]",
    );
    // Disabling a custom server the user defined is fine from either file.
    let f = Fixture::new(
        Some("[lsp.servers.mine]\ncommand = \"mine\"\nextensions = [\".m\"]\n"),
        Some("[lsp.servers.mine]\nenabled = false\n"),
    );
    assert_eq!(server(&f.load(), "mine").enabled, Some(false));
}

#[test]
fn trusted_workspaces_only_in_the_user_file() {
    check_error(
        None,
        Some("[lsp]\ntrustedWorkspaces = [\"/\"]\n"),
        "{workspace}: lsp.trustedWorkspaces: only allowed in the user config; a workspace cannot \
         trust itself",
    );
    check_error(
        Some("[lsp]\ntrustedWorkspaces = [\"relative/dir\"]\n"),
        None,
        "{user}: lsp.trustedWorkspaces[0]: expected an absolute directory path, found \
         \"relative/dir\"",
    );
}

#[test]
fn toml_syntax_errors_name_file_and_line() {
    let f = Fixture::new(None, Some("[lsp]\nreport = \"all\"\nsettleMs = \n"));
    let error = config::load(&f.options()).unwrap_err();
    let ConfigError::Syntax { path, line, .. } = &error else {
        panic!("expected a syntax error, got {error:?}");
    };
    assert_eq!(path, &f.workspace_file());
    assert_eq!(*line, 3);
    let message = error.to_string();
    let prefix = format!("{}:3:", f.workspace_file().display());
    assert!(message.starts_with(&prefix), "{message}");
    assert!(message.contains("invalid TOML"), "{message}");

    let f = Fixture::new(Some("[lsp]\nreport = \"all\"\nreport = \"new\"\n"), None);
    let message = f.error();
    assert!(
        message.starts_with(&format!("{}:3:", f.user_file.display())),
        "{message}"
    );
}

#[test]
fn unreadable_files_are_errors_and_missing_ones_are_not() {
    let f = Fixture::new(None, None);
    fs::create_dir_all(f.workspace_file()).unwrap();
    let message = f.error();
    assert!(
        message.starts_with(&format!("cannot read {}", f.workspace_file().display())),
        "{message}"
    );
}

const WORKSPACE_COMMAND: &str = r#"
[lsp.servers.pyright]
command = "./tools/evil-pyright"
env = { PYTHONPATH = "./evil" }
settleMs = 400

[lsp.servers.rust-analyzer]
enabled = false
"#;

fn untrusted_reason(f: &Fixture) -> String {
    format!(
        "command, env from {} not run: add \"{}\" to trustedWorkspaces in {} or pass --trust-workspace",
        f.workspace_file().display(),
        f.workspace.display(),
        f.user_file.display(),
    )
}

#[test]
fn workspace_commands_are_untrusted_by_default() {
    let f = Fixture::new(
        Some("[lsp.servers.pyright]\ncommand = \"pyright-langserver\"\n"),
        Some(WORKSPACE_COMMAND),
    );
    let config = f.load();
    let pyright = server(&config, "pyright");
    assert_eq!(
        pyright.trust,
        Trust::Untrusted {
            reason: untrusted_reason(&f)
        }
    );
    assert_eq!(
        pyright.command.as_deref(),
        Some("pyright-langserver"),
        "the user's command stays"
    );
    assert_eq!(pyright.env, None);
    assert_eq!(pyright.settle_ms, Some(400), "tuning is still honoured");
    assert_eq!(
        server(&config, "rust-analyzer").enabled,
        Some(false),
        "disabling too"
    );
    assert_eq!(server(&config, "rust-analyzer").trust, Trust::Trusted);

    // Listing a different workspace does not help (an absolute path on
    // every platform, as a TOML string).
    let elsewhere = std::env::temp_dir().join("elsewhere").display().to_string();
    let elsewhere = crate::support::fake_server::toml_string(&elsewhere);
    let f = Fixture::new(
        Some(&format!("[lsp]\ntrustedWorkspaces = [{elsewhere}]\n")),
        Some(WORKSPACE_COMMAND),
    );
    assert!(matches!(
        server(&f.load(), "pyright").trust,
        Trust::Untrusted { .. }
    ));
}

#[test]
fn args_alone_are_untrusted_too() {
    let f = Fixture::new(
        None,
        Some("[lsp.servers.typescript]\nargs = [\"--tsserver-path\", \"./x.js\"]\n"),
    );
    let config = f.load();
    let ts = server(&config, "typescript");
    assert_eq!(ts.args, None);
    let Trust::Untrusted { reason } = &ts.trust else {
        panic!("expected untrusted");
    };
    assert!(reason.starts_with("args from "), "{reason}");
}

#[test]
fn listed_workspaces_are_trusted() {
    let f = Fixture::new(None, Some(WORKSPACE_COMMAND));
    fs::write(
        &f.user_file,
        format!(
            "[lsp]\ntrustedWorkspaces = [{:?}]\n",
            f.workspace.display().to_string()
        ),
    )
    .unwrap();
    let config = f.load();
    let pyright = server(&config, "pyright");
    assert_eq!(pyright.trust, Trust::Trusted);
    assert_eq!(pyright.command.as_deref(), Some("./tools/evil-pyright"));
    assert_eq!(pyright.env.as_ref().unwrap()["PYTHONPATH"], "./evil");
}

#[cfg(unix)]
#[test]
fn trusted_workspaces_compare_canonical_paths() {
    let f = Fixture::new(None, Some(WORKSPACE_COMMAND));
    let link = f.workspace.parent().unwrap().join("repo-link");
    std::os::unix::fs::symlink(&f.workspace, &link).unwrap();
    let listed = format!("{}/", link.display());
    fs::write(
        &f.user_file,
        format!("[lsp]\ntrustedWorkspaces = [{listed:?}]\n"),
    )
    .unwrap();
    assert_eq!(server(&f.load(), "pyright").trust, Trust::Trusted);
}

#[test]
fn trust_workspace_flag_trusts_this_run() {
    let f = Fixture::new(None, Some(WORKSPACE_COMMAND));
    let mut options = f.options();
    options.trust_workspace = true;
    let config = config::load(&options).unwrap();
    let pyright = server(&config, "pyright");
    assert_eq!(pyright.trust, Trust::Trusted);
    assert_eq!(pyright.command.as_deref(), Some("./tools/evil-pyright"));
}

#[test]
fn parse_str_reads_one_layer() {
    let partial = config::parse_str(
        "[lsp]\nmaxProjectDiagnosticsFiles = 2\nautoDetect = false\n",
        Path::new("x.toml"),
        FileKind::User,
    )
    .unwrap();
    assert_eq!(partial.enabled, Some(true));
    assert_eq!(partial.max_project_diagnostics_files, Some(2));
    assert_eq!(partial.auto_detect, Some(false));
    assert_eq!(partial.report, None);

    let empty = config::parse_str("", Path::new("x.toml"), FileKind::Workspace).unwrap();
    assert_eq!(empty, PartialConfig::default());
}

#[test]
fn user_config_is_found_through_xdg_then_home() {
    // Absolute on every platform (`/cfg` has no drive on Windows).
    let (cfg, home) = (
        std::env::temp_dir().join("cfg"),
        std::env::temp_dir().join("u"),
    );
    let from = |xdg: Option<&Path>, home: Option<&Path>| {
        config::user_config_path_from(xdg.map(Into::into), home.map(Into::into))
    };
    let join = squiggle::platform::paths::join_slashed;
    assert_eq!(
        from(Some(&cfg), Some(&home)),
        Some(join(&cfg, "squiggle/config.toml"))
    );
    assert_eq!(
        from(None, Some(&home)),
        Some(join(&home, ".config/squiggle/config.toml"))
    );
    // A relative XDG_CONFIG_HOME is ignored, as the XDG spec says.
    assert_eq!(
        from(Some(Path::new("cfg")), Some(&home)),
        Some(join(&home, ".config/squiggle/config.toml"))
    );
    assert_eq!(from(None, None), None);
}

#[test]
fn errors_follow_the_house_style() {
    let f = Fixture::new(Some("[lsp]\nreport = 3\n"), None);
    let message = f.error();
    assert!(!message.ends_with('.'), "{message}");
    let after_key = message.rsplit(": ").next().unwrap();
    assert!(after_key.starts_with(char::is_lowercase), "{message}");
}
