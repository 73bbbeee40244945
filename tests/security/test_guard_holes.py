"""Regression tests for the holes this suite found in the guard and the executor, and for legitimate SQL the
guard must keep accepting."""
from __future__ import annotations

import time

import psycopg2
import pytest

from plugin.core.errors import ExecutionError
from plugin.core.execute import Executor, single_statement_problem
from plugin.core.guard import Guard

from .common import READER_DSN, admin_connect, q
from .dbprobe import suite_lock


@pytest.fixture(scope="module", autouse=True)
def locked():
    with suite_lock():  # no fault test of another run restarts the server meanwhile
        yield


@pytest.fixture(scope="module")
def guard(pack):
    return Guard(pack)


@pytest.fixture(scope="module")
def t(pack):
    e = next(iter(pack.entities.values()))
    return f"{pack.schema}.{e.table}", e.key


@pytest.mark.parametrize("sql", [
    # a quoted CTE name is case-sensitive: the unquoted reference below is pg_catalog.pg_user, not the CTE
    'WITH "PG_USER" AS (SELECT 1 AS a) SELECT * FROM pg_user',
    # a CTE is visible only inside the query that defines it
    "SELECT * FROM (WITH pg_user AS (SELECT 1 AS a) SELECT a FROM pg_user) AS x, pg_user",
    "SELECT * FROM (WITH pg_user AS (SELECT 1 AS a) SELECT * FROM pg_user) AS y UNION ALL SELECT * FROM pg_user",
    # a non-recursive CTE sees neither itself nor later CTEs: those names resolve through search_path
    "WITH pg_user AS (SELECT * FROM pg_user) SELECT * FROM pg_user",
    "WITH a AS (SELECT * FROM pg_roles), pg_roles AS (SELECT 1 AS x) SELECT * FROM a",
    # quoted schema and table names are case-sensitive
    '{T_UPPER_SCHEMA}', '{T_UPPER_TABLE}',
    # operators named by schema call arbitrary functions
    "SELECT 1 OPERATOR(pg_catalog.+) 1 AS a",
    # a quoted mixed-case function name can only be a user-made function
    'SELECT "St_DWithin"(a.geom, a.geom, 1) AS w FROM {T} AS a',
    # one huge value from a cheap statement (server memory)
    "SELECT array_agg(a.geom) FROM {T} AS a, {T} AS b",
    "SELECT ARRAY(SELECT a.geom FROM {T} AS a, {T} AS b) AS x",
    "SELECT ST_AsText(ST_Collect(a.geom)) AS x FROM {T} AS a, {T} AS b",
    "SELECT ST_Union(a.geom) AS x FROM {T} AS a, {T} AS b",
    "SELECT replace(replace(replace('A', 'A', 'AAAAAAAAAA'), 'A', 'AAAAAAAAAA'), 'A', 'AAAAAAAAAA') AS x",
    # characters PostgreSQL or the driver cannot take
    "SELECT 1 AS a\x00", "SELECT '\ud800' AS a",
])
def test_refused(guard, t, pack, sql):
    table, key = t
    schema, name = table.split(".")
    sql = sql.replace("{T_UPPER_SCHEMA}", f'SELECT * FROM "{schema.upper()}".{name}') \
             .replace("{T_UPPER_TABLE}", f'SELECT * FROM {schema}."{name.upper()}"').replace("{T}", table)
    rep = guard.check(sql)
    assert not rep.ok and rep.code and rep.reason


@pytest.mark.parametrize("sql", [
    "SELECT count(*) AS n FROM {T} WHERE 'x' = ANY(string_to_array('x/y', '/'))",
    "SELECT to_char(now(), 'YYYY') AS y, date_part('year', now()) AS p, trim('  a ') AS s",
    "SELECT count(*) FILTER (WHERE {K} > 0) AS n, row_number() OVER (ORDER BY count(*)) AS r FROM {T}",
    "SELECT CASE WHEN {K} > 0 THEN 'a' ELSE 'b' END AS c, {K}::text AS k, CAST({K} AS numeric(10, 2)) AS d FROM {T}",
    "SELECT ARRAY['a', 'b']::text[] AS arr, now()::timestamptz AS ts",
    'WITH "load" AS (SELECT * FROM "{S}"."{N}" AS t) SELECT count(*) AS n FROM "load"',
    "WITH a AS (SELECT {K} FROM {T}), b AS (SELECT {K} FROM a) SELECT count(*) AS n FROM b",
    'SELECT "count"(*) AS n FROM {T}',
    'SELECT "Count"(*) AS n FROM {T}',  # sqlglot reads it as the built-in count and emits COUNT(*): harmless
])
def test_accepted_and_runs(guard, t, sql):
    table, key = t
    schema, name = table.split(".")
    sql = sql.replace("{T}", table).replace("{K}", key).replace("{S}", schema).replace("{N}", name)
    rep = guard.check(sql)
    assert rep.ok, (rep.code, rep.reason)
    ex = Executor(READER_DSN, timeout_ms=5000)
    try:
        ex.run(rep.sql)
    finally:
        ex.close()


