"""Coverage-guided fuzzing of the guard with atheris: `python tests/security/fuzz_atheris.py -runs=100000`.

Each input is decoded as UTF-8 (or a mutation seed from the bench's reference SQL is spliced with it); the
guard must return a GuardReport with a known code within 2 s, and an accepted statement must regenerate
to itself, name only the pack's tables and allow-listed functions, and pass the executor's statement check.
No database is needed. libFuzzer options (-runs, -seed, -max_total_time, ...) pass through.
"""
from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

import atheris

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

with atheris.instrument_imports():
    import sqlglot
    from plugin.core.guard import ALLOWED_FUNCTIONS, Guard

from plugin.core.execute import single_statement_problem  # noqa: E402
from plugin.core.pack import load_pack  # noqa: E402

logging.getLogger("sqlglot").setLevel(logging.ERROR)
ROOT = Path(__file__).resolve().parents[2]
PACK = load_pack(ROOT / "knowledge" / "massachusetts")
GUARD = Guard(PACK)
TABLES = {e.table for e in PACK.entities.values()}


def _seeds() -> list[str]:
    import yaml
    return [q["sql"] for q in yaml.safe_load((ROOT / "bench" / "questions.yaml").read_text())]


SEEDS = _seeds()


def one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    mode = fdp.ConsumeIntInRange(0, 2)
    if mode == 0:
        sql = fdp.ConsumeUnicodeNoSurrogates(fdp.remaining_bytes())
    else:
        seed = SEEDS[fdp.ConsumeIntInRange(0, len(SEEDS) - 1)]
        pos = fdp.ConsumeIntInRange(0, len(seed))
        cut = fdp.ConsumeIntInRange(0, 20)
        sql = seed[:pos] + fdp.ConsumeUnicodeNoSurrogates(fdp.remaining_bytes()) + seed[pos + cut:]
    t0 = time.thread_time()
    rep = GUARD.check(sql)
    dt = time.thread_time() - t0
    if dt > 0.5:  # a garbage-collector pause lands on one call; a hang repeats: measure again
        t0 = time.thread_time()
        GUARD.check(sql)
        dt = min(dt, time.thread_time() - t0)
    if dt > 2.0:
        raise AssertionError(f"guard took over 2 s of CPU on {sql[:200]!r}")
    if rep.ok:
        again = sqlglot.parse_one(rep.sql, read="postgres").sql("postgres", pretty=True, comments=False)
        if again != rep.sql:
            raise AssertionError(f"unstable output for {sql[:200]!r}")
        if not set(rep.functions) <= ALLOWED_FUNCTIONS:
            raise AssertionError(f"functions {rep.functions}")
        if not all(t.split(".", 1)[0] == PACK.schema and t.split(".", 1)[1] in TABLES for t in rep.tables):
            raise AssertionError(f"tables {rep.tables}")
        if single_statement_problem(rep.sql):
            raise AssertionError(f"executor check fails on {rep.sql[:200]!r}")
    elif not rep.code or rep.sql:
        raise AssertionError(f"bad refusal report {rep}")


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
