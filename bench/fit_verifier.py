"""Fit the verifier's weights (logistic regression over plugin/core/verify.py's features) on the development
splits' right/wrong labels, choose the ask-back threshold, and write both into the pack's conventions.

    .venv/bin/python -m bench.fit_verifier            # fit on every split but the unread ones, write the pack
    .venv/bin/python -m bench.fit_verifier --dry-run  # print only

The read parts of the splits as first measured (bench/verifier_history.json, written by bench/first_measured.py)
are fitted on too, each answer weighted FIRST_WEIGHT. The unread splits (bench.run.UNREAD) are never fitted on:
their ROC-AUC and reliability are the honest figures.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import re

import psycopg2

from bench.grade import grade, grade_sides, round_like_reference
from bench.run import DSN, ROOT, UNREAD, load_questions, roc_auc
from plugin.core.pipeline import Pipeline

PACK = ROOT / "knowledge" / "massachusetts"
WRONG_COST = 5.0
# an answer as first measured, before its split was read (bench/first_measured.py), counts this many times: the
# unseen questions the verifier must judge look like these more than like the read ones since fixed
FIRST_WEIGHT = 3.0


def collect(questions: list[dict]) -> list[dict]:
    """Ask every question with the threshold off; keep each answered one's features and whether it was right."""
    pipe = Pipeline(PACK, DSN, ask_below=None)
    pipe.annotator()
    ref = psycopg2.connect(DSN)
    ref.set_session(readonly=True, autocommit=True)
    out = []
    for q in questions:
        a = pipe.ask(q["question"])
        ok = False
        if a.status == "answered" and q.get("sql"):
            with ref.cursor() as cur:
                cur.execute(q["sql"])
                rcols, rrows = [d.name for d in cur.description], cur.fetchall()
            keep = [i for i, c in enumerate(a.columns) if c != a.geometry_column]
            pc = [a.columns[i] for i in keep]
            pr = round_like_reference([[r[i] for i in keep] for r in a.rows], rrows)
            ok = grade(pc, pr, rcols, [list(r) for r in rrows], bool(q.get("order_matters")))[0] or (
                q["category"] == "C9" and grade_sides(pc, pr, rcols, [list(r) for r in rrows])[0])
        out.append({"id": q["id"], "split": q["split"], "status": a.status, "ok": ok, "expect": q.get("expect"),
                    "x": {f["name"]: f["value"] for f in a.features}, "confidence": a.confidence})
    ref.close()
    pipe.executor.close()
    return out


def fit(rows: list[dict]) -> tuple[list[str], list[float], float]:
    """Names, weights and bias of an L2-regularised logistic regression on the answered rows."""
    from sklearn.linear_model import LogisticRegression
    names = sorted({k for r in rows for k in r["x"]})
    X = [[r["x"].get(n, 0.0) for n in names] for r in rows]
    y = [int(r["ok"]) for r in rows]
    model = LogisticRegression(C=0.5, max_iter=5000).fit(X, y, sample_weight=[r.get("weight", 1.0) for r in rows])
    return names, [round(float(w), 4) for w in model.coef_[0]], round(float(model.intercept_[0]), 4)


def confidence(x: dict, names: list[str], w: list[float], b: float) -> float:
    import math
    z = b + sum(wi * x.get(n, 0.0) for n, wi in zip(names, w))
    return 1 / (1 + math.exp(-max(-30, min(30, z))))


def choose_threshold(rows: list[dict]) -> float:
    """The threshold with the best utility on out-of-fold confidences: a right answer gains 1, a wrong one costs
    WRONG_COST (a confident wrong number does more harm than a question asked back)."""
    best, best_gain = 0.0, float("-inf")
    for t in [i / 100 for i in range(5, 96)]:
        kept = [r["ok"] for r in rows if r["c"] >= t]
        gain = sum(kept) - WRONG_COST * (len(kept) - sum(kept))
        if gain > best_gain:
            best, best_gain = t, gain
    return best