def test_comments_never_reach_the_server(guard, t):
    rep = guard.check(f"SELECT 1 AS a /* x /* y */ z */ FROM {t[0]} -- tail")
    assert rep.ok and "/*" not in rep.sql and "--" not in rep.sql


def test_output_is_a_fixpoint(guard, t):
    rep = guard.check(f'select "st_dwithin"(a.geom, a.geom, 1) AS w from {t[0]} a')
    assert rep.ok and '"' not in rep.sql.split("FROM")[0]
    assert guard.check(rep.sql).sql == rep.sql


def test_large_inputs_are_refused_fast(guard):
    for sql in ["SELECT " + "(" * 100_000 + "1" + ")" * 100_000, "SELECT 1 AS a" + " " * 1_000_000,
                "SELECT coalesce(" + ",".join(["1"] * 9000) + ")", "SELECT 1 AS a WHERE 1 IN (" + ",".join(["1"] * 6000) + ")"]:
        t0 = time.thread_time()
        assert not guard.check(sql).ok
        assert time.thread_time() - t0 < 1.0


@pytest.mark.parametrize("sql,bad", [
    ("SELECT 1", False), ("SELECT ';' AS a", False), ("SELECT E'\\';' AS a", False), ("SELECT $q$;$q$", False),
    ("SELECT 1 /* /* */ ; */", False), ("SELECT 1) x; DELETE FROM t; SELECT (1", True), ("SELECT 1; SELECT 2", True),
    ("SELECT 1 -- x\r; DELETE FROM t", True), ("SELECT 'a", True), ("SELECT 1 /*", True), ("SELECT (1", True),
])
def test_executor_statement_check(sql, bad):
    assert (single_statement_problem(sql) is not None) == bad


def test_executor_refuses_what_would_escape_its_wrapper_even_with_a_cost_limit():
    ex = Executor(READER_DSN, timeout_ms=2000, max_cost=1e9)
    try:
        with pytest.raises(ExecutionError) as e:
            ex.run("SELECT 1) AS x; SELECT (1")
        assert e.value.kind == "refused"
        with pytest.raises(ExecutionError) as e:
            ex.run("SELECT '\ud800' AS a")
        assert e.value.kind == "bad_input"
        assert ex.run("SELECT 1 AS a").rows == [(1,)]  # still usable
    finally:
        ex.close()


def test_executor_returns_the_session_clean():
    """Whatever a statement did to the session (an advisory lock, a setting) is gone before the next one."""
    ex = Executor(READER_DSN, timeout_ms=2000)
    admin = admin_connect()
    try:
        ex.run("SELECT pg_advisory_lock(4242) AS l, set_config('work_mem', '1MB', false) AS w")
        pid = ex._conn.info.backend_pid
        assert not q(admin, "SELECT count(*) FROM pg_locks WHERE pid = %s AND locktype = 'advisory'", pid)[0][0]
        assert q(admin, "SELECT state FROM pg_stat_activity WHERE pid = %s", pid)[0][0] == "idle"
        assert ex.run("SELECT current_setting('work_mem') AS w").rows[0][0] != "1MB"
    finally:
        ex.close()
        admin.close()


def test_executor_replaces_a_stale_connection_once():
    ex = Executor(READER_DSN, timeout_ms=2000)
    admin = admin_connect()
    try:
        ex.run("SELECT 1 AS a")
        q(admin, "SELECT pg_terminate_backend(%s)", ex._conn.info.backend_pid)
        time.sleep(0.2)
        assert ex.run("SELECT 2 AS a").rows == [(2,)]
    finally:
        ex.close()
        admin.close()


def test_executor_names_a_login_failure():
    ex = Executor(READER_DSN.replace("password=", "password=wrong-"), timeout_ms=2000)
    with pytest.raises(ExecutionError) as e:
        ex.run("SELECT 1 AS a")
    assert e.value.kind == "auth" and "password" in str(e.value)
    assert isinstance(e.value.__cause__, (psycopg2.Error, type(None)))
