"""`make bench`: the development question set through the rules pipeline, graded by execution match on the
real data and on K perturbed copies (a question is right only if it matches on every instance)."""
from __future__ import annotations

import argparse
import copy
import json
import os
import time
from collections import defaultdict
from pathlib import Path

import psycopg2
import yaml

from bench import perturb
from bench.grade import grade, grade_sides, round_like_reference
from bench.review import for_schema
from plugin.core.pack import load_pack
from plugin.core.pipeline import STAGES, Pipeline

ROOT = Path(__file__).resolve().parent.parent
DSN = os.environ.get("MAPASK_DSN", "host=127.0.0.1 port=55432 dbname=mapask user=mapask_reader password=mapask_reader")


# tune: the interpreters may learn from it; held: nobody tunes on it; fresh: written later by someone who had
# not seen the interpreter, measured as it came
SPLITS = ("tune", "held", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh5u", "fresh6", "fresh6u", "fresh7",
          "fresh7u", "fresh8", "fresh8u", "fresh9", "fresh9u", "fresh10", "fresh10u", "fresh11",
          "fresh11u", "fresh12", "fresh12u", "fresh13", "fresh13u", "fresh14",
          "fresh14u", "fresh15", "fresh15u", "fresh16", "fresh16u", "fresh17", "fresh17u", "fresh18", "fresh18u", "fresh19", "fresh19u", "fresh20", "fresh20u", "fresh21", "fresh21u", "fresh22", "fresh22u", "fresh23", "fresh23u", "fresh24", "fresh24u", "fresh25", "fresh25u", "fresh26", "fresh26u", "fresh27", "fresh27u", "fresh28", "fresh28u", "fresh29", "fresh29u", "fresh30", "fresh30u", "fresh31", "fresh31u", "fresh32", "fresh32u", "fresh33", "fresh33u")
# splits whose failures nobody reads: only their scores are printed and stored (fresh7 was unread until the session
# after the one that measured it first; fresh7u stays unread)
UNREAD = {"fresh5u", "fresh6u", "fresh7u", "fresh8u", "fresh9u", "fresh10u", "fresh11u", "fresh12u", "fresh13u", "fresh14u", "fresh15u", "fresh16u", "fresh17u", "fresh18u", "fresh19u", "fresh20u", "fresh21u", "fresh22u", "fresh23u", "fresh24u", "fresh25u", "fresh26u", "fresh27u", "fresh28u", "fresh29u", "fresh30u", "fresh31u", "fresh32u", "fresh33u"}


def load_questions() -> list[dict]:
    out = []
    for name in ("questions.yaml", "fresh_questions.yaml", "fresh2_questions.yaml", "fresh3_questions.yaml",
                 "fresh4_questions.yaml", "fresh5_questions.yaml", "fresh6_questions.yaml",
                 "fresh7_questions.yaml", "fresh8_questions.yaml", "fresh9_questions.yaml",
                 "fresh10_questions.yaml", "fresh11_questions.yaml",
                 "fresh12_questions.yaml", "fresh13_questions.yaml",
                 "fresh14_questions.yaml", "fresh15_questions.yaml",
                 "fresh16_questions.yaml", "fresh17_questions.yaml",
                 "fresh18_questions.yaml", "fresh19_questions.yaml", "fresh20_questions.yaml", "fresh21_questions.yaml", "fresh22_questions.yaml", "fresh23_questions.yaml", "fresh24_questions.yaml", "fresh25_questions.yaml", "fresh26_questions.yaml", "fresh27_questions.yaml", "fresh28_questions.yaml", "fresh29_questions.yaml", "fresh30_questions.yaml", "fresh31_questions.yaml", "fresh32_questions.yaml", "fresh33_questions.yaml"):
        path = ROOT / "bench" / name
        if path.exists():
            doc = yaml.safe_load(path.read_text())
            out += doc["questions"] if isinstance(doc, dict) else doc
    return out


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def run_instance(questions: list[dict], schema: str, ref) -> tuple[dict[str, dict], dict[str, list[float]]]:
    """Ask every question against one schema; grade against the reference SQL pointed at the same schema."""
    pack = copy.deepcopy(load_pack(ROOT / "knowledge" / "massachusetts"))
    pack.schema = schema
    pipe = Pipeline(pack, DSN, ask_below=None)  # the threshold is applied below, so both sides are measured
    pipe.annotator()  # the anchor index is start-up cost, not per-question cost
    out: dict[str, dict] = {}
    timings: dict[str, list[float]] = defaultdict(list)
    for q in questions:
        t0 = time.perf_counter()
        a = pipe.ask(q["question"])
        total = (time.perf_counter() - t0) * 1000
        for k, v in a.timings_ms.items():
            timings[k].append(v)
        timings["total"].append(total)
        timings["non-db"].append(sum(v for k, v in a.timings_ms.items() if k != "execute"))
        ok, why = False, f"status {a.status}: {a.answer[:120]}"
        if q.get("expect"):
            # no single right answer, or not in the data: right when MapAsk does not give a number
            ok = a.status in ("clarify", "refused")
        else:
            with ref.cursor() as cur:
                cur.execute(for_schema(q["sql"], schema) if schema != "ma" else q["sql"])
                rcols = [d.name for d in cur.description]
                rrows = cur.fetchall()
            if a.status == "answered":
                keep = [i for i, c in enumerate(a.columns) if c != a.geometry_column]
                pc = [a.columns[i] for i in keep]
                pr = round_like_reference([[r[i] for i in keep] for r in a.rows], rrows)
                ok, why = grade(pc, pr, rcols, [list(r) for r in rrows], bool(q.get("order_matters")))
                if not ok and q["category"] == "C9":  # comparisons: the numbers per side, labels are free text
                    ok, why = grade_sides(pc, pr, rcols, [list(r) for r in rrows])
        threshold = pack.convention("verifier", "threshold", default=None)
        unsure = a.status == "answered" and threshold is not None and (a.confidence or 0) < threshold
        raw_ok = ok
        if unsure:  # what the product does: asks back with its reading instead of answering
            ok = bool(q.get("expect"))
        left_over = a.status == "answered" and bool((a.frame or {}).get("unknown"))
        out[q["id"]] = {"ok": ok, "why": why, "status": "clarify" if unsure else a.status, "raw_ok": raw_ok,
                        "raw_status": a.status, "repaired": bool(a.repairs), "ms": total,
                        "confidence": a.confidence, "left_over": left_over, "expect": q.get("expect"),
                        "answer": a.answer[:300]}
        if q["split"] in UNREAD:
            out[q["id"]] = {k: out[q["id"]][k] for k in ("ok", "status", "confidence", "left_over", "expect", "ms",
                                                        "repaired", "raw_ok", "raw_status")}
    pipe.executor.close()
    return out, timings


