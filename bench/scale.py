"""Scale benchmark: the MassDOT crash table resampled to 10k..4.4M rows, and the dev set timed on each size.

Build (admin DSN, $MAPASK_ADMIN_DSN): one schema per size (ma_s10k, ma_s100k, ma_s1m, ma_s4m).
Each is a full copy of schema ma, so a query written for ma runs unchanged once its schema
name is rewritten; only massdot_crash differs: N rows resampled from the 10,000 real ones.

  - whole records are sampled (every label of a row travels together, so every joint
    distribution of the coded fields is the real one). Sampling is balanced: the real rows
    are put in a seeded random order and row k is copied floor(k*N/n) - floor((k-1)*N/n)
    times, i.e. N/n times each (4.4M = 440 x 10k exactly), so label frequencies are the real
    ones without bootstrap noise and the plans see the real selectivities;
  - each copy's point is moved by a random offset of up to 300 m (uniform over the disc) and
    must stay in the town polygon that holds the original point: an offset shorter than the
    original point's distance to the town's boundary is inside by construction (no polygon
    test), a longer one is tested with ST_Intersects; up to 3 offsets are tried, then the
    original point is kept. Points in no town polygon and rows without geometry stay as they
    are. x/y move by the same offset; lat/lon are recomputed from the moved point;
  - each copy's date is resampled within its year, month and ISO weekday (one of the 4-5
    dates of that month with the same weekday): seasonality, weather-by-month and
    weekday-by-hour stay joint, the day of the month moves; crash_time and crash_hour are kept;
  - crash_numb = real crash_numb * 10000 + copy number (unique, and traceable to its source
    record); gid = 1..N in spatial order.

Randomness is hashint8extended(row number, seed*1000 + draw) mapped to [0, 1): a pure function
of (seed, row, draw), so the build is reproducible whatever plan Postgres picks. The rows are
written in spatial order (ORDER BY geom: PostGIS sorts geometries along a space-filling
curve), so rows of one town or neighbourhood share pages. The loader's indexes and statistics
are recreated from ma's own definitions (see bench/SCALE.md), then VACUUM ANALYZE, repeated until every page is all-visible (index-only scans need it).
Idempotent: a schema whose comment records the same generator version, seed, size and order,
with the right row count, is left as it is (--force rebuilds).

Measure (reader DSN, $MAPASK_DSN): every C1-C10 question's reference SQL (bench/questions.yaml,
ma.<table> rewritten to the size's schema) as mapask_reader with a 30 s statement_timeout: one
warm-up run, then the median wall time of --repeat runs, plus the CPU time of one serial run
(read from /proc for the local backend: the query's work, whatever else the machine is doing);
the plans of the slowest queries; and optionally the MapAsk pipeline's own compiled SQL
(answer.timings_ms['execute']) on a copy of the pack pointed at the scaled schema.

    python -m bench.scale --build [--sizes 10k,100k,1m,4.4m] [--seed 1729] [--force]
    python -m bench.scale --measure [--sizes 10k,100k,1m,4.4m] [--set jit=off] [--pipeline]
                                    [--only C2,C7-001] [--repeat 3] [--json out/bench/scale.json]
    python -m bench.scale --build --sizes 1m --order date --schema ma_s1m_date   # order comparison
    python -m bench.scale --drop --sizes 4.4m
"""
from __future__ import annotations

import argparse
import copy
import json
import math
import os
import re
import statistics
import sys
import time
from pathlib import Path

import psycopg2
from psycopg2 import sql

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ADMIN_DSN = f"host={ROOT / 'var' / 'pgsock'} port=55432 dbname=mapask user=postgres"
DEFAULT_DSN = "host=127.0.0.1 port=55432 dbname=mapask user=mapask_reader password=mapask_reader"
READER = os.environ.get("MAPASK_READER", "mapask_reader")
SOURCE = "ma"
TABLE = "massdot_crash"
VERSION = 3                 # bump when the generated data or the index set changes
DEFAULT_SEED = 1729
JITTER_M = 300.0
TRIES = 3                   # offsets tried before the original point is kept
MAX_COPIES = 10000          # crash_numb = source crash_numb * MAX_COPIES + copy number
GOAL_MS = 2000.0
SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000, "4.4m": 4_400_000}
SCHEMAS = {10_000: "ma_s10k", 100_000: "ma_s100k", 1_000_000: "ma_s1m", 4_400_000: "ma_s4m"}

# Every index and statistics object comes from the loader's own definitions on ma.massdot_crash
# (knowledge/massachusetts/sources.yaml: indexes, date_part_indexes, date_part_statistics); why
# each one: bench/SCALE.md. Anything worth adding belongs there, so the demo database has it too.


class ScaleError(Exception):
    """A scaled schema could not be built or measured."""


