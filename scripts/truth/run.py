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
            fn = run_squiggle if client == "squiggle" else run_careful
            res[client] = fn(p, pc, args, env, log)
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
    (args.out / "truth.md").write_text(md)
    print(md)
    log(f"wrote {args.out / 'truth.json'} and truth.md")
    return 0
