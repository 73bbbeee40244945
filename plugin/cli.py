"""Headless MapAsk: `mapask ask "QUESTION"`, `mapask check`, the same pipeline as the dock."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DSN = "host=127.0.0.1 port=55432 dbname=mapask user=mapask_reader password=mapask_reader"
DEFAULT_PACK = ROOT / "knowledge" / "massachusetts"
DEFAULT_AUDIT = ROOT / "var" / "audit.jsonl"  # also where Processing's mapask:ask and mapask:askfile append


def append_audit(path: Path, entry: dict) -> None:
    """Append one audit entry as a JSON line (the CLI's and Processing's audit file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry, default=str) + "\n")


def _table(columns: list[str], rows: list[list], limit: int = 25) -> str:
    cells = [[str(c) for c in columns]] + [["" if v is None else str(v) for v in r] for r in rows[:limit]]
    widths = [min(40, max(len(r[i]) for r in cells)) for i in range(len(columns))]
    lines = ["  ".join(v[:40].ljust(w) for v, w in zip(r, widths)) for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    if len(rows) > limit:
        lines.append(f"... {len(rows) - limit} more rows")
    return "\n".join(lines)


def cmd_ask(args) -> int:
    from .core.pipeline import Pipeline
    audit_path = Path(args.audit) if args.audit else None

    def record(entry: dict) -> None:
        if audit_path:
            append_audit(audit_path, entry)
    from .core.interpret_model import ModelError, backend_from_setting
    try:
        model = backend_from_setting(args.model)
    except ModelError as e:
        print(f"model: {e}; answering with the rules interpreter only", file=sys.stderr)
        model = None
    pipe = Pipeline(args.pack, args.dsn, audit=record, model=model, judge=not args.no_judge, max_cost=args.max_cost)
    a = pipe.ask(args.question, choose=args.choose)
    if args.json:
        print(json.dumps(a.public(), default=str))
    else:
        if a.readback.get("text") and a.status == "answered":
            print(a.readback["text"])
        print(a.answer)
        pub = a.public()
        if pub["rows"]:
            print()
            print(_table(pub["columns"], pub["rows"]))
        if a.confidence is not None:
            print(f"\nconfidence {a.confidence:.2f}" + "".join(f"\n  - {r}" for r in a.reasons))
        print("\nframe:", json.dumps(a.frame, default=str))
        for r in a.repairs:
            print(f"repair {r['code']} at {r['path']}: {r['before']!r} -> {r['after']!r} ({r['reason']})")
        if a.sql:
            print("\n" + a.sql)
    if args.export:  # after the answer, so a failed export still shows it
        from .qgis.export import ExportError, export_cli  # QGIS is only needed for exports
        try:
            print(f"exported {export_cli(args.export, a, pipe)}", file=sys.stderr)
        except ExportError as e:
            print(f"mapask: {e}", file=sys.stderr)
            return 2
    return 0 if a.status in ("answered", "clarify", "refused") else 1


def cmd_check(args) -> int:
    import psycopg2
    from .core.pack import load_pack
    from .core.pack_check import check_pack, write_codes
    conn = psycopg2.connect(args.dsn)
    try:
        if args.write_codes:
            print(f"wrote {write_codes(args.pack, conn)}")
        rep = check_pack(load_pack(args.pack), conn)
    finally:
        conn.close()
    print(rep.text())
    return 0 if rep.ok else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="mapask", description=__doc__)
    ap.add_argument("--dsn", default=os.environ.get("MAPASK_DSN", DEFAULT_DSN))
    ap.add_argument("--pack", default=os.environ.get("MAPASK_PACK", str(DEFAULT_PACK)))
    ap.add_argument("--model", default=os.environ.get("MAPASK_MODEL", "none"),
                    help="none, a GGUF file path, or an OpenAI-compatible server URL")
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("ask", help="answer one question")
    a.add_argument("question")
    a.add_argument("--json", action="store_true", help="print exactly one JSON object")
    a.add_argument("--choose", type=int, metavar="N", help="after an ask-back, answer with reading N (1 = the "
                   "reading MapAsk offered); the choice is recorded in the audit entry")
    a.add_argument("--audit", default=str(DEFAULT_AUDIT), help="append the audit entry here")
    a.add_argument("--no-judge", action="store_true", help="with --model: do not let the model judge the answer")
    a.add_argument("--max-cost", type=float, metavar="COST", help="refuse the query when the planner's EXPLAIN "
                   "estimate is over COST (default: no cost gate)")
    a.add_argument("--export", metavar="PATH", help="also write the answer to PATH: .gpkg (layers + provenance "
                   "table), .csv (+ .provenance.json) or .png (map)")
    c = sub.add_parser("check", help="check the knowledge pack against the database")
    c.add_argument("--write-codes", action="store_true", help="draft codes.yaml from the data first")
    args = ap.parse_args(argv)
    return {"ask": cmd_ask, "check": cmd_check}[args.cmd](args)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # '| head' closed the pipe: the answer was read, nothing failed
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
