//! Each method as a type: its name, what it takes and what it answers, in
//! one place (as `lsp_types::request` does for LSP). The service reads a
//! method's params as `Method::Params` and answers `Method::Answer`; the
//! daemon's client sends and reads the very same types.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::answers::{RenderReply, WarmReply, WireDiagnostic};
use super::render::RenderParams;
use super::requests::{
    ApplyPatchParams, CheckFileParams, CheckFilesParams, CheckParams, DeleteParams, EditParams,
    FixParams, NoParams, WarmParams, WriteParams,
};
use super::sessions::{SessionChainParams, SessionEditParams, SessionOpenParams, SessionParams};
use crate::engine::ServerStatus;
use crate::engine::tools::ToolResult;
use crate::engine::{ChainAnswer, SessionAnswer};

/// A JSON-RPC method of the service (or the daemon).
pub trait Method {
    const NAME: &'static str;
    type Params: Serialize + DeserializeOwned + JsonSchema;
    type Answer: Serialize + DeserializeOwned;
}

macro_rules! methods {
    ($($(#[$doc:meta])* $ty:ident = $name:literal, $params:ty => $answer:ty;)*) => {
        $(
            $(#[$doc])*
            pub enum $ty {}

            impl Method for $ty {
                const NAME: &'static str = $name;
                type Params = $params;
                type Answer = $answer;
            }
        )*

        /// Every method the service answers.
        pub const SERVICE_METHODS: &[&str] = &[$($name),*];
    };
}

/// Diagnostics per file, relative paths sorted.
pub type ByFile = BTreeMap<String, Vec<WireDiagnostic>>;

methods! {
    /// One file checked now.
    CheckFile = "lsp/checkFile", CheckFileParams => Vec<WireDiagnostic>;
    /// Several files checked in one parallel wait.
    CheckFiles = "lsp/checkFiles", CheckFilesParams => ByFile;
    /// What the running servers hold, nothing waited for.
    Diagnostics = "lsp/diagnostics", NoParams => ByFile;
    /// Every configured server and every instance (`Engine::status`).
    Status = "lsp/status", NoParams => Vec<ServerStatus>;
    /// Stops every server and ends the connection.
    Shutdown = "lsp/shutdown", NoParams => ();
    Edit = "squiggle/edit", EditParams => ToolResult;
    Write = "squiggle/write", WriteParams => ToolResult;
    ApplyPatch = "squiggle/applyPatch", ApplyPatchParams => ToolResult;
    /// A server's quick fix, recomputed for the text now and applied as
    /// `squiggle/applyPatch` applies a patch.
    Fix = "squiggle/fix", FixParams => ToolResult;
    /// A file removed, the files that import it checked again.
    Delete = "squiggle/delete", DeleteParams => ToolResult;
    Render = "squiggle/render", RenderParams => RenderReply;
    Check = "squiggle/check", CheckParams => ToolResult;
    Warm = "squiggle/warm", WarmParams => WarmReply;
    /// A speculative session over some files (`crate::sessions`).
    SessionOpen = "squiggle/sessionOpen", SessionOpenParams => SessionAnswer;
    SessionEdit = "squiggle/sessionEdit", SessionEditParams => SessionAnswer;
    SessionEvaluate = "squiggle/sessionEvaluate", SessionParams => SessionAnswer;
    SessionChain = "squiggle/sessionChain", SessionChainParams => ChainAnswer;
    SessionCommit = "squiggle/sessionCommit", SessionParams => ToolResult;
    SessionDiscard = "squiggle/sessionDiscard", SessionParams => SessionAnswer;
}
