use std::path::Path;

use serde_json::json;

use super::{apply, find, needed_for};
use crate::platform::paths::join_slashed;
use crate::registry::{ServerSpec, builtin_servers};

fn typescript_language_server() -> ServerSpec {
    builtin_servers()
        .into_iter()
        .find(|s| s.id == "typescript-language-server")
        .unwrap_or_else(|| panic!("typescript-language-server is built in"))
}

fn install(modules: &Path, package: &str) {
    let dir = modules.join(package);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.join("package.json"), r#"{"version":"3.3.11"}"#)
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn vue_is_served_only_with_the_vue_plugin() {
    let spec = typescript_language_server();
    assert!(spec.languages.iter().any(|l| l == "vue"));
    let plugin = needed_for(&spec, "vue").unwrap_or_else(|| panic!("vue needs a plugin"));
    assert_eq!(plugin.package, "@vue/typescript-plugin");
    assert!(needed_for(&spec, "typescript").is_none());
}

#[test]
fn the_project_s_plugin_is_found_from_its_root_up() {
    let spec = typescript_language_server();
    let plugin = &spec.plugins[0];
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let app = tmp.path().join("app");
    std::fs::create_dir_all(&app).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(find(&spec, plugin, &app, tmp.path(), None), None);
    install(&tmp.path().join("node_modules"), "@vue/typescript-plugin");
    assert_eq!(
        find(&spec, plugin, &app, tmp.path(), None),
        Some(join_slashed(
            tmp.path(),
            "node_modules/@vue/typescript-plugin"
        ))
    );
}

#[test]
fn a_plugin_installed_beside_the_server_s_program_is_found() {
    let spec = typescript_language_server();
    let plugin = &spec.plugins[0];
    let tools = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let project = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let modules = tools.path().join("node_modules");
    install(&modules, "@vue/typescript-plugin");
    let program = modules.join(".bin/typescript-language-server");
    assert_eq!(
        find(
            &spec,
            plugin,
            project.path(),
            project.path(),
            Some(&program)
        ),
        Some(join_slashed(&modules, "@vue/typescript-plugin"))
    );
}

#[test]
fn an_installed_plugin_is_appended_to_the_options_with_its_location() {
    let spec = typescript_language_server();
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut options = json!({ "tsserver": { "path": "/t/tsserver.js" } });
    apply(&spec, &mut options, tmp.path(), tmp.path(), None);
    assert_eq!(options, json!({ "tsserver": { "path": "/t/tsserver.js" } }));
    install(&tmp.path().join("node_modules"), "@vue/typescript-plugin");
    apply(&spec, &mut options, tmp.path(), tmp.path(), None);
    let location = join_slashed(tmp.path(), "node_modules/@vue/typescript-plugin");
    assert_eq!(
        options["plugins"],
        json!([{
            "name": "@vue/typescript-plugin",
            "languages": ["vue"],
            "location": location.display().to_string(),
        }])
    );
}
