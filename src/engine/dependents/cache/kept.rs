//! The cache as the scan reads it ([`Kept`]): what the watch covers, the
//! listings and filtered trees, and the heads, cached or read.

use std::path::Path;
use std::sync::Arc;

use super::{MAX_CACHED_BYTES, MAX_CACHED_HEADS, MAX_TREES, Store};
use crate::engine::dependents::Family;
use crate::engine::dependents::walk::{Kept, Listing, Tree, read_head};
use crate::workspace::walked_dir;

impl Kept for Store {
    /// Whether the watch covers `dir`: under the workspace and in no
    /// ignored or dot-directory below it.
    fn covers(&self, dir: &Path) -> bool {
        dir.strip_prefix(&self.workspace).is_ok_and(|rel| {
            rel.components()
                .all(|c| c.as_os_str().to_str().is_some_and(walked_dir))
        })
    }

    fn covers_file(&self, path: &Path) -> bool {
        path.parent().is_some_and(|dir| self.covers(dir))
    }

    /// `root`'s listing (a covered root), walked if not cached.
    fn listing(&mut self, root: &Path) -> Option<&Listing> {
        match self.listings.iter().position(|(r, _)| r == root) {
            Some(i) => {
                let entry = self.listings.remove(i);
                self.listings.push(entry);
            }
            None => {
                let listing = Listing::walk(root);
                self.listings.push((root.to_path_buf(), listing));
                self.evict_listings();
            }
        }
        self.listings.last().map(|(_, listing)| listing)
    }

    /// `root`'s listing filtered by `keep` (which `key` names), built once
    /// per listing.
    fn tree(
        &mut self,
        root: &Path,
        config_names: &[&str],
        key: &str,
        keep: &dyn Fn(&Path) -> bool,
    ) -> Option<Arc<Tree>> {
        let id = (
            root.to_path_buf(),
            format!("{}|{key}", config_names.join(",")),
        );
        if let Some(tree) = self.trees.get(&id) {
            return Some(tree.clone());
        }
        let mut tree = Tree::default();
        tree.add_listing(self.listing(root)?, config_names, keep);
        let tree = Arc::new(tree);
        if self.trees.len() >= MAX_TREES {
            self.trees.clear();
        }
        self.trees.insert(id, tree.clone());
        Some(tree)
    }

    fn has_head(&self, path: &Path) -> bool {
        self.heads.contains_key(path)
    }

    fn cached_head(&self, path: &Path) -> Option<&[u8]> {
        self.heads.get(path).map(|h| &**h)
    }

    /// The digested head of a covered file, cached when the caps allow.
    fn head<'s>(&'s mut self, path: &Path, buf: &'s mut Vec<u8>) -> Option<&'s [u8]> {
        if !self.heads.contains_key(path) {
            if !read_head(path, buf) {
                return None;
            }
            Family::digest(path, buf);
            if self.heads.len() >= MAX_CACHED_HEADS
                || self.head_bytes + buf.len() > MAX_CACHED_BYTES
            {
                self.heads_dropped = true;
                return Some(buf.as_slice());
            }
            self.head_bytes += buf.len();
            self.heads.insert(path.to_path_buf(), buf.as_slice().into());
        }
        self.heads.get(path).map(|h| &**h)
    }
}