# ---------------------------------------------------------------- names and sizes
def parse_size(text: str) -> int:
    """'10k' -> 10000, '4.4m' -> 4400000, '20000' -> 20000."""
    t = text.strip().lower().replace("_", "")
    mult = {"k": 1_000, "m": 1_000_000}.get(t[-1:], 1)
    num = t[:-1] if mult != 1 else t
    try:
        n = int(round(float(num) * mult))
    except ValueError:
        raise ScaleError(f"not a size: {text!r} (use e.g. 10k, 100k, 1m, 4.4m)")
    if n < 1:
        raise ScaleError(f"size must be positive: {text!r}")
    return n


def size_label(n: int) -> str:
    for k, v in SIZES.items():
        if v == n:
            return k
    if n % 1_000_000 == 0:
        return f"{n // 1_000_000}m"
    if n % 1_000 == 0:
        return f"{n // 1_000}k"
    return str(n)


def schema_for(n: int) -> str:
    return SCHEMAS.get(n) or "ma_s" + size_label(n).replace(".", "_")


ORDERS = {"spatial": "new_geom, g", "date": "new_date, crash_time, g"}


def stamp(n: int, seed: int, order: str = "spatial") -> dict:
    """What a built schema records in its comment (the idempotency key)."""
    return {"generator": "bench/scale.py", "version": VERSION, "seed": seed, "rows": n,
            "source": f"{SOURCE}.{TABLE}", "jitter_m": JITTER_M, "order": order}


# ---------------------------------------------------------------- SQL pieces
def uniform(draw: int, seed: int, key: str = "g") -> str:
    """SQL for a uniform [0, 1) number, a pure function of (seed, row key, draw number)."""
    return (f"((hashint8extended({key}, {int(seed) * 1000 + int(draw)}) & 4503599627370495)::float8"
            f" / 4503599627370496.0)")


def source_sql(seed: int) -> str:
    """The real rows in a seeded random order (rk = 1..n), each with the town polygon holding its
    point (the named town first when the point is on a shared boundary) and its distance to
    that polygon's boundary."""
    return f"""
CREATE TEMP TABLE scale_src ON COMMIT DROP AS
SELECT row_number() OVER (ORDER BY hashint8extended(c.gid::bigint, {int(seed)}), c.gid) AS rk,
       c.*, tw.geom AS town_geom,
       COALESCE(ST_Distance(c.geom, ST_Boundary(tw.geom)), 0) AS d_edge
FROM {SOURCE}.{TABLE} c
LEFT JOIN LATERAL (
  SELECT t.geom FROM {SOURCE}.town t
  WHERE c.geom IS NOT NULL AND ST_Intersects(t.geom, c.geom)
  ORDER BY (t.town = c.city_town_name) DESC, t.gid
  LIMIT 1) tw ON true"""


def generate_sql(target: str, columns: list[str], n_src: int, n: int, seed: int, order: str = "spatial") -> str:
    """CREATE TABLE target.massdot_crash AS the resampled rows, in spatial order (or, to measure
    what that order buys, in date order: the order rows arrive in)."""
    keys = ORDERS[order]
    u = lambda d: uniform(d, seed)  # noqa: E731
    offs = []
    for k in range(TRIES):
        offs.append(f"{JITTER_M} * sqrt({u(2 * k + 1)}) AS r{k}, 2 * pi() * {u(2 * k + 2)} AS a{k}")
    tests = []
    for k in range(TRIES):
        tests.append(f"WHEN r{k} < d_edge OR ST_Intersects(town_geom, "
                     f"ST_Translate(geom, r{k} * cos(a{k}), r{k} * sin(a{k}))) THEN {k}")
    dx = " ".join(f"WHEN {k} THEN r{k} * cos(a{k})" for k in range(TRIES))
    dy = " ".join(f"WHEN {k} THEN r{k} * sin(a{k})" for k in range(TRIES))
    special = {
        "gid": f"row_number() OVER (ORDER BY {keys})::integer",
        "crash_numb": f"(crash_numb * {MAX_COPIES} + j)::bigint",
        "crash_date": "new_date",
        "x": "x + dx", "y": "y + dy",
        "lat": "CASE WHEN pick >= 0 THEN ST_Y(ST_Transform(new_geom, 4326)) ELSE lat END",
        "lon": "CASE WHEN pick >= 0 THEN ST_X(ST_Transform(new_geom, 4326)) ELSE lon END",
        "geom": "new_geom",
    }
    select = ", ".join(f"{special[c]} AS {c}" if c in special else c for c in columns)
    keep = ", ".join(c for c in columns if c not in ("gid", "geom", "crash_date"))
    # OFFSET 0 keeps each level a separate subquery, so no expression (ST_Intersects above
    # all) is evaluated twice after the planner flattens the levels.
    return f"""
CREATE TABLE {target}.{TABLE} AS
SELECT {select}
FROM (
  SELECT {keep}, g, j, pick,
         CASE pick {dx} ELSE 0 END AS dx,
         CASE pick {dy} ELSE 0 END AS dy,
         CASE pick {" ".join(f"WHEN {k} THEN ST_Translate(geom, r{k} * cos(a{k}), r{k} * sin(a{k}))" for k in range(TRIES))}
              ELSE geom END::geometry(Point, 26986) AS new_geom,
         CASE WHEN crash_date IS NULL THEN NULL ELSE
           (m0 + wd_off + 7 * floor({u(2 * TRIES + 1)} * ((dim - 1 - wd_off) / 7 + 1))::int)::date
         END AS new_date
  FROM (
    SELECT *,
           CASE WHEN geom IS NULL OR town_geom IS NULL THEN -1 {" ".join(tests)} ELSE -1 END AS pick,
           date_trunc('month', crash_date)::date AS m0,
           (extract(isodow FROM crash_date)::int - extract(isodow FROM date_trunc('month', crash_date))::int + 7) % 7 AS wd_off,
           extract(day FROM date_trunc('month', crash_date) + interval '1 month - 1 day')::int AS dim
    FROM (
      SELECT s.*, j, g, {", ".join(offs)}
      FROM (
        SELECT src.*, (floor(rk::numeric * {n} / {n_src}) - floor((rk - 1)::numeric * {n} / {n_src}))::int AS copies,
               floor((rk - 1)::numeric * {n} / {n_src})::bigint AS g0
        FROM scale_src src) s
      CROSS JOIN LATERAL generate_series(0, s.copies - 1) AS j
      CROSS JOIN LATERAL (SELECT s.g0 + j + 1 AS g) gg
      OFFSET 0) a
    OFFSET 0) b
  OFFSET 0) c
ORDER BY {keys}"""


