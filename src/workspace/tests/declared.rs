//! Roots the project itself declares: tsconfig references and Node
//! workspaces.

use super::*;

const TS: &[Declaration] = &[Declaration::TsconfigReferences, Declaration::NodeWorkspaces];

fn root(f: &Fixture, file: &str, accepted: &[Declaration]) -> Option<String> {
    let root = declared_root(&f.root.join(file), &f.root, accepted)?;
    f.workspace().relative(&root)
}

#[test]
fn tsconfig_references_name_the_packages() {
    let f = Fixture::new(&[
        (
            "tsconfig.json",
            "{\n  // the solution\n  \"files\": [],\n  \"references\": [{\"path\": \"./packages/a\"}, {\"path\": \"packages/b/tsconfig.json\"},],\n}\n",
        ),
        ("packages/a/tsconfig.json", "{}"),
        ("packages/b/tsconfig.json", "{}"),
        ("packages/c/tsconfig.json", "{}"),
        ("tools/x.ts", ""),
    ]);
    assert_eq!(root(&f, "packages/a/src/index.ts", TS).as_deref(), Some(""));
    assert_eq!(root(&f, "packages/b/deep/x.ts", TS).as_deref(), Some(""));
    // Not referenced: its own tsconfig, as before.
    assert_eq!(root(&f, "packages/c/x.ts", TS), None);
    assert_eq!(root(&f, "tools/x.ts", TS), None);
    let markers = vec!["tsconfig.json".to_string()];
    let chosen = server_root(
        &f.root.join("packages/c/x.ts"),
        &f.root,
        &markers,
        RootSearch::Nearest,
        TS,
    );
    assert_eq!(chosen, f.root.join("packages/c"));
}

#[test]
fn node_workspaces_globs_and_object_form() {
    let f = Fixture::new(&[
        (
            "package.json",
            "{\"workspaces\": [\"packages/*\", \"apps/**\"]}",
        ),
        ("packages/a/package.json", "{}"),
        ("apps/web/site/package.json", "{}"),
        ("other/package.json", "{}"),
        (
            "yarn/package.json",
            "{\"workspaces\": {\"packages\": [\"libs/ui-*\"]}}",
        ),
    ]);
    assert_eq!(root(&f, "packages/a/src/x.ts", TS).as_deref(), Some(""));
    assert_eq!(root(&f, "apps/web/site/x.ts", TS).as_deref(), Some(""));
    assert_eq!(root(&f, "other/x.ts", TS), None);
    // A file directly in the declaring directory is no member.
    assert_eq!(root(&f, "x.ts", TS), None);
    assert_eq!(
        root(&f, "yarn/libs/ui-kit/x.ts", TS).as_deref(),
        Some("yarn")
    );
    assert_eq!(root(&f, "yarn/libs/core/x.ts", TS), None);
    // A server that accepts no declaration keeps its markers.
    assert_eq!(root(&f, "packages/a/src/x.ts", &[]), None);
}

#[test]
fn pnpm_workspace_yaml_with_exclusions() {
    let f = Fixture::new(&[
        (
            "pnpm-workspace.yaml",
            "# comment\npackages:\n  - 'packages/*'\n  - \"!packages/skip\"\n  - components/** # all\ncatalog:\n  - not/a/package\n",
        ),
        ("packages/a/package.json", "{}"),
        ("packages/skip/package.json", "{}"),
        ("components/x/y/package.json", "{}"),
        ("not/a/package/x.ts", ""),
        (
            "flow/pnpm-workspace.yaml",
            "packages: ['libs/*', \"tools\"]\n",
        ),
    ]);
    assert_eq!(root(&f, "packages/a/x.ts", TS).as_deref(), Some(""));
    assert_eq!(root(&f, "packages/skip/x.ts", TS), None);
    assert_eq!(root(&f, "components/x/y/z.ts", TS).as_deref(), Some(""));
    assert_eq!(root(&f, "not/a/package/x.ts", TS), None);
    assert_eq!(root(&f, "flow/libs/l/x.ts", TS).as_deref(), Some("flow"));
    assert_eq!(root(&f, "flow/tools/x.ts", TS).as_deref(), Some("flow"));
}

#[test]
fn uv_workspace_members_and_exclude() {
    let f = Fixture::new(&[
        (
            "pyproject.toml",
            "[project]\nname = \"mono\"\n[tool.uv.workspace]\nmembers = [\"packages/*\"]\nexclude = [\"packages/legacy\"]\n",
        ),
        ("packages/a/pyproject.toml", "[project]\nname = \"a\"\n"),
        (
            "packages/legacy/pyproject.toml",
            "[project]\nname = \"l\"\n",
        ),
        (
            "broken/pyproject.toml",
            "[tool.uv.workspace\nmembers = [\"*\"]\n",
        ),
    ]);
    let uv = &[Declaration::UvWorkspace];
    assert_eq!(root(&f, "packages/a/src/a/m.py", uv).as_deref(), Some(""));
    assert_eq!(root(&f, "packages/legacy/m.py", uv), None);
    // A malformed file declares nothing; the outer root does not list it.
    assert_eq!(root(&f, "broken/x/m.py", uv), None);
    // TypeScript's declarations do not read uv's.
    assert_eq!(root(&f, "packages/a/src/a/m.py", TS), None);
}

#[test]
fn nearest_declaring_root_wins_and_never_above_the_workspace() {
    let f = Fixture::new(&[
        ("package.json", "{\"workspaces\": [\"**\"]}"),
        ("inner/package.json", "{\"workspaces\": [\"pkgs/*\"]}"),
        ("inner/pkgs/a/package.json", "{}"),
    ]);
    assert_eq!(root(&f, "inner/pkgs/a/x.ts", TS).as_deref(), Some("inner"));
    // The workspace root's parent declares everything; it is never used.
    let outer = f.root.parent().unwrap_or(&f.root);
    fs::write(outer.join("package.json"), "{\"workspaces\": [\"**\"]}").unwrap();
    let inner = f.root.join("inner");
    assert_eq!(declared_root(&inner.join("x.ts"), &inner, TS), None);
}
