"""Fetch the pinned releases through their registries' own clients, check
their hashes, and lay out a pruned pristine tree per project.

Why: the corpus must be reproducible from pins alone; sources are never
committed, only cached under the cache directory (default target/truth).
"""

import base64
import fnmatch
import hashlib
import os
import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import checkers

HERE = Path(__file__).resolve().parent
# Pinned npm installs (package.json + package-lock.json): the Vue and Svelte
# checkers, and the dependencies of the projects that have some.
NPM_PINS = HERE / "npm"

def sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _run(cmd, cwd, log):
    log(f"$ {' '.join(cmd)}")
    res = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed in {cwd}: {res.stderr.strip()[-800:]}")
    return res


def _apt_opts(cache):
    apt = cache / "apt"
    (apt / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (apt / "archives" / "partial").mkdir(parents=True, exist_ok=True)
    src = apt / "sources.list"
    src.write_text("deb-src http://deb.debian.org/debian bookworm main\n")
    return [
        "-o", f"Dir::Etc::SourceList={src}", "-o", "Dir::Etc::SourceParts=/nonexistent",
        "-o", f"Dir::State::Lists={apt / 'lists'}", "-o", f"Dir::Cache={apt}",
    ]


def download(project, cache, log):
    """Return the path of the verified archive (or crate directory)."""
    s = project["source"]
    dl = cache / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    kind = s["kind"]
    if kind == "crate":
        return _download_crate(s, cache, log)
    target = dl / s["file"]
    if not target.exists():
        if kind == "pypi":
            _run(["pip", "download", "--no-deps", "--no-binary", ":all:", "-d", str(dl),
                  f"{s['name']}=={s['version']}"], dl, log)
        elif kind == "npm":
            _run(["npm", "pack", f"{s['name']}@{s['version']}"], dl, log)
        elif kind == "deb":
            _run(["apt-get", "download", f"{s['name']}={s['version']}"], dl, log)
        elif kind == "debsrc":
            opts = _apt_opts(cache)
            if not any((cache / "apt" / "lists").glob("*Sources*")):
                _run(["apt-get", *opts, "update"], dl, log)
            _run(["apt-get", *opts, "source", "--download-only", f"{s['name']}={s['version']}"], dl, log)
        else:
            raise RuntimeError(f"unknown source kind {kind}")
    if "sha256" in s and sha256(target) != s["sha256"]:
        raise RuntimeError(f"{target}: sha256 {sha256(target)} is not the pinned {s['sha256']}")
    if "integrity" in s:
        algo, want = s["integrity"].split("-", 1)
        got = base64.b64encode(hashlib.new(algo, target.read_bytes()).digest()).decode()
        if got != want:
            raise RuntimeError(f"{target}: integrity {algo}-{got} is not the pinned one")
    return target


def _download_crate(s, cache, log):
    """One `cargo vendor` of an empty crate depending on the pinned version;
    cargo checks the registry checksum, which is pinned here too."""
    d = cache / "dl" / f"crate-{s['name']}-{s['version']}"
    vendored = d / "vendor" / f"{s['name']}-{s['version']}"
    if not vendored.exists():
        (d / "src").mkdir(parents=True, exist_ok=True)
        (d / "src" / "lib.rs").write_text("")
        (d / "Cargo.toml").write_text(
            "[package]\nname = \"truth-fetch\"\nversion = \"0.0.0\"\nedition = \"2021\"\n[workspace]\n"
            f"[dependencies]\n{s['name']} = {{ version = \"={s['version']}\", default-features = false }}\n")
        _run(["cargo", "vendor", "--versioned-dirs", "vendor"], d, log)
    lock = (d / "Cargo.lock").read_text()
    m = re.search(r'name = "%s"\nversion = "%s"\nsource = "[^"]+"\nchecksum = "([0-9a-f]+)"'
                  % (re.escape(s["name"]), re.escape(s["version"])), lock)
    if not m or m.group(1) != s["sha256"]:
        raise RuntimeError(f"crate {s['name']} {s['version']}: checksum is not the pinned {s['sha256']}")
    return d / "vendor"


def _extract(project, archive, into, log):
    kind = project["source"]["kind"]
    if kind == "crate":
        shutil.copytree(archive / project["root"], into / project["root"])
    elif kind == "deb":
        _run(["dpkg-deb", "-x", str(archive), str(into)], into, log)
    else:
        with tarfile.open(archive) as t:
            t.extractall(into, filter="data")


def _selected(rel, project):
    keep = any(fnmatch.fnmatch(rel, p) for p in project["keep"])
    drop = any(fnmatch.fnmatch(rel, p) for p in project.get("drop", []))
    return keep and not drop


def _strip_cargo_toml(text):
    """Drop dependencies (the pinned crates need none by default), features
    and explicit targets whose files were pruned, so `cargo check --offline`
    needs nothing beyond the crate itself; make the crate its own workspace."""
    out, skipping = [], False
    for line in text.splitlines():
        header = re.match(r"^\s*\[\[?([^\]]+)\]\]?\s*$", line)
        if header:
            name = header.group(1)
            skipping = ("dependencies" in name or name in ("features", "bench", "test", "example"))
        if not skipping:
            out.append(line)
    return "\n".join(out) + "\n[workspace]\n"


def _apt_install(program, package, log):
    if shutil.which(program) is None:
        _run(["apt-get", "install", "-y", "-q", package], ".", log)


def npm_ci(name, cache, log):
    """`node_modules` of the pinned install scripts/truth/npm/<name>, by
    `npm ci` (npm checks every package against the lock's integrity) under
    cache/npm/<name>; installed again when the lock changes."""
    pins = NPM_PINS / name
    dest = cache / "npm" / name
    stamp = dest / ".lock-sha256"
    want = sha256(pins / "package-lock.json")
    if not (stamp.exists() and stamp.read_text() == want):
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        for f in ("package.json", "package-lock.json"):
            shutil.copyfile(pins / f, dest / f)
        _run(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], dest, log)
        stamp.write_text(want)
    return dest / "node_modules"