# ---------------------------------------------------------------- database helpers
def _admin(dsn: str | None):
    return psycopg2.connect(dsn or os.environ.get("MAPASK_ADMIN_DSN", DEFAULT_ADMIN_DSN))


def _columns(cur, schema: str, table: str) -> list[str]:
    cur.execute("""SELECT a.attname FROM pg_attribute a WHERE a.attrelid = %s::regclass
                   AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum""", (f"{schema}.{table}",))
    return [r[0] for r in cur.fetchall()]


def _tables(cur, schema: str) -> list[str]:
    cur.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s ORDER BY tablename", (schema,))
    return [r[0] for r in cur.fetchall()]


def _schema_comment(cur, schema: str) -> dict | None:
    cur.execute("SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = %s", (schema,))
    r = cur.fetchone()
    if r is None:
        return None
    try:
        return json.loads(r[0] or "{}")
    except ValueError:
        return {}


def is_built(cur, schema: str, n: int, seed: int, order: str = "spatial") -> bool:
    """The schema exists, records this generator version, seed, size and order, and has n crash rows."""
    doc = _schema_comment(cur, schema)
    if not doc or any(doc.get(k) != v for k, v in stamp(n, seed, order).items()):
        return False
    cur.execute("SELECT to_regclass(%s)", (f"{schema}.{TABLE}",))
    if cur.fetchone()[0] is None:
        return False
    cur.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(schema, TABLE)))
    return cur.fetchone()[0] == n


def loader_indexes(cur) -> list[str]:
    """CREATE INDEX and CREATE STATISTICS statements of ma.massdot_crash (the loader's), primary key excluded."""
    cur.execute("""SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
                   FROM pg_index i WHERE i.indrelid = %s::regclass AND NOT i.indisprimary
                   ORDER BY 1""", (f"{SOURCE}.{TABLE}",))
    defs = [d for _, d in cur.fetchall()]
    cur.execute("""SELECT pg_get_statisticsobjdef(oid) FROM pg_statistic_ext
                   WHERE stxrelid = %s::regclass ORDER BY stxname""", (f"{SOURCE}.{TABLE}",))
    return defs + [d for (d,) in cur.fetchall()]


def _retarget(definition: str, schema: str) -> str:
    """An index or statistics definition of ma.massdot_crash, for the same table in `schema`."""
    out, k = re.subn(rf"\b(ON|FROM) {SOURCE}\.{TABLE}\b", rf"\1 {schema}.{TABLE}", definition, count=1)
    out = re.sub(rf"^CREATE STATISTICS {SOURCE}\.", f"CREATE STATISTICS {schema}.", out)
    if k != 1:
        raise ScaleError(f"cannot retarget definition: {definition}")
    return out


