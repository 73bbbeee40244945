"""Faults at the core: statement timeout, cancel, session killed mid-query, password changed, database stopped
mid-query, server restarted between questions. Each ends with a clear status and answer, the next question
works once the fault is gone, and no audit entry is lost (entries are appended to a JSONL file and re-read).

The test that stops the cluster is marked `restarts_db` and runs after every other test of the session; it
always starts the cluster again (finally), and the password is always restored to its stored verifier.
"""
from __future__ import annotations

import json
import threading
import time

import pytest

from plugin.core.execute import Executor
from plugin.core.pipeline import Pipeline

from .common import READER_DSN, READER_ROLE, admin_connect, db_script, db_up, ensure_db_running, q
from .dbprobe import suite_lock
from .suite import bench_questions

QUESTION = next(x["question"] for x in bench_questions() if x["category"] == "C1")


class SlowExecutor(Executor):
    """The real executor, with the query made slow on demand (so a fault can land while it runs)."""

    slow_s = 0.0

    def run(self, sql, cap=None):
        if self.slow_s:
            sql = f"SELECT q.* FROM (\n{sql}\n) AS q CROSS JOIN (SELECT pg_sleep({float(self.slow_s)})) AS s"
        return super().run(sql, cap)


class Asker:
    """A pipeline whose audit entries go to a JSONL file, as a saved history would."""

    def __init__(self, pack, path, **executor_args):
        self.path = path
        self.ex = SlowExecutor(READER_DSN, **executor_args)
        self.pipe = Pipeline(pack, READER_DSN, executor=self.ex, audit=self._write)
        self.answers = []

    def _write(self, entry: dict) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry, default=str) + "\n")

    def ask(self, question: str = QUESTION):
        a = self.pipe.ask(question)
        self.answers.append(a)
        return a

    def ask_in_thread(self, question: str = QUESTION) -> threading.Thread:
        t = threading.Thread(target=self.ask, args=(question,), daemon=True)
        t.start()
        return t

    def entries(self) -> list[dict]:
        return [json.loads(x) for x in self.path.read_text(encoding="utf-8").splitlines()]

    def pid(self) -> int | None:
        c = self.ex._conn
        return c.info.backend_pid if c is not None and not c.closed else None

    def close(self):
        self.ex.close()


def wait_running(admin, pid: int, timeout_s: float = 10) -> None:
    end = time.time() + timeout_s
    while time.time() < end:
        if q(admin, "SELECT count(*) FROM pg_stat_activity WHERE pid = %s AND state = 'active' "
                    "AND query LIKE '%%pg_sleep%%'", pid)[0][0]:
            return
        time.sleep(0.05)
    raise AssertionError("the slow query never started")


def clear(a) -> None:
    """A clear failure: a status, a plain-language answer naming the database, no traceback."""
    assert a.status == "error" and a.answer and "database" in a.answer.lower()
    assert "Traceback" not in a.answer and len(a.answer) < 400


def check_audit(asker: Asker) -> None:
    entries = asker.entries()
    assert len(entries) == len(asker.answers)
    assert [e["status"] for e in entries] == [a.status for a in asker.answers]
    assert [e["question"] for e in entries] == [a.question for a in asker.answers]


@pytest.fixture
def asker(pack, tmp_path):
    with suite_lock():
        a = Asker(pack, tmp_path / "audit.jsonl", timeout_ms=2000)
        a.pipe.annotator()
        yield a
        a.close()


def test_statement_timeout_then_next_question_works(asker):
    assert asker.ask().status == "answered"
    asker.ex.slow_s = 5
    a = asker.ask()
    clear(a)
    assert a.error.startswith("timeout") and "time limit" in a.answer
    asker.ex.slow_s = 0
    assert asker.ask().status == "answered"
    check_audit(asker)


def test_cancel_mid_query_then_next_question_works(asker):
    asker.ask()
    asker.ex.slow_s = 5
    t = asker.ask_in_thread()
    time.sleep(0.5)
    asker.ex.cancel()
    t.join(10)
    assert not t.is_alive()
    a = asker.answers[-1]
    clear(a)
    assert a.error.startswith("cancelled")
    asker.ex.slow_s = 0
    assert asker.ask().status == "answered"
    check_audit(asker)


def test_session_killed_mid_query_then_next_question_works(asker):
    admin = admin_connect()
    try:
        asker.ask()
        asker.ex.slow_s = 5
        t = asker.ask_in_thread()
        pid = None
        end = time.time() + 5
        while pid is None and time.time() < end:
            pid = asker.pid()
            time.sleep(0.02)
        wait_running(admin, pid)
        q(admin, "SELECT pg_terminate_backend(%s)", pid)
        t.join(10)
        clear(asker.answers[-1])
        assert asker.answers[-1].error.startswith("connection")
        asker.ex.slow_s = 0
        assert asker.ask().status == "answered"
        check_audit(asker)
    finally:
        admin.close()


def test_password_changed_then_restored(asker):
    admin = admin_connect()
    verifier = q(admin, "SELECT rolpassword FROM pg_authid WHERE rolname = %s", READER_ROLE)[0][0]
    try:
        assert asker.ask().status == "answered"
        q(admin, f"ALTER ROLE {READER_ROLE} PASSWORD 'mapask-security-test-wrong'")
        # an open session survives a password change: end ours so that the next question has to log in again
        q(admin, "SELECT pg_terminate_backend(%s)", asker.pid())
        a = asker.ask()
        clear(a)
        assert a.error.startswith("auth") and "password" in a.answer
    finally:
        q(admin, f"ALTER ROLE {READER_ROLE} PASSWORD %s", verifier)
        admin.close()
    assert asker.ask().status == "answered"
    check_audit(asker)


@pytest.fixture
def locked():
    with suite_lock():
        yield


@pytest.mark.restarts_db
def test_database_stopped_mid_query_and_restarted_between_questions(pack, tmp_path, locked):
    asker = Asker(pack, tmp_path / "audit.jsonl", timeout_ms=20000)
    admin = admin_connect()
    try:
        asker.pipe.annotator()
        assert asker.ask().status == "answered"                      # 1: the connection is open
        asker.ex.slow_s = 10
        t = asker.ask_in_thread()                                    # 2: stopped mid-query
        time.sleep(0.2)
        wait_running(admin, asker.pid())
        admin.close()
        t0 = time.time()
        db_script("stop")
        t.join(15)
        assert not t.is_alive() and time.time() - t0 < 15
        clear(asker.answers[-1])
        assert asker.answers[-1].error.startswith("connection")
        asker.ex.slow_s = 0
        a = asker.ask()                                              # 3: asked while the server is down
        clear(a)
        assert a.error.startswith("connection") and "connect" in a.answer
        db_script("start")
        assert db_up(30)
        assert asker.ask().status == "answered"                      # 4: works again once it is back
        db_script("stop")                                            # 5: restarted between two questions
        db_script("start")
        assert db_up(30)
        assert asker.ask().status == "answered"                      # the stale connection is replaced
        assert [a.status for a in asker.answers] == ["answered", "error", "error", "answered", "answered"]
        check_audit(asker)
    finally:
        ensure_db_running()
        asker.close()
