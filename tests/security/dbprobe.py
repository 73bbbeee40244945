"""Database-side evidence: write counters, table checksums, objects per schema, canary reads, sessions, locks.

Everything here runs as the admin role and reads only statistics and catalogs, except the checksums,
which read the pack's tables (never the canaries, whose scan counters must stay at zero).

Canary reads are blamed on a run only when one of the run's own sessions made them: a scan counter is per table
and counts every session, so each canary also carries a row-level policy (a tripwire) that writes the reading
backend's pid to the server log. A read by another process using the same database is reported, not blamed; a
scan no tripwire saw (one that read no row) is blamed, since it cannot be attributed.
"""
from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from .common import READER_ROLE, ROOT, q

CANARY_SCHEMA = "mapask_canary"
CANARY_TABLES = [f"{CANARY_SCHEMA}.secret", f"{CANARY_SCHEMA}.audit_copy", "public.mapask_canary"]
CONTROL_TABLE = f"{CANARY_SCHEMA}.control"  # read on purpose, to prove a read would show
# Object counts are kept per schema for the schemas this suite cares about; objects anywhere else are caught
# by ownership (anything the reader role creates is owned by it), so schemas other runs create or drop at the
# same time (perturbed or scaled bench copies) do not disturb the figures.
WATCHED_SCHEMAS = ("public", "pg_catalog", "information_schema", CANARY_SCHEMA)
BIG_TABLE_ROWS = 200_000
TRIPWIRE = re.compile(r"mapask_canary_read table=(\S+) pid=(\d+)")


_LOCK = {"depth": 0, "file": None}


@contextlib.contextmanager
def suite_lock():
    """One database-touching run of this suite at a time across processes (re-entrant within one): two pytest
    runs at once would drop each other's canaries or restart the server under each other. A file lock, so that
    it survives the server restarts the fault tests cause."""
    import fcntl
    import os
    from .common import PORT
    if _LOCK["depth"] == 0:
        f = open(os.path.join("/tmp", f"mapask-security-{PORT}.lock"), "w")
        fcntl.flock(f, fcntl.LOCK_EX)
        _LOCK["file"] = f
    _LOCK["depth"] += 1
    try:
        yield
    finally:
        _LOCK["depth"] -= 1
        if _LOCK["depth"] == 0:
            _LOCK["file"].close()  # releases the lock
            _LOCK["file"] = None


def setup_canaries(admin) -> None:
    """See _setup_canaries; done on a connection of its own, closed and awaited, so the statistics of the
    set-up itself (inserts, the primary-key build's scan) are flushed before any baseline is taken."""
    from .common import admin_connect
    conn = admin_connect()
    pid = conn.info.backend_pid
    try:
        _setup_canaries(conn)
    finally:
        conn.close()
    wait_backends_gone(admin, [pid])


def _setup_canaries(admin) -> None:
    """Canary tables outside the pack's schema, readable by the reader role: only the guard keeps them unread.
    `public.mapask_canary` sits on the default search_path, so an unqualified name that escaped the guard's
    CTE scoping would land on it."""
    teardown_canaries(admin)
    q(admin, f"CREATE SCHEMA {CANARY_SCHEMA}")
    q(admin, f"GRANT USAGE ON SCHEMA {CANARY_SCHEMA} TO {READER_ROLE}")
    # the tripwire: every row a non-owner reads logs the reading backend (RAISE LOG reaches the server log only)
    q(admin, f"CREATE FUNCTION {CANARY_SCHEMA}.tripwire(t text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS "
             "$$ BEGIN RAISE LOG 'mapask_canary_read table=% pid=%', t, pg_backend_pid(); RETURN true; END $$")
    for t in CANARY_TABLES + [CONTROL_TABLE]:
        q(admin, f"CREATE TABLE {t} (id int PRIMARY KEY, secret text NOT NULL, geom geometry)")
        q(admin, f"INSERT INTO {t} VALUES (1, 'canary: if you can read this the guard failed', "
                 f"ST_SetSRID(ST_MakePoint(0, 0), 26986)), (2, 'second row', NULL)")
        q(admin, f"GRANT SELECT ON {t} TO {READER_ROLE}")
        q(admin, f"ALTER TABLE {t} ENABLE ROW LEVEL SECURITY")
        q(admin, f"CREATE POLICY tripwire ON {t} FOR SELECT USING ({CANARY_SCHEMA}.tripwire('{t}'))")