def out_of_fold(train: list[dict], k: int = 5) -> list[float]:
    """Each answer's confidence from weights fitted without it (k folds by a hash of the id): the threshold is
    chosen on these, since confidences on the answers a model was fitted on are too kind to it."""
    import hashlib
    fold = [int(hashlib.sha1(r["id"].encode()).hexdigest(), 16) % k for r in train]
    out = [0.0] * len(train)
    for j in range(k):
        names, w, b = fit([r for r, f in zip(train, fold) if f != j])
        for i, r in enumerate(train):
            if fold[i] == j:
                out[i] = confidence(r["x"], names, w, b)
    return out


def reliability(rows: list[dict], bins: int = 5) -> list[str]:
    lines = []
    for i in range(bins):
        lo, hi = i / bins, (i + 1) / bins
        sel = [r["ok"] for r in rows if lo <= r["c"] < hi or (i == bins - 1 and r["c"] == 1.0)]
        lines.append(f"    {lo:.1f}-{hi:.1f}: {len(sel):4d} answers, {sum(sel) / len(sel):6.1%} right" if sel else
                     f"    {lo:.1f}-{hi:.1f}:    0 answers")
    return lines


def first_measured() -> list[dict]:
    """The answered questions of bench/verifier_history.json (read parts as first measured), weighted."""
    from bench.first_measured import HISTORY
    rows = json.loads(HISTORY.read_text()) if HISTORY.exists() else []
    return [dict(r, split=f"{r['split']}@first", weight=FIRST_WEIGHT) for r in rows  # (same id: same fold)
            if r["status"] == "answered" and r["split"] not in UNREAD]


def write_pack(names: list[str], w: list[float], b: float, t: float, n: int, splits: list[str]) -> None:
    """Replace the `verifier:` block of conventions.yaml (its last block) with the fitted one."""
    path = PACK / "conventions.yaml"
    text = path.read_text(encoding="utf-8")
    block = (f"  verifier:\n    source: \"fitted {dt.date.today()} by `.venv/bin/python -m bench.fit_verifier` "
             f"(logistic regression, C=0.5) on {n} answered questions of {', '.join(splits)}\"\n"
             f"    threshold: {t}\n    bias: {b}\n    weights:\n" +
             "".join(f"      {nm}: {wi}\n" for nm, wi in zip(names, w) if wi))
    text = re.sub(r"  verifier:\n(?:    .*\n|      .*\n)*", block, text)
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args(argv)
    rows = collect(load_questions())
    answered = [r for r in rows if r["status"] == "answered"]
    train = [r for r in answered if r["split"] not in UNREAD and not r["expect"]]
    train += [r for r in answered if r["split"] not in UNREAD and r["expect"]]  # an answer to these is wrong
    train += first_measured()
    names, w, b = fit(train)
    for r in answered + train:
        r["c"] = confidence(r["x"], names, w, b)
    oof = [dict(r, c=c) for r, c in zip(train, out_of_fold(train))]
    t = choose_threshold(oof)
    print(f"cross-validated on the fitted splits (5 folds): ROC-AUC "
          f"{roc_auc([r['c'] for r in oof], [r['ok'] for r in oof]):.3f}; threshold chosen on these: {t}")
    held = [r for r in answered if r["split"] in UNREAD]
    for label, part in (("fitted on", train), ("not fitted on (unread)", held)):
        auc = roc_auc([r["c"] for r in part], [r["ok"] for r in part])
        above = [r for r in part if r["c"] >= t]
        prec = sum(r["ok"] for r in above) / len(above) if above else float("nan")
        print(f"{label}: {len(part)} answers, ROC-AUC {auc:.3f}; at threshold {t}: {len(above)} answered "
              f"({len(above) / max(1, len(part)):.0%}), precision {prec:.1%}")
        print("\n".join(reliability(part)))
    print("weights:", ", ".join(f"{n} {x:+.2f}" for n, x in sorted(zip(names, w), key=lambda p: -abs(p[1])) if x))
    if not args.dry_run:
        write_pack(names, w, b, t, len(train), sorted({r["split"] for r in train}))
        print(f"wrote {PACK / 'conventions.yaml'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
