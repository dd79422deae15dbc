"""Issue 26 on the truth corpus: the fix lines, the fixes applied, auto-fix,
and what "only what this edit changed" in other files saves.

Each project's cases go through one warm `squiggle serve` per mode, every
mutation and revert a `squiggle/write` as in `run.py`:

- `off`  — `fixLines = 0`: the block without fix lookups. Scored as
  `run.py` scores (recall must stay 1.00), and measured: lines and
  characters per reply, and the same reply as it would have been before
  other files showed only what the edit changed (every old error of an
  other file the structured result carries, rendered back under the same
  caps: `before_item4`).
- `on`   — the default `fixLines = 3`: which introduced errors (structured,
  `new`) carry a fix; each fix then applied with `squiggle/fix` by its id,
  scored: the error cleared, and every error after it that was not there
  before it (by file and message, counted), before the files are written
  back. The latency of the write against `off`, and from the daemon's own
  log (`change answered checked_us=… fixes_us=…`) the fix lookups' share.
- `auto` — `autoFix = ["quickfix"]` (every preferred or only quick fix;
  `--auto-fix` chooses other entries):
  what auto-fix keeps, reverts and skips, whether a kept fix restored the
  file's original text, and its cost in latency.

`otherFiles = "all"` in every mode, so that a fix (an edit) is checked with
the files that import what it changed, as a write is.
"""

import json
import re
import statistics
import time
from collections import Counter

import fetch
import variants
from gen import apply_line
from run import BLOCK, Squiggle, parse_feedback, pct, score, summarize

MODES = {
    "off": "fixLines = 0\n",
    "on": "",
    "auto": 'autoFix = ["quickfix"]\n',
}
TIMING = re.compile(r"change answered checked_us=(\d+) fixes_us=(\d+)")
AUTO_TIMING = re.compile(r"auto-fix done auto_fix_us=(\d+)")
MAX_PER_FILE, MAX_OTHER_FILES, MAX_LINES = 20, 5, 50


class LogTail:
    """The lines the daemon logged since the last call."""

    def __init__(self, path):
        self.path, self.offset = path, 0

    def new_lines(self):
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return []
        self.offset += len(data)
        return data.decode(errors="replace").splitlines()

    def timing(self):
        """(checked_us, fixes_us, auto_fix_us) of the last answer logged."""
        checked = fixes = auto = None
        for line in self.new_lines():
            if m := TIMING.search(line):
                checked, fixes = int(m.group(1)), int(m.group(2))
            if m := AUTO_TIMING.search(line):
                auto = int(m.group(1))
        return checked, fixes, auto


def errors(result):
    return [d for d in result.get("diagnostics") or [] if d.get("severity") == "error"]


def render_line(d):
    code = f" ({d['code']})" if d.get("code") else ""
    return f"ERROR [{d['line']}:{d['column']}] {d['message']}{code}"


def before_item4(feedback, result, edited):
    """The reply as it would have been with other files' old errors shown:
    (lines, characters). The old errors the structured result carries for
    other files are rendered into their blocks (a block added for a file
    that showed none), under the caps of `docs/configuration.md`, and the
    "were there before" line is dropped."""
    text = re.sub(r"^\d+ errors? in \d+ other files? (were|was) there before this edit\n", "", feedback, flags=re.M)
    shown = dict(BLOCK.findall(text))
    old = {}
    for d in errors(result):
        if d["file"] != edited and not d.get("new"):
            old.setdefault(d["file"], []).append(d)
    if not old:
        return len(text.splitlines()), len(text)
    lines_left = MAX_LINES - sum(len(re.findall(r"^ERROR ", b, re.M)) for b in shown.values())
    added = []
    other_files = [f for f in shown if f != edited]
    for f in sorted(old):
        if lines_left <= 0:
            break
        have = len(re.findall(r"^ERROR ", shown.get(f, ""), re.M))
        room = min(MAX_PER_FILE - have, lines_left)
        rows = [render_line(d) for d in sorted(old[f], key=lambda d: (d["line"], d["column"]))]
        take = rows[:max(room, 0)]
        if f not in shown:
            if len(other_files) >= MAX_OTHER_FILES:
                continue
            other_files.append(f)
            added.append(f'<diagnostics file="{f}">')
            added.append("</diagnostics>")
        added.extend(take)
        lines_left -= len(take)
    extra = "\n".join(added) + "\n" if added else ""
    if added and "LSP errors detected in other files" not in text:
        extra = "\nLSP errors detected in other files:\n" + extra
    return len(text.splitlines()) + len(extra.splitlines()), len(text) + len(extra)


