"""The latency budget: the truth corpus through the careful client,
`squiggle serve` and Claude Code's hook in one run, one machine, and each
language's warm median beside the careful client's, as a ratio. The budget
(docs/performance.md, "Latency budget"): squiggle's median through serve and
through the hook at most 0.5x the careful client's overall, at most 1.0x in
every language.

    python3 scripts/truth/truth.py budget [--smoke] [--only LANG ...]
    python3 scripts/truth/truth.py budget --report-of target/truth/budget/truth.json

The run is `truth.py run --clients careful,squiggle,hook` (run.py); this
module adds only the table and the verdict. Fix lines' cost is measured by
`truth.py fixes --modes off,on` (fixes.py).
"""

import json
import statistics

OVERALL = 0.5
PER_LANGUAGE = 1.0
SURFACES = [("squiggle", "serve"), ("hook", "hook")]


def warm_median(rows, client):
    secs = [r[client]["secs"] for r in rows if r.get(client) and r[client].get("warm")]
    return statistics.median(secs) if secs else None


def ratio(ours, careful):
    if ours is None or not careful:
        return None
    return ours / careful


def table(results):
    """Per language and overall: the careful client's median, then each
    surface's median and its ratio to the careful client; with the verdict
    against the budget. Returns (markdown, whether every limit was met)."""
    rows = results["rows"]
    langs = list(dict.fromkeys(r["lang"] for r in rows))
    head = " | ".join(f"{name} (s) | {name} / careful" for _, name in SURFACES)
    lines = [f"| language | cases | careful (s) | {head} | limit |",
             "|---|---|---|" + "---|---|" * len(SURFACES) + "---|"]
    met = True
    for lang in langs + ["all"]:
        subset = [r for r in rows if lang == "all" or r["lang"] == lang]
        careful = warm_median(subset, "careful")
        limit = OVERALL if lang == "all" else PER_LANGUAGE
        cells = []
        for client, _ in SURFACES:
            ours = warm_median(subset, client)
            r = ratio(ours, careful)
            if r is not None and r > limit:
                met = False
            cells.append(f"{fmt(ours)} | {fmt_ratio(r, limit)}")
        lines.append(f"| {lang} | {len(subset)} | {fmt(careful)} | {' | '.join(cells)} | {limit:.1f}x |")
    verdict = "every limit met" if met else "over budget (marked *)"
    return "\n".join(lines) + f"\n\nBudget: {verdict}.\n", met


def fmt(x):
    return f"{x:.2f}" if x is not None else "-"


def fmt_ratio(r, limit):
    if r is None:
        return "-"
    return f"{r:.2f}x" + (" *" if r > limit else "")


def main(args, projects, cases, smoke_cases, log):
    if args.report_of:
        results = json.loads(args.report_of.read_text())
    else:
        import run

        args.clients = "careful,squiggle,hook"
        args.quiet = None
        args.out = (args.out or args.cache / "budget").resolve()
        run.main(args, projects, cases, smoke_cases, log)
        results = json.loads((args.out / "truth.json").read_text())
    md, met = table(results)
    scope = "smoke (one project per language, 3 cases each)" if results.get("smoke") else "full corpus"
    print(f"### Latency budget: {scope}, wall {results.get('wall_secs')} s\n\n{md}")
    return 0 if met else 1
