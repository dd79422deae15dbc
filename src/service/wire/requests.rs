//! What each method takes. Every struct refuses a member it does not know
//! (`-32602` naming it); an optional member may be absent or `null`.
//! Paths are relative to the workspace root, or absolute.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

use crate::baseline::Before;
use crate::config::Mutation;
use crate::engine::request::{self, NoFixNamed, Operation, Request};
use crate::engine::tools::Touched;
use crate::evidence::Origin;
use crate::render::RenderOverrides;

/// An optional member: absent or `null` reads as the type's default.
pub(super) fn nullable<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

fn is_false(flag: &bool) -> bool {
    !*flag
}

/// The params of a method that takes none: `{}`, `null` or absent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoParams {}

/// `squiggle/warm`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WarmParams {
    /// Answer once the warm-up and the survey have ended (a benchmark's
    /// start, as a careful client opens every file before it measures),
    /// not at once.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub wait: bool,
}

/// `lsp/checkFile`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckFileParams {
    pub file_path: PathBuf,
}

/// `lsp/checkFiles`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckFilesParams {
    pub file_paths: Vec<PathBuf>,
}

/// `squiggle/edit`: the agent's Edit tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EditParams {
    pub file_path: PathBuf,
    /// The exact text to replace; it must occur once unless `replaceAll`.
    pub old_string: String,
    pub new_string: String,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "is_false"
    )]
    pub replace_all: bool,
    /// Check the change without writing it.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "is_false"
    )]
    pub dry_run: bool,
    /// Who asks, for the evidence log (`docs/protocol.md`, "Evidence
    /// log"): `{surface, agent?, tool?}`. squiggle's own command line and
    /// hooks say so; absent, the service is the surface.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub origin: Option<Origin>,
}

/// `squiggle/write`: the whole file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WriteParams {
    pub file_path: PathBuf,
    pub content: String,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "is_false"
    )]
    pub dry_run: bool,
    /// Who asks, for the evidence log (`docs/protocol.md`, "Evidence
    /// log"): `{surface, agent?, tool?}`. squiggle's own command line and
    /// hooks say so; absent, the service is the surface.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub origin: Option<Origin>,
}

/// `squiggle/applyPatch`: a unified diff or a `*** Begin Patch` patch,
/// its paths relative to the workspace root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApplyPatchParams {
    pub patch: String,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "is_false"
    )]
    pub dry_run: bool,
    /// Who asks, for the evidence log (`docs/protocol.md`, "Evidence
    /// log"): `{surface, agent?, tool?}`. squiggle's own command line and
    /// hooks say so; absent, the service is the surface.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub origin: Option<Origin>,
}

/// `squiggle/fix`: the fix a server offers for one diagnostic of a file,
/// named by the `id` an earlier answer gave it, or by its place (`line`,
/// and `column` when the line has several), recomputed for the text now.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FixParams {
    pub file_path: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// 1-based; ignored when `id` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// 1-based, in characters; ignored when `id` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "is_false"
    )]
    pub dry_run: bool,
    /// Who asks, for the evidence log, as for `squiggle/edit`.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub origin: Option<Origin>,
}

impl From<EditParams> for Request {
    fn from(p: EditParams) -> Request {
        let operation = Operation::Edit {
            path: p.file_path,
            old: p.old_string,
            new: p.new_string,
            replace: request::replace(p.replace_all),
        };
        Request::new(operation, p.dry_run).from(p.origin)
    }
}

impl From<WriteParams> for Request {
    fn from(p: WriteParams) -> Request {
        let operation = Operation::Write {
            path: p.file_path,
            content: p.content,
        };
        Request::new(operation, p.dry_run).from(p.origin)
    }
}

impl From<ApplyPatchParams> for Request {
    fn from(p: ApplyPatchParams) -> Request {
        Request::new(Operation::Patch { patch: p.patch }, p.dry_run).from(p.origin)
    }
}

impl TryFrom<FixParams> for Request {
    type Error = NoFixNamed;

    fn try_from(p: FixParams) -> Result<Request, NoFixNamed> {
        let operation = Operation::Fix {
            path: p.file_path,
            which: request::which(p.id, p.line, p.column)?,
        };
        Ok(Request::new(operation, p.dry_run).from(p.origin))
    }
}

/// `squiggle/delete`: one file removed, the files that import it checked
/// again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeleteParams {
    pub file_path: PathBuf,
    /// Remove nothing; check the importers as they are.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "is_false"
    )]
    pub dry_run: bool,
    /// Who asks, for the evidence log, as for `squiggle/edit`.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub origin: Option<Origin>,
}

impl From<DeleteParams> for Request {
    fn from(p: DeleteParams) -> Request {
        Request::new(Operation::Delete { path: p.file_path }, p.dry_run).from(p.origin)
    }
}

/// `squiggle/check`: files on disk, or the text given for some of them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckParams {
    pub file_paths: Vec<PathBuf>,
    /// The mutation the check follows (`otherFiles` decides from it whether
    /// the files' importers are reported too); `edit` when absent.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Mutation::is_edit"
    )]
    pub mutation: Mutation,
    /// The text to check instead of the disk's, for some of `filePaths`
    /// (keyed exactly as there); nothing is written.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub contents: BTreeMap<PathBuf, String>,
    /// Each file's text right before the change the check follows, for
    /// some of `filePaths` (keyed exactly as there): a string, or `null`
    /// when the change created the file. For a file not named, squiggle's
    /// own last look at it stands in. What was there before is hidden or
    /// counted as the configuration's `report` says.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub before: BTreeMap<PathBuf, Option<String>>,
    /// How to render the answer, over the configured options (`report`,
    /// the caps, `escape`, `maxChars`).
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "RenderOverrides::is_unset"
    )]
    pub options: RenderOverrides,
    /// Who asks, for the evidence log (`docs/protocol.md`, "Evidence
    /// log"): `{surface, agent?, tool?}`. squiggle's own command line and
    /// hooks say so; absent, the service is the surface.
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub origin: Option<Origin>,
}

/// A `contents` or `before` key that is not one of `filePaths`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{member}: {} is not one of filePaths", key.display())]
pub struct NotOneOfFilePaths {
    pub member: &'static str,
    pub key: PathBuf,
}

impl TryFrom<CheckParams> for Request {
    type Error = NotOneOfFilePaths;

    /// `contents`: the text to check instead of the disk's; `before`: the
    /// text before the change. Both keyed as in `filePaths`.
    fn try_from(p: CheckParams) -> Result<Request, NotOneOfFilePaths> {
        let CheckParams {
            file_paths,
            mutation,
            mut contents,
            mut before,
            options,
            origin,
        } = p;
        let stray = |member, keys: Vec<&PathBuf>| {
            keys.into_iter()
                .find(|k| !file_paths.contains(k))
                .map(|k| NotOneOfFilePaths {
                    member,
                    key: k.clone(),
                })
        };
        if let Some(e) = stray("contents", contents.keys().collect())
            .or_else(|| stray("before", before.keys().collect()))
        {
            return Err(e);
        }
        let files = file_paths
            .into_iter()
            .map(|path| Touched {
                before: match before.remove(&path) {
                    Some(Some(text)) => Before::Text(Arc::from(text)),
                    Some(None) => Before::Absent,
                    None => Before::Unknown,
                },
                after: contents.remove(&path).map(Arc::from),
                path,
            })
            .collect();
        let operation = Operation::Check {
            files,
            mutation,
            options,
        };
        Ok(Request::new(operation, false).from(origin))
    }
}