def teardown_canaries(admin) -> None:
    q(admin, f"DROP SCHEMA IF EXISTS {CANARY_SCHEMA} CASCADE")
    q(admin, "DROP TABLE IF EXISTS public.mapask_canary")


def server_log(admin) -> Path:
    """The server's log file: the collector's current file, else the project cluster's (scripts/db.sh -l)."""
    current = q(admin, "SELECT pg_current_logfile()")[0][0]
    if current:
        data = q(admin, "SHOW data_directory")[0][0]
        return Path(current) if Path(current).is_absolute() else Path(data) / current
    return ROOT / "var" / "postgres.log"


def log_size(admin) -> int:
    path = server_log(admin)
    return path.stat().st_size if path.exists() else 0


def canary_readers(admin, since: int) -> dict[str, set[int]]:
    """Canary table -> the backend pids its tripwire logged since byte `since` of the server log."""
    path = server_log(admin)
    out: dict[str, set[int]] = {}
    if not path.exists():
        return out
    with path.open("rb") as f:
        f.seek(since)
        for line in f.read().decode("utf-8", "replace").splitlines():
            m = TRIPWIRE.search(line)
            if m:
                out.setdefault(m.group(1), set()).add(int(m.group(2)))
    return out


def wait_backends_gone(admin, pids: list[int], timeout_s: float = 5) -> None:
    """A closed connection's statistics are flushed when its backend exits: wait for that."""
    end = time.time() + timeout_s
    while pids and time.time() < end:
        left = q(admin, "SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)", list(pids))[0][0]
        if not left:
            break
        time.sleep(0.05)
    q(admin, "SELECT pg_stat_clear_snapshot()")


def canary_scans(admin) -> dict[str, int]:
    q(admin, "SELECT pg_stat_clear_snapshot()")
    out = {}
    for schema, rel, seq, idx in q(admin, "SELECT schemaname, relname, coalesce(seq_scan, 0), coalesce(idx_scan, 0) "
                                          "FROM pg_stat_user_tables WHERE (schemaname = %s) "
                                          "OR (schemaname = 'public' AND relname = 'mapask_canary')", CANARY_SCHEMA):
        out[f"{schema}.{rel}"] = int(seq) + int(idx)
    return out


@dataclass
class Snapshot:
    writes: dict[str, tuple] = field(default_factory=dict)      # table -> (ins, upd, del, hot_upd)
    checksums: dict[str, str] = field(default_factory=dict)     # table -> hash
    objects: dict[str, int] = field(default_factory=dict)       # "schema/kind" -> count
    reader_owned: dict[str, int] = field(default_factory=dict)  # catalog -> objects owned by the reader role
    canaries: dict[str, int] = field(default_factory=dict)      # table -> seq_scan + idx_scan
    log_at: int = 0                                             # server log size when taken
    readers: dict[str, set[int]] = field(default_factory=dict)  # canary -> pids its tripwire logged since `before`
    reader_sessions: list[tuple] = field(default_factory=list)  # (pid, state, xact open, application)
    reader_locks: list[tuple] = field(default_factory=list)     # (pid, locktype, mode, relation)


