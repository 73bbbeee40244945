"""Fuzzing the guard: random text, grammar-generated SQL and mutations of accepted queries (Hypothesis).

Properties: the guard never raises (it returns a GuardReport with a known code), answers each input within
2 s of CPU time, and whatever it accepts is stable (parse -> generate -> parse gives the same tree and the
same text), names only the pack's tables and allow-listed functions, passes the executor's own statement
check, and runs against the real database without a read-only violation (SQLSTATE 25006) or a permission
error (42501).

Examples: MAPASK_FUZZ_EXAMPLES in total over the three generators (default 300, seeded); `make fuzz` runs
10,000. MAPASK_FUZZ_RANDOM=1 draws fresh random examples instead of the fixed seed. In the long run (or with
MAPASK_ATHERIS=1), and if atheris is installed, tests/security/fuzz_atheris.py adds as many coverage-guided runs.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
import sqlglot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from plugin.core import pg_opinion
from plugin.core.errors import ExecutionError
from plugin.core.execute import Executor, single_statement_problem
from plugin.core.guard import ALLOWED_FUNCTIONS, Guard

from .common import READER_DSN, ROOT, admin_connect, load_pack
from . import dbprobe

TOTAL = int(os.environ.get("MAPASK_FUZZ_EXAMPLES", "300"))
PER_TEST = max(1, TOTAL // 3)
TIME_LIMIT_S = 2.0
CODES = {"ok", "empty", "too_long", "bad_character", "too_deep", "too_large", "parse_error", "multiple_statements",
         "not_select", "forbidden_statement", "recursive", "locking", "catalog", "table_function",
         "table_not_allowed", "function_not_allowed", "type_not_allowed", "column_not_allowed", "unsupported",
         "unstable"} | set(pg_opinion.CODES)
FUZZ = settings(max_examples=PER_TEST, deadline=None, derandomize=os.environ.get("MAPASK_FUZZ_RANDOM") != "1",
                database=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                                       HealthCheck.function_scoped_fixture])

PACK = load_pack()
GUARD = Guard(PACK)
S = PACK.schema
TABLES = sorted({e.table: e for e in PACK.entities.values()}.items())
STATS = {"examples": 0, "accepted": 0, "ran": 0, "db_errors": 0, "slowest_ms": 0.0, "slowest_sql": "",
         "second_opinion": 0, "disagreed": []}


@pytest.fixture(scope="module")
def executor():
    with dbprobe.suite_lock():
        yield from _executor()


def _executor():
    ex = Executor(READER_DSN, timeout_ms=300, max_cost=2e6)
    admin = admin_connect()
    before = dbprobe.snapshot(admin, S, checksums=False)
    yield ex
    pid = ex._conn.info.backend_pid if ex._conn is not None and not ex._conn.closed else None
    ex.close()
    dbprobe.wait_backends_gone(admin, [pid] if pid else [])
    after = dbprobe.snapshot(admin, S, checksums=False)
    admin.close()
    problems = [p for p in dbprobe.compare(before, after) if "canary" not in p]
    from .conftest import record
    record(f"Guard fuzzing: {STATS['examples']} examples, {STATS['accepted']} accepted, {STATS['ran']} ran, "
           f"{STATS['second_opinion']} refused by PostgreSQL's parser after sqlglot's reading passed, "
           f"{STATS['db_errors']} ended in a database error (none 25006/42501), slowest check "
           f"{STATS['slowest_ms']:.0f} ms of CPU ({len(STATS['slowest_sql'])} characters); database problems after "
           f"the run: {len(problems)}", *sorted(set(STATS["disagreed"]))[:10])
    assert not problems, problems


def check_one(sql: str, executor: Executor) -> None:
    STATS["examples"] += 1
    # the limit is on the guard's own CPU time: it never waits on anything, so a hang is CPU spent, and wall
    # time on a shared machine also counts the time the process was not running at all
    t0 = time.thread_time()
    rep = GUARD.check(sql)
    dt = time.thread_time() - t0
    if dt >= TIME_LIMIT_S / 4:  # a garbage-collector pause lands on one call; a hang repeats: measure again
        t0 = time.thread_time()
        GUARD.check(sql)
        dt = min(dt, time.thread_time() - t0)
    if dt * 1000 > STATS["slowest_ms"]:
        STATS["slowest_ms"], STATS["slowest_sql"] = dt * 1000, sql
    assert dt < TIME_LIMIT_S, f"guard took {dt:.2f} s of CPU"
    assert rep.code in CODES, rep
    assert rep.ok == (rep.code == "ok")
    if not rep.ok:
        assert rep.reason and not rep.sql
        if rep.code in pg_opinion.CODES:  # sqlglot's reading passed, PostgreSQL's did not
            STATS["second_opinion"] += 1
            STATS["disagreed"].append(f"  {rep.code}: {rep.reason[:100]} | {sql.strip()[:110]!r}")
        return
    STATS["accepted"] += 1
    # round trip: the emitted SQL parses to the same tree, regenerates to the same text, and re-checks the same
    tree = sqlglot.parse_one(rep.sql, read="postgres")
    again = tree.sql("postgres", pretty=True, comments=False)
    assert again == rep.sql
    assert sqlglot.parse_one(again, read="postgres") == tree
    assert GUARD.check(rep.sql).sql == rep.sql
    assert all(t.split(".")[0] == S and t.split(".")[1] in {n for n, _ in TABLES} for t in rep.tables), rep.tables
    assert set(rep.functions) <= ALLOWED_FUNCTIONS
    assert single_statement_problem(rep.sql) is None
    try:
        executor.run(rep.sql, cap=50)
        STATS["ran"] += 1
    except ExecutionError as e:
        STATS["db_errors"] += 1
        assert e.kind not in ("25006", "42501", "refused"), (e.kind, str(e), rep.sql)


# --------------------------------------------------------------------------------------- random text

SQLISH = ["SELECT", "FROM", "WHERE", "WITH", "AS", "UNION", "ALL", "JOIN", "ON", ";", "(", ")", ",", "*", "'", '"',
          "$$", "$a$", "--", "/*", "*/", "\\", "E'", "U&'", "::", "pg_user", "pg_read_file", f"{S}.", "DELETE",
          "COMMIT", "SET", "INTO", "1", "0x", "NULL", "count(*)", "geom", "\n", "\r", "\t", " ", "；", "\u00a0",
          "\u202e", "\x00", "'';", "ORDER BY", "LIMIT", "RECURSIVE", "FOR UPDATE", "LATERAL", "OPERATOR(", "%s"]
sqlish_text = st.lists(st.sampled_from(SQLISH + [t for t, _ in TABLES]), max_size=40).map(" ".join)


@FUZZ
@given(st.one_of(st.text(max_size=400), sqlish_text, st.binary(max_size=300).map(lambda b: b.decode("latin-1"))))
def test_random_text(executor, text):
    check_one(text, executor)


# ------------------------------------------------------------------------------------ grammar-based SQL

FUNCS_OK = sorted(f for f in ALLOWED_FUNCTIONS if f.isidentifier() and f not in ("and", "or", "xor", "if", "case",
                                                                               "filter", "interval", "cast", "exists"))
FUNCS_BAD = ["pg_read_file", "pg_sleep", "set_config", "lo_import", "dblink", "query_to_xml", "nextval",
             "pg_advisory_lock", "current_setting", "version", "st_buffer", "generate_series", "string_agg",
             "pg_catalog.count", "public.st_dwithin", '"pg_sleep"', '"Count"', "txid_current", "lo_create"]
TYPES = ["int", "text", "numeric", "date", "geometry", "regclass", "oid", "regproc", "text[]", "pg_catalog.text",
         "timestamptz", "name", "xml", "bytea"]
STRINGS = ["'a'", "''''", "'it''s'", "'\\'", "'; DROP TABLE x; --'", "'*/'", "'$$'", "E'\\''", "$$x$$", "U&'\\0041'",
           "'%s'", "'%(x)s'", "'\u202e'", "N'x'"]


@st.composite
def table_ref(draw, ctes: list[str]):
    choice = draw(st.integers(0, 9))
    if choice <= 5:
        name, ent = draw(st.sampled_from(TABLES))
        return draw(st.sampled_from([f"{S}.{name}", f'"{S}"."{name}"', f"{S.upper()}.{name.upper()}",
                                     f'"{S.upper()}".{name}', name])), ent
    if choice <= 7 and ctes:
        return draw(st.sampled_from(ctes)), None
    return draw(st.sampled_from(["pg_user", "pg_catalog.pg_authid", "information_schema.tables", "mapask_canary.secret",
                                 "mapask_canary", "pg_settings", "public.spatial_ref_sys", "generate_series(1, 3)",
                                 "pg_ls_dir('.')"])), None


@st.composite
def expr(draw, alias: str, ent, depth: int = 0):
    cols = sorted(ent.fields)[:12] + [ent.key, "geom"] if ent is not None else ["a", "x"]
    kind = draw(st.integers(0, 11 if depth < 2 else 4))
    if kind == 0:
        return f"{alias}.{draw(st.sampled_from(cols))}"
    if kind == 1:
        return draw(st.sampled_from(cols + ["ctid", "xmin", "oid", "secret", "usename"]))
    if kind == 2:
        return draw(st.sampled_from(STRINGS + ["1", "2.5", "-1", "NULL", "true", "1e3"]))
    if kind == 3:
        return "*" if depth == 0 else "1"
    if kind == 4:
        return f"{alias}.geom"
    if kind in (5, 6):
        f = draw(st.sampled_from(FUNCS_OK if kind == 5 else FUNCS_BAD))
        args = draw(st.lists(expr(alias, ent, depth + 1), min_size=0, max_size=3))
        return f"{f}({', '.join(args)})"
    if kind == 7:
        return f"CAST({draw(expr(alias, ent, depth + 1))} AS {draw(st.sampled_from(TYPES))})"
    if kind == 8:
        return f"{draw(expr(alias, ent, depth + 1))}::{draw(st.sampled_from(TYPES))}"
    if kind == 9:
        op = draw(st.sampled_from(["+", "-", "*", "/", "=", "<>", "<", "AND", "OR", "||", "LIKE", "IS DISTINCT FROM"]))
        return f"({draw(expr(alias, ent, depth + 1))} {op} {draw(expr(alias, ent, depth + 1))})"
    if kind == 10:
        return (f"CASE WHEN {draw(expr(alias, ent, depth + 1))} THEN {draw(expr(alias, ent, depth + 1))} "
                f"ELSE {draw(expr(alias, ent, depth + 1))} END")
    return f"(SELECT count(*) FROM {draw(table_ref([]))[0]})"


@st.composite
def select_sql(draw, depth: int = 0):
    ctes: list[str] = []
    head = ""
    if depth == 0 and draw(st.booleans()):
        n = draw(st.integers(1, 3))
        parts = []
        for i in range(n):
            name = draw(st.sampled_from(["c", "pg_user", "mapask_canary", '"PG_USER"', TABLES[0][0], f"c{i}"]))
            body = draw(select_sql(depth + 1)) if depth < 1 else "SELECT 1 AS a"
            if draw(st.integers(0, 9)) == 0:
                body = f"DELETE FROM {S}.{TABLES[0][0]} RETURNING *"
            parts.append(f"{name} AS ({body})")
            ctes.append(name)
        head = "WITH " + ("RECURSIVE " if draw(st.integers(0, 9)) == 0 else "") + ", ".join(parts) + " "
    t, ent = draw(table_ref(ctes))
    alias = "t"
    items = draw(st.lists(expr(alias, ent), min_size=1, max_size=4))
    sql = f"{head}SELECT {', '.join(items)} FROM {t} AS {alias}"
    if draw(st.booleans()):
        t2, _ = draw(table_ref(ctes))
        join = draw(st.sampled_from(["JOIN", "LEFT JOIN", ",", "CROSS JOIN", "JOIN LATERAL"]))
        cond = "" if join in (",", "CROSS JOIN") else f" ON {draw(expr(alias, ent))}"
        sql += f" {join} {t2} AS u{cond}"
    if draw(st.booleans()):
        sql += f" WHERE {draw(expr(alias, ent))}"
    if draw(st.booleans()):
        sql += f" GROUP BY {draw(expr(alias, ent, 2))}"
    if draw(st.booleans()):
        sql += f" ORDER BY {draw(expr(alias, ent, 2))}"
    if draw(st.booleans()):
        sql += f" LIMIT {draw(st.sampled_from(['10', 'ALL', '-1', '1e9', '(SELECT 1)']))}"
    if depth == 0:
        if draw(st.integers(0, 5)) == 0:
            sql += f" {draw(st.sampled_from(['UNION', 'UNION ALL', 'EXCEPT', 'INTERSECT']))} {draw(select_sql(depth + 1))}"
        sql += draw(st.sampled_from(["", "", "", ";", "; DROP TABLE x", " -- c", " /* c */", " FOR UPDATE",
                                     "\n;\n", " INTO x"]))
    return sql


@FUZZ
@given(select_sql())
def test_grammar_generated(executor, sql):
    check_one(sql, executor)


# ------------------------------------------------------------------------------ mutations of accepted SQL

def _seeds() -> list[str]:
    import yaml
    qs = yaml.safe_load((ROOT / "bench" / "questions.yaml").read_text())
    return [q["sql"] for q in qs][::3]


SEEDS = _seeds()
SNIPPETS = ["; DROP TABLE x", "pg_read_file('/etc/passwd')", "/*", "*/", "'", '"', "$$", "--", ")", "(", "\\", "E'",
            "U&'", ", pg_sleep(1)", " UNION SELECT usename FROM pg_user", "::regclass", " FOR UPDATE", " INTO t",
            "mapask_canary.secret", "WITH pg_user AS (SELECT 1) ", "\n", "\r", "；", "\x00", "ctid", "OPERATOR(+)",
            f"{S}.", "pg_catalog.", "RECURSIVE ", " COMMIT ", "lo_import('x')", "set_config('a','b',false)", "1"]


@st.composite
def mutated(draw):
    sql = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(sql)))
        op = draw(st.integers(0, 4))
        if op == 0:
            sql = sql[:pos] + draw(st.sampled_from(SNIPPETS)) + sql[pos:]
        elif op == 1:
            end = draw(st.integers(pos, min(len(sql), pos + 30)))
            sql = sql[:pos] + sql[end:]
        elif op == 2:
            end = draw(st.integers(pos, min(len(sql), pos + 40)))
            sql = sql[:end] + sql[pos:end] + sql[end:]
        elif op == 3:
            end = draw(st.integers(pos, min(len(sql), pos + 20)))
            sql = sql[:pos] + sql[pos:end].swapcase() + sql[end:]
        else:
            sql = sql[:pos] + draw(st.characters()) + sql[pos + 1:]
    return sql


@settings(parent=FUZZ, max_examples=max(1, TOTAL - 2 * PER_TEST))
@given(mutated())
def test_mutated_accepted_queries(executor, sql):
    check_one(sql, executor)


def test_seeds_are_accepted():
    """The mutation seeds are real accepted queries (otherwise the mutation fuzzer would test nothing)."""
    assert all(GUARD.check(s).ok for s in SEEDS)


# ------------------------------------------------------------------------------------------------ atheris

@pytest.mark.skipif(TOTAL < 1000 and os.environ.get("MAPASK_ATHERIS") != "1",
                    reason="atheris runs in the long fuzz run only (make fuzz, or MAPASK_ATHERIS=1): "
                           "instrumenting sqlglot takes about 30 s")
def test_atheris_run():
    """Coverage-guided fuzzing of guard.check with atheris (libFuzzer), when it is installed."""
    pytest.importorskip("atheris")
    runs = TOTAL
    p = subprocess.run([sys.executable, str(ROOT / "tests" / "security" / "fuzz_atheris.py"), f"-runs={runs}",
                        "-seed=1729", "-max_len=2000", "-timeout=10"], cwd=ROOT, capture_output=True, text=True,
                       timeout=900, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-4000:]