def build(n: int, seed: int = DEFAULT_SEED, dsn: str | None = None, force: bool = False,
          schema: str | None = None, workers: int = 1, order: str = "spatial", verbose: bool = True) -> dict:
    """Build (or keep) the scaled schema for n crash rows. Returns timings and counts."""
    if order not in ORDERS:
        raise ScaleError(f"unknown order {order!r}: one of {', '.join(ORDERS)}")
    target = schema or schema_for(n)
    staging = target + "_build"
    conn = _admin(dsn)
    info: dict = {"schema": target, "rows": n, "seed": seed, "order": order}
    t_all = time.perf_counter()
    try:
        with conn, conn.cursor() as cur:
            built = not force and is_built(cur, target, n, seed, order)
        if built:
            conn.autocommit = True
            info.update(skipped=True, seconds=0.0, all_visible=make_all_visible(conn, target))
            if verbose:
                print(f"scale: {target}: already built ({n:,} rows, seed {seed}, version {VERSION}); kept")
            return info
        steps: dict[str, float] = {}

        def step(name, t0):
            steps[name] = round(time.perf_counter() - t0, 2)
            if verbose:
                print(f"scale: {target}: {name} {steps[name]:.1f} s", flush=True)

        with conn, conn.cursor() as cur:
            cur.execute("SET LOCAL work_mem = '1GB'")
            cur.execute("SET LOCAL maintenance_work_mem = '1GB'")
            cur.execute("SET LOCAL max_parallel_maintenance_workers = %s", (int(workers),))
            cur.execute("SET LOCAL synchronous_commit = off")
            cur.execute("SET LOCAL jit = off")
            t0 = time.perf_counter()
            tables = _tables(cur, SOURCE)
            if TABLE not in tables:
                raise ScaleError(f"{SOURCE}.{TABLE} does not exist: load the data first (make load)")
            cur.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(staging)))
            cur.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(staging)))
            for t in tables:
                if t == TABLE:
                    continue
                cur.execute(sql.SQL("CREATE TABLE {} (LIKE {} INCLUDING ALL)").format(
                    sql.Identifier(staging, t), sql.Identifier(SOURCE, t)))
                cur.execute(sql.SQL("INSERT INTO {} SELECT * FROM {}").format(
                    sql.Identifier(staging, t), sql.Identifier(SOURCE, t)))
            step("other tables", t0)
            t0 = time.perf_counter()
            cur.execute(source_sql(seed))
            cur.execute("SELECT count(*), count(*) FILTER (WHERE geom IS NOT NULL AND town_geom IS NULL) FROM scale_src")
            n_src, no_town = cur.fetchone()
            if n > n_src * MAX_COPIES:
                raise ScaleError(f"{n:,} rows would need more than {MAX_COPIES} copies of each of {n_src:,} records")
            step("source towns", t0)
            t0 = time.perf_counter()
            cols = _columns(cur, SOURCE, TABLE)
            cur.execute(generate_sql(staging, cols, n_src, n, seed, order))
            step("generate", t0)
            t0 = time.perf_counter()
            cur.execute(sql.SQL("ALTER TABLE {} ADD CONSTRAINT {} PRIMARY KEY (gid)").format(
                sql.Identifier(staging, TABLE), sql.Identifier(TABLE + "_pkey")))
            defs = [_retarget(d, staging) for d in loader_indexes(cur)]
            for d in defs:
                cur.execute(d)
            step(f"{len(defs) + 1} indexes and statistics", t0)
            cur.execute(sql.SQL("SELECT count(*), count(geom), count(DISTINCT crash_numb) FROM {}").format(
                sql.Identifier(staging, TABLE)))
            got, with_geom, distinct = cur.fetchone()
            if got != n or distinct != n:
                raise ScaleError(f"{staging}.{TABLE}: {got:,} rows, {distinct:,} distinct crash_numb, expected {n:,}")
        conn.autocommit = True
        t0 = time.perf_counter()
        with conn.cursor() as cur:
            for t in tables:
                cur.execute(sql.SQL("VACUUM (ANALYZE) {}").format(sql.Identifier(staging, t)))
        visible = make_all_visible(conn, staging)
        step("vacuum analyze", t0)
        conn.autocommit = False
        with conn, conn.cursor() as cur:
            cur.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(target)))
            cur.execute(sql.SQL("ALTER SCHEMA {} RENAME TO {}").format(sql.Identifier(staging), sql.Identifier(target)))
            cur.execute(sql.SQL("COMMENT ON SCHEMA {} IS {}").format(
                sql.Identifier(target), sql.Literal(json.dumps(stamp(n, seed, order)))))
            cur.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(sql.Identifier(target), sql.Identifier(READER)))
            cur.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA {} TO {}").format(
                sql.Identifier(target), sql.Identifier(READER)))
            cur.execute("SELECT pg_total_relation_size(%s), pg_relation_size(%s)",
                        (f"{target}.{TABLE}", f"{target}.{TABLE}"))
            total, heap = cur.fetchone()
        info.update(skipped=False, seconds=round(time.perf_counter() - t_all, 1), steps=steps, all_visible=visible,
                    with_geom=with_geom, source_rows=n_src, source_points_in_no_town=no_town,
                    heap_mb=round(heap / 2**20, 1), total_mb=round(total / 2**20, 1))
        if verbose:
            print(f"scale: {target}: {n:,} rows built in {info['seconds']:.1f} s "
                  f"(table {info['heap_mb']:.0f} MB, with indexes {info['total_mb']:.0f} MB)")
            if not visible:
                print(f"scale: {target}: warning: some pages are not all-visible yet (another session holds an "
                      f"old snapshot); index-only scans will visit the heap until the next --build or VACUUM")
        return info
    except Exception:
        try:
            conn.rollback()
            conn.autocommit = True
            with conn.cursor() as cur:
                cur.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(staging)))
        except Exception:
            pass
        raise
    finally:
        conn.close()


