"""`make bench`: run the development question set through the rules pipeline and grade by execution match."""
from __future__ import annotations

import json
import os
import statistics
import time
from collections import defaultdict
from pathlib import Path

import psycopg2
import yaml

from bench.grade import grade
from plugin.core.pipeline import STAGES, Pipeline

ROOT = Path(__file__).resolve().parent.parent
DSN = os.environ.get("MAPASK_DSN", "host=127.0.0.1 port=55432 dbname=mapask user=mapask_reader password=mapask_reader")


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main() -> int:
    questions = yaml.safe_load((ROOT / "bench" / "questions.yaml").read_text())
    pipe = Pipeline(ROOT / "knowledge" / "massachusetts", DSN)
    pipe.annotator()  # anchor index load is start-up, not per-question cost
    ref = psycopg2.connect(DSN)
    ref.set_session(readonly=True, autocommit=True)
    results = []
    timings: dict[str, list[float]] = defaultdict(list)
    totals: list[float] = []
    overhead: list[float] = []
    for q in questions:
        t0 = time.perf_counter()
        a = pipe.ask(q["question"])
        totals.append((time.perf_counter() - t0) * 1000)
        for k, v in a.timings_ms.items():
            timings[k].append(v)
        overhead.append(sum(v for k, v in a.timings_ms.items() if k != "execute"))
        with ref.cursor() as cur:
            cur.execute(q["sql"])
            rcols = [d.name for d in cur.description]
            rrows = cur.fetchall()
        ok, why = (False, f"status {a.status}: {a.answer[:120]}")
        if a.status == "answered":
            keep = [i for i, c in enumerate(a.columns) if c != a.geometry_column]
            ok, why = grade([a.columns[i] for i in keep], [[r[i] for i in keep] for r in a.rows], rcols,
                            [list(r) for r in rrows], bool(q.get("order_matters")))
        results.append({"id": q["id"], "category": q["category"], "split": q["split"], "question": q["question"],
                        "status": a.status, "ok": ok, "why": why, "repaired": bool(a.repairs),
                        "ms": totals[-1]})
    report = {"date": time.strftime("%Y-%m-%d"), "questions": len(results), "by_split": {}, "latency_ms": {}}
    lines = ["MapAsk bench (rules interpreter, no model)", ""]
    for split in ("tune", "held"):
        rs = [r for r in results if r["split"] == split]
        cats = sorted({r["category"] for r in rs}, key=lambda c: (len(c), c))
        by = {c: [r["ok"] for r in rs if r["category"] == c] for c in cats}
        acc = sum(r["ok"] for r in rs) / max(1, len(rs))
        report["by_split"][split] = {"n": len(rs), "accuracy": acc,
                                     "by_category": {c: sum(v) / len(v) for c, v in by.items()}}
        lines.append(f"{split:5s} n={len(rs):3d} accuracy {acc:6.1%}   " +
                     "  ".join(f"{c} {sum(v)}/{len(v)}" for c, v in by.items()))
    n = len(results)
    rep_rate = sum(r["repaired"] for r in results) / n
    clar = sum(r["status"] == "clarify" for r in results) / n
    refu = sum(r["status"] == "refused" for r in results) / n
    err = sum(r["status"] == "error" for r in results) / n
    report.update({"repair_rate": rep_rate, "clarify_share": clar, "refused_share": refu, "error_share": err})
    lines += ["", f"repair rate {rep_rate:.1%}   clarify {clar:.1%}   refused {refu:.1%}   error {err:.1%}", ""]
    for st in STAGES:
        if timings.get(st):
            report["latency_ms"][st] = {"p50": pct(timings[st], .5), "p95": pct(timings[st], .95)}
            lines.append(f"  {st:10s} p50 {pct(timings[st], .5):8.2f} ms   p95 {pct(timings[st], .95):8.2f} ms")
    report["latency_ms"]["overhead"] = {"p50": pct(overhead, .5), "p95": pct(overhead, .95)}
    report["latency_ms"]["total"] = {"p50": pct(totals, .5), "p95": pct(totals, .95)}
    lines.append(f"  {'non-db':10s} p50 {pct(overhead, .5):8.2f} ms   p95 {pct(overhead, .95):8.2f} ms (all stages but execute)")
    lines.append(f"  {'total':10s} p50 {pct(totals, .5):8.2f} ms   p95 {pct(totals, .95):8.2f} ms")
    out = ROOT / "out" / "bench"
    out.mkdir(parents=True, exist_ok=True)
    report["results"] = results
    (out / "report.json").write_text(json.dumps(report, indent=1, default=str))
    lines.append(f"\nfull report: {out / 'report.json'}")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