def roc_auc(scores: list[float], labels: list[bool]) -> float:
    """Probability that a right answer has a higher confidence than a wrong one (ties count half)."""
    pos = [s for s, y in zip(scores, labels) if y]
    neg = [s for s, y in zip(scores, labels) if not y]
    if not pos or not neg:
        return float("nan")
    wins = sum((p > n) + 0.5 * (p == n) for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def split_metrics(qs: list[dict], ok: dict[str, bool], results: dict[str, dict]) -> dict:
    """Precision of what was answered, the ask-back rate, answers that left a word over, and ROC-AUC of the
    confidence over the answered questions (right vs wrong)."""
    rs = [(q, results[q["id"]]) for q in qs]
    answered = [(q, r) for q, r in rs if r["status"] == "answered"]
    right = sum(ok[q["id"]] for q, _ in answered)
    # the confidence ranks every answer the interpreter gave, before the threshold turned some into ask-backs
    scored = [(r.get("confidence") or 0.0, bool(r.get("raw_ok"))) for q, r in rs if r.get("raw_status") == "answered"]
    return {"precision": right / len(answered) if answered else 0.0,
            "ask_back": sum(r["status"] in ("clarify", "refused") for _, r in rs) / max(1, len(rs)),
            "answered": len(answered) / max(1, len(rs)),
            "left_over": sum(bool(r.get("left_over")) for _, r in rs),
            "auc": roc_auc([s for s, _ in scored], [y for _, y in scored]),
            "reliability": reliability(scored)}


def reliability(scored: list[tuple[float, bool]], bins: int = 5) -> list[list]:
    """[low, high, answers, share right] per confidence bin."""
    out = []
    for i in range(bins):
        lo, hi = i / bins, (i + 1) / bins
        sel = [y for c, y in scored if lo <= c < hi or (i == bins - 1 and c >= 1.0)]
        out.append([lo, hi, len(sel), sum(sel) / len(sel) if sel else None])
    return out


def style_counts(qs: list[dict], ok: dict[str, bool]) -> str:
    """'   short 30/44  realistic 80/132' for splits whose questions say how they were written."""
    parts = [f"{st} {sum(ok[q['id']] for q in qs if q.get('style') == st)}/{sum(q.get('style') == st for q in qs)}"
             for st in sorted({q["style"] for q in qs if q.get("style")})]
    return "   " + "  ".join(parts) if parts else ""


def accuracy_lines(questions: list[dict], ok: dict[str, bool], label: str, report: dict,
                   results: dict[str, dict]) -> list[str]:
    lines = []
    for split in [sp for sp in SPLITS if any(q["split"] == sp for q in questions)]:
        qs = [q for q in questions if q["split"] == split]
        cats = sorted({q["category"] for q in qs}, key=lambda c: (len(c), c))
        by = {c: [ok[q["id"]] for q in qs if q["category"] == c] for c in cats}
        acc = sum(ok[q["id"]] for q in qs) / max(1, len(qs))
        m = split_metrics(qs, ok, results)
        report.setdefault(label, {})[split] = {"n": len(qs), "accuracy": acc, **m,
                                               "by_category": {c: sum(v) / len(v) for c, v in by.items()}}
        lines.append(f"{split:7s} n={len(qs):3d} accuracy {acc:6.1%}  precision of answered {m['precision']:6.1%}  "
                     f"asked back {m['ask_back']:5.1%}  answered with a word left over {m['left_over']}  "
                     f"ROC-AUC {m['auc']:.2f}   " +
                     "  ".join(f"{c} {sum(v)}/{len(v)}" for c, v in by.items()) + style_counts(qs, ok))
        lines.append("          reliability (confidence -> share right): " + "  ".join(
            f"{lo:.1f}-{hi:.1f}: {'-' if sh is None else f'{sh:.0%}'} of {n}" for lo, hi, n, sh in m["reliability"]))
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--instances", type=int, default=int(os.environ.get("MAPASK_BENCH_INSTANCES", "3")),
                    help="perturbed copies of the database to grade on as well (0 = the real data only)")
    ap.add_argument("--seed", type=int, default=perturb.DEFAULT_SEED)
    args = ap.parse_args(argv)
    questions = load_questions()
    schemas = ["ma"] + (perturb.build(args.instances, args.seed, verbose=False) if args.instances else [])
    ref = psycopg2.connect(DSN)
    ref.set_session(readonly=True, autocommit=True)
    results, timings = {}, None
    for schema in schemas:
        results[schema], t = run_instance(questions, schema, ref)
        timings = timings or t  # latencies are reported for the real data
    ref.close()
    real = {qid: r["ok"] for qid, r in results["ma"].items()}
    every = {qid: all(results[s][qid]["ok"] for s in schemas) for qid in real}
    exposed = sorted(qid for qid in real if real[qid] and not every[qid])
    report: dict = {"date": time.strftime("%Y-%m-%d"), "questions": len(questions), "instances": schemas}
    lines = ["MapAsk bench (rules interpreter, no model)", "", "execution match on the real data:"]
    lines += accuracy_lines(questions, real, "single_snapshot", report, results["ma"])
    if len(schemas) > 1:
        lines += ["", f"right on all {len(schemas)} instances (real + {len(schemas) - 1} perturbed):"]
        lines += accuracy_lines(questions, every, "all_instances", report, results["ma"])
        lines.append(f"single-snapshot matches exposed by the perturbed copies: {len(exposed)} {exposed[:12]}")
    lines += ["", "questions the data cannot answer (expect: refused; read splits), with MapAsk's status and reason:"]
    for q in questions:
        r = results["ma"][q["id"]]
        if q.get("expect") == "refused" and q["split"] not in UNREAD:
            lines.append(f"  {q['id']:9s} {r['status']:8s} {q['question'][:70]!r} -> {r.get('answer', '')[:110]}")
    unread = [results["ma"][q["id"]] for q in questions if q.get("expect") == "refused" and q["split"] in UNREAD]
    if unread:
        lines.append(f"  unread splits: {sum(r['status'] != 'answered' for r in unread)} of {len(unread)} not answered "
                     f"({sum(r['status'] == 'refused' for r in unread)} refused)")
    rs = list(results["ma"].values())
    n = len(rs)
    shares = {k: sum(r["status"] == k for r in rs) / n for k in ("clarify", "refused", "error")}
    rep_rate = sum(r["repaired"] for r in rs) / n
    report.update({"repair_rate": rep_rate, **{f"{k}_share": v for k, v in shares.items()}, "exposed": exposed})
    lines += ["", f"repair rate {rep_rate:.1%}   " + "   ".join(f"{k} {v:.1%}" for k, v in shares.items()), "",
              "latency per stage on the real data (ms):"]
    report["latency_ms"] = {}
    for st in list(STAGES) + ["non-db", "total"]:
        if timings.get(st):
            report["latency_ms"][st] = {"p50": pct(timings[st], .5), "p95": pct(timings[st], .95)}
            lines.append(f"  {st:10s} p50 {pct(timings[st], .5):8.2f}   p95 {pct(timings[st], .95):8.2f}")
    out = ROOT / "out" / "bench"
    out.mkdir(parents=True, exist_ok=True)
    report["results"] = {s: results[s] for s in schemas}
    report["questions_text"] = {q["id"]: {"question": q["question"], "category": q["category"], "split": q["split"]}
                                for q in questions if q["split"] not in UNREAD}
    (out / "report.json").write_text(json.dumps(report, indent=1, default=str))
    scale = out / "scale.json"
    if scale.exists():  # the 4.4 M-row run is long: `make bench-scale` refreshes it, this prints the latest
        from bench.scale import summary
        lines += ["", f"scale (latest `make bench-scale`, {time.strftime('%Y-%m-%d %H:%M', time.localtime(scale.stat().st_mtime))}):",
                  summary(json.loads(scale.read_text()))]
    lines.append(f"\nfull report: {out / 'report.json'}")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