def make_all_visible(conn, schema: str, tries: int = 10) -> bool:
    """VACUUM the crash table until its visibility map covers every page (autocommit connection).

    Index-only scans skip the heap only for all-visible pages. A VACUUM cannot mark the freshly
    written pages while another session holds a snapshot older than the build (a long test
    transaction elsewhere), so it is retried for a while; False if pages are still not visible."""
    rel = f"{schema}.{TABLE}"
    with conn.cursor() as cur:
        for i in range(tries):
            cur.execute("SELECT relpages, relallvisible FROM pg_class WHERE oid = %s::regclass", (rel,))
            pages, visible = cur.fetchone()
            if visible >= pages:
                return True
            if i:
                time.sleep(min(2 * i, 10))
            cur.execute(sql.SQL("VACUUM {}").format(sql.Identifier(schema, TABLE)))
    return False


def drop(n: int, dsn: str | None = None, schema: str | None = None) -> None:
    conn = _admin(dsn)
    try:
        with conn, conn.cursor() as cur:
            cur.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema or schema_for(n))))
    finally:
        conn.close()


# ---------------------------------------------------------------- measure
def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile (p in 0..100) of the values; None when empty."""
    v = sorted(values)
    if not v:
        return None
    k = max(0, math.ceil(p / 100.0 * len(v)) - 1)
    return v[k]


def questions(categories: set[str] | None = None) -> list[dict]:
    from bench.review import load
    cats = categories or {f"C{i}" for i in range(1, 11)}
    return [q for q in load() if q["category"] in cats]


def _reader(dsn: str, settings: dict[str, str]):
    conn = psycopg2.connect(dsn, application_name="mapask-bench-scale")
    conn.autocommit = True
    with conn.cursor() as cur:
        cur.execute("SET statement_timeout = '30s'")
        for k, v in settings.items():
            cur.execute("SELECT set_config(%s, %s, false)", (k, v))
    return conn


def backend_cpu_ms(pid: int) -> float | None:
    """User + system CPU time of a local backend process (None when /proc is not readable)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            f = fh.read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def cpu_query(cur, pid: int, query: str) -> float | None:
    """CPU ms the backend spends on one serial run (max_parallel_workers_per_gather = 0 on this
    connection): the query's work, whatever else the machine is doing."""
    before = backend_cpu_ms(pid)
    if before is None:
        return None
    try:
        cur.execute(query)
        cur.fetchall()
    except psycopg2.extensions.QueryCanceledError:
        return None
    except psycopg2.OperationalError:
        raise
    except psycopg2.Error:
        return None
    after = backend_cpu_ms(pid)
    return None if after is None else after - before


def time_query(cur, query: str, repeat: int) -> tuple[float | None, str | None, int]:
    """Median wall time in ms of `repeat` runs after one warm-up; (None, error, 0) on failure."""
    times = []
    nrows = 0
    for i in range(repeat + 1):
        t0 = time.perf_counter()
        try:
            cur.execute(query)
            nrows = len(cur.fetchall())
        except psycopg2.extensions.QueryCanceledError:
            return None, "timeout (30 s)", 0
        except psycopg2.OperationalError:
            raise                                   # the connection is gone: the caller reconnects
        except psycopg2.Error as exc:
            return None, str(exc).strip().splitlines()[0], 0
        if i:
            times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), None, nrows


def explain(cur, query: str) -> dict:
    cur.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) " + query)
    text = "\n".join(r[0] for r in cur.fetchall())
    m = re.search(r"Execution Time: ([\d.]+) ms", text)
    return {"text": text, "execution_ms": float(m.group(1)) if m else None}


