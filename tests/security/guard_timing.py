"""Guard latency on benign SQL, with and without PostgreSQL's parser as a second opinion (no timed test: a report).

    .venv/bin/python tests/security/guard_timing.py [--repeat 5] [--compiled]

Times Guard.check on the bench's reviewed reference SQL, on the peer suites' accepted statements and (--compiled, with
the database up: MAPASK_DSN) on the SQL the pipeline compiles for the bench's questions (CPU time of this process,
median of `--repeat` passes per statement). Runs against whichever `plugin` package is importable, so
the same script times an older checkout: PYTHONPATH=<old checkout> python tests/security/guard_timing.py --root .
"""
from __future__ import annotations

import argparse
import logging
import statistics
import sys
import time
from pathlib import Path

import yaml


def corpora(root: Path) -> dict[str, list[str]]:
    ref = [x["sql"] for f in sorted((root / "bench").glob("*questions*.yaml"))
           for x in yaml.safe_load(f.read_text()) or [] if isinstance(x, dict) and x.get("sql")]
    peers = []
    for f in sorted((root / "tests" / "security" / "peers").glob("*.yaml")):
        for c in yaml.safe_load(f.read_text())["cases"]:
            peers += [c[k] for k, e in (("sql", "expect"), ("onto", "expect_onto")) if c.get(e) == "accept"]
    return {"bench reference SQL": ref, "peer statements (accept)": peers}


def timings(guard, sqls: list[str], repeat: int) -> list[float]:
    out = []
    for sql in sqls:
        runs = []
        for _ in range(repeat):
            t0 = time.thread_time()
            guard.check(sql)
            runs.append((time.thread_time() - t0) * 1000)
        out.append(statistics.median(runs))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[2]))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--compiled", action="store_true", help="also the pipeline's SQL for bench/questions.yaml")
    args = ap.parse_args(argv)
    root = Path(args.root)
    sys.path.insert(0, str(root)) if "plugin" not in sys.modules and not any(
        (Path(p) / "plugin").is_dir() for p in sys.path[1:]) else None
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    from plugin.core.guard import Guard
    from plugin.core.pack import load_pack
    pack = load_pack(root / "knowledge" / "massachusetts")
    try:
        guards = {"guard + second opinion": Guard(pack), "guard alone": Guard(pack, second_opinion=False)}
    except TypeError:  # a checkout from before the second opinion
        guards = {"guard (no second opinion yet)": Guard(pack)}
    for g in guards.values():
        g.check("SELECT 1")  # warm-up: the allow-list's reading through sqlglot is built once per process
    print(f"Guard.check CPU time per statement (ms, median of {args.repeat} passes), {sys.modules['plugin'].__file__}")
    sets = corpora(root)
    if args.compiled:
        import os
        from plugin.core.pipeline import Pipeline
        pipe = Pipeline(pack, os.environ["MAPASK_DSN"])
        qs = yaml.safe_load((root / "bench" / "questions.yaml").read_text())
        sets["pipeline's compiled SQL"] = [a.sql for a in (pipe.ask(x["question"]) for x in qs) if a.sql]
        pipe.executor.close()
    for name, sqls in sets.items():
        for label, g in guards.items():
            ms = sorted(timings(g, sqls, args.repeat))
            print(f"  {name:28s} n={len(sqls):4d}  {label:30s} p50 {ms[len(ms) // 2]:6.2f}  "
                  f"p95 {ms[int(len(ms) * 0.95)]:6.2f}  max {ms[-1]:6.2f}  mean {statistics.mean(ms):6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
