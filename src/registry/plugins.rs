//! Plugins a server loads where they are installed: the Vue language
//! plugin for TypeScript (`@vue/typescript-plugin`) makes tsserver read
//! `.vue` components, so one tsserver checks a component and the
//! TypeScript files that import it.
//!
//! A plugin is an npm package. Where it is installed the server is given an
//! entry for it (typescript-language-server's `plugins` initialization
//! option, with the package's directory as `location`), and it serves the
//! plugin's languages; where it is not, the server runs as it would without
//! it and does not serve them (tsserver without the Vue plugin reads a
//! component as TypeScript and reports nonsense).
//!
//! Where a plugin is looked for, nearest first: `node_modules/<package>` in
//! the server's project root and each parent up to the workspace root (the
//! project's own, as for the project's compiler in `toolchain`); then what
//! `squiggle install` put in the server's own directory; then the
//! `node_modules` the server's program was installed in (`npm i -g
//! typescript-language-server @vue/typescript-plugin`, or
//! `scripts/install-servers.sh`'s `.tools/npm`).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::ServerSpec;
use super::paths::{project_dirs, set_pointer};

/// A plugin a server loads when it is installed.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerPlugin {
    /// The npm package: it lives in `node_modules/<package>`.
    pub package: String,
    /// The JSON pointer of the initialization option (an array) the entry
    /// is appended to.
    pub pointer: String,
    /// The entry; its `location` member is set to the package's directory.
    pub entry: Value,
    /// Languages the server serves only where the plugin is installed.
    pub languages: Vec<String>,
}

/// Where `plugin` is installed for `spec` started as `program` for the
/// project at `root` (see the module's doc for the order).
pub fn find(
    spec: &ServerSpec,
    plugin: &ServerPlugin,
    root: &Path,
    workspace_root: &Path,
    program: Option<&Path>,
) -> Option<PathBuf> {
    let installed = |modules: &Path| {
        // A scoped package's name holds a `/`: the platform's separator.
        let dir = crate::platform::paths::join_slashed(modules, &plugin.package);
        dir.join("package.json").is_file().then_some(dir)
    };
    project_dirs(root, workspace_root)
        .into_iter()
        .find_map(|dir| installed(&dir.join("node_modules")))
        .or_else(|| {
            let own = crate::install::servers_dir()?.join(&spec.id);
            installed(&own.join("node_modules"))
        })
        .or_else(|| program_modules(program?).iter().find_map(|m| installed(m)))
}

/// The `node_modules` directories a program was installed in: the one
/// holding its `.bin` link, and the nearest one above the file the link
/// resolves to.
fn program_modules(program: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let bin = program.parent();
    if let Some(modules) = bin.filter(|b| b.ends_with(".bin")).and_then(Path::parent) {
        found.push(modules.to_path_buf());
    }
    if let Ok(real) = program.canonicalize()
        && let Some(modules) = real.ancestors().find(|d| d.ends_with("node_modules"))
    {
        found.push(modules.to_path_buf());
    }
    found
}

/// `options` with an entry for each of `spec`'s plugins that is installed.
pub fn apply(
    spec: &ServerSpec,
    options: &mut Value,
    root: &Path,
    workspace_root: &Path,
    program: Option<&Path>,
) {
    for plugin in &spec.plugins {
        let Some(dir) = find(spec, plugin, root, workspace_root, program) else {
            continue;
        };
        let mut entry = plugin.entry.clone();
        if let Value::Object(map) = &mut entry {
            map.insert("location".into(), dir.display().to_string().into());
        }
        match options.pointer_mut(&plugin.pointer) {
            Some(Value::Array(entries)) => entries.push(entry),
            _ => set_pointer(options, &plugin.pointer, Value::Array(vec![entry])),
        }
    }
}

/// The plugin `spec` needs to serve `language`, if it serves it only with
/// one.
pub fn needed_for<'s>(spec: &'s ServerSpec, language: &str) -> Option<&'s ServerPlugin> {
    spec.plugins
        .iter()
        .find(|p| p.languages.iter().any(|l| l == language))
}

#[cfg(test)]
mod tests;
