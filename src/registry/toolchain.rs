//! The project's own compiler: a package a project installs for itself
//! (`npm i -D typescript`) that a server runs on.
//!
//! A TypeScript project pins its compiler, and its errors are that
//! compiler's. squiggle must check it with the same one, not with whatever
//! build it carries: TypeScript 7 is a native `tsc` that serves LSP itself
//! (`tsc --lsp --stdio`), TypeScript 6 and older run under
//! typescript-language-server, which is pointed at the project's
//! `tsserver.js`. So the registry says, per server, which packages it runs
//! on and which of their major versions ([`ProjectPackage`]); the package
//! the project has decides which server of an exclusive group serves it
//! (`engine::plan`) and what that server runs ([`launch`]). Nothing in the
//! engine names a package or a server.
//!
//! Where a package is looked for: `node_modules/<name>` in the server's
//! project root and each parent up to and including the workspace root,
//! nearest first (as Node resolves it for the project's files); then what
//! `squiggle install` put in the server's own directory.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::ServerSpec;
use super::detect::find_command;
use super::paths::{project_dirs, set_pointer};

/// A package a server runs on when the project has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectPackage {
    /// The npm package's name: it lives in `node_modules/<name>`.
    pub name: String,
    /// The major versions this server takes.
    pub majors: Majors,
    /// How the server is given the package.
    pub given: Given,
}

/// A range of major versions: `from` up to, not including, `below`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Majors {
    pub from: u64,
    pub below: Option<u64>,
}

impl Majors {
    pub const ANY: Majors = Majors {
        from: 0,
        below: None,
    };

    pub fn contains(self, major: u64) -> bool {
        major >= self.from && self.below.is_none_or(|below| major < below)
    }
}

/// How a server is given the project's package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Given {
    /// The package is the server: its program named `bin` in its
    /// `package.json`, started with `args`. `native`, when set, is the
    /// platform build the program would run, as a package path with
    /// `{platform}` and `{arch}` in Node's spelling (`linux`, `x64`),
    /// resolved from the package as Node resolves it; it is started
    /// directly when found, sparing a Node process in between.
    Program {
        bin: String,
        args: Vec<String>,
        native: Option<String>,
    },
    /// The server loads the package: the initialization option at the JSON
    /// pointer `pointer` is set to the package's file `file`.
    InitOption { pointer: String, file: String },
}

/// Where a package was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// In the project's `node_modules`.
    Project,
    /// In squiggle's servers directory (`squiggle install`).
    SquiggleInstall,
}

impl Origin {
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Project => "project",
            Origin::SquiggleInstall => "squiggle install",
        }
    }
}

/// A package found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundPackage {
    pub name: String,
    /// `version` of its `package.json`.
    pub version: String,
    /// The package's directory (`…/node_modules/<name>`), as found, links
    /// not resolved.
    pub dir: PathBuf,
    pub origin: Origin,
}

impl FoundPackage {
    /// `typescript 7.0.2`.
    pub fn label(&self) -> String {
        format!("{} {}", self.name, self.version)
    }

    fn major(&self) -> Option<u64> {
        let digits: String = self
            .version
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        digits.parse().ok()
    }
}

/// What a server finds of the packages it runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lookup {
    /// The server runs on no package of the project's.
    NotApplicable,
    /// None of its packages is there.
    Missing,
    /// Its package, in a version it takes.
    Found(FoundPackage, Given),
    /// One of its packages, in a version it does not take (TypeScript 7
    /// for typescript-language-server).
    Unsuited(FoundPackage),
}

impl Lookup {
    /// The package found, suited or not.
    pub fn package(&self) -> Option<&FoundPackage> {
        match self {
            Lookup::Found(found, _) | Lookup::Unsuited(found) => Some(found),
            Lookup::NotApplicable | Lookup::Missing => None,
        }
    }
}

impl std::fmt::Display for Lookup {
    /// What `status` and `doctor` say of the compiler a server runs on:
    /// `typescript 7.0.2 (project: /w/node_modules/typescript)`, or why it
    /// runs its own.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Lookup::NotApplicable => Ok(()),
            Lookup::Missing => write!(f, "its own (none in the project)"),
            Lookup::Found(found, _) => write!(
                f,
                "{} ({}: {})",
                found.label(),
                found.origin.as_str(),
                found.dir.display()
            ),
            Lookup::Unsuited(found) => write!(
                f,
                "its own (the project's {} is not for this server)",
                found.label()
            ),
        }
    }
}

