"""Drive one warm `squiggle serve` per project and the careful client over
the same edits, score both against the frozen truth, write JSON + tables.

Why: the numbers issue 13 asks for (recall in the edited file and in other
files, errors beyond the caps, stale after revert, warm latency) from a run
anyone can repeat with one command.
"""

import json
import os
import re
import statistics
import subprocess
import time

import careful
import fetch
import variants
from gen import apply_line

import lsp

MAX_PER_FILE = 20  # docs/configuration.md: maxDiagnosticsPerFile
MAX_OTHER_FILES = 5  # maxProjectDiagnosticsFiles
BLOCK = re.compile(r'<diagnostics file="([^"]+)">\n(.*?)</diagnostics>', re.DOTALL)
ERROR_LINE = re.compile(r"^ERROR \[(\d+):\d+\]", re.MULTILINE)


def parse_feedback(text):
    """{(file, line)} of ERROR lines, files whose block was cut, other-file
    block count."""
    found, cut = set(), set()
    others = text.split("LSP errors detected in other files", 1)
    n_other = len(BLOCK.findall(others[1])) if len(others) > 1 else 0
    for f, body in BLOCK.findall(text):
        for m in ERROR_LINE.finditer(body):
            found.add((f, int(m.group(1))))
        if "... and " in body:
            cut.add(f)
    return found, cut, n_other


def structured(result):
    out = set()
    for d in result.get("diagnostics", []) or []:
        if d.get("severity") == "error":
            out.add((d["file"], d["line"]))
    for f, ds in (result.get("others") or {}).items():
        for d in ds:
            if d.get("severity") == "error":
                out.add((d.get("file", f), d["line"]))
    return out


class Squiggle:
    def __init__(self, binary, root, env, log_path):
        self.err = open(log_path, "wb")
        self.conn = lsp.Conn([str(binary), "serve", "--root", str(root)], str(root), env, stderr=self.err)
        # As a session start does (and as the careful client opens every
        # file before it measures): servers warm, the files surveyed.
        self.conn.request("squiggle/warm", {"wait": True}, timeout=600)

    def write(self, rel, text):
        t0 = time.monotonic()
        res = self.conn.request("squiggle/write", {"filePath": rel, "content": text}, timeout=120)
        return time.monotonic() - t0, res

    def close(self):
        try:
            self.conn.request("lsp/shutdown", {}, timeout=20)
        except (TimeoutError, RuntimeError):
            pass
        self.conn.close()
        self.err.close()


class Hook:
    """Claude Code's path: each edit is written to disk first (as Claude
    Code's own Write tool does), then `squiggle hook claude` runs with the
    PostToolUse payload Claude Code sends; one warm daemon per project (the
    first hook starts it), in a private runtime directory. The reply's
    additionalContext is what the model reads."""

    def __init__(self, binary, root, env, run_dir):
        run_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(run_dir, 0o700)
        self.binary, self.root = str(binary), root
        self.env = dict(env, XDG_RUNTIME_DIR=str(run_dir), SQUIGGLE_DAEMON_IDLE_MS="600000")
        self.env.pop("SQUIGGLE_NO_DAEMON", None)
        # The session start (Claude Code's SessionStart hook warms the
        # daemon; here we also wait for its survey, as the careful client
        # opens every file before it measures).
        subprocess.run([self.binary, "daemon", "start", "--warm", "--root", str(root)],
                       env=self.env, capture_output=True, timeout=660)

    def write(self, rel, text):
        """Writes `text` to `rel`, then runs the hook: (seconds the hook
        took, its additionalContext or "")."""
        path = self.root / rel
        original = path.read_text() if path.exists() else None
        path.write_text(text)
        payload = {
            "session_id": "truth", "transcript_path": str(self.root / ".truth-transcript.jsonl"),
            "cwd": str(self.root), "permission_mode": "acceptEdits", "hook_event_name": "PostToolUse",
            "tool_name": "Write", "tool_input": {"file_path": str(path), "content": text},
            "tool_response": {"type": "update" if original is not None else "create", "filePath": str(path),
                              "content": text, "structuredPatch": [], "originalFile": original},
            "tool_use_id": "toolu_truth"}
        t0 = time.monotonic()
        # `--root`: the pruned copy has no `.git` of its own (a real project
        # would), and the git top-level above it is squiggle's own checkout.
        out = subprocess.run([self.binary, "hook", "claude", "--root", str(self.root)],
                             input=json.dumps(payload).encode(),
                             capture_output=True, cwd=self.root, env=self.env, timeout=180)
        secs = time.monotonic() - t0
        reply = out.stdout.decode().strip()
        context = json.loads(reply)["hookSpecificOutput"]["additionalContext"] if reply else ""
        return secs, context

    def close(self):
        subprocess.run([self.binary, "daemon", "stop", "--root", str(self.root)], env=self.env,
                       capture_output=True, timeout=60)


