"""Same answers before and after a change: every bench, demo and test question through the pipeline, its status
and its rows (sorted) saved as a baseline, or compared with one.

    .venv/bin/python -m bench.same_results --save out/bench/same_results_baseline.json
    .venv/bin/python -m bench.same_results --compare out/bench/same_results_baseline.json
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import sys
from pathlib import Path

from bench.run import DSN, ROOT, load_questions
from plugin.core.pipeline import Answer, Pipeline

# questions the tests ask in plain text: pipeline.ask("...") or ask(pipeline, "...")
_ASKED = re.compile(r"""\bask\(\s*(?:\w+\s*,\s*)?(["'])((?:(?!\1).){3,300})\1\s*[,)]""")


def demo_questions() -> list[str]:
    """The demo's questions, read from scripts/demo.py without importing it (it starts QGIS)."""
    tree = ast.parse((ROOT / "scripts" / "demo.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "DEMO_QUESTIONS" for t in node.targets):
            return [q for qs in ast.literal_eval(node.value).values() for q in qs]
    return []


def test_questions() -> list[str]:
    """String literals the tests ask the pipeline."""
    found: list[str] = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        found += [m.group(2) for m in _ASKED.finditer(path.read_text())]
    return found


def all_questions() -> list[tuple[str, str]]:
    """(id, question) for the bench, then the demo and test questions not already in it."""
    out = [(q["id"], q["question"]) for q in load_questions()]
    seen = {q for _, q in out}
    for source, qs in (("demo", demo_questions()), ("test", test_questions())):
        for i, q in enumerate(qs):
            if q not in seen:
                seen.add(q)
                out.append((f"{source}-{i:03d}", q))
    return out


def _norm(v: object) -> object:
    return round(v, 9) if isinstance(v, float) else v


def record(a: Answer) -> dict:
    """Status, columns and rows (sorted; geometry only as part of the digest) of one answer."""
    rows = sorted(json.dumps([_norm(x) for x in r], default=str) for r in a.rows)
    geo = a.columns.index(a.geometry_column) if a.geometry_column in a.columns else None
    shown = sorted(json.dumps([_norm(x) for i, x in enumerate(r) if i != geo], default=str) for r in a.rows)
    ordered = [json.dumps([_norm(x) for x in r], default=str) for r in a.rows] if a.order_matters else None
    return {"status": a.status, "columns": sorted(a.columns), "n": len(a.rows),
            "rows_digest": hashlib.sha256("\n".join(rows).encode()).hexdigest()[:16],
            "order_digest": hashlib.sha256("\n".join(ordered).encode()).hexdigest()[:16] if ordered else None,
            "result_hash": a.result_hash, "rows": [json.loads(r) for r in shown[:200]], "sql": a.sql,
            "answer": a.answer}


def run(dsn: str) -> dict[str, dict]:
    pipe = Pipeline(ROOT / "knowledge" / "massachusetts", dsn)
    out = {}
    for qid, q in all_questions():
        out[qid] = {"question": q, **record(pipe.ask(q))}
    pipe.executor.close()
    return out


def compare(base: dict[str, dict], now: dict[str, dict]) -> dict:
    """Counts of questions with the same status and rows, and the ids of those that differ."""
    keys = ("status", "columns", "n", "rows_digest", "order_digest", "result_hash")
    differ = sorted(q for q in base if q not in now or any(base[q][k] != now[q][k] for k in keys))

    def same(k: str) -> int:
        return sum(q in now and base[q][k] == now[q][k] for q in base)
    return {"questions": len(base), "answered": sum(base[q]["status"] == "answered" for q in base),
            "same_status": same("status"), "same_rows": same("rows_digest"), "same_order": same("order_digest"),
            "same_result_hash": same("result_hash"),
            "same_sql": same("sql"), "same_answer_text": same("answer"), "differ": differ}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--save", type=Path, help="write the answers here as the baseline")
    ap.add_argument("--compare", type=Path, help="compare the answers with this baseline")
    args = ap.parse_args(argv)
    now = run(os.environ.get("MAPASK_DSN", DSN))
    if args.save:
        args.save.parent.mkdir(parents=True, exist_ok=True)
        args.save.write_text(json.dumps(now, indent=1, default=str))
        print(f"{len(now)} questions ({sum(r['status'] == 'answered' for r in now.values())} answered) -> {args.save}")
    if args.compare:
        c = compare(json.loads(args.compare.read_text()), now)
        print(json.dumps(c, indent=1))
        for q in c["differ"][:20]:
            print(q, now.get(q, {}).get("question"), now.get(q, {}).get("status"))
        return 1 if c["differ"] else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
