"""Another process using the same database while `make security` runs: it asks the bench's questions through the
pipeline and, between them, reads the canary tables directly as the reader role (as an operator's pg_dump or a
second test run might). Those reads are not the security run's and must not be blamed on it.

    .venv/bin/python -m tests.security.neighbour --seconds 600
"""
from __future__ import annotations

import argparse
import logging
import random
import sys
import time

from .common import READER_DSN, load_pack
from .dbprobe import CANARY_TABLES


def main(argv: list[str] | None = None) -> int:
    import psycopg2
    from plugin.core.pipeline import Pipeline
    from .suite import bench_questions
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--canary-every", type=int, default=5, help="read the canaries after every N questions")
    args = ap.parse_args(argv)
    logging.getLogger("sqlglot").setLevel(logging.ERROR)
    pipe = Pipeline(load_pack(), READER_DSN)
    questions = [x["question"] for x in bench_questions()]
    rng = random.Random(7)
    asked = answered = canary_reads = 0
    pids: set[int] = set()
    end = time.time() + args.seconds
    try:
        while time.time() < end:
            a = pipe.ask(rng.choice(questions))
            asked += 1
            answered += a.status == "answered"
            if asked % args.canary_every:
                continue
            try:  # the canaries exist only while a security run has them set up
                with psycopg2.connect(READER_DSN, application_name="mapask_neighbour") as conn, conn.cursor() as cur:
                    for t in CANARY_TABLES:
                        cur.execute(f"SELECT count(*) FROM {t}")
                    canary_reads += len(CANARY_TABLES)
                    pids.add(conn.info.backend_pid)
                conn.close()
            except psycopg2.Error:
                pass
    finally:
        pipe.executor.close()
    print(f"neighbour: {asked} questions asked ({answered} answered) by session(s) {sorted(pipe.executor.backend_pids)}; "
          f"{canary_reads} direct canary reads from {len(pids)} short sessions (while canaries existed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