def snapshot(admin, schema: str, checksums: bool = True, since: int | None = None) -> Snapshot:
    """The database's state; with `since` (an earlier snapshot's log_at), also who read a canary in between."""
    s = Snapshot()
    q(admin, "SELECT pg_stat_clear_snapshot()")
    for rel, ins, upd, dele, hot in q(admin, "SELECT relname, n_tup_ins, n_tup_upd, n_tup_del, n_tup_hot_upd "
                                             "FROM pg_stat_user_tables WHERE schemaname = %s", schema):
        s.writes[f"{schema}.{rel}"] = (ins, upd, dele, hot)
    s.writes.update({t: tuple(r) for t, *r in q(
        admin, "SELECT schemaname || '.' || relname, n_tup_ins, n_tup_upd, n_tup_del, n_tup_hot_upd "
               "FROM pg_stat_user_tables WHERE schemaname = %s OR relname = 'mapask_canary'", CANARY_SCHEMA)})
    if checksums:
        for (rel, est) in q(admin, "SELECT c.relname, c.reltuples FROM pg_class c JOIN pg_namespace n ON n.oid = "
                                   "c.relnamespace WHERE n.nspname = %s AND c.relkind IN ('r', 'p') ORDER BY 1", schema):
            t = f'"{schema}"."{rel}"'
            if est < BIG_TABLE_ROWS:
                h = q(admin, f"SELECT count(*)::text || ':' || coalesce(md5(string_agg(md5(x::text), '' "
                             f"ORDER BY md5(x::text))), '') FROM {t} AS x")[0][0]
            else:
                h = q(admin, f"SELECT count(*)::text || ':' || coalesce(sum(hashtext(x::text)::bigint), 0)::text "
                             f"FROM {t} AS x")[0][0]
            s.checksums[f"{schema}.{rel}"] = h
    watched = [schema, *WATCHED_SCHEMAS]
    for nsp, kind, n in q(admin, "SELECT n.nspname, c.relkind::text, count(*) FROM pg_class c JOIN pg_namespace n "
                                 "ON n.oid = c.relnamespace WHERE n.nspname = ANY(%s) GROUP BY 1, 2", watched):
        s.objects[f"{nsp}/rel:{kind}"] = n
    for nsp, n in q(admin, "SELECT n.nspname, count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                           "WHERE n.nspname = ANY(%s) GROUP BY 1", watched):
        s.objects[f"{nsp}/proc"] = n
    for nsp, n in q(admin, "SELECT n.nspname, count(*) FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace "
                           "WHERE n.nspname = ANY(%s) GROUP BY 1", watched):
        s.objects[f"{nsp}/type"] = n
    s.objects["(database)/temp_schemas_in_use"] = q(
        admin, "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
               "WHERE n.nspname LIKE 'pg_temp_%%' AND c.relowner = %s::regrole", READER_ROLE)[0][0]
    s.objects["(database)/large_objects"] = q(admin, "SELECT count(*) FROM pg_largeobject_metadata")[0][0]
    s.objects["(cluster)/prepared_xacts"] = q(admin, "SELECT count(*) FROM pg_prepared_xacts")[0][0]
    for cat, col in (("pg_class", "relowner"), ("pg_proc", "proowner"), ("pg_namespace", "nspowner"),
                     ("pg_type", "typowner"), ("pg_largeobject_metadata", "lomowner"), ("pg_operator", "oprowner")):
        s.reader_owned[cat] = q(admin, f"SELECT count(*) FROM {cat} WHERE {col} = %s::regrole", READER_ROLE)[0][0]
    s.canaries = canary_scans(admin)
    s.log_at = log_size(admin)
    if since is not None:
        s.readers = canary_readers(admin, since)
    s.reader_sessions = q(admin, "SELECT pid, state, xact_start IS NOT NULL, application_name FROM pg_stat_activity "
                                 "WHERE usename = %s AND pid <> pg_backend_pid()", READER_ROLE)
    s.reader_locks = q(admin, "SELECT l.pid, l.locktype, l.mode, l.relation::regclass::text FROM pg_locks l "
                              "JOIN pg_stat_activity a ON a.pid = l.pid WHERE a.usename = %s "
                              "AND (a.state <> 'active' OR l.locktype = 'advisory')", READER_ROLE)
    return s


def compare(before: Snapshot, after: Snapshot, own_pids: set[int] | None = None) -> list[str]:
    """Every difference a hostile run must not cause, as readable lines (empty = nothing changed)."""
    bad = []
    for t in sorted(set(before.writes) | set(after.writes)):
        if before.writes.get(t) != after.writes.get(t):
            bad.append(f"write counters of {t} changed: {before.writes.get(t)} -> {after.writes.get(t)}")
    for t in sorted(set(before.checksums) | set(after.checksums)):
        if before.checksums.get(t) != after.checksums.get(t):
            bad.append(f"checksum of {t} changed")
    for k in sorted(set(before.objects) | set(after.objects)):
        if before.objects.get(k, 0) != after.objects.get(k, 0):
            bad.append(f"object count {k} changed: {before.objects.get(k, 0)} -> {after.objects.get(k, 0)}")
    for k, n in after.reader_owned.items():
        if n:
            bad.append(f"{n} object(s) in {k} owned by {READER_ROLE}")
    bad += _canary_blame(before, after, own_pids)
    for pid, state, in_xact, app in after.reader_sessions:
        if own_pids is None or pid in own_pids:
            if state and state.startswith("idle in transaction"):
                bad.append(f"reader session {pid} ({app}) left {state}")
    for pid, locktype, mode, rel in after.reader_locks:
        if own_pids is None or pid in own_pids or locktype == "advisory":
            bad.append(f"reader session {pid} holds {locktype} {mode} {rel or ''}".rstrip())
    return bad


def _canary_blame(before: Snapshot, after: Snapshot, own_pids: set[int] | None) -> list[str]:
    """Canary reads by the run's own sessions (all sessions when `own_pids` is None), and scans no tripwire saw."""
    bad = []
    for t, n in after.canaries.items():
        if t == CONTROL_TABLE:
            continue
        readers = after.readers.get(t, set())
        mine = readers if own_pids is None else readers & own_pids
        if mine:
            bad.append(f"canary {t} was read by this run's session(s) {sorted(mine)}")
        elif n > before.canaries.get(t, 0) and not readers:
            bad.append(f"canary {t} was scanned ({before.canaries.get(t, 0)} -> {n}) and no tripwire saw by whom")
    return bad


def others_reads(after: Snapshot, own_pids: set[int] | None) -> dict[str, list[int]]:
    """Canary reads by sessions that are not the run's (reported, never blamed)."""
    own = own_pids or set()
    return {t: sorted(p - own) for t, p in after.readers.items() if t != CONTROL_TABLE and p - own} if own_pids else {}


def session_problems(admin, pids: list[int]) -> list[str]:
    """Open-transaction and lock problems of the given (still connected) reader sessions, plus any advisory
    lock held by any reader session."""
    bad = []
    for pid, state, xact in q(admin, "SELECT pid, state, xact_start IS NOT NULL FROM pg_stat_activity "
                                     "WHERE pid = ANY(%s)", list(pids)):
        if state != "idle" or xact:
            bad.append(f"session {pid} is '{state}' (transaction open: {xact})")
    for pid, locktype, mode in q(admin, "SELECT l.pid, l.locktype, l.mode FROM pg_locks l JOIN pg_stat_activity a "
                                        "ON a.pid = l.pid WHERE l.pid = ANY(%s) OR (a.usename = %s AND "
                                        "l.locktype = 'advisory')", list(pids), READER_ROLE):
        bad.append(f"session {pid} holds a {locktype} lock ({mode})")
    return bad


def summary_lines(before: Snapshot, after: Snapshot, problems: list[str], own_pids: set[int] | None = None) -> list[str]:
    w = [t for t in after.writes if not t.startswith(CANARY_SCHEMA) and "mapask_canary" not in t]
    return [
        f"  write counters (n_tup_ins/upd/del/hot_upd) unchanged on {sum(before.writes.get(t) == after.writes.get(t) for t in w)}"
        f"/{len(w)} tables",
        f"  checksums unchanged on {sum(before.checksums[t] == after.checksums.get(t) for t in before.checksums)}"
        f"/{len(before.checksums)} tables",
        f"  object counts unchanged in {sum(before.objects.get(k) == after.objects.get(k) for k in after.objects)}"
        f"/{len(after.objects)} schema/kind buckets; objects owned by {READER_ROLE}: {sum(after.reader_owned.values())}",
        "  canary scans during the run (seq + index, any session): " + ", ".join(
            f"{t} +{n - before.canaries.get(t, 0)}" for t, n in sorted(after.canaries.items()) if t != CONTROL_TABLE),
        "  canary reads by the run's own sessions (tripwire): " + str(sum(
            1 for p in problems if p.startswith("canary"))) + "; by other sessions (reported, not blamed): " +
        (", ".join(f"{t} by {len(pids)} session(s) (e.g. {', '.join(map(str, pids[:3]))})"
                  for t, pids in others_reads(after, own_pids).items()) or "none"),
        f"  reader sessions idle in transaction: "
        f"{sum(1 for r in after.reader_sessions if (r[1] or '').startswith('idle in transaction'))}; "
        f"locks held by idle reader sessions: {len(after.reader_locks)}",
        f"  problems: {len(problems)}" + ("" if not problems else " -> " + "; ".join(problems[:5])),
    ]
