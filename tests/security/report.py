"""Print the security suite's figures: `.venv/bin/python -m tests.security.report [--quick] [--no-raw]`.

Hostile SQL per family (guard refusals, database errors, inert runs, failures), hostile questions per family
(statuses, audit entries), the database checks before/after, positive controls, the peer suites (other projects'
own SQL-checker tests, per origin), the statements on which sqlglot's reading and PostgreSQL's parser disagreed, the
EXPLAIN property (planned relations == checked relations), benign false refusals,
instructions planted in data (without and with a model judge, scripted and the real SmolLM2 GGUF), and what the reader role alone lets through. Exit status 1 on any failure.
"""
from __future__ import annotations

import argparse
import sys
import time

from .common import load_pack
from .suite import (control_read_shows, judge_failures, run_adversarial, run_benign, run_hostile_data,
                    run_hostile_model, run_peer_suite, run_raw_role)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer mutations per base statement")
    ap.add_argument("--no-raw", action="store_true", help="skip the role-only run (it sends hostile SQL unguarded)")
    args = ap.parse_args(argv)
    pack = load_pack()
    t0 = time.time()
    failures = 0
    print(f"MapAsk security report (pack {pack.id} {pack.version}, schema {pack.schema})\n")

    res = run_adversarial(pack, per_base=2 if args.quick else 5)
    print("\n".join(res.lines))
    failures += sum(not o.ok for o in res.sql) + sum(not o.ok for o in res.questions) + len(res.problems)
    for o in [o for o in res.sql if not o.ok][:10]:
        print(f"  FAIL sql {o.case.family}/{o.case.mutation}: {o.result} {o.code}: {ascii(o.case.text[:120])}")
    for o in [o for o in res.questions if not o.ok][:10]:
        print(f"  FAIL question {o.case.family}: {o.status} audited={o.audited}: {ascii(o.case.text[:120])}")

    counted, refused = control_read_shows(pack)
    print(f"\nPositive controls: a direct read of mapask_canary.control by the reader shows in its scan counters "
          f"and its tripwire names the reading session: {counted}; the guard refuses that read: {refused}")
    failures += (not counted) + (not refused)

    fig, lines = run_peer_suite(pack, per_base=2 if args.quick else 5)
    print("\n" + "\n".join(lines))
    failures += len(fig["false_accepts"]) + len(fig["db_problems"]) + sum(c.broken for c in fig["plans"])

    fig, lines = run_benign(pack)
    print("\n" + "\n".join(lines))
    failures += fig["share"] > 0.02

    fig, lines = run_hostile_data(pack)
    print("\n" + "\n".join(lines))
    failures += len(fig["failed"]) + len(fig["problems"]) + judge_failures(fig)

    fig, lines = run_hostile_model(pack)
    print("\n" + "\n".join(lines))
    failures += len(fig["failed"]) + len(fig["problems"])

    if not args.no_raw:
        fig, lines = run_raw_role(pack)
        print("\n" + "\n".join(lines))
        if fig["pack_writes"]:
            failures += 1
        if fig["large_objects"]:
            print("  -> the role can write large objects although it is read-only: as the database owner run\n"
                  "     REVOKE EXECUTE ON FUNCTION lo_create(oid), lo_creat(integer), lo_from_bytea(oid, bytea),\n"
                  "       lo_import(text), lo_import(text, oid), lo_put(oid, bigint, bytea), lo_unlink(oid) FROM PUBLIC;")
    print(f"\n{'FAILURES: ' + str(failures) if failures else 'all checks passed'} ({time.time() - t0:.0f} s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
