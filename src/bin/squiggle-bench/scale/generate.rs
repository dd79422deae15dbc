//! The generated monorepo of `squiggle-bench scale`: N packages of 20–100
//! files each, in TypeScript or Python, with real cross-package types. Every
//! package exports a class and a function per module; a package depends on
//! up to two earlier ones ([`Repo::deps`]) and a third of its modules call a dependency's
//! function and method, so changing that function's signature breaks
//! importers in other packages, as it would in a real monorepo.
//!
//! Two layouts of the same sources: `declared`, where the root says which
//! packages belong together (a root `tsconfig.json` with `references` and
//! `package.json` `workspaces`; a uv workspace with pyright's `extraPaths`
//! at the root), and `packages`, where nothing at the root does and each
//! package is a project of its own.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Ts,
    Py,
}

impl Lang {
    pub fn parse(s: &str) -> Result<Lang> {
        match s {
            "ts" | "typescript" => Ok(Lang::Ts),
            "py" | "python" => Ok(Lang::Py),
            _ => anyhow::bail!("unknown language {s:?}; use ts or py"),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Lang::Ts => "ts",
            Lang::Py => "py",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Declared,
    Packages,
}

impl Layout {
    pub fn parse(s: &str) -> Result<Layout> {
        match s {
            "declared" => Ok(Layout::Declared),
            "packages" => Ok(Layout::Packages),
            _ => anyhow::bail!("unknown layout {s:?}; use declared or packages"),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Layout::Declared => "declared",
            Layout::Packages => "packages",
        }
    }
}

/// The shape of one generated monorepo.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub lang: Lang,
    pub layout: Layout,
    pub packages: usize,
    /// Files per package vary deterministically between these.
    pub min_files: usize,
    pub max_files: usize,
}

/// What was generated: where each package's modules are.
pub struct Repo {
    pub root: PathBuf,
    pub shape: Shape,
    /// Per package, its module count (index file not counted).
    pub modules: Vec<usize>,
}

impl Repo {
    pub fn package_name(i: usize) -> String {
        format!("p{i:03}")
    }

    /// The path of module `k` of package `p`.
    pub fn module_path(&self, p: usize, k: usize) -> PathBuf {
        let name = Self::package_name(p);
        let dir = self.root.join("packages").join(&name).join("src");
        match self.shape.lang {
            Lang::Ts => dir.join(format!("m{k:02}.ts")),
            Lang::Py => dir.join(&name).join(format!("m{k:02}.py")),
        }
    }

    /// The module's text, its exported function taking `extra` parameters
    /// more than its callers pass (0: everything type-checks).
    pub fn module_text(&self, p: usize, k: usize, extra: usize, salt: usize) -> String {
        module(self, p, k, extra, salt)
    }

    /// The packages package `p` imports from: its parents in two heaps
    /// (binary and ternary), so dependency chains stay about log(N) deep
    /// as in a layered monorepo, and every package in the lower half has
    /// importers.
    pub fn deps(p: usize) -> Vec<usize> {
        if p == 0 {
            return Vec::new();
        }
        let mut deps = vec![(p - 1) / 2];
        if (p - 1) / 3 != (p - 1) / 2 {
            deps.push((p - 1) / 3);
        }
        deps
    }

    /// Which module of `dep` module `k` of a dependent calls, if any: a
    /// third of the modules call into the first dependency.
    pub fn cross_call(&self, p: usize, k: usize) -> Option<(usize, usize)> {
        let dep = *Self::deps(p).first()?;
        k.is_multiple_of(3).then(|| (dep, k % self.modules[dep]))
    }

