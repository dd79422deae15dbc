//! `squiggle install`: puts pinned versions of the language servers that ship
//! through npm or PyPI into squiggle's own servers directory, where server
//! lookup (`registry::detect`) finds them after the project's and PATH's.
//!
//! A user whose machine lacks pyright used to get a hint and nothing more;
//! this is the one command that fixes it. It is never run automatically:
//! servers must not start without the operator's awareness, and installing
//! one is stronger. Servers that ship through other channels (rustup, the Go
//! toolchain, apt) are not guessed at: the command to run is printed instead.
//!
//! One directory per server. npm installs go to a staging directory renamed
//! into place when complete; a PyPI venv cannot move (its scripts name its
//! own interpreter), so the old install is set aside and restored if the new
//! one fails. Either way a failure leaves nothing half-installed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Where a server comes from.
pub enum Source {
    /// npm packages installed together (`name`, exact version).
    Npm(&'static [(&'static str, &'static str)]),
    /// PyPI packages installed into a venv (`name`, exact version).
    PyPi(&'static [(&'static str, &'static str)]),
    /// Not installed by squiggle: the registry's hint says what a user runs.
    Elsewhere,
}

/// VS Code's JSON, CSS and HTML servers: one npm package.
const EXTRACTED: &[(&str, &str)] = &[("vscode-langservers-extracted", "4.10.0")];

/// The pinned source of each server `squiggle install` knows, by server id.
/// The versions are the ones the test suite runs (scripts/servers-*).
pub const PINS: &[(&str, Source)] = &[
    ("pyright", Source::Npm(&[("pyright", "1.1.414")])),
    // With the Vue plugin beside it, so that it checks `.vue` components
    // of projects that do not have the plugin (`registry::plugins`).
    (
        "typescript-language-server",
        Source::Npm(&[
            ("typescript-language-server", "5.3.0"),
            ("typescript", "6.0.3"),
            ("@vue/typescript-plugin", "3.3.11"),
        ]),
    ),
    // TypeScript 7 is its own language server (`tsc --lsp`): where a
    // project has no TypeScript, `tsgo` runs the one installed here
    // (`registry::toolchain`).
    ("tsgo", Source::Npm(&[("typescript", "7.0.2")])),
    (
        "bash-language-server",
        Source::Npm(&[("bash-language-server", "5.8.1")]),
    ),
    (
        "yaml-language-server",
        Source::Npm(&[("yaml-language-server", "1.25.0")]),
    ),
    ("vscode-json-language-server", Source::Npm(EXTRACTED)),
    ("vscode-css-language-server", Source::Npm(EXTRACTED)),
    ("vscode-html-language-server", Source::Npm(EXTRACTED)),
    (
        "svelte-language-server",
        Source::Npm(&[("svelte-language-server", "0.18.4")]),
    ),
    ("intelephense", Source::Npm(&[("intelephense", "1.18.5")])),
    (
        "docker-langserver",
        Source::Npm(&[("dockerfile-language-server-nodejs", "0.15.0")]),
    ),
    ("ruff", Source::PyPi(&[("ruff", "0.17.6")])),
    ("basedpyright", Source::PyPi(&[("basedpyright", "1.40.2")])),
    ("ty", Source::PyPi(&[("ty", "0.0.105")])),
    ("pyrefly", Source::PyPi(&[("pyrefly", "1.4.1")])),
    ("tombi", Source::PyPi(&[("tombi", "1.9.6")])),
    ("rust-analyzer", Source::Elsewhere),
    ("gopls", Source::Elsewhere),
    ("clangd", Source::Elsewhere),
];

/// The pinned source of `server`, if `squiggle install` knows it.
pub fn source_of(server: &str) -> Option<&'static Source> {
    PINS.iter().find(|(id, _)| *id == server).map(|(_, s)| s)
}

/// What to tell a user whose machine lacks the built-in `server`:
/// `squiggle install ID` when squiggle can install it itself, with the
/// ecosystem's own command (`fallback`, the registry's hint) beside it. A
/// clause, the same in `status`, `doctor`, `check`, an edit's unknown line
/// and `install --missing` (`ResolvedServer::remedy` is the one caller).
pub fn hint(server: &str, fallback: &str) -> String {
    match source_of(server) {
        Some(Source::Npm(_) | Source::PyPi(_)) => {
            format!("install it with `squiggle install {server}` (or `{fallback}`)")
        }
        _ => format!("install it with `{fallback}`"),
    }
}

/// squiggle's servers directory: `$SQUIGGLE_SERVERS_DIR`, else
/// `$XDG_DATA_HOME/squiggle/servers`, else `~/.local/share/squiggle/servers`.
pub fn servers_dir() -> Option<PathBuf> {
    let non_empty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = non_empty("SQUIGGLE_SERVERS_DIR") {
        return Some(PathBuf::from(dir));
    }
    let data = non_empty("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| non_empty("HOME").map(|h| PathBuf::from(h).join(".local/share")))?;
    Some(data.join("squiggle/servers"))
}

/// The directories holding installed servers' programs, for lookup: each
/// server's `node_modules/.bin` and `bin`. Empty when nothing is installed.
pub fn bin_dirs() -> Vec<PathBuf> {
    let Some(root) = servers_dir() else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(&root) else {
        return Vec::new();
    };
    let mut servers: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    servers.sort();
    servers
        .iter()
        .flat_map(|s| [s.join("node_modules/.bin"), s.join("bin")])
        .filter(|d| d.is_dir())
        .collect()
}

/// One server's install into squiggle's servers directory.
pub struct Install<'a> {
    /// The server's id: its directory's name.
    pub server: &'a str,
    /// The servers directory.
    pub root: &'a Path,
    /// Let the package manager print to the terminal; otherwise its output
    /// is kept and shown only on failure.
    pub verbose: bool,
    /// The registry's install hint for the server, said when squiggle does
    /// not install it (`Source::Elsewhere`). Given by the caller: the
    /// registry calls this module (`servers_dir`), never the reverse.
    pub hint: &'a str,
}

impl Install<'_> {
    /// Installs the server from `source` into `root/<server>`.
    pub fn run(&self, source: &Source) -> Result<(), String> {
        let root = self.root;
        std::fs::create_dir_all(root)
            .map_err(|e| format!("cannot create {}: {e}", root.display()))?;
        match source {
            Source::Npm(packages) => self.npm(packages),
            Source::PyPi(packages) => self.pypi(packages),
            Source::Elsewhere => Err(format!(
                "squiggle does not install {}; {}",
                self.server,
                hint(self.server, self.hint)
            )),
        }
    }

