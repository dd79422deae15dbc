//! The service's JSON shapes, typed at both ends: the service reads every
//! request into these structs (an unknown member is refused) and the
//! daemon's client sends the same structs and reads the answers back into
//! the engine's own types. The `lsp/*` methods keep the spec's shapes
//! (`Diagnostic` with `character`, messages with `<`, `>`, `&` escaped);
//! the `squiggle/*` methods speak squiggle's own types with raw messages,
//! since their consumer renders them (or asks `squiggle/render`).
//! `docs/protocol.md` shows each; a test reads its examples into these types.

mod answers;
pub mod method;
mod render;
mod requests;
mod sessions;

pub use answers::{RenderReply, WarmReply, WireDiagnostic};
pub use method::Method;
pub use render::{RenderParams, WireFileDiagnostics};
pub use requests::{
    ApplyPatchParams, CheckFileParams, CheckFilesParams, CheckParams, DeleteParams, EditParams,
    FixParams, NoParams, NotOneOfFilePaths, WarmParams, WriteParams,
};
pub use sessions::{
    SessionChainParams, SessionEditParams, SessionOpenParams, SessionParams, WireEdit,
};

pub use crate::engine::tools::ToolResult;
pub use crate::engine::{CheckReport, FileReport, ServerOutcome, ServerStatus};
pub use crate::render::RenderOverrides;
