"""Read-only execution: psycopg2, READ ONLY transaction, statement timeout, row cap, cancel, always ROLLBACK."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from .errors import ExecutionError


@dataclass
class QueryResult:
    columns: list[str]
    rows: list[tuple]
    truncated: bool = False
    ms: float = 0.0
    cost: float | None = None
    types: list[int] = field(default_factory=list)


def _psycopg2():
    try:
        import psycopg2
        return psycopg2
    except ImportError as e:  # QGIS normally ships it; say how to get it otherwise
        raise ExecutionError("driver", "psycopg2 is not installed: install python3-psycopg2") from e


class Executor:
    """One connection per executor, opened lazily and re-opened after a failure."""

    def __init__(self, dsn: str, timeout_ms: int = 15000, row_cap: int = 5000, max_cost: float | None = None):
        self.dsn = dsn
        self.timeout_ms = timeout_ms
        self.row_cap = row_cap
        self.max_cost = max_cost
        self._conn = None
        self._lock = threading.Lock()
        self._running = None

    def connect(self):
        pg = _psycopg2()
        if self._conn is None or self._conn.closed:
            try:
                self._conn = pg.connect(self.dsn, connect_timeout=5, application_name="mapask")
            except pg.OperationalError as e:
                raise ExecutionError("connection", f"cannot connect to the database: {str(e).strip().splitlines()[0]}")
            self._conn.autocommit = True  # transactions are opened explicitly as READ ONLY below
        return self._conn

    def cancel(self) -> None:
        """Callable from another thread: cancels the running statement."""
        conn = self._running
        if conn is not None:
            try:
                conn.cancel()
            except Exception:
                pass

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def run(self, sql: str, cap: int | None = None) -> QueryResult:
        """Run one guarded SELECT; only the guard's regenerated SQL should reach here."""
        pg = _psycopg2()
        cap = self.row_cap if cap is None else cap
        with self._lock:
            conn = self.connect()
            t0 = time.perf_counter()
            try:
                with conn.cursor() as cur:
                    self._running = conn
                    cur.execute("BEGIN READ ONLY")
                    cur.execute("SET LOCAL statement_timeout = %s", (int(self.timeout_ms),))
                    cost = None
                    if self.max_cost is not None:
                        cur.execute("EXPLAIN (FORMAT JSON) " + sql)
                        cost = float(cur.fetchone()[0][0]["Plan"]["Total Cost"])
                        if cost > self.max_cost:
                            raise ExecutionError("too_costly", f"the query's estimated cost {cost:.0f} is over the limit {self.max_cost:.0f}")
                    cur.execute(f"SELECT * FROM ({sql}) AS mapask_capped LIMIT {int(cap) + 1}")
                    rows = cur.fetchall()
                    cols = [d.name for d in cur.description]
                    types = [d.type_code for d in cur.description]
                truncated = len(rows) > cap
                return QueryResult(cols, rows[:cap], truncated, (time.perf_counter() - t0) * 1000, cost, types)
            except pg.extensions.QueryCanceledError as e:
                msg = str(e).lower()
                kind = "timeout" if "timeout" in msg else "cancelled"
                raise ExecutionError(kind, "the query took longer than the time limit" if kind == "timeout"
                                     else "the query was cancelled")
            except pg.OperationalError as e:
                self.close()
                raise ExecutionError("connection", f"the database connection failed: {str(e).strip().splitlines()[0] if str(e).strip() else 'closed'}")
            except pg.Error as e:
                raise ExecutionError(getattr(e, "pgcode", None) or "database",
                                     f"the database refused the query: {str(e).strip().splitlines()[0]}")
            finally:
                self._running = None
                if self._conn is not None and not self._conn.closed:
                    try:
                        self._conn.rollback() if not self._conn.autocommit else self._conn.cursor().execute("ROLLBACK")
                    except Exception:
                        self.close()