    /// The modules of other packages that call module `j` of `dep`:
    /// changing its function's signature breaks them.
    pub fn cross_importers(&self, dep: usize, j: usize) -> Vec<(usize, usize)> {
        (dep + 1..self.modules.len())
            .flat_map(|p| (0..self.modules[p]).map(move |k| (p, k)))
            .filter(|&(p, k)| self.cross_call(p, k) == Some((dep, j)))
            .collect()
    }
}

pub fn generate(root: &Path, shape: Shape) -> Result<Repo> {
    let span = shape.max_files.saturating_sub(shape.min_files) + 1;
    // Modules = files minus the index (and, in Python, the package's
    // pyproject): between min and max, spread deterministically.
    let modules = (0..shape.packages)
        .map(|i| (shape.min_files + (i * 37) % span).saturating_sub(1).max(3))
        .collect();
    let repo = Repo {
        root: root.to_path_buf(),
        shape,
        modules,
    };
    std::fs::create_dir_all(root.join(".git")).context("mkdir .git")?;
    for p in 0..shape.packages {
        for k in 0..repo.modules[p] {
            write(&repo.module_path(p, k), &repo.module_text(p, k, 0, 0))?;
        }
        match shape.lang {
            Lang::Ts => ts_package(&repo, p)?,
            Lang::Py => py_package(&repo, p)?,
        }
    }
    match shape.lang {
        Lang::Ts => ts_root(&repo)?,
        Lang::Py => py_root(&repo)?,
    }
    Ok(repo)
}

fn write(path: &Path, text: &str) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("mkdir {}", dir.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("write {}", path.display()))
}

/// Module `k` of package `p` (see [`Repo::module_text`]): the same code in
/// either language; only the syntax differs.
fn module(repo: &Repo, p: usize, k: usize, extra: usize, salt: usize) -> String {
    let lang = repo.shape.lang;
    let me = Repo::package_name(p);
    let cross = repo
        .cross_call(p, k)
        .map(|(dep, j)| (j, Repo::package_name(dep)));
    let mut s = String::new();
    if k > 0 {
        s += &match lang {
            Lang::Ts => format!("import {{ fn{0}_{me} }} from \"./m{0:02}\";\n", k - 1),
            Lang::Py => format!("from .m{0:02} import fn{0}_{me}\n", k - 1),
        };
    }
    if let Some((j, d)) = &cross {
        s += &match lang {
            Lang::Ts => format!("import {{ fn{j}_{d}, Mod{j}_{d} }} from \"@mono/{d}\";\n"),
            Lang::Py => format!("from {d}.m{j:02} import Mod{j}_{d}, fn{j}_{d}\n"),
        };
    }
    let number = match lang {
        Lang::Ts => "number",
        Lang::Py => "int",
    };
    let params: String = (0..extra)
        .map(|e| format!(", extra{e}: {number}"))
        .collect();
    let factor = salt + 1;
    s += &match lang {
        Lang::Ts => format!(
            "\nexport class Mod{k}_{me} {{\n  constructor(public readonly id: number) {{}}\n\n  value(x: number): number {{\n    return this.id * {factor} + x;\n  }}\n}}\n\n\
             export function fn{k}_{me}(a: number, b: string{params}): Mod{k}_{me} {{\n  return new Mod{k}_{me}(a + b.length);\n}}\n"
        ),
        Lang::Py => format!(
            "\n\nclass Mod{k}_{me}:\n    def __init__(self, ident: int) -> None:\n        self.ident = ident\n\n    def value(self, x: int) -> int:\n        return self.ident * {factor} + x\n\n\n\
             def fn{k}_{me}(a: int, b: str{params}) -> Mod{k}_{me}:\n    return Mod{k}_{me}(a + len(b))\n"
        ),
    };
    let mut body = String::from("0");
    if k > 0 {
        let _ = write!(body, " + fn{}_{me}(1, \"x\").value(2)", k - 1);
    }
    if let Some((j, d)) = &cross {
        s += &match lang {
            Lang::Ts => format!("\nexport const made{k}_{me}: Mod{j}_{d} = fn{j}_{d}(3, \"y\");\n"),
            Lang::Py => format!("\n\nmade{k}_{me}: Mod{j}_{d} = fn{j}_{d}(3, \"y\")\n"),
        };
        let _ = write!(body, " + made{k}_{me}.value(4)");
    }
    s += &match lang {
        Lang::Ts => format!("\nexport function use{k}_{me}(): number {{\n  return {body};\n}}\n"),
        Lang::Py => format!("\n\ndef use{k}_{me}() -> int:\n    return {body}\n"),
    };
    s
}

