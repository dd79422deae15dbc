//! Which servers check a file, with which language id, in which project
//! root: the one answer the check, navigation and `squiggle install` share,
//! so a file that is edited and then navigated reaches the same server
//! instances. A server serves a file when it is enabled, serves the file's
//! language or configured extension, is the first of its exclusive group,
//! and finds its required marker (an eslint config) between the file and
//! the workspace root.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::Engine;
use super::servers::{ResolvedServer, serving};
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

/// (lowercased extension, language id): all of a path that `serving` reads.
type ServingKey = (Option<String>, Option<&'static str>);

/// What a plan looks up once rather than once per file: which servers serve
/// a file (a function of its extension and language id only), and each
/// server's required marker and project root per directory (walks of the
/// filesystem). Lives for one check, so a marker created between checks is
/// seen by the next one.
#[derive(Default)]
pub struct PlanMemo {
    serving: HashMap<ServingKey, Vec<(usize, String)>>,
    markers: HashMap<(usize, PathBuf), bool>,
    roots: HashMap<(usize, PathBuf), PathBuf>,
}

impl Engine {
    /// The servers for `canonical` (a path inside the workspace), in
    /// registry order; empty when none serves it.
    pub fn plan_file(&self, canonical: &Path, memo: &mut PlanMemo) -> Vec<Planned> {
        let dir = canonical.parent().unwrap_or(self.workspace.root());
        // `project_root` starts from the path itself when it is a directory.
        let root_key = if canonical.is_dir() { canonical } else { dir };
        let mut planned = Vec::new();
        for (server_index, language) in self.serving_memo(canonical, memo) {
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
            planned.push(Planned {
                server_index,
                language,
                root,
            });
        }
        planned
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

    /// `serving` for `path`, memoized by (extension, language id): the only
    /// parts of the path it reads.
    fn serving_memo(&self, path: &Path, memo: &mut PlanMemo) -> Vec<(usize, String)> {
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase());
        let language = crate::registry::languages::language_id(path);
        memo.serving
            .entry((extension, language))
            .or_insert_with(|| serving(path, &self.servers))
            .clone()
    }
}
