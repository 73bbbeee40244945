"""Canary reads are blamed on the run only when the run's own sessions made them: another process reading the
same canary tables at the same time is reported, never blamed (the scan counters alone are per table)."""
from __future__ import annotations

import psycopg2
import pytest

from . import dbprobe
from .common import READER_DSN, admin_connect
from .dbprobe import suite_lock

SECRET = f"{dbprobe.CANARY_SCHEMA}.secret"


@pytest.fixture(scope="module")
def canaries():
    with suite_lock():
        admin = admin_connect()
        dbprobe.setup_canaries(admin)
        try:
            yield admin
        finally:
            dbprobe.teardown_canaries(admin)
            admin.close()


def _session():
    conn = psycopg2.connect(READER_DSN)
    conn.autocommit = True
    return conn, conn.info.backend_pid


def _read(conn, sql=f"SELECT count(*) FROM {SECRET}"):
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def _after(admin, before, pids):
    dbprobe.wait_backends_gone(admin, pids)
    return dbprobe.snapshot(admin, "ma", checksums=False, since=before.log_at)


def test_another_process_reading_a_canary_is_reported_not_blamed(canaries):
    admin = canaries
    own, own_pid = _session()
    other, other_pid = _session()
    before = dbprobe.snapshot(admin, "ma", checksums=False)
    _read(own, "SELECT 1")
    _read(other)
    own.close(), other.close()
    after = _after(admin, before, [own_pid, other_pid])
    assert after.canaries[SECRET] > before.canaries[SECRET]  # the per-table counter alone would have blamed the run
    problems = dbprobe.compare(before, after, {own_pid})
    assert not [p for p in problems if "canary" in p], problems
    assert dbprobe.others_reads(after, {own_pid}) == {SECRET: [other_pid]}


def test_a_read_by_the_runs_own_session_is_blamed_with_its_pid(canaries):
    admin = canaries
    own, own_pid = _session()
    before = dbprobe.snapshot(admin, "ma", checksums=False)
    assert _read(own) == [(2,)]
    own.close()
    after = _after(admin, before, [own_pid])
    problems = [p for p in dbprobe.compare(before, after, {own_pid}) if "canary" in p]
    assert problems == [f"canary {SECRET} was read by this run's session(s) [{own_pid}]"]


def test_a_scan_no_tripwire_saw_is_blamed(canaries):
    """A read that returns no row (an index probe) fires no row policy; with no session named, the counter's rise
    counts against the run (and if the planner scanned the rows, the tripwire names the run's session)."""
    admin = canaries
    own, own_pid = _session()
    before = dbprobe.snapshot(admin, "ma", checksums=False)
    _read(own, f"SELECT count(*) FROM {SECRET} WHERE id = -1")
    own.close()
    after = _after(admin, before, [own_pid])
    problems = [p for p in dbprobe.compare(before, after, {own_pid}) if "canary" in p]
    assert problems and ("no tripwire saw" in problems[0] or str(own_pid) in problems[0])