def extra_lines(case, reported):
    """ERROR lines of a reply that are not among the case's expected errors."""
    expected = {(f, line) for f, line, _m in case["expected"]}
    return len(reported - expected)


def run_hook(project, cases, args, env, log, outside=False):
    """The corpus through Claude Code's hook path. With `outside`, each
    revert is made on disk outside squiggle (as `git checkout` does) and its
    stale errors are those the next hook still reports (the next case's
    mutation, or for the last case a hook for an unchanged write of the
    project's first file); otherwise the revert is a Write through the hook
    too, scored on its own reply, as `serve` is."""
    root = fetch.fresh_copy(project, args.cache)
    variants.prepare_workspace(project, root, args)
    name = "hook-outside" if outside else "hook"
    out = []
    hook = Hook(args.squiggle, root, env, args.out / f"run-{project['id']}-{name}")
    pending = None  # (row, case) of an outside revert not yet scored

    def settle(reported, now_expected):
        if pending is not None:
            row, prev = pending
            row["stale"] = [s for s in stale(prev, reported) if tuple(s) not in now_expected]

    try:
        for i, case in enumerate(cases):
            original = (root / case["file"]).read_text()
            secs, text = hook.write(case["file"], apply_line(root, case))
            found, cut, n_other = parse_feedback(text)
            settle(found, {(f, line) for f, line, _m in case["expected"]})
            row = {"case": case["id"], "kind": case["kind"], "warm": i > 0, "secs": round(secs, 4),
                   "feedback": score(case, found, cut, n_other), "structured": [],
                   "extra": extra_lines(case, found), "lines": len(found), "stale": []}
            if outside:
                (root / case["file"]).write_text(original)
                pending = (row, case)
            else:
                rsecs, rtext = hook.write(case["file"], original)
                rfound, _c, _n = parse_feedback(rtext)
                row["revert_secs"] = round(rsecs, 4)
                row["stale"] = stale(case, rfound)
            out.append(row)
            log(f"  {name} {case['id']}: {secs:.2f} s, found {sum(x['state'] == 'found' for x in row['feedback'])}"
                f"/{len(row['feedback'])}, extra {row['extra']}")
        if pending is not None:
            first = cases[0]["file"]
            _s, text = hook.write(first, (root / first).read_text())
            settle(parse_feedback(text)[0], set())
    finally:
        hook.close()
    return out


def score(case, reported, cut=frozenset(), n_other=0):
    """Per expected error: found / missed / beyond the caps."""
    rows = []
    for f, line, _msg in case["expected"]:
        where = "same" if f == case["file"] else "other"
        if (f, line) in reported:
            state = "found"
        elif f in cut or (where == "other" and n_other >= MAX_OTHER_FILES
                          and f not in {g for g, _ in reported}):
            state = "beyond_cap"
        else:
            state = "missed"
        rows.append({"file": f, "line": line, "where": where, "state": state})
    return rows


def stale(case, reported):
    return [[f, line] for f, line, _m in case["expected"] if (f, line) in reported]


def run_squiggle(project, cases, args, env, log):
    root = fetch.fresh_copy(project, args.cache)
    variants.prepare_workspace(project, root, args)
    out = []
    sq = Squiggle(args.squiggle, root, env, args.out / f"{project['id']}.squiggle.log")
    try:
        for i, case in enumerate(cases):
            original = (root / case["file"]).read_text()
            secs, res = sq.write(case["file"], apply_line(root, case))
            found, cut, n_other = parse_feedback(res.get("feedback", ""))
            st = structured(res)
            rsecs, rres = sq.write(case["file"], original)
            rfound, _c, _n = parse_feedback(rres.get("feedback", ""))
            out.append({
                "case": case["id"], "kind": case["kind"], "warm": i > 0, "secs": round(secs, 4),
                "revert_secs": round(rsecs, 4), "classification": res.get("classification"),
                "feedback": score(case, found, cut, n_other), "structured": score(case, st),
                "extra": extra_lines(case, found), "lines": len(found),
                "stale": stale(case, rfound | structured(rres)), "outcomes": res.get("outcomes"),
            })
            r = out[-1]
            log(f"  squiggle {case['id']}: {secs:.2f} s, found {sum(x['state'] == 'found' for x in r['feedback'])}"
                f"/{len(r['feedback'])}, stale {len(r['stale'])}")
    finally:
        sq.close()
    return out


