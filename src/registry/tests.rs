//! Invariants of the built-in registry. Which servers a file gets is tested
//! where production chooses them (`engine::servers::serving`).

use std::collections::HashSet;
use std::fs;

use super::*;

fn builtin(id: &str) -> ServerSpec {
    builtin_servers()
        .into_iter()
        .find(|spec| spec.id == id)
        .unwrap_or_else(|| panic!("no builtin {id}"))
}

#[test]
fn ids_are_unique() {
    let mut seen = HashSet::new();
    for spec in builtin_servers() {
        assert!(seen.insert(spec.id.clone()), "{} is listed twice", spec.id);
    }
}

#[test]
fn every_spec_can_be_started_and_installed() {
    for spec in builtin_servers() {
        assert!(!spec.commands.is_empty(), "{} has no command", spec.id);
        for command in &spec.commands {
            assert!(
                !command.program.is_empty(),
                "{} has an empty program",
                spec.id
            );
        }
        assert!(
            !spec.install_hint.trim().is_empty(),
            "{} has no install hint",
            spec.id
        );
        assert!(!spec.languages.is_empty(), "{} serves no language", spec.id);
    }
}

#[test]
fn every_served_language_is_in_the_language_map() {
    for spec in builtin_servers() {
        for language in &spec.languages {
            assert!(
                languages::is_known_language(language),
                "{} serves {language}, which no file maps to",
                spec.id
            );
        }
    }
}

/// The first enabled entry of a group is its default; any enabled entry
/// after it serves only where the project has its package (the project's
/// TypeScript 7 chooses `tsgo`), so it must name one.
#[test]
fn every_exclusive_group_has_exactly_one_default() {
    let specs = builtin_servers();
    let groups: HashSet<&str> = specs
        .iter()
        .filter_map(|s| s.exclusive_group.as_deref())
        .collect();
    for group in groups {
        let enabled: Vec<&ServerSpec> = specs
            .iter()
            .filter(|s| s.enabled_by_default && s.exclusive_group.as_deref() == Some(group))
            .collect();
        assert!(!enabled.is_empty(), "group {group} has no default");
        for later in &enabled[1..] {
            assert!(
                !later.packages.is_empty(),
                "group {group}: {} is enabled after the default {} but chosen by no package",
                later.id,
                enabled[0].id
            );
        }
    }
}

#[test]
fn settings_and_options_are_objects_or_null() {
    for spec in builtin_servers() {
        for value in [&spec.settings, &spec.initialization_options] {
            assert!(value.is_null() || value.is_object(), "{}: {value}", spec.id);
        }
    }
}

#[test]
fn eslint_needs_a_config_between_file_and_root() {
    let eslint = builtin("eslint");
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("ws");
    let src = root.join("packages/app/src");
    fs::create_dir_all(&src).unwrap();
    assert!(!marker_present(&eslint, &src, &root));

    // A config above the workspace root does not count.
    fs::write(tmp.path().join("eslint.config.js"), "").unwrap();
    assert!(!marker_present(&eslint, &src, &root));

    fs::write(root.join("eslint.config.mjs"), "").unwrap();
    assert!(marker_present(&eslint, &src, &root));
}

#[test]
fn legacy_eslintrc_in_a_package_counts() {
    let eslint = builtin("eslint");
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("packages/app/src");
    fs::create_dir_all(&src).unwrap();
    fs::write(tmp.path().join("packages/app/.eslintrc.json"), "{}").unwrap();
    assert!(marker_present(&eslint, &src, tmp.path()));
}

#[test]
fn servers_without_requirements_always_have_their_marker() {
    let pyright = builtin("pyright");
    let tmp = tempfile::tempdir().unwrap();
    assert!(marker_present(&pyright, tmp.path(), tmp.path()));
}

#[test]
fn glob_markers_match_by_suffix() {
    let tmp = tempfile::tempdir().unwrap();
    assert!(!dir_has_marker(tmp.path(), "*.sln"));
    fs::write(tmp.path().join("App.sln"), "").unwrap();
    assert!(dir_has_marker(tmp.path(), "*.sln"));
    assert!(!dir_has_marker(tmp.path(), "*.csproj"));
    assert!(!dir_has_marker(tmp.path(), "global.json"));
}