    fn target(&self) -> PathBuf {
        self.root.join(self.server)
    }

    /// A name beside the target for the install in progress (`what`:
    /// staging, old), unique to this process.
    fn aside(&self, what: &str) -> PathBuf {
        let name = format!(".{what}-{}-{}", self.server, std::process::id());
        self.root.join(name)
    }

    fn npm(&self, packages: &[(&str, &str)]) -> Result<(), String> {
        let (target, stage) = (self.target(), self.aside("staging"));
        let _ = std::fs::remove_dir_all(&stage);
        let mut cmd = Command::new("npm");
        cmd.args([
            "install",
            "--no-save",
            "--no-audit",
            "--no-fund",
            "--prefix",
        ])
        .arg(&stage)
        .args(specs(packages, "@"));
        let result = self
            .package_manager(cmd, "npm", "Node.js with npm")
            .and_then(|()| {
                let _ = std::fs::remove_dir_all(&target);
                std::fs::rename(&stage, &target)
                    .map_err(|e| format!("cannot move the install into {}: {e}", target.display()))
            });
        let _ = std::fs::remove_dir_all(&stage);
        result
    }

    fn pypi(&self, packages: &[(&str, &str)]) -> Result<(), String> {
        let (target, old) = (self.target(), self.aside("old"));
        let had_old = target.exists();
        if had_old {
            std::fs::rename(&target, &old)
                .map_err(|e| format!("cannot set aside {}: {e}", target.display()))?;
        }
        let mut venv = Command::new("python3");
        venv.args(["-m", "venv"]).arg(&target);
        let mut pip = Command::new(target.join("bin/python"));
        pip.args(["-m", "pip", "install", "--disable-pip-version-check"])
            .args(specs(packages, "=="));
        let result = self
            .package_manager(venv, "python3", "Python 3 with venv")
            .and_then(|()| self.package_manager(pip, "pip", "Python 3 with pip"));
        if result.is_err() {
            let _ = std::fs::remove_dir_all(&target);
            if had_old {
                let _ = std::fs::rename(&old, &target);
            }
        } else {
            let _ = std::fs::remove_dir_all(&old);
        }
        result
    }

    /// Runs a package manager; a missing program or a failure becomes an error
    /// naming what to install or what went wrong (with its output's tail).
    fn package_manager(&self, mut cmd: Command, program: &str, needs: &str) -> Result<(), String> {
        cmd.stdin(Stdio::null());
        if self.verbose {
            cmd.stdout(Stdio::inherit()).stderr(Stdio::inherit());
        } else {
            cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        }
        let out = cmd.output().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!("{program} not found on PATH; install {needs}"),
            _ => format!("cannot run {program}: {e}"),
        })?;
        if out.status.success() {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = text.lines().rev().take(15).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        Err(format!(
            "{program} failed ({}); is its registry reachable?{}{}",
            out.status,
            if tail.is_empty() { "" } else { "\n" },
            tail.join("\n")
        ))
    }
}

fn specs(packages: &[(&str, &str)], sep: &str) -> Vec<String> {
    packages
        .iter()
        .map(|(n, v)| format!("{n}{sep}{v}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::hint;

    #[test]
    fn hints_name_squiggle_install_where_it_can_install() {
        assert_eq!(
            hint("pyright", "npm i -g pyright"),
            "install it with `squiggle install pyright` (or `npm i -g pyright`)"
        );
        assert_eq!(
            hint("rust-analyzer", "rustup component add rust-analyzer"),
            "install it with `rustup component add rust-analyzer`"
        );
        assert_eq!(
            hint("jdtls", "brew install jdtls"),
            "install it with `brew install jdtls`"
        );
    }
}
