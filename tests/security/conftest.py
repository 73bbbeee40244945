"""Security suite: figures printed at the end of the pytest run; tests that restart the server run last."""
from __future__ import annotations

FIGURES: list[str] = []


def record(*lines: str) -> None:
    FIGURES.extend(lines)


def pytest_collection_modifyitems(session, config, items):
    # Restarting the cluster breaks every session-scoped connection held by other tests (e.g. tests/conftest's
    # `admin`): run those tests after everything else.
    last = [i for i in items if i.get_closest_marker("restarts_db")]
    if last:
        items[:] = [i for i in items if not i.get_closest_marker("restarts_db")] + last


def pytest_configure(config):
    config.addinivalue_line("markers", "restarts_db: stops and restarts the PostgreSQL cluster (runs last)")
    config.addinivalue_line("markers", "soak: long soak run, enabled by MAPASK_SOAK_QUESTIONS")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if FIGURES:
        terminalreporter.section("MapAsk security figures")
        for line in FIGURES:
            terminalreporter.write_line(line)
