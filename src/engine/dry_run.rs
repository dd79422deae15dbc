//! A dry run's undo: the servers were given the texts a mutation would
//! write, to check them; afterwards each server's copy is put back to the
//! text on disk, in order after the feedback or, when the request is
//! cancelled first, in a task of its own.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::result::ToolResult;
use super::touched::Touched;
use super::{Change, Engine, Mode};

impl Engine {
    /// Reports `change` over `touched`; after a dry run, every server gets
    /// each file's text before back, after the answer (or, when the
    /// request is cancelled first, in a task of its own).
    pub(super) async fn report_and_undo(
        self: &Arc<Self>,
        change: Change,
        touched: Vec<Touched>,
    ) -> ToolResult {
        let undo = DryRun::restoring(
            self,
            change.mode == Mode::DryRun,
            touched.iter().map(|t| (&t.path, t.before_text())),
        );
        let result = self.report(change, touched).await;
        undo.finish().await;
        result
    }

    /// Puts every server's copy of `path` back to `text` (after a dry run).
    pub(crate) async fn restore(&self, path: &Path, text: Arc<str>) {
        for client in self.pool.clients() {
            if let Some((_, _)) = client.document(path) {
                let language = crate::registry::languages::language_id(path).unwrap_or("plaintext");
                client.sync_document(path, language, text.clone()).await;
            }
        }
    }
}

/// What a dry run puts back in the servers: each checked file's text
/// before. Finished in order after the feedback; when the request is
/// cancelled first (its client hung up), dropping it puts the texts back
/// in a task of its own, so no server keeps a text that was never written.
struct DryRun {
    engine: Option<Arc<Engine>>,
    texts: Vec<(PathBuf, Arc<str>)>,
}

impl DryRun {
    /// When not a dry run (`Mode::Apply`), nothing to put back.
    fn restoring<'a>(
        engine: &Arc<Engine>,
        dry_run: bool,
        befores: impl IntoIterator<Item = (&'a PathBuf, Option<&'a Arc<str>>)>,
    ) -> DryRun {
        if !dry_run {
            return DryRun {
                engine: None,
                texts: Vec::new(),
            };
        }
        let texts = befores
            .into_iter()
            .filter_map(|(path, before)| Some((path.clone(), before?.clone())))
            .collect();
        DryRun {
            engine: Some(engine.clone()),
            texts,
        }
    }

    async fn finish(mut self) {
        if let Some(engine) = self.engine.take() {
            for (path, text) in std::mem::take(&mut self.texts) {
                engine.restore(&path, text).await;
            }
        }
    }
}

impl Drop for DryRun {
    fn drop(&mut self) {
        let (Some(engine), Ok(runtime)) =
            (self.engine.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let texts = std::mem::take(&mut self.texts);
        runtime.spawn(async move {
            for (path, text) in texts {
                engine.restore(&path, text).await;
            }
        });
    }
}
