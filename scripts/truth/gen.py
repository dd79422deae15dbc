"""Generate the frozen case list: seeded proposals from mutate.py, each kept
only when the language's checker reports an error the pristine tree does
not have (and, for the cross-file kinds, one in another file).

Why: the case list is committed so every run measures the same edits; the
generator is only rerun on purpose (`truth.py gen`).
"""

import random
import shutil
import zlib

import checkers
import fetch
import mutate

MAX_TRIES = 10
MAX_EXPECTED = 60  # a cascade past this measures the caps, not the wait


def apply_line(root, case, new=None):
    """Replace the case's line with `new` (default: the mutation); checks the
    old text is there so a drifted tree is refused, not silently measured."""
    path = root / case["file"]
    text = path.read_text()
    lines = text.split("\n")
    idx = case["line"] - 1
    want_old, put = (case["old"], case["new"]) if new is None else (case["new"], new)
    if lines[idx] != want_old:
        raise RuntimeError(f"{case['id']}: line {case['line']} of {case['file']} is not the expected text")
    lines[idx] = put
    return "\n".join(lines)


def expected_errors(before, after):
    return sorted([f, line, msg] for (f, line), msg in after.items() if (f, line) not in before)


def generate(project, cache, log):
    src = cache / "src" / project["id"]
    work = cache / "truthwork" / project["id"]
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(src, work, symlinks=True)
    lang = project["lang"]
    baseline = checkers.errors(lang, work)
    files = mutate.source_files(work, lang)
    texts = {f: (work / f).read_text().split("\n") for f in files}
    defined = mutate.defined_names(lang, files, texts)
    cases = []
    quota = {**mutate.quota(lang), **project.get("quota", {})}
    for kind in mutate.kinds(lang):
        rng = random.Random(zlib.crc32(f"{project['id']}:{kind}".encode()))
        props = list(mutate.candidates(kind, lang, files, texts, defined))
        rng.shuffle(props)
        got = tries = 0
        seen = set()
        for f, line_no, new in props:
            if got >= quota[kind] or tries >= MAX_TRIES * (2 if kind in mutate.CROSS else 1):
                break
            if (f, line_no) in seen:
                continue
            seen.add((f, line_no))
            tries += 1
            old = texts[f][line_no - 1]
            path = work / f
            original = path.read_text()
            lines = original.split("\n")
            lines[line_no - 1] = new
            path.write_text("\n".join(lines))
            try:
                after = checkers.errors(lang, work)
            finally:
                path.write_text(original)
            exp = expected_errors(baseline, after)
            other = [e for e in exp if e[0] != f]
            ok = exp and len(exp) <= MAX_EXPECTED and (kind not in mutate.CROSS or other)
            log(f"  {project['id']} {kind} {f}:{line_no} -> {len(exp)} errors ({len(other)} other){' kept' if ok else ''}")
            if ok:
                got += 1
                cases.append({"id": f"{project['id']}/{kind}/{got}", "project": project["id"], "kind": kind,
                              "file": f, "line": line_no, "old": old, "new": new, "expected": exp})
        if got < quota[kind]:
            log(f"  {project['id']} {kind}: only {got} of {quota[kind]} after {tries} tries")
    shutil.rmtree(work, ignore_errors=True)
    return cases


def verify(project, cases, cache, log):
    """Recompute each case's truth on a fresh tree; return the cases whose
    expected errors differ from the frozen ones."""
    work = fetch.fresh_copy(project, cache)
    lang = project["lang"]
    baseline = checkers.errors(lang, work)
    drift = []
    for case in cases:
        path = work / case["file"]
        original = path.read_text()
        path.write_text(apply_line(work, case))
        try:
            after = checkers.errors(lang, work)
        finally:
            path.write_text(original)
        exp = expected_errors(baseline, after)
        if [e[:2] for e in exp] != [e[:2] for e in case["expected"]]:
            drift.append((case["id"], exp))
            log(f"  drift {case['id']}: now {[e[:2] for e in exp]}")
    return drift
