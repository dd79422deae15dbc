"""Today's servers on the same corpus (issue 28): `--typescript 7` puts
TypeScript 7.0.2 (`typescript-7` in `.tools/npm`, installed by
scripts/install-servers.sh) into each TypeScript workspace's
`node_modules/typescript`, so squiggle checks it with that TypeScript's own
`tsc --lsp --stdio` and the careful client runs the same server, by pull;
`--rust-toolchain T` runs rust-analyzer (and the cargo its check runs) from
rustup toolchain T for both clients (`RUSTUP_TOOLCHAIN`); `--python S`
checks the Python projects with type checker S (pyright, basedpyright, ty,
pyrefly) in both clients: squiggle through a workspace `.squiggle.toml`
that enables S in place of pyright, the careful client on S's own signal.

Why a module of its own: the run, the careful client and `verify` (TS7's
own `tsc --noEmit` as the checker) all need the same paths.
"""

import os
import platform
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent


def tools():
    return Path(os.environ.get("SQUIGGLE_TOOLS") or REPO / ".tools")


def typescript7():
    """The TypeScript 7 package directory."""
    pkg = tools() / "npm" / "node_modules" / "typescript-7"
    if not (pkg / "package.json").exists():
        raise SystemExit(f"{pkg} is missing; run scripts/install-servers.sh --only npm")
    return pkg


def native_tsc():
    """TypeScript 7's platform build (what its bin/tsc runs)."""
    arch = {"x86_64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine(), platform.machine())
    system = {"Linux": "linux", "Darwin": "darwin", "Windows": "win32"}[platform.system()]
    exe = typescript7().resolve().parent / "@typescript" / f"typescript-{system}-{arch}" / "lib" / "tsc"
    if not exe.exists():
        raise SystemExit(f"{exe} is missing; run scripts/install-servers.sh --only npm")
    return exe


def vue_plugin():
    """typescript-language-server's `plugins` entry for the Vue plugin for
    TypeScript that scripts/install-servers.sh put in `.tools/npm`."""
    pkg = tools() / "npm" / "node_modules" / "@vue" / "typescript-plugin"
    if not (pkg / "package.json").exists():
        raise SystemExit(f"{pkg} is missing; run scripts/install-servers.sh --only npm")
    return {"name": "@vue/typescript-plugin", "location": str(pkg.resolve()), "languages": ["vue"]}


# The careful client's Python server per `--python` choice: pull where the
# server registers it; pyrefly pushes one versioned set per version (with
# type errors shown only when told: `displayTypeErrors`).
PYTHON = {
    "pyright": {"cmd": ["pyright-langserver", "--stdio"], "mode": "pull"},
    "basedpyright": {"cmd": ["basedpyright-langserver", "--stdio"], "mode": "pull",
                     "settings": {"basedpyright": {"analysis": {"typeCheckingMode": "standard"}}}},
    "ty": {"cmd": ["ty", "server"], "mode": "pull"},
    "pyrefly": {"cmd": ["pyrefly", "lsp"], "mode": "versioned",
                "settings": {"python": {"pyrefly": {"displayTypeErrors": "force-on"}}}},
}


def prepare_workspace(project, root, args):
    """Put the variant's compiler into a fresh working copy."""
    python = getattr(args, "python", None)
    if python and python != "pyright" and project["lang"] == "python":
        (root / ".squiggle.toml").write_text(
            f"[lsp.servers.pyright]\nenabled = false\n\n[lsp.servers.{python}]\nenabled = true\n")
    if getattr(args, "typescript", None) == "7" and project["lang"] == "typescript":
        (root / "node_modules").mkdir(exist_ok=True)
        (root / "node_modules" / "typescript").symlink_to(typescript7())


def environment(env, args):
    """The environment both clients run in."""
    if getattr(args, "rust_toolchain", None):
        env["RUSTUP_TOOLCHAIN"] = args.rust_toolchain
    if getattr(args, "typescript", None) == "7":
        env["TRUTH_TSC"] = str(native_tsc())
    return env


def careful_servers(servers, args):
    """The careful client's server table for the variant."""
    servers = dict(servers)
    python = getattr(args, "python", None)
    if python:
        servers["python"] = dict(PYTHON[python], lang_id="python", quiet=0)
    if getattr(args, "typescript", None) == "7":
        servers["typescript"] = {"cmd": [str(native_tsc()), "--lsp", "--stdio"], "lang_id": "typescript",
                                 "mode": "pull", "quiet": 0}
    return servers


def describe(args):
    parts = []
    if getattr(args, "typescript", None):
        parts.append(f"typescript {args.typescript}")
    if getattr(args, "rust_toolchain", None):
        parts.append(f"rust toolchain {args.rust_toolchain}")
    if getattr(args, "python", None):
        parts.append(f"python {args.python}")
    return ", ".join(parts) or "default servers"