class _Session:
    """The reader connection that times queries, and its serial twin that measures CPU time;
    both reconnect when the server restarts under them (other test runs restart it)."""

    def __init__(self, dsn: str, settings: dict[str, str], cpu: bool):
        self.dsn, self.settings, self.cpu = dsn, settings, cpu
        self.conn = self.serial = None
        self.open()

    def open(self, wait_s: float = 120.0) -> None:
        self.close()
        deadline = time.monotonic() + wait_s
        while True:
            try:
                self.conn = _reader(self.dsn, self.settings)
                if self.cpu:
                    self.serial = _reader(self.dsn, {**self.settings, "max_parallel_workers_per_gather": "0"})
                    with self.serial.cursor() as cur:
                        cur.execute("SELECT pg_backend_pid()")
                        self.pid = cur.fetchone()[0]
                return
            except psycopg2.OperationalError:
                self.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(2)

    def close(self) -> None:
        for c in (self.conn, self.serial):
            if c is not None:
                try:
                    c.close()
                except psycopg2.Error:
                    pass
        self.conn = self.serial = None

    def run(self, query: str, repeat: int) -> tuple[float | None, str | None, int, float | None]:
        for attempt in range(3):
            try:
                with self.conn.cursor() as cur:
                    ms, err, nrows = time_query(cur, query, repeat)
                cms = None
                if self.serial is not None and err is None:
                    with self.serial.cursor() as cur:
                        cms = cpu_query(cur, self.pid, query)
                return ms, err, nrows, cms
            except psycopg2.OperationalError:
                if attempt == 2:
                    raise
                self.open()
        raise AssertionError("unreachable")


def measure_size(n: int, qs: list[dict], dsn: str, repeat: int, settings: dict[str, str],
                 schema: str | None = None, cpu: bool = True, verbose: bool = True) -> dict:
    from bench.review import for_schema
    target = schema or schema_for(n)
    sess = _Session(dsn, settings, cpu)
    by_sql: dict[str, tuple] = {}
    rows = []
    t_all = time.perf_counter()
    load0 = os.getloadavg()[0]
    try:
        with sess.conn.cursor() as cur:
            cur.execute("SELECT to_regclass(%s)", (f"{target}.{TABLE}",))
            if cur.fetchone()[0] is None:
                raise ScaleError(f"{target}.{TABLE} does not exist: run python -m bench.scale --build --sizes {size_label(n)}")
        for q in qs:
            s = for_schema(q["sql"], target)
            if s not in by_sql:
                by_sql[s] = sess.run(s, repeat)
            ms, err, nrows, cms = by_sql[s]
            rows.append({"id": q["id"], "category": q["category"], "ms": None if ms is None else round(ms, 2),
                         "cpu_ms": None if cms is None else round(cms, 1),
                         "error": err, "rows": nrows, "crash_table": TABLE in q["sql"]})
    finally:
        sess.close()
    ok = [r["ms"] for r in rows if r["ms"] is not None]
    cp = [r["cpu_ms"] for r in rows if r["cpu_ms"] is not None]
    out = {"size": size_label(n), "rows": n, "schema": target, "questions": len(rows),
           "distinct_sql": len(by_sql), "seconds": round(time.perf_counter() - t_all, 1),
           "load_avg": [round(load0, 2), round(os.getloadavg()[0], 2)],
           "median_ms": _r(statistics.median(ok) if ok else None), "p95_ms": _r(percentile(ok, 95)),
           "max_ms": _r(max(ok) if ok else None),
           "cpu_median_ms": _r(statistics.median(cp) if cp else None), "cpu_p95_ms": _r(percentile(cp, 95)),
           "cpu_max_ms": _r(max(cp) if cp else None),
           "over_goal": sorted(r["id"] for r in rows if r["ms"] is None or r["ms"] > GOAL_MS),
           "results": rows}
    if verbose:
        print(f"scale: measured {target}: {len(rows)} questions ({len(by_sql)} distinct SQL) in {out['seconds']:.0f} s",
              flush=True)
    return out


def slowest_plans(n: int, result: dict, dsn: str, settings: dict[str, str], k: int = 3,
                  schema: str | None = None) -> list[dict]:
    from bench.review import for_schema, load
    target = schema or schema_for(n)
    by_id = {q["id"]: q for q in load()}
    seen, picked = set(), []
    for r in sorted((r for r in result["results"] if r["ms"] is not None), key=lambda r: -r["ms"]):
        s = for_schema(by_id[r["id"]]["sql"], target)
        if s in seen:
            continue
        seen.add(s)
        picked.append((r, s))
        if len(picked) == k:
            break
    conn = _reader(dsn, settings)
    out = []
    try:
        with conn.cursor() as cur:
            for r, s in picked:
                e = explain(cur, s)
                out.append({"id": r["id"], "ms": r["ms"], "sql": s.strip(), "plan": e["text"],
                            "explain_execution_ms": e["execution_ms"]})
    finally:
        conn.close()
    return out


