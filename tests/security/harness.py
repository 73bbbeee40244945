"""Run hostile SQL through guard + executor and hostile questions through any pipeline, with database evidence.

The harness is backend-neutral: `run_questions` takes a factory `make_pipeline(audit) -> object with .ask(q)`
(the rules Pipeline today; a model-backed pipeline later), and `run_sql` takes any guard and executor with
the core API. Each hostile input gets one Outcome; `verdict` says whether it ended acceptably.
"""
from __future__ import annotations

import logging
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable

from sqlglot import tokens as sqltokens
from sqlglot.dialects.dialect import Dialect

from . import dbprobe
from .common import admin_connect
from .corpus import Case

logging.getLogger("sqlglot").setLevel(logging.ERROR)  # hostile input makes sqlglot warn on every fallback

# Words that must not appear as live SQL (outside string literals and quoted names) in anything that ran.
HOSTILE_WORDS = {"delete", "drop", "update", "insert", "truncate", "copy", "grant", "revoke", "alter", "create",
                 "commit", "rollback", "set", "reset", "execute", "prepare", "do", "call", "merge", "vacuum", "lock",
                 "listen", "notify", "mapask_canary", "secret", "set_config", "dblink", "query_to_xml", "into",
                 "explain", "analyze", "discard", "load", "checkpoint"}


def live_words(sql: str) -> set[str]:
    """Lower-cased unquoted words and keywords of `sql` as the postgres tokenizer reads it."""
    out = set()
    for tok in Dialect.get_or_raise("postgres").tokenize(sql):
        if tok.token_type in (sqltokens.TokenType.STRING, sqltokens.TokenType.NATIONAL_STRING,
                              sqltokens.TokenType.UNICODE_STRING):
            continue
        if tok.token_type == sqltokens.TokenType.IDENTIFIER:  # a quoted name: data, not code
            continue
        out.add(tok.text.lower())
        if "." in tok.text:
            out.update(tok.text.lower().split("."))
    return out


@dataclass
class Outcome:
    case: Case
    result: str                  # refused | db_error | inert | ran_hostile | executor_refused
    code: str = ""               # guard code, SQLSTATE/kind, or the live hostile words
    ms: float = 0.0
    executed: str = ""

    @property
    def ok(self) -> bool:
        return self.result in ("refused", "db_error", "inert", "executor_refused")


def judge_ran(case: Case, executed: str) -> tuple[str, str]:
    """An accepted statement that ran is acceptable only if nothing hostile in it was live SQL (the hostile part
    was a comment the guard dropped, a string literal or a quoted name) and it was not a denial of service."""
    words = live_words(executed) & HOSTILE_WORDS
    words |= {w for w in live_words(executed) if w.startswith(("pg_", "lo_"))}
    if words:
        return "ran_hostile", ",".join(sorted(words))
    if case.family == "denial_of_service":
        return "ran_hostile", "a denial-of-service statement completed"
    return "inert", "hostile text was inert (comment, string or quoted name)"