def source_files(root):
    skip = {".git", "node_modules", "target", "vendor"}
    return {p: p.read_bytes() for p in root.rglob("*")
            if p.is_file() and not skip.intersection(p.relative_to(root).parts)}


def restore(sq, root, snapshot):
    """Writes back every file that differs from `snapshot` (through squiggle)."""
    for path, data in snapshot.items():
        if path.exists() and path.read_bytes() != data:
            sq.write(str(path.relative_to(root)), data.decode())


def apply_fixes(sq, root, log, result, case):
    """Applies each offered fix of an introduced error by its id, scoring it."""
    out = []
    before = Counter((d["file"], d["message"]) for d in errors(result))
    for d in errors(result):
        fix = d.get("fix")
        if not d.get("new") or not fix:
            continue
        snapshot = source_files(root)
        t0 = time.monotonic()
        try:
            res = sq.conn.request("squiggle/fix", {"filePath": d["file"], "id": fix["id"]}, timeout=120)
            refused = None
        except RuntimeError as e:
            res, refused = {}, str(e)
        secs = time.monotonic() - t0
        log.new_lines()
        after = Counter((e["file"], e["message"]) for e in errors(res))
        added = [[f, m, n - before[(f, m)]] for (f, m), n in after.items() if n > before[(f, m)]]
        out.append({
            "file": d["file"], "line": d["line"], "message": d["message"], "title": fix["title"],
            "expected": [d["file"], d["line"]] in [[f, line] for f, line, _m in case["expected"]],
            "refused": refused, "secs": round(secs, 4),
            "cleared": refused is None and after[(d["file"], d["message"])] < before[(d["file"], d["message"])],
            "added": added,
            "added_flagged_new": sum(1 for e in errors(res) if e.get("new")),
        })
        restore(sq, root, snapshot)
        log.new_lines()
    return out


def run_mode(project, cases, mode, args, env, say):
    root = fetch.fresh_copy(project, args.cache)
    variants.prepare_workspace(project, root, args)
    toml = root / ".squiggle.toml"
    rest = toml.read_text() if toml.exists() else ""
    settings = MODES[mode] if mode != "auto" else f"autoFix = {json.dumps(args.auto_fix)}\n"
    toml.write_text(f'[lsp]\notherFiles = "all"\n{settings}\n{rest}')
    log_path = args.out / f"{project['id']}.{mode}.log"
    env = dict(env, RUST_LOG="squiggle::engine::feedback=debug")
    sq = Squiggle(args.squiggle, root, env, log_path)
    log = LogTail(log_path)
    rows = []
    try:
        for i, case in enumerate(cases):
            original = (root / case["file"]).read_text()
            mutated = apply_line(root, case)
            secs, res = sq.write(case["file"], mutated)
            checked, fixes, auto = log.timing()
            fb = res.get("feedback", "")
            found, cut, n_other = parse_feedback(fb)
            row = {"case": case["id"], "kind": case["kind"], "warm": i > 0, "secs": round(secs, 4),
                   "checked_us": checked, "fixes_us": fixes, "auto_fix_us": auto,
                   "feedback": score(case, found, cut, n_other), "stale": [],
                   "lines": len(fb.splitlines()), "chars": len(fb)}
            introduced = [d for d in errors(res) if d.get("new")]
            row["introduced"] = len(introduced)
            row["with_fix"] = sum(1 for d in introduced if d.get("fix"))
            row["fix_lines"] = len(re.findall(r"^  fix: ", fb, re.M))
            if mode == "off":
                row["before_item4"] = before_item4(fb, res, case["file"])
            if mode == "on":
                row["fixes"] = apply_fixes(sq, root, log, res, case)
            if mode == "auto":
                row["auto_fixes"] = res.get("autoFixes") or []
                row["restored_original"] = (root / case["file"]).read_text() == original
                row["errors_left"] = len([d for d in errors(res) if d["file"] == case["file"]])
            _r, rres = sq.write(case["file"], original)
            log.new_lines()
            rfound, _c, _n = parse_feedback(rres.get("feedback", ""))
            row["stale"] = [[f, line] for f, line, _m in case["expected"] if (f, line) in rfound]
            rows.append(row)
            say(f"  {mode} {case['id']}: {secs:.2f} s, introduced {row['introduced']}, with fix {row['with_fix']}"
                + (f", fixes {[(x['cleared'], len(x['added'])) for x in row['fixes']]}" if mode == "on" else "")
                + (f", auto {[a['outcome'] for a in row['auto_fixes']]}" if mode == "auto" else ""))
    finally:
        sq.close()
    return rows