def measure_pipeline(n: int, qs: list[dict], dsn: str, settings: dict[str, str],
                     schema: str | None = None, verbose: bool = True) -> dict:
    """Ask each question through the MapAsk pipeline pointed at the scaled schema."""
    from plugin.core.pack import load_pack
    from plugin.core.pipeline import Pipeline
    target = schema or schema_for(n)
    pack = copy.deepcopy(load_pack(ROOT / "knowledge" / "massachusetts"))
    pack.schema = target
    opts = " ".join(f"-c {k}={v}" for k, v in settings.items())
    pdsn = dsn + (f" options='{opts}'" if opts else "")
    p = Pipeline(pack, pdsn)
    rows = []
    t_all = time.perf_counter()
    try:
        t0 = time.perf_counter()
        p.annotator()
        anchors_ms = (time.perf_counter() - t0) * 1000
        for q in qs:
            a = p.ask(q["question"])
            ex = a.timings_ms.get("execute")
            rows.append({"id": q["id"], "category": q["category"], "status": a.status,
                         "execute_ms": None if ex is None else round(ex, 2),
                         "error": a.error, "sql": a.sql})
    finally:
        p.executor.close()
    ok = [r["execute_ms"] for r in rows if r["execute_ms"] is not None]
    out = {"size": size_label(n), "schema": target, "questions": len(rows), "executed": len(ok),
           "anchor_lookup_ms": round(anchors_ms, 1), "seconds": round(time.perf_counter() - t_all, 1),
           "median_ms": _r(statistics.median(ok) if ok else None), "p95_ms": _r(percentile(ok, 95)),
           "max_ms": _r(max(ok) if ok else None),
           "over_goal": sorted(r["id"] for r in rows if r["execute_ms"] is not None and r["execute_ms"] > GOAL_MS),
           "errors": sorted(r["id"] for r in rows if r["status"] == "error"),
           "results": rows}
    if verbose:
        print(f"scale: pipeline on {target}: {len(ok)}/{len(rows)} executed in {out['seconds']:.0f} s", flush=True)
    return out


def _r(x):
    return None if x is None else round(x, 1)


def summary(report: dict) -> str:
    lines = []
    s = report.get("settings") or {}
    lines.append(f"Scale benchmark {report['date']}: {report['questions']} C1-C10 questions, "
                 f"median of {report['repeat']} runs after a warm-up, as {READER}, statement_timeout 30 s"
                 + (f", {', '.join(f'{k}={v}' for k, v in s.items())}" if s else ""))
    lines.append(f"{'':17} {'wall ms (parallel plans)':^28} {'':5} {'CPU ms (serial run)':^26}")
    lines.append(f"{'size':>6} {'schema':<10} {'median':>8} {'p95':>8} {'max':>8}  {'>2s':>4}  "
                 f"{'median':>8} {'p95':>8} {'max':>8}  load")
    for m in report["sizes"]:
        lines.append(f"{m['size']:>6} {m['schema']:<10} {_ms(m['median_ms'])} {_ms(m['p95_ms'])} "
                     f"{_ms(m['max_ms'])}  {len(m['over_goal']):>4}  {_ms(m.get('cpu_median_ms'))} "
                     f"{_ms(m.get('cpu_p95_ms'))} {_ms(m.get('cpu_max_ms'))}  "
                     f"{'-'.join(f'{x:.1f}' for x in m.get('load_avg', []))}")
    if report["sizes"]:
        big = report["sizes"][-1]
        top = sorted((r for r in big["results"] if r["ms"] is not None), key=lambda r: -r["ms"])[:8]
        lines.append(f"slowest at {big['size']}: " + ", ".join(f"{r['id']} {r['ms']:.0f}" for r in top))
        errs = [r for r in big["results"] if r["error"]]
        if errs:
            lines.append("failed: " + ", ".join(f"{r['id']} ({r['error']})" for r in errs[:6]))
        if big["over_goal"]:
            lines.append(f"over {GOAL_MS / 1000:.0f} s at {big['size']}: {', '.join(big['over_goal'])}")
        else:
            lines.append(f"every question under {GOAL_MS / 1000:.0f} s at {big['size']}")
    for p in report.get("plans") or []:
        lines.append(f"plan {p['id']} ({p['ms']:.0f} ms): {plan_outline(p['plan'])}")
    for pm in report.get("pipeline") or []:
        lines.append(f"pipeline on {pm['schema']}: {pm['executed']}/{pm['questions']} executed; execute "
                     f"median {_ms(pm['median_ms']).strip()} p95 {_ms(pm['p95_ms']).strip()} "
                     f"max {_ms(pm['max_ms']).strip()} ms; >2s: {', '.join(pm['over_goal']) or 'none'}; "
                     f"anchor lookup {pm['anchor_lookup_ms']:.0f} ms")
    return "\n".join(lines)