def run_careful(project, cases, args, env, log):
    root = fetch.fresh_copy(project, args.cache)
    variants.prepare_workspace(project, root, args)
    out = []
    cl = careful.Careful(project, root, env, quiet_override=args.quiet,
                         servers=variants.careful_servers(careful.SERVERS, args))
    try:
        cl.open_all(careful.open_files(project, root))
        for i, case in enumerate(cases):
            original = (root / case["file"]).read_text()
            secs, how, calib = cl.edit(case["file"], apply_line(root, case))
            found = cl.errors()
            rsecs, rhow, rcalib = cl.edit(case["file"], original)
            out.append({
                "case": case["id"], "kind": case["kind"], "warm": i > 0, "secs": round(secs, 4),
                "revert_secs": round(rsecs, 4), "ended": how, "revert_ended": rhow,
                "answer_secs": round(calib["answer"], 4) if calib.get("answer") is not None else None,
                "feedback": score(case, found), "stale": stale(case, cl.errors()),
                "calib": {"edit": calib, "revert": rcalib} if args.quiet is not None else None,
            })
            r = out[-1]
            log(f"  careful {case['id']}: {secs:.2f} s ({how}), found "
                f"{sum(x['state'] == 'found' for x in r['feedback'])}/{len(r['feedback'])}, stale {len(r['stale'])}")
    finally:
        cl.close()
    return out


def pct(xs, q):
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))]


def summarize(rows, key="feedback"):
    exp = [x for r in rows for x in r[key]]
    same = [x for x in exp if x["where"] == "same"]
    other = [x for x in exp if x["where"] == "other"]

    def recall(xs):
        within = [x for x in xs if x["state"] != "beyond_cap"]
        return (sum(x["state"] == "found" for x in within), len(within))

    warm = [r["secs"] for r in rows if r["warm"]]
    return {
        "cases": len(rows), "same": recall(same), "other": recall(other),
        "beyond_cap": sum(x["state"] == "beyond_cap" for x in exp),
        "stale": sum(len(r["stale"]) for r in rows),
        "extra": sum(r.get("extra", 0) for r in rows),
        "median": statistics.median(warm) if warm else None, "p95": pct(warm, 0.95),
    }


def fmt_recall(pair):
    found, total = pair
    return f"{found / total:.2f} ({found}/{total})" if total else "-"


def fmt_s(x):
    return f"{x:.2f}" if x is not None else "-"


def table(results, group):
    lines = ["| " + group + " | cases | squiggle same | squiggle other | beyond caps | squiggle structured other "
             "| stale sq/careful | careful same | careful other | median sq / careful (s) | p95 sq / careful (s) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    keys = sorted({r[group] for r in results["rows"]}, key=lambda k: list(dict.fromkeys(
        r[group] for r in results["rows"])).index(k))
    for k in keys + ["all"]:
        rows = [r for r in results["rows"] if k == "all" or r[group] == k]
        sq = summarize([r["squiggle"] for r in rows if r.get("squiggle")])
        st = summarize([r["squiggle"] for r in rows if r.get("squiggle")], "structured")
        ca = summarize([r["careful"] for r in rows if r.get("careful")])
        lines.append(f"| {k} | {len(rows)} | {fmt_recall(sq['same'])} | {fmt_recall(sq['other'])} | "
                     f"{sq['beyond_cap']} | {fmt_recall(st['other'])} | {sq['stale']}/{ca['stale']} | "
                     f"{fmt_recall(ca['same'])} | {fmt_recall(ca['other'])} | "
                     f"{fmt_s(sq['median'])} / {fmt_s(ca['median'])} | {fmt_s(sq['p95'])} / {fmt_s(ca['p95'])} |")
    return "\n".join(lines)


SURFACES = ["squiggle", "hook", "hook-outside"]