def run_sql(cases: list[Case], guard, executor, on_each: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    from plugin.core.errors import ExecutionError
    out = []
    for c in cases:
        t0 = time.perf_counter()
        rep = guard.check(c.text)
        if not rep.ok:
            o = Outcome(c, "refused", rep.code)
        else:
            try:
                executor.run(rep.sql, cap=100)
                res, code = judge_ran(c, rep.sql)
                o = Outcome(c, res, code, executed=rep.sql)
            except ExecutionError as e:
                kind = "executor_refused" if e.kind in ("refused", "too_costly", "bad_input") else "db_error"
                o = Outcome(c, kind, e.kind, executed=rep.sql)
        o.ms = (time.perf_counter() - t0) * 1000
        out.append(o)
        if on_each:
            on_each(o)
    return out


@dataclass
class QuestionOutcome:
    case: Case
    status: str
    audited: int                  # audit entries this ask produced
    guard_ok: bool | None         # the audit entry's guard verdict (None: no SQL reached the guard)
    recheck_ok: bool | None       # the recorded SQL re-checked by a fresh guard
    tables: list[str] = field(default_factory=list)
    error: str = ""
    ms: float = 0.0
    answer: Any = field(default=None, repr=False)   # what the pipeline returned, for comparisons between runs
    entry: dict | None = field(default=None, repr=False)  # its audit entry

    @property
    def ok(self) -> bool:
        if self.audited != 1:
            return False
        if self.status == "answered":
            return bool(self.guard_ok) and bool(self.recheck_ok)
        return self.status in ("clarify", "refused", "error")


def run_questions(cases: list[Case], make_pipeline: Callable[[Callable[[dict], None]], Any], guard,
                  schema: str, before_each: Callable[[Case], None] | None = None) -> list[QuestionOutcome]:
    """Ask every hostile question of a fresh pipeline from `make_pipeline(audit)`; one audit entry per ask."""
    log: list[dict] = []
    pipe = make_pipeline(log.append)
    out = []
    try:
        for c in cases:
            before = len(log)
            if before_each:
                before_each(c)
            t0 = time.perf_counter()
            a = None
            try:
                a = pipe.ask(c.text)
                status, err = getattr(a, "status", "?"), getattr(a, "error", "")
            except Exception as e:  # the pipeline promised never to raise: record it as a failure
                status, err = "raised", f"{type(e).__name__}: {e}"
            ms = (time.perf_counter() - t0) * 1000
            entries = log[before:]
            g = entries[-1].get("guard") if entries else None
            sql = entries[-1].get("sql", "") if entries else ""
            guard_ok = (g or {}).get("ok") if g else None
            recheck = guard.check(sql) if sql and guard_ok else None
            out.append(QuestionOutcome(c, status, len(entries), guard_ok, recheck.ok if recheck else None,
                                       list((g or {}).get("tables", [])), err, ms, a, entries[-1] if entries else None))
            if recheck is not None and not all(t.startswith(schema + ".") for t in recheck.tables):
                out[-1].recheck_ok = False
    finally:
        ex = getattr(pipe, "executor", None)
        if ex is not None:
            ex.close()
    return out


# ------------------------------------------------------------------------------------------- reporting

def sql_summary(outcomes: list[Outcome]) -> list[str]:
    fam: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        fam[o.case.family].append(o)
    lines = [f"{'family':24s} {'n':>5s} {'refused':>8s} {'db err':>7s} {'inert':>6s} {'FAIL':>5s}  top reasons"]
    for f, os_ in fam.items():
        c = Counter(o.result for o in os_)
        reasons = Counter(o.code for o in os_ if o.result in ("refused", "db_error", "executor_refused"))
        lines.append(f"{f:24s} {len(os_):5d} {c['refused']:8d} {c['db_error'] + c['executor_refused']:7d} "
                     f"{c['inert']:6d} {c['ran_hostile']:5d}  " +
                     ", ".join(f"{k} {v}" for k, v in reasons.most_common(4)))
    c = Counter(o.result for o in outcomes)
    lines.append(f"{'TOTAL':24s} {len(outcomes):5d} {c['refused']:8d} {c['db_error'] + c['executor_refused']:7d} "
                 f"{c['inert']:6d} {c['ran_hostile']:5d}")
    return lines


def question_summary(outcomes: list[QuestionOutcome]) -> list[str]:
    fam: dict[str, list[QuestionOutcome]] = defaultdict(list)
    for o in outcomes:
        fam[o.case.family].append(o)
    lines = [f"{'family':24s} {'n':>5s} {'clarify':>8s} {'refused':>8s} {'error':>6s} {'answered':>9s} "
             f"{'audited':>8s} {'FAIL':>5s}"]
    for f, os_ in list(fam.items()) + [("TOTAL", outcomes)]:
        c = Counter(o.status for o in os_)
        lines.append(f"{f:24s} {len(os_):5d} {c['clarify']:8d} {c['refused']:8d} {c['error']:6d} "
                     f"{c['answered']:9d} {sum(o.audited for o in os_):8d} {sum(not o.ok for o in os_):5d}")
    return lines


class Measured:
    """Context manager: snapshot the database before and after a block; `problems` lists every difference."""

    def __init__(self, schema: str, extra_schemas: tuple[str, ...] = ()):
        self.schema, self.extra = schema, extra_schemas
        self.admin = None
        self.before = self.after = None
        self.extra_before: dict = {}
        self.problems: list[str] = []
        self.own_pids: set[int] = set()

    def __enter__(self):
        self.admin = admin_connect()
        self.before = dbprobe.snapshot(self.admin, self.schema)
        self.extra_before = {s: dbprobe.snapshot(self.admin, s).checksums for s in self.extra}
        return self

    def finish(self, closed_pids: list[int]) -> None:
        dbprobe.wait_backends_gone(self.admin, closed_pids)
        self.after = dbprobe.snapshot(self.admin, self.schema, since=self.before.log_at)
        self.problems = dbprobe.compare(self.before, self.after, self.own_pids or None)
        for s, sums in self.extra_before.items():
            now = dbprobe.snapshot(self.admin, s).checksums
            self.problems += [f"checksum of {t} changed" for t in sums if now.get(t) != sums[t]]

    def __exit__(self, *exc):
        if self.admin is not None:
            self.admin.close()
        return False

    def lines(self) -> list[str]:
        return dbprobe.summary_lines(self.before, self.after, self.problems, self.own_pids or None)