def ms(us):
    return us / 1000 if us is not None else None


def fmt(x, digits=0):
    return "-" if x is None else f"{x:.{digits}f}"


def report(results):
    rows = results["rows"]
    out = []
    off = [r["off"] for r in rows if r.get("off")]
    on = [r["on"] for r in rows if r.get("on")]
    auto = [r["auto"] for r in rows if r.get("auto")]
    if on:
        introduced = sum(r["introduced"] for r in on)
        with_fix = sum(r["with_fix"] for r in on)
        shown = sum(r["fix_lines"] for r in on)
        fixes = [f for r in on for f in r["fixes"]]
        cleared = sum(f["cleared"] for f in fixes)
        refused = sum(f["refused"] is not None for f in fixes)
        added = [(r["case"], f["title"], a) for r in on for f in r["fixes"] for a in f["added"]]
        out.append(f"fix lines: {with_fix} of {introduced} introduced errors carry a fix "
                   f"({with_fix / introduced:.2f}); {shown} fix lines rendered")
        out.append(f"fixes applied: {len(fixes)}; cleared their error: {cleared} "
                   f"({cleared / len(fixes):.2f})" if fixes else "fixes applied: 0")
        out.append(f"refused: {refused}; new errors after a fix: {len(added)}")
        for case, title, a in added:
            out.append(f"  {case}: \"{title}\" -> {a[0]}: {a[1]} (x{a[2]})")
        by_lang = {}
        for r in rows:
            if r.get("on"):
                s = by_lang.setdefault(r["lang"], [0, 0, 0, 0])
                s[0] += r["on"]["introduced"]
                s[1] += r["on"]["with_fix"]
                s[2] += len(r["on"]["fixes"])
                s[3] += sum(f["cleared"] for f in r["on"]["fixes"])
        out.append("| lang | introduced errors | with a fix | fixes applied | cleared |")
        out.append("|---|---|---|---|---|")
        for lang, (i, w, a, c) in by_lang.items():
            out.append(f"| {lang} | {i} | {w} | {a} | {c} |")
    if off:
        rec = summarize(off)
        lines_after = [r["lines"] for r in off]
        chars_after = [r["chars"] for r in off]
        lines_before = [r["before_item4"][0] for r in off]
        chars_before = [r["before_item4"][1] for r in off]
        out.append(f"recall (fixLines = 0): same {rec['same'][0]}/{rec['same'][1]}, "
                   f"other {rec['other'][0]}/{rec['other'][1]}, beyond caps {rec['beyond_cap']}, stale {rec['stale']}")
        out.append(f"per reply, other files' old errors shown (before item 4): mean {statistics.mean(lines_before):.2f} lines, "
                   f"{statistics.mean(chars_before):.0f} chars; total {sum(lines_before)} lines, {sum(chars_before)} chars")
        out.append(f"per reply, only what the edit changed (item 4): mean {statistics.mean(lines_after):.2f} lines, "
                   f"{statistics.mean(chars_after):.0f} chars; total {sum(lines_after)} lines, {sum(chars_after)} chars")
    if off and on:
        pairs = [(r["off"], r["on"]) for r in rows if r.get("off") and r.get("on") and r["on"]["warm"]]
        look = [ms(b["fixes_us"]) for _a, b in pairs if b["fixes_us"] is not None]
        look_asked = [ms(b["fixes_us"]) for _a, b in pairs if b["fixes_us"] is not None and b["introduced"]]
        chk_off = [ms(a["checked_us"]) for a, _b in pairs if a["checked_us"] is not None]
        chk_on = [ms(b["checked_us"]) for _a, b in pairs if b["checked_us"] is not None]
        w_off = [a["secs"] * 1000 for a, _b in pairs]
        w_on = [b["secs"] * 1000 for _a, b in pairs]
        out.append(f"fix lookups (warm writes, fixLines = 3): median {fmt(statistics.median(look), 1)} ms, "
                   f"p95 {fmt(pct(look, 0.95), 1)} ms over {len(look)} writes; over the {len(look_asked)} with "
                   f"introduced errors: median {fmt(statistics.median(look_asked) if look_asked else None, 1)} ms, "
                   f"p95 {fmt(pct(look_asked, 0.95), 1)} ms")
        langs = {}
        for r in rows:
            if r.get("on") and r["on"]["warm"] and r["on"]["fixes_us"] is not None:
                langs.setdefault(r["lang"], []).append(ms(r["on"]["fixes_us"]))
        out.append("fix lookups per language (warm writes): " + ", ".join(
            f"{lang} median {fmt(statistics.median(v), 1)} ms, p95 {fmt(pct(v, 0.95), 1)} ms" for lang, v in langs.items()))
        out.append(f"the check before them: median {fmt(statistics.median(chk_off), 1)} ms off / "
                   f"{fmt(statistics.median(chk_on), 1)} ms on; p95 {fmt(pct(chk_off, 0.95), 1)} / "
                   f"{fmt(pct(chk_on, 0.95), 1)} ms")
        out.append(f"whole write: median {fmt(statistics.median(w_off), 1)} ms off / {fmt(statistics.median(w_on), 1)} ms on; "
                   f"p95 {fmt(pct(w_off, 0.95), 1)} / {fmt(pct(w_on, 0.95), 1)} ms")
    if auto:
        tried = [a for r in auto for a in r["auto_fixes"]]
        kinds = Counter(a["outcome"] for a in tried)
        restored = sum(1 for r in auto if any(a["outcome"] == "kept" for a in r["auto_fixes"]) and r["restored_original"])
        kept_cases = sum(1 for r in auto if any(a["outcome"] == "kept" for a in r["auto_fixes"]))
        out.append(f"auto-fix (autoFix = {json.dumps(results.get('auto_fix', ['quickfix']))}): {len(tried)} fixes tried over {len(auto)} edits: "
                   f"kept {kinds['kept']}, reverted {kinds['reverted']}, skipped {kinds['skipped']}; "
                   f"edits with a kept fix: {kept_cases}, of which the file came back to its original text: {restored}")
        for r in rows:
            for a in (r.get("auto") or {}).get("auto_fixes", []):
                out.append(f"  {r['case']}: {a['outcome']} \"{a['title']}\" for [{a['line']}:{a['column']}] "
                           f"{a['message'][:80]}{(' — ' + a['reason'][:120]) if a.get('reason') else ''}")
        if off:
            pairs = [(r["off"], r["auto"]) for r in rows if r.get("off") and r.get("auto") and r["auto"]["warm"]]
            with_fix = [(a["secs"] * 1000, b["secs"] * 1000) for a, b in pairs if b["auto_fixes"]]
            spent = [ms(b["auto_fix_us"]) for _a, b in pairs if b["auto_fix_us"] is not None and b["auto_fixes"]]
            if spent:
                out.append(f"auto-fix time on the {len(spent)} warm edits it tried a fix on: median "
                           f"{fmt(statistics.median(spent), 1)} ms, p95 {fmt(pct(spent, 0.95), 1)} ms")
            w_off = [a["secs"] * 1000 for a, _b in pairs]
            w_auto = [b["secs"] * 1000 for _a, b in pairs]
            out.append(f"whole write: median {fmt(statistics.median(w_off), 1)} ms off / "
                       f"{fmt(statistics.median(w_auto), 1)} ms with auto-fix; p95 {fmt(pct(w_off, 0.95), 1)} / "
                       f"{fmt(pct(w_auto, 0.95), 1)} ms")
    return "\n".join(out) + "\n"