def surfaces_table(results, group):
    """`squiggle serve` beside the hook paths: recall (edited file, other
    files), stale, extra ERROR lines (not among the expected errors), warm
    median."""
    present = [c for c in SURFACES if any(r.get(c) for r in results["rows"])]
    names = {"squiggle": "serve", "hook": "hook", "hook-outside": "hook, revert outside"}
    head = " / ".join(names[c] for c in present)
    lines = [f"| {group} | cases | same: {head} | other: {head} | stale: {head} | extra lines: {head} "
             f"| median (s): {head} |", "|---|---|---|---|---|---|---|"]
    keys = list(dict.fromkeys(r[group] for r in results["rows"]))
    for k in keys + ["all"]:
        rows = [r for r in results["rows"] if k == "all" or r[group] == k]
        sums = [summarize([r[c] for r in rows if r.get(c)]) for c in present]
        cell = lambda f: " / ".join(f(x) for x in sums)
        lines.append(f"| {k} | {len(rows)} | {cell(lambda x: fmt_recall(x['same']))} | "
                     f"{cell(lambda x: fmt_recall(x['other']))} | {cell(lambda x: str(x['stale']))} | "
                     f"{cell(lambda x: str(x['extra']))} | {cell(lambda x: fmt_s(x['median']))} |")
    return "\n".join(lines)


def needed_quiet(calib):
    """The longest silence inside one change's answer: gaps between activity
    events after the server's own signal, up to its last diagnostics change.
    A quiet window shorter than this would have ended the wait early."""
    primary = calib.get("primary")
    acts = calib.get("activity") or []
    if primary is None:
        return None
    last_pub = max((t for t, kind, _f in acts if kind == "publish"), default=None)
    if last_pub is None or last_pub <= primary:
        return 0.0
    times = [primary] + [t for t, _k, _f in acts if primary < t <= last_pub]
    return max(b - a for a, b in zip(times, times[1:]))


def calibration(rows):
    out = {}
    for lang in dict.fromkeys(r["lang"] for r in rows):
        gaps = [needed_quiet(r["careful"]["calib"][k]) for r in rows if r["lang"] == lang and r.get("careful")
                and r["careful"].get("calib") for k in ("edit", "revert")]
        gaps = [g for g in gaps if g is not None]
        if gaps:
            out[lang] = {"edits": len(gaps), "max_ms": round(max(gaps) * 1000), "p95_ms": round(pct(gaps, 0.95) * 1000)}
    return out


def main(args, projects, cases, smoke_cases, log):
    if args.smoke:
        cases = smoke_cases(cases)
    if args.cases:
        cases = [c for c in cases if c["id"] in args.cases]
    args.out = (args.out or args.cache / "results").resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    clients = args.clients.split(",")
    env = variants.environment(dict(os.environ), args)
    log(f"servers: {variants.describe(args)}")
    rows = []
    t_all = time.time()
    for p in projects:
        pc = [c for c in cases if c["project"] == p["id"]]
        if not pc:
            continue
        fetch.prepare(p, args.cache, log)
        res = {}
        for client in clients:
            t = time.time()
            if client == "squiggle":
                res[client] = run_squiggle(p, pc, args, env, log)
            elif client in ("hook", "hook-outside"):
                res[client] = run_hook(p, pc, args, env, log, outside=client == "hook-outside")
            else:
                res[client] = run_careful(p, pc, args, env, log)
            log(f"{p['id']} {client}: {len(pc)} cases in {time.time() - t:.0f} s")
        for i, c in enumerate(pc):
            rows.append({"project": p["id"], "lang": p["lang"], "case": c["id"], "kind": c["kind"],
                         **{k: v[i] for k, v in res.items()}})
    results = {"rows": rows, "wall_secs": round(time.time() - t_all, 1), "smoke": bool(args.smoke),
               "squiggle": str(args.squiggle), "variant": variants.describe(args),
               "careful_servers": variants.careful_servers(careful.SERVERS, args)}
    if args.quiet is not None:
        results["calibration"] = calibration(rows)
        log(f"calibration (quiet {args.quiet} ms): {json.dumps(results['calibration'])}")
    (args.out / "truth.json").write_text(json.dumps(results, indent=1) + "\n")
    md = (f"### Per language\n\n{table(results, 'lang')}\n\n### Per project\n\n{table(results, 'project')}\n\n"
          f"### Per kind\n\n{table(results, 'kind')}\n\nWall time: {results['wall_secs']} s\n")
    if any(c in clients for c in ("hook", "hook-outside")):
        md += (f"\n### Every surface, per language\n\n{surfaces_table(results, 'lang')}\n\n"
               f"### Every surface, per project\n\n{surfaces_table(results, 'project')}\n")
    (args.out / "truth.md").write_text(md)
    print(md)
    log(f"wrote {args.out / 'truth.json'} and truth.md")
    return 0