/// The package `spec` runs on for a project at `root`: the nearest of its
/// packages' names (each directory from `root` up to and including
/// `workspace_root`; within one, in the spec's order), then what `squiggle
/// install` put in the server's own directory.
pub fn lookup(spec: &ServerSpec, root: &Path, workspace_root: &Path) -> Lookup {
    if spec.packages.is_empty() {
        return Lookup::NotApplicable;
    }
    let names: Vec<&str> = spec.packages.iter().map(|p| p.name.as_str()).collect();
    let in_project = project_dirs(root, workspace_root)
        .into_iter()
        .find_map(|dir| first_package(&dir.join("node_modules"), &names, Origin::Project));
    let installed = || {
        let dir = crate::install::servers_dir()?.join(&spec.id);
        first_package(&dir.join("node_modules"), &names, Origin::SquiggleInstall)
    };
    let Some(found) = in_project.or_else(installed) else {
        return Lookup::Missing;
    };
    let suited = spec.packages.iter().find(|p| {
        p.name == found.name && found.major().is_some_and(|major| p.majors.contains(major))
    });
    match suited {
        Some(package) => Lookup::Found(found, package.given.clone()),
        None => Lookup::Unsuited(found),
    }
}

/// How to start a server: its program, arguments and initialization
/// options, with the project's package applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub initialization_options: Value,
    /// The project's package it runs on, if it runs on one.
    pub package: Option<FoundPackage>,
}

/// How to start `spec` for the project at `root`: the project's package
/// when it has one the server takes, else the server's command as found
/// by [`find_command`], with the plugins it finds (`plugins`). `None` when
/// neither is there.
pub fn launch(
    spec: &ServerSpec,
    root: &Path,
    workspace_root: &Path,
    path_var: Option<&OsStr>,
) -> Option<Launch> {
    let mut launch = launch_package(spec, root, workspace_root, path_var)?;
    let program = Some(launch.program.as_path());
    super::plugins::apply(
        spec,
        &mut launch.initialization_options,
        root,
        workspace_root,
        program,
    );
    Some(launch)
}

fn launch_package(
    spec: &ServerSpec,
    root: &Path,
    workspace_root: &Path,
    path_var: Option<&OsStr>,
) -> Option<Launch> {
    let mut options = spec.initialization_options.clone();
    let command = |options: Value, package: Option<FoundPackage>| {
        find_command(spec, root, workspace_root, path_var).map(|(program, candidate)| Launch {
            program,
            args: candidate.args.clone(),
            initialization_options: options,
            package,
        })
    };
    let Lookup::Found(found, given) = lookup(spec, root, workspace_root) else {
        return command(options, None);
    };
    match given {
        Given::Program { bin, args, native } => {
            let program = native
                .and_then(|template| native_program(&found.dir, &template))
                .or_else(|| bin_program(&found.dir, &bin));
            match program {
                Some(program) => Some(Launch {
                    program,
                    args,
                    initialization_options: options,
                    package: Some(found),
                }),
                // A broken install: say nothing of it and run the server's
                // own command, as if the project had none.
                None => command(options, None),
            }
        }
        Given::InitOption { pointer, file } => {
            let path = crate::platform::paths::join_slashed(&found.dir, &file);
            set_pointer(&mut options, &pointer, path.display().to_string().into());
            command(options, Some(found))
        }
    }
}

/// The first of `names` installed in `node_modules` with a readable version.
fn first_package(node_modules: &Path, names: &[&str], origin: Origin) -> Option<FoundPackage> {
    names.iter().find_map(|name| {
        let dir = node_modules.join(name);
        let manifest = read_manifest(&dir)?;
        let version = manifest.get("version")?.as_str()?.to_string();
        Some(FoundPackage {
            name: name.to_string(),
            version,
            dir,
            origin,
        })
    })
}

fn read_manifest(dir: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(dir.join("package.json")).ok()?;
    serde_json::from_str(&text).ok()
}

/// The program the package's `package.json` names `bin` (a string `bin`
/// names the package's one program).
fn bin_program(dir: &Path, bin: &str) -> Option<PathBuf> {
    let manifest = read_manifest(dir)?;
    let relative = match manifest.get("bin")? {
        Value::String(path) => path.as_str(),
        Value::Object(map) => map.get(bin)?.as_str()?,
        _ => return None,
    };
    let program = dir.join(relative);
    program.is_file().then_some(program)
}

/// The platform build `template` names, resolved from the package's real
/// directory as Node resolves a dependency: `node_modules/<path>` in it and
/// in each ancestor not itself named `node_modules`.
fn native_program(dir: &Path, template: &str) -> Option<PathBuf> {
    let (platform, arch) = node_platform()?;
    let mut relative = template
        .replace("{platform}", platform)
        .replace("{arch}", arch);
    if cfg!(windows) {
        relative.push_str(".exe");
    }
    let real = dir.canonicalize().ok()?;
    real.ancestors()
        .filter(|d| d.file_name() != Some(OsStr::new("node_modules")))
        .map(|d| d.join("node_modules").join(&relative))
        .find(|candidate| candidate.is_file())
}

/// This machine as Node names it (`process.platform`, `process.arch`).
fn node_platform() -> Option<(&'static str, &'static str)> {
    let platform = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other @ ("linux" | "freebsd" | "openbsd" | "netbsd" | "aix") => other,
        _ => return None,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        "arm" => "arm",
        "x86" => "ia32",
        "riscv64" => "riscv64",
        "powerpc64" => "ppc64",
        "s390x" => "s390x",
        "loongarch64" => "loong64",
        _ => return None,
    };
    Some((platform, arch))
}

#[cfg(test)]
mod tests;