fn ts_package(repo: &Repo, p: usize) -> Result<()> {
    let name = Repo::package_name(p);
    let dir = repo.root.join("packages").join(&name);
    let index: String = (0..repo.modules[p])
        .map(|k| format!("export * from \"./m{k:02}\";\n"))
        .collect();
    write(&dir.join("src/index.ts"), &index)?;
    let deps: serde_json::Map<String, serde_json::Value> = Repo::deps(p)
        .into_iter()
        .map(|d| {
            (
                format!("@mono/{}", Repo::package_name(d)),
                "workspace:*".into(),
            )
        })
        .collect();
    let package = serde_json::json!({
        "name": format!("@mono/{name}"), "version": "0.0.0", "private": true,
        "types": "src/index.ts", "dependencies": deps,
    });
    write(&dir.join("package.json"), &format!("{package:#}\n"))?;
    let references: Vec<_> = Repo::deps(p)
        .into_iter()
        .map(|d| serde_json::json!({"path": format!("../{}", Repo::package_name(d))}))
        .collect();
    let tsconfig = serde_json::json!({
        "extends": "../../tsconfig.base.json",
        "compilerOptions": {"rootDir": "src", "outDir": "dist"},
        "include": ["src"],
        "references": references,
    });
    write(&dir.join("tsconfig.json"), &format!("{tsconfig:#}\n"))
}

fn ts_root(repo: &Repo) -> Result<()> {
    let base = serde_json::json!({
        "compilerOptions": {
            "strict": true, "target": "es2022", "module": "esnext",
            "moduleResolution": "bundler", "composite": true, "declaration": true,
            "skipLibCheck": true, "baseUrl": ".",
            "paths": {"@mono/*": ["packages/*/src/index.ts"]},
        }
    });
    write(
        &repo.root.join("tsconfig.base.json"),
        &format!("{base:#}\n"),
    )?;
    if repo.shape.layout == Layout::Packages {
        return Ok(());
    }
    let references: Vec<_> = (0..repo.shape.packages)
        .map(|p| serde_json::json!({"path": format!("packages/{}", Repo::package_name(p))}))
        .collect();
    let solution = serde_json::json!({"files": [], "references": references});
    write(&repo.root.join("tsconfig.json"), &format!("{solution:#}\n"))?;
    let package =
        serde_json::json!({"name": "mono", "private": true, "workspaces": ["packages/*"]});
    write(&repo.root.join("package.json"), &format!("{package:#}\n"))
}

fn py_package(repo: &Repo, p: usize) -> Result<()> {
    let name = Repo::package_name(p);
    let dir = repo.root.join("packages").join(&name);
    let mut init: String = (0..repo.modules[p])
        .map(|k| format!("from .m{k:02} import Mod{k}_{name}, fn{k}_{name}\n"))
        .collect();
    let names: Vec<String> = (0..repo.modules[p])
        .map(|k| format!("    \"Mod{k}_{name}\",\n    \"fn{k}_{name}\",\n"))
        .collect();
    let _ = write!(init, "\n__all__ = [\n{}]\n", names.concat());
    write(&dir.join("src").join(&name).join("__init__.py"), &init)?;
    let deps: Vec<String> = Repo::deps(p).into_iter().map(Repo::package_name).collect();
    let quoted = |items: &[String], f: &dyn Fn(&String) -> String| {
        items
            .iter()
            .map(|d| format!("\"{}\"", f(d)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut toml = format!(
        "[project]\nname = \"{name}\"\nversion = \"0.0.0\"\ndependencies = [{}]\n",
        quoted(&deps, &|d| d.clone())
    );
    if !deps.is_empty() {
        let _ = write!(toml, "\n[tool.uv.sources]\n");
        for d in &deps {
            let _ = writeln!(toml, "{d} = {{ workspace = true }}");
        }
    }
    // Standing alone, the package finds its dependencies' sources here.
    let _ = write!(
        toml,
        "\n[tool.pyright]\nextraPaths = [{}]\n",
        quoted(&deps, &|d| format!("../{d}/src"))
    );
    write(&dir.join("pyproject.toml"), &toml)
}

fn py_root(repo: &Repo) -> Result<()> {
    if repo.shape.layout == Layout::Packages {
        return Ok(());
    }
    let paths: Vec<String> = (0..repo.shape.packages)
        .map(|p| format!("\"packages/{}/src\"", Repo::package_name(p)))
        .collect();
    let toml = format!(
        "[project]\nname = \"mono\"\nversion = \"0.0.0\"\n\n[tool.uv.workspace]\nmembers = [\"packages/*\"]\n\n[tool.pyright]\nextraPaths = [{}]\n",
        paths.join(", ")
    );
    write(&repo.root.join("pyproject.toml"), &toml)
}