def main(args, projects, cases, smoke_cases, say):
    import os

    if args.report_of:
        print(report(json.loads(args.report_of.read_text())))
        return 0
    if args.smoke:
        cases = smoke_cases(cases)
    if args.cases:
        cases = [c for c in cases if c["id"] in args.cases]
    args.out = (args.out or args.cache / "fixes").resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    modes = args.modes.split(",")
    env = variants.environment(dict(os.environ), args)
    rows = []
    t_all = time.time()
    for p in projects:
        pc = [c for c in cases if c["project"] == p["id"]]
        if not pc:
            continue
        fetch.prepare(p, args.cache, say)
        res = {}
        for mode in modes:
            t = time.time()
            res[mode] = run_mode(p, pc, mode, args, env, say)
            say(f"{p['id']} {mode}: {len(pc)} cases in {time.time() - t:.0f} s")
        for i, c in enumerate(pc):
            rows.append({"project": p["id"], "lang": p["lang"], "case": c["id"], "kind": c["kind"],
                         **{k: v[i] for k, v in res.items()}})
    results = {"rows": rows, "wall_secs": round(time.time() - t_all, 1), "squiggle": str(args.squiggle),
               "variant": variants.describe(args), "auto_fix": args.auto_fix}
    (args.out / "fixes.json").write_text(json.dumps(results, indent=1) + "\n")
    text = report(results)
    (args.out / "fixes.txt").write_text(text)
    print(text)
    say(f"wrote {args.out / 'fixes.json'} and fixes.txt ({results['wall_secs']} s)")
    return 0