def ensure_checker(lang, cache, log):
    """The language's CLI checker, installed the first time it is needed:
    clang of clangd's major version (Debian bookworm: 14), shellcheck (the
    Debian package bash-language-server runs) and php-cli from apt;
    vue-tsc and svelte-check from the pinned npm install `checkers`."""
    if lang == "c":
        _apt_install("clang-14", "clang-14", log)
    elif lang == "shell":
        _apt_install("shellcheck", "shellcheck", log)
    elif lang == "php":
        _apt_install("php", "php-cli", log)
    elif lang in ("vue", "svelte"):
        checkers.NPM_BIN = npm_ci("checkers", cache, log) / ".bin"


def link_node_modules(project, tree, cache, log):
    """A project with pinned dependencies gets them as its `node_modules`
    (a link into the cache, so copies of the tree stay small)."""
    if "npm" in project:
        modules = npm_ci(project["npm"], cache, log)
        link = tree / "node_modules"
        if not link.is_symlink():
            link.symlink_to(modules)


def prepare(project, cache, log):
    """Pristine pruned tree at cache/src/<id> (rebuilt only when missing)."""
    ensure_checker(project["lang"], cache, log)
    dest = cache / "src" / project["id"]
    if (dest / ".truth-ready").exists():
        link_node_modules(project, dest, cache, log)
        return dest
    archive = download(project, cache, log)
    tmp = cache / "tmp" / project["id"]
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    _extract(project, archive, tmp, log)
    root = tmp / project["root"]
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            p = Path(dirpath) / f
            rel = p.relative_to(root).as_posix()
            if _selected(rel, project) and not p.is_symlink():
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(p, dest / rel)
    # A package that ships its sources under `dist/` (a Vue theme, Svelte
    # components) gets them moved to `src/`: squiggle, like most tools,
    # never checks build output.
    for old, new in project.get("move", {}).items():
        (dest / new).parent.mkdir(parents=True, exist_ok=True)
        shutil.move(dest / old, dest / new)
    for rel, text in project.get("add", {}).items():
        (dest / rel).write_text(text)
    if project["lang"] == "rust":
        cargo = dest / "Cargo.toml"
        cargo.write_text(_strip_cargo_toml(cargo.read_text()))
        _run(["cargo", "generate-lockfile", "--offline"], dest, log)
    shutil.rmtree(tmp, ignore_errors=True)
    link_node_modules(project, dest, cache, log)
    (dest / ".truth-ready").write_text("")
    return dest


def fresh_copy(project, cache):
    """A working copy the run may edit: cache/work/<id>, replaced each run."""
    src = cache / "src" / project["id"]
    dest = cache / "work" / project["id"]
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(src, dest, symlinks=True, ignore=shutil.ignore_patterns(".truth-ready"))
    return dest
