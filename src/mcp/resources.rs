//! MCP resources: `squiggle://diagnostics` (every file the running servers
//! know, as `lsp_diagnostics` without a path renders it) and the template
//! `squiggle://diagnostics/{path}` (one workspace-relative file, checked on
//! read like `lsp_diagnostics` with that path). Clients may subscribe; after
//! each write tool call, and after whatever else may change what a resource
//! reads (a server published, reported progress, started or stopped; a file
//! changed on disk), debounced, the subscribed resources are re-rendered
//! through the same code as a read and `notifications/resources/updated`
//! goes out for each one whose text changed since it was last read or sent.
//! Nothing is re-rendered while nothing happens.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::ErrorData as McpError;
use rmcp::model::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, ResourceUpdatedNotificationParam,
};
use rmcp::service::{Peer, RoleServer};
use tokio::sync::watch;

use crate::engine::Engine;
use crate::navigation::diagnostics::diagnostics;

pub const ALL_URI: &str = "squiggle://diagnostics";
const FILE_PREFIX: &str = "squiggle://diagnostics/";
const TEMPLATE: &str = "squiggle://diagnostics/{path}";
const MIME: &str = "text/plain";

/// Changes within this window are coalesced; at most one notification per
/// URI goes out per window.
const DEBOUNCE: Duration = Duration::from_millis(200);
/// Re-renders that no write asked for are at least this far apart: a read
/// checks its file, which may itself make a server publish again.
const MIN_GAP: Duration = Duration::from_secs(2);

pub fn list() -> ListResourcesResult {
    ListResourcesResult::with_all_items(vec![
        Resource::new(ALL_URI, "diagnostics")
            .with_title("Diagnostics of every known file")
            .with_description(
                "What the running language servers report for every file they know, rendered like lsp_diagnostics without a path.",
            )
            .with_mime_type(MIME),
    ])
}

pub fn templates() -> ListResourceTemplatesResult {
    ListResourceTemplatesResult::with_all_items(vec![
        ResourceTemplate::new(TEMPLATE, "file-diagnostics")
            .with_title("Diagnostics of one file")
            .with_description(
                "The file (workspace-relative path) is checked on read, like lsp_diagnostics with that path.",
            )
            .with_mime_type(MIME),
    ])
}

/// Which file a URI names: `Ok(None)` for every known file.
fn parse(uri: &str) -> Result<Option<String>, McpError> {
    if uri == ALL_URI {
        return Ok(None);
    }
    match uri.strip_prefix(FILE_PREFIX).map(percent_decode) {
        Some(Some(path)) if !path.is_empty() => Ok(Some(path)),
        _ => Err(McpError::resource_not_found(
            format!("unknown resource {uri}; expected {ALL_URI} or {TEMPLATE}"),
            None,
        )),
    }
}

