"""A long query is stopped by Cancel, by the time limit, and by unloading the plugin while it runs."""

import time

import pytest
from mapask_qgis_helpers import flush, mapask, module, wait_idle, dock, pg_connection  # noqa: F401
from qgis.core import QgsApplication
from qgis.PyQt import sip
from qgis.PyQt.QtCore import QCoreApplication

SLEEP_S = 20


def slow_executor_class():
    """The real read-only executor, made slow on demand: the checked SQL runs beside a pg_sleep on the server."""
    Executor = module("plugin.core.execute").Executor

    class SlowExecutor(Executor):
        slow = False

        def run(self, sql, cap=None):
            if SlowExecutor.slow:
                sql = f"SELECT s.* FROM ({sql}) AS s CROSS JOIN pg_sleep({SLEEP_S})"
            return super().run(sql, cap)

    return SlowExecutor


@pytest.fixture()
def slow(dock):
    cls = slow_executor_class()
    dock.session.executor_factory = cls
    dock.question_edit.setPlainText("how many crashes in cambridge")  # warm up: anchors load at full speed
    dock.ask()
    wait_idle(dock)
    cls.slow = True
    yield cls
    cls.slow = False


def wait_for_stage(dock, stage: str, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while dock.session.task is None or dock.session.task.stage != stage:
        QCoreApplication.processEvents()
        assert time.monotonic() < end, f"never reached the {stage} stage"
        time.sleep(0.01)
    time.sleep(0.3)  # let the statement reach the server
    QCoreApplication.processEvents()


def active_mapask_queries(admin) -> int:
    with admin.cursor() as cur:
        cur.execute("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'mapask' AND state = 'active' "
                    "AND query LIKE '%pg_sleep%'")
        return cur.fetchone()[0]


def test_cancel_stops_the_running_query(dock, slow, admin):
    dock.question_edit.setPlainText("crashes by neighborhood")
    start = time.monotonic()
    dock.ask_button.click()
    wait_for_stage(dock, "execute")
    assert dock.cancel_button.isEnabled() and not dock.ask_button.isEnabled()
    assert dock.progress.isVisible() or not dock.isVisible()
    assert "Running the query" in dock.progress.format()
    dock.cancel_button.click()
    wait_idle(dock)
    assert time.monotonic() - start < SLEEP_S / 2
    shown = dock.session.last
    assert shown.answer.status == "error" and "cancelled" in shown.answer.error
    assert shown.entry["status"] == "error"  # the cancelled question is in the history too
    assert dock.ask_button.isEnabled() and not dock.cancel_button.isEnabled()
    assert active_mapask_queries(admin) == 0


def test_time_limit_stops_a_slow_query(dock, slow):
    dock.session.settings.timeout_s = 1
    start = time.monotonic()
    dock.question_edit.setPlainText("crashes by neighborhood")
    dock.ask()
    wait_idle(dock)
    assert time.monotonic() - start < SLEEP_S / 2
    assert dock.session.last.answer.status == "error" and "timeout" in dock.session.last.answer.error


def test_unloading_the_plugin_with_a_question_running(qgis_iface, pg_connection, admin):
    plugin = mapask().classFactory(qgis_iface)
    plugin.initGui()
    dock = plugin.dock
    cls = slow_executor_class()
    dock.session.settings.connection = pg_connection
    dock.session.executor_factory = cls
    dock.ask("how many crashes in cambridge")
    wait_idle(dock)
    cls.slow = True
    try:
        dock.ask("crashes by neighborhood")
        task = dock.session.task
        wait_for_stage(dock, "execute")
        start = time.monotonic()
        plugin.unload()
        flush()
        assert time.monotonic() - start < SLEEP_S / 2
        assert plugin.docks == [] and plugin.dock is None
        for _ in range(50):  # the task manager delivers finished() to nobody: no crash, no error
            QCoreApplication.processEvents()
            time.sleep(0.01)
        assert task._ran.is_set()  # the worker returned
        assert sip.isdeleted(task) or task.status() in (task.Complete, task.Terminated)
        assert QgsApplication.taskManager().countActiveTasks() == 0
        assert active_mapask_queries(admin) == 0
    finally:
        cls.slow = False
