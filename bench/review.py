"""Review the development question set: structure, reference SQL, row counts, raw-file cross-checks.

    python -m bench.review                 # check everything against schema ma
    python -m bench.review --write-rows    # also store each reviewed row count in questions.yaml
    python -m bench.review --schema ma_p1  # run the references on a perturbed copy (no raw checks)
    python -m bench.review --only C7-004 --show

Reference queries run as the read-only role (MAPASK_DSN) inside a READ ONLY transaction.
Every result is graded (bench/grade.py) against an independent Python computation from the raw
files (bench/rawcheck.py). Exit status 0 only when every check passes.
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections import Counter
from pathlib import Path

import psycopg2
import sqlglot
import yaml
from sqlglot import exp

from bench.grade import grade

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "questions.yaml"
DEFAULT_DSN = "host=127.0.0.1 port=55432 dbname=mapask user=mapask_reader password=mapask_reader"
CATEGORIES = [f"C{i}" for i in range(1, 11)] + ["MAP"]
FIELDS = {"id", "category", "split", "question", "sql", "order_matters", "rows", "notes"}
OPTIONAL = {"paraphrase_of"}


def load(path: Path = QUESTIONS) -> list[dict]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def for_schema(sql: str, schema: str) -> str:
    """Point a reference query at another copy of the schema (ma -> ma_pK)."""
    return sql if schema == "ma" else re.sub(r"\bma\.", schema + ".", sql)


def structure_problems(qs: list[dict]) -> list[str]:
    out = []
    ids = [q.get("id") for q in qs]
    for i, n in Counter(ids).items():
        if n > 1:
            out.append(f"duplicate id {i}")
    by_id = {q["id"]: q for q in qs}
    for q in qs:
        qid = q.get("id")
        missing = FIELDS - set(q)
        extra = set(q) - FIELDS - OPTIONAL
        if missing or extra:
            out.append(f"{qid}: missing {sorted(missing)} extra {sorted(extra)}")
            continue
        if q["category"] not in CATEGORIES or not qid.startswith(q["category"] + "-"):
            out.append(f"{qid}: bad category {q['category']}")
        if q["split"] not in ("tune", "held"):
            out.append(f"{qid}: bad split {q['split']}")
        if not isinstance(q["order_matters"], bool) or not isinstance(q["rows"], int):
            out.append(f"{qid}: order_matters must be a bool and rows an int")
        if "\n" in q["notes"].strip():
            out.append(f"{qid}: notes must be one line")
        if q["question"] != q["question"].strip():
            out.append(f"{qid}: question has surrounding spaces")
        try:
            trees = sqlglot.parse(q["sql"], read="postgres")
        except sqlglot.errors.ParseError as exc:
            out.append(f"{qid}: sqlglot cannot parse the reference: {exc}")
            continue
        if len(trees) != 1 or not isinstance(trees[0], exp.Query):
            out.append(f"{qid}: the reference must be one SELECT statement")
            continue
        ctes = {c.alias_or_name for c in trees[0].find_all(exp.CTE)}
        bad = {t.sql() for t in trees[0].find_all(exp.Table) if t.db != "ma" and t.name not in ctes}
        if bad:
            out.append(f"{qid}: tables must all be written ma.<table> (found {sorted(bad)})")
        p = q.get("paraphrase_of")
        if p is not None:
            if p not in by_id:
                out.append(f"{qid}: paraphrase_of {p} does not exist")
            elif by_id[p]["split"] != q["split"] or by_id[p]["category"] != q["category"]:
                out.append(f"{qid}: paraphrase of {p} must share its category and split")
    cats = Counter(q["category"] for q in qs)
    for c in CATEGORIES:
        if cats[c] < 15:
            out.append(f"category {c}: {cats[c]} questions, at least 15 needed")
        splits = {q["split"] for q in qs if q["category"] == c}
        if splits != {"tune", "held"}:
            out.append(f"category {c}: needs both splits, has {sorted(splits)}")
    if len(qs) < 200:
        out.append(f"{len(qs)} questions, at least 200 needed")
    return out


def run_sql(conn, sql: str):
    with conn.cursor() as cur:
        cur.execute(sql)
        cols = [d[0] for d in cur.description]
        return cols, cur.fetchall()


def write_rows(path: Path, counts: dict[str, int]) -> int:
    """Rewrite the `rows:` line of each entry in place (keeps the file's layout and comments)."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    current, changed = None, 0
    for i, line in enumerate(lines):
        m = re.match(r"^- id: (\S+)", line)
        if m:
            current = m.group(1)
            continue
        m = re.match(r"^(\s+rows: )(\d+)\s*$", line)
        if m and current in counts and int(m.group(2)) != counts[current]:
            lines[i] = f"{m.group(1)}{counts[current]}\n"
            changed += 1
    path.write_text("".join(lines), encoding="utf-8")
    return changed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dsn", default=os.environ.get("MAPASK_DSN", DEFAULT_DSN))
    ap.add_argument("--schema", default="ma")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--no-raw", action="store_true", help="skip the raw-file cross-checks")
    ap.add_argument("--write-rows", action="store_true")
    ap.add_argument("--show", action="store_true", help="print each result")
    args = ap.parse_args(argv)

    qs = load()
    problems = structure_problems(qs)
    for p in problems:
        print("STRUCTURE", p)
    if args.only:
        qs = [q for q in qs if q["id"] in set(args.only)]

    checks = {}
    if not args.no_raw and args.schema == "ma":
        from bench.rawcheck import CHECKS
        checks = CHECKS

    conn = psycopg2.connect(args.dsn)
    conn.set_session(readonly=True, autocommit=False)
    with conn.cursor() as cur:
        cur.execute("SET statement_timeout = '60s'")
    failures, counts, results, slow = [], {}, {}, []
    for q in qs:
        t0 = time.perf_counter()
        try:
            cols, rows = run_sql(conn, for_schema(q["sql"], args.schema))
        except psycopg2.Error as exc:
            conn.rollback()
            failures.append(f"{q['id']}: SQL error: {str(exc).strip().splitlines()[0]}")
            continue
        ms = (time.perf_counter() - t0) * 1000
        slow.append((ms, q["id"]))
        counts[q["id"]] = len(rows)
        results[q["id"]] = (cols, rows)
        if args.show:
            print(f"{q['id']} ({len(rows)} rows, {ms:.0f} ms): {q['question']}")
            for r in rows[:15]:
                print("    ", r)
        if args.schema == "ma" and not args.write_rows and len(rows) != q["rows"]:
            failures.append(f"{q['id']}: {len(rows)} rows, questions.yaml says {q['rows']}")
        if q["order_matters"] and args.schema == "ma" and "order by" not in q["sql"].lower():
            failures.append(f"{q['id']}: order_matters but the reference has no ORDER BY")
        if checks:
            fn = checks.get(q["id"])
            if fn is None:
                failures.append(f"{q['id']}: no raw-file check")
            else:
                rcols, rrows = fn()
                ok, why = grade(cols, rows, rcols, rrows, q["order_matters"])
                ok2, why2 = grade(rcols, rrows, cols, rows, q["order_matters"])
                if not (ok and ok2):
                    failures.append(f"{q['id']}: raw check disagrees: {why if not ok else why2}\n"
                                    f"      sql: {rows[:8]}\n      raw: {list(rrows)[:8]}")
    conn.rollback()
    conn.close()

    # paraphrases must give the same answer as the question they repeat
    for q in qs:
        p = q.get("paraphrase_of")
        if p in results and q["id"] in results:
            a, b = results[q["id"]], results[p]
            ok, why = grade(a[0], a[1], b[0], b[1], q["order_matters"])
            if not ok:
                failures.append(f"{q['id']}: paraphrase of {p} but the answers differ: {why}")

    if args.write_rows and args.schema == "ma":
        print(f"rows updated in {write_rows(QUESTIONS, counts)} entries")
    for f in failures:
        print("FAIL", f)
    slow.sort(reverse=True)
    print(f"{len(qs)} questions, {len(qs) - len(failures)} clean; structure problems: {len(problems)}; "
          f"slowest: " + ", ".join(f"{i} {ms:.0f} ms" for ms, i in slow[:3]))
    return 1 if failures or problems else 0


if __name__ == "__main__":
    sys.exit(main())