fn percent_decode(s: &str) -> Option<String> {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The resource's text, through the same code as `lsp_diagnostics`.
async fn render(engine: &Arc<Engine>, uri: &str) -> Result<String, McpError> {
    let path = parse(uri)?;
    match diagnostics(engine, path.as_deref()).await {
        Ok((_, text)) => Ok(text),
        // "No server running yet" is a state of the aggregate, not an error.
        Err(e) if path.is_none() => Ok(e.0),
        Err(e) => Err(McpError::invalid_params(e.0, None)),
    }
}

struct Subscription {
    peer: Peer<RoleServer>,
    /// The text last read or announced (None: unknown, or the read failed).
    last: Option<String>,
    notified: Option<Instant>,
}

#[derive(Default)]
struct State {
    subs: HashMap<String, Subscription>,
    /// A debounced refresh is scheduled.
    pending: bool,
    /// The task following the servers and the disk is running.
    following: bool,
}

/// One MCP session's subscriptions.
#[derive(Clone)]
pub struct Resources {
    state: Arc<Mutex<State>>,
    /// Serializes refreshes so two never race on `last`.
    refreshing: Arc<tokio::sync::Mutex<()>>,
    /// Closes when the client goes: its follower ends then, not at the
    /// next event.
    client_gone: watch::Receiver<()>,
}

impl Resources {
    pub fn new(client_gone: watch::Receiver<()>) -> Resources {
        Resources {
            state: Arc::default(),
            refreshing: Arc::default(),
            client_gone,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub async fn read(
        &self,
        engine: &Arc<Engine>,
        uri: &str,
    ) -> Result<ReadResourceResult, McpError> {
        let text = render(engine, uri).await;
        if let Some(sub) = self.state().subs.get_mut(uri) {
            sub.last = text.as_ref().ok().cloned();
        }
        Ok(ReadResourceResult::new(vec![ResourceContents::text(
            text?, uri,
        )]))
    }

    pub async fn subscribe(
        &self,
        engine: &Arc<Engine>,
        uri: &str,
        peer: Peer<RoleServer>,
    ) -> Result<(), McpError> {
        parse(uri)?;
        let last = render(engine, uri).await.ok();
        let start_following = {
            let mut state = self.state();
            state.subs.insert(
                uri.to_string(),
                Subscription {
                    peer,
                    last,
                    notified: None,
                },
            );
            !std::mem::replace(&mut state.following, true)
        };
        if start_following {
            let this = self.clone();
            let engine = engine.clone();
            tokio::spawn(async move { this.follow(engine).await });
        }
        Ok(())
    }

    pub fn unsubscribe(&self, uri: &str) {
        self.state().subs.remove(uri);
    }

    /// Something may have changed (a write tool ran): refresh once the
    /// debounce window has passed, coalescing with other pokes meanwhile.
    pub fn poke(&self, engine: &Arc<Engine>) {
        {
            let mut state = self.state();
            if state.subs.is_empty() || std::mem::replace(&mut state.pending, true) {
                return;
            }
        }
        let this = self.clone();
        let engine = engine.clone();
        tokio::spawn(async move {
            tokio::time::sleep(DEBOUNCE).await;
            this.state().pending = false;
            this.refresh(&engine).await;
        });
    }

    /// Re-renders the subscribed resources after each event that may change
    /// them, until no subscription is left or the client has gone.
    async fn follow(&self, engine: Arc<Engine>) {
        let mut next = next_event(&engine);
        let mut client_gone = self.client_gone.clone();
        loop {
            if !event_before_gone(next, &mut client_gone).await {
                let mut state = self.state();
                state.subs.clear();
                state.following = false;
                return;
            }
            tokio::time::sleep(DEBOUNCE).await;
            {
                let mut state = self.state();
                // A closed session's subscriptions end with it.
                state.subs.retain(|_, sub| !sub.peer.is_transport_closed());
                if state.subs.is_empty() {
                    state.following = false;
                    return;
                }
            }
            // Listening before the refresh: what happens during it wakes
            // the next round.
            next = next_event(&engine);
            self.refresh(&engine).await;
            tokio::time::sleep(MIN_GAP).await;
        }
    }

    /// Re-render every subscribed resource; notify those whose text changed.
    async fn refresh(&self, engine: &Arc<Engine>) {
        let _guard = self.refreshing.lock().await;
        let uris: Vec<String> = self.state().subs.keys().cloned().collect();
        for uri in uris {
            let Ok(text) = render(engine, &uri).await else {
                continue;
            };
            let peer = {
                let mut state = self.state();
                let Some(sub) = state.subs.get_mut(&uri) else {
                    continue;
                };
                if sub.last.as_deref() == Some(text.as_str()) {
                    continue;
                }
                // Within the window: leave `last` alone so the next refresh
                // still sees the change.
                if sub.notified.is_some_and(|t| t.elapsed() < DEBOUNCE) {
                    continue;
                }
                sub.last = Some(text);
                sub.notified = Some(Instant::now());
                sub.peer.clone()
            };
            if let Err(e) = peer
                .notify_resource_updated(ResourceUpdatedNotificationParam::new(uri.clone()))
                .await
            {
                tracing::debug!(%uri, "resource update notification failed: {e}");
            }
        }
    }
}

/// Whether `next` resolved before the client went (`client_gone` closed).
async fn event_before_gone(
    next: impl Future<Output = ()>,
    client_gone: &mut watch::Receiver<()>,
) -> bool {
    tokio::select! {
        () = next => true,
        _ = client_gone.changed() => false,
    }
}

/// Resolves at the next event after which a resource may read differently:
/// a running server published, reported progress, registered, was refreshed
/// or died; a server started or stopped; the disk changed. Listens from the
/// call on, not from the first poll. A check ending is no such event (the
/// pool says so too, and a refresh's own reads end checks).
fn next_event(engine: &Arc<Engine>) -> impl Future<Output = ()> + use<> {
    let clients = engine.pool().clients();
    let mut receivers: Vec<_> = clients.iter().map(|c| c.subscribe()).collect();
    receivers.extend(engine.disk_arrivals());
    let mut any = tokio::task::JoinSet::new();
    for mut receiver in receivers {
        any.spawn(async move {
            let _ = receiver.changed().await;
        });
    }
    let servers = |engine: &Engine| -> Vec<Option<u32>> {
        let mut pids: Vec<_> = engine.pool().clients().iter().map(|c| c.pid()).collect();
        pids.sort_unstable();
        pids
    };
    let (running, mut pool, engine) = (servers(engine), engine.pool().changes(), engine.clone());
    any.spawn(async move { while pool.changed().await.is_ok() && servers(&engine) == running {} });
    // Dropping the set when the first has resolved aborts the others.
    async move {
        let _ = any.join_next().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_name_all_files_or_one() {
        assert_eq!(parse(ALL_URI).ok(), Some(None));
        assert_eq!(
            parse("squiggle://diagnostics/src/a%20b.rs").ok(),
            Some(Some("src/a b.rs".to_string()))
        );
        assert!(parse("squiggle://diagnostics/").is_err());
        assert!(parse("squiggle://other").is_err());
        assert!(parse("squiggle://diagnostics/%zz").is_err());
    }

    #[tokio::test]
    async fn a_follower_ends_when_its_client_goes_not_at_the_next_event() {
        let (gone, mut client_gone) = watch::channel(());
        let never = std::future::pending::<()>();
        drop(gone);
        assert!(!event_before_gone(never, &mut client_gone).await);
    }

    #[tokio::test]
    async fn an_event_while_the_client_is_there_is_followed() {
        let (_gone, mut client_gone) = watch::channel(());
        assert!(event_before_gone(std::future::ready(()), &mut client_gone).await);
    }
}