#[test]
fn entries_the_rest_of_squiggle_relies_on() {
    let pyright = builtin("pyright");
    assert_eq!(
        pyright.commands[0],
        CommandCandidate::new("pyright-langserver", &["--stdio"])
    );
    assert_eq!(
        pyright.settings["python"]["analysis"]["typeCheckingMode"],
        "standard"
    );
    assert_eq!(
        pyright.settings["python"]["analysis"]["diagnosticMode"],
        "openFilesOnly"
    );

    let eslint = builtin("eslint");
    assert_eq!(eslint.role, ServerRole::Linter);
    assert_eq!(eslint.settings["validate"], "on");
    assert_eq!(eslint.settings["run"], "onType");
    assert!(eslint.settings["nodePath"].is_null());
    assert!(eslint.settings["rulesCustomizations"].is_array());

    let tsgo = builtin("tsgo");
    assert!(tsgo.wait.settle.is_zero());
    // Chosen by the project's TypeScript 7, after typescript-language-server.
    assert!(tsgo.enabled_by_default);
    assert_eq!(tsgo.packages[0].name, "typescript");
    assert_eq!(tsgo.packages[0].majors.from, 7);

    assert_eq!(builtin("ruff").role, ServerRole::Linter);
    assert_eq!(
        builtin("gopls").root_strategy,
        RootStrategy::PreferFirstMarker
    );
    assert_eq!(builtin("gopls").root_markers, ["go.work", "go.mod"]);
    assert_eq!(
        builtin("rust-analyzer").root_strategy,
        RootStrategy::Outermost
    );
}

/// One test per kind of "done with this change" signal a built-in server
/// gives: the profile is the registry's whole knowledge of it.
mod profiles {
    use std::time::Duration;

    use super::builtin;
    use crate::lsp::profile::OthersDone;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_pull_server_needs_no_windows_tsgo() {
        // One exact pull answer per version (pyright and ruff register
        // pull at run time; their profile's push windows then go unused).
        let wait = builtin("tsgo").wait;
        assert!(wait.settle.is_zero());
        assert!(!wait.pull_is_partial);
    }

    #[test]
    fn unversioned_waves_typescript_language_server() {
        let wait = builtin("typescript-language-server").wait;
        // Asked through tsserver first; the push windows are the fallback.
        assert_eq!(wait.sync_pull, Some(crate::lsp::SyncPull::Tsserver));
        assert_eq!(
            (
                wait.settle,
                wait.stale_window,
                wait.unchanged_quiet,
                wait.others_quiet
            ),
            (ms(300), ms(300), ms(2000), ms(350))
        );
        assert_eq!(wait.others_done, OthersDone::Quiet);
        // Its code actions wait for the check: asked early, they hold up
        // tsserver's answers for the other files.
        assert!(wait.fixes_after_check);
        assert!(!builtin("pyright").wait.fixes_after_check);
    }

    #[test]
    fn versioned_push_in_one_burst_gopls() {
        let spec = builtin("gopls");
        // Its diagnosis pass's end answers a change, in one pass.
        assert_eq!(spec.initialization_options["verboseWorkDoneProgress"], true);
        assert_eq!(spec.initialization_options["diagnosticsDelay"], "0s");
        assert!(spec.wait.is_pass("4711", Some("diagnosing changed files")));
        assert!(!spec.wait.is_pass("4711", Some("Loading packages")));
        let wait = spec.wait;
        assert!(wait.settle.is_zero());
        assert_eq!(wait.others_done, OthersDone::Quiet);
        assert_eq!(wait.others_quiet, ms(50));
        assert!(
            wait.open_then_change,
            "an open is answered before its importers"
        );
    }

    #[test]
    fn rebuild_status_clangd() {
        let spec = builtin("clangd");
        assert_eq!(spec.wait.others_done, OthersDone::RebuildStatus);
        assert_eq!(
            spec.wait.status_method.as_deref(),
            Some("textDocument/clangd.fileStatus")
        );
        assert_eq!(spec.initialization_options["clangdFileStatus"], true);
    }

    #[test]
    fn partial_pull_with_an_on_save_check_rust_analyzer() {
        let wait = builtin("rust-analyzer").wait;
        assert!(wait.pull_is_partial);
        assert!(wait.is_check("rust-analyzer/flycheck/0", Some("cargo check")));
        assert!(wait.is_background("rustAnalyzer/cachePriming", Some("Indexing")));
        assert!(!wait.is_check("rustAnalyzer/Fetching", Some("Fetching")));
        assert_eq!((wait.settle, wait.check_end_grace), (ms(300), ms(0)));
        assert!(wait.repull_after_check);
        // The re-pull orders after the check's publishes only with one
        // worker thread (rust-analyzer publishes from its worker pool).
        let options = builtin("rust-analyzer").initialization_options;
        assert_eq!(options["numThreads"], 1);
    }

    #[test]
    fn versioned_push_bash_language_server() {
        let wait = builtin("bash-language-server").wait;
        assert!(wait.settle.is_zero());
        assert!(wait.unchanged_quiet.is_zero());
    }
}
