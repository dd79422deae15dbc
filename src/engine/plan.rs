//! Which servers check a file, with which language id, in which project
//! root: the one answer the check, navigation and `squiggle install` share,
//! so a file that is edited and then navigated reaches the same server
//! instances. A server serves a file when it is enabled, serves the file's
//! language or configured extension, finds its required marker (an eslint
//! config) between the file and the workspace root, and is its exclusive
//! group's choice: the first member that finds its project package in a
//! version it takes (the project's TypeScript 7 chooses `tsgo`,
//! `registry::toolchain`), else the first member.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::Engine;
use super::servers::{ResolvedServer, candidates};
use crate::registry::toolchain::{self, Lookup};
use crate::workspace::server_root;

/// One server for a file.
#[derive(Debug, Clone)]
pub struct Planned {
    /// Index into `Engine::servers`.
    pub server_index: usize,
    pub language: String,
    /// The project root its instance runs in.
    pub root: PathBuf,
}

/// (lowercased extension, language id): all of a path that `candidates`
/// reads.
type ServingKey = (Option<String>, Option<&'static str>);

/// What a plan looks up once rather than once per file: which servers may
/// serve a file (a function of its extension and language id only), and
/// each server's required marker, project root and project package per
/// directory (walks of the filesystem). Lives for one check, so a marker or
/// package installed between checks is seen by the next one.
#[derive(Default)]
pub struct PlanMemo {
    serving: HashMap<ServingKey, Vec<(usize, String)>>,
    markers: HashMap<(usize, PathBuf), bool>,
    roots: HashMap<(usize, PathBuf), PathBuf>,
    packages: HashMap<(usize, PathBuf), bool>,
    plugins: HashMap<(usize, PathBuf), bool>,
}

impl Engine {
    /// The servers for `canonical` (a path inside the workspace), in
    /// registry order; empty when none serves it.
    pub fn plan_file(&self, canonical: &Path, memo: &mut PlanMemo) -> Vec<Planned> {
        let dir = canonical.parent().unwrap_or(self.workspace.root());
        // `project_root` starts from the path itself when it is a directory.
        let root_key = if canonical.is_dir() { canonical } else { dir };
        let mut possible = Vec::new();
        for (server_index, language) in self.candidates_memo(canonical, memo) {
            let server = &self.servers[server_index];
            if !server.spec.requires_marker.is_empty()
                && !*memo
                    .markers
                    .entry((server_index, dir.to_path_buf()))
                    .or_insert_with(|| {
                        crate::registry::marker_present(&server.spec, dir, self.workspace.root())
                    })
            {
                continue;
            }
            let root = memo
                .roots
                .entry((server_index, root_key.to_path_buf()))
                .or_insert_with(|| self.project_root_for(canonical, server))
                .clone();
            if !self.has_plugin_for(server_index, &language, &root, memo) {
                continue;
            }
            possible.push(Planned {
                server_index,
                language,
                root,
            });
        }
        self.choose_in_groups(possible, memo)
    }

    /// Keeps one member of each exclusive group in `possible`: the first
    /// that finds its project package in a version it takes, else the
    /// first.
    fn choose_in_groups(&self, possible: Vec<Planned>, memo: &mut PlanMemo) -> Vec<Planned> {
        let group = |p: &Planned| self.servers[p.server_index].spec.exclusive_group.clone();
        let mut chosen: HashMap<String, usize> = HashMap::new();
        for (at, planned) in possible.iter().enumerate() {
            let Some(group) = group(planned) else {
                continue;
            };
            let suited = self.package_suits(planned, memo);
            match chosen.get(&group) {
                Some(&first) if !suited || self.package_suits(&possible[first], memo) => {}
                _ => {
                    chosen.insert(group, at);
                }
            }
        }
        possible
            .into_iter()
            .enumerate()
            .filter(|(at, p)| group(p).is_none_or(|g| chosen.get(&g) == Some(at)))
            .map(|(_, p)| p)
            .collect()
    }

    /// Whether the server finds the plugin it needs to serve `language` in
    /// `root` (true when it needs none): the Vue plugin for `.vue` files.
    fn has_plugin_for(
        &self,
        server_index: usize,
        language: &str,
        root: &Path,
        memo: &mut PlanMemo,
    ) -> bool {
        let spec = &self.servers[server_index].spec;
        let Some(plugin) = crate::registry::plugins::needed_for(spec, language) else {
            return true;
        };
        let workspace_root = self.workspace.root();
        *memo
            .plugins
            .entry((server_index, root.to_path_buf()))
            .or_insert_with(|| {
                let path_var = std::env::var_os("PATH");
                let launch = toolchain::launch(spec, root, workspace_root, path_var.as_deref());
                let program = launch.as_ref().map(|l| l.program.as_path());
                crate::registry::plugins::find(spec, plugin, root, workspace_root, program)
                    .is_some()
            })
    }

    /// Whether `planned`'s server finds a project package it takes from its
    /// root (false for a server that runs on none).
    fn package_suits(&self, planned: &Planned, memo: &mut PlanMemo) -> bool {
        let spec = &self.servers[planned.server_index].spec;
        if spec.packages.is_empty() {
            return false;
        }
        *memo
            .packages
            .entry((planned.server_index, planned.root.clone()))
            .or_insert_with(|| {
                matches!(
                    toolchain::lookup(spec, &planned.root, self.workspace.root()),
                    Lookup::Found(..)
                )
            })
    }

    /// The project root of `server` for `canonical`: where its instance runs.
    pub(super) fn project_root_for(&self, canonical: &Path, server: &ResolvedServer) -> PathBuf {
        server_root(
            canonical,
            self.workspace.root(),
            &server.spec.root_markers,
            server.spec.root_strategy,
            &server.spec.declared_roots,
        )
    }

    /// `candidates` for `path`, memoized by (extension, language id): the
    /// only parts of the path it reads.
    fn candidates_memo(&self, path: &Path, memo: &mut PlanMemo) -> Vec<(usize, String)> {
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        let language = crate::registry::languages::language_id(path);
        memo.serving
            .entry((extension, language))
            .or_insert_with(|| candidates(path, &self.servers))
            .clone()
    }
}