def plan_outline(text: str, width: int = 200) -> str:
    """'Finalize Aggregate > Gather > ... > Seq Scan on school s x4400000': the plan's nodes in order,
    with the loop count of nodes run more than once."""
    nodes = []
    for ln in text.splitlines():
        m = re.match(r"\s*(?:->\s*)?([A-Z][^(]*?)\s+\(cost=.*?(?:loops=(\d+))?\)?$", ln)
        if m:
            loops = int(m.group(2) or 1)
            nodes.append(m.group(1) + (f" x{loops}" if loops > 3 else ""))
    out = " > ".join(nodes)
    return out if len(out) <= width else out[:width - 3] + "..."


def _ms(x) -> str:
    return f"{'-':>8}" if x is None else f"{x:8.1f}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    act = ap.add_mutually_exclusive_group(required=True)
    act.add_argument("--build", action="store_true", help="build the scaled schemas (skips those already built)")
    act.add_argument("--measure", action="store_true", help="time the dev set's C1-C10 questions on each size")
    act.add_argument("--drop", action="store_true", help="drop the scaled schemas")
    ap.add_argument("--sizes", default="10k,100k,1m,4.4m")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--force", action="store_true", help="rebuild even when already built")
    ap.add_argument("--workers", type=int, default=1, help="parallel workers for index builds (default 1)")
    ap.add_argument("--order", default="spatial", choices=sorted(ORDERS), help="row order of the built table")
    ap.add_argument("--schema", default=None, help="schema name (one size only; default ma_s<size>)")
    ap.add_argument("--dsn", default=os.environ.get("MAPASK_DSN", DEFAULT_DSN), help="reader DSN")
    ap.add_argument("--admin-dsn", default=None, help="admin DSN (default $MAPASK_ADMIN_DSN)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per query after one warm-up")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="session setting for the measured queries, e.g. --set jit=off (repeatable)")
    ap.add_argument("--only", default=None, help="comma-separated question ids or categories")
    ap.add_argument("--no-cpu", action="store_true", help="skip the serial CPU-time run of each query")
    ap.add_argument("--plans", type=int, default=3, help="EXPLAIN ANALYZE the slowest K queries of the largest size")
    ap.add_argument("--pipeline", action="store_true", help="also ask the questions through the MapAsk pipeline")
    ap.add_argument("--pipeline-sizes", default=None, help="sizes for --pipeline (default: the largest)")
    ap.add_argument("--json", default=None, help="write the full report here")
    args = ap.parse_args(argv)
    try:
        sizes = sorted({parse_size(s) for s in args.sizes.split(",") if s.strip()})
        settings = dict(kv.split("=", 1) for kv in args.set)
        if args.schema and len(sizes) != 1:
            raise ScaleError("--schema names one schema: give one size")
        one = args.schema
        if args.build:
            infos = [build(n, args.seed, args.admin_dsn, args.force, schema=one, workers=args.workers,
                           order=args.order) for n in sizes]
            if args.json:
                _write(args.json, {"build": infos})
            return 0
        if args.drop:
            for n in sizes:
                drop(n, args.admin_dsn, schema=one)
                print(f"scale: dropped {one or schema_for(n)}")
            return 0
        qs = questions()
        if args.only:
            want = {w.strip() for w in args.only.split(",")}
            qs = [q for q in qs if q["id"] in want or q["category"] in want]
        report = {"date": time.strftime("%Y-%m-%d %H:%M"), "questions": len(qs), "repeat": args.repeat,
                  "settings": settings, "goal_ms": GOAL_MS, "sizes": [], "plans": [], "pipeline": []}
        for n in sizes:
            report["sizes"].append(measure_size(n, qs, args.dsn, args.repeat, settings,
                                                schema=one,
                                                cpu=not args.no_cpu))
        if args.plans and sizes:
            report["plans"] = slowest_plans(sizes[-1], report["sizes"][-1], args.dsn, settings, args.plans, schema=one)
        if args.pipeline:
            psizes = ([parse_size(s) for s in args.pipeline_sizes.split(",")] if args.pipeline_sizes
                      else [sizes[-1]])
            for n in psizes:
                report["pipeline"].append(measure_pipeline(n, qs, args.dsn, settings, schema=one))
        print(summary(report))
        if args.json:
            _write(args.json, report)
    except (ScaleError, psycopg2.Error) as exc:
        print(f"scale: {exc}", file=sys.stderr)
        return 1
    return 0


def _write(path: str, doc: dict) -> None:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(doc, indent=2, default=str))
    print(f"scale: wrote {p}")


if __name__ == "__main__":
    sys.exit(main())
