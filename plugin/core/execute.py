"""Read-only execution: psycopg2, READ ONLY transaction, statement timeout, row cap, cancel, always ROLLBACK."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from .errors import CostLimitError, ExecutionError


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


def single_statement_problem(sql: str) -> str | None:
    """Why PostgreSQL's lexer could see more than one statement, or an unbalanced one, in `sql` (else None).

    A second line behind the guard: the executor wraps `sql` in a sub-query, so the only way to run a
    second statement is a ';' outside strings and comments or a ')' that closes the wrapper. This follows
    PostgreSQL's lexer (standard_conforming_strings on, which the executor sets): '...' with '' escapes,
    E'...' with backslash escapes, "..." identifiers, $tag$...$tag$, -- comments and nested /* */.
    """
    if "\x00" in sql:
        return "a NUL character"
    i, depth = 0, 0
    while i < len(sql):
        c = sql[i]
        if c == ";":
            return "a ';' between statements"
        if c in "()":
            depth += 1 if c == "(" else -1
            if depth < 0:
                return "a ')' that closes more than it opens"
            i += 1
            continue
        i, problem = _lexeme_end(sql, i)
        if problem:
            return problem
    return "unbalanced parentheses" if depth else None


def _lexeme_end(sql: str, i: int) -> tuple[int, str | None]:
    """Where the lexeme at `i` ends (a comment, a string, a quoted name, a word or one character), or why it
    never does."""
    c = sql[i]
    if sql.startswith("--", i):
        return _line_comment_end(sql, i), None
    if sql.startswith("/*", i):
        return _block_comment_end(sql, i)
    if c in "eE" and sql.startswith("'", i + 1) and not _inside_word(sql, i):
        return _escape_string_end(sql, i)
    if c == "'" or c == '"':
        return _quoted_end(sql, i)
    if c == "$" and not _inside_word(sql, i):
        return _dollar_quoted_end(sql, i)
    if c.isalpha() or c == "_" or ord(c) > 127:
        while i < len(sql) and (sql[i].isalnum() or sql[i] in "_$" or ord(sql[i]) > 127):
            i += 1
        return i, None
    return i + 1, None


def _inside_word(sql: str, i: int) -> bool:
    """The character before `i` continues a word, so `i` starts no string ('name$1', 'type'e'')."""
    return bool(i and (sql[i - 1].isalnum() or sql[i - 1] in "_$"))


def _line_comment_end(sql: str, i: int) -> int:
    j = i + 2
    while j < len(sql) and sql[j] not in "\r\n":  # PostgreSQL ends a -- comment at CR as well as LF
        j += 1
    return j + 1


def _block_comment_end(sql: str, i: int) -> tuple[int, str | None]:
    """After a /* */ comment; they nest."""
    level, i = 1, i + 2
    while i < len(sql) and level:
        if sql.startswith("/*", i):
            level, i = level + 1, i + 2
        elif sql.startswith("*/", i):
            level, i = level - 1, i + 2
        else:
            i += 1
    return i, "an unterminated comment" if level else None


def _escape_string_end(sql: str, i: int) -> tuple[int, str | None]:
    """After an E'...' string, where a backslash escapes the next character."""
    i, n = i + 2, len(sql)
    while i < n:
        if sql[i] == "\\":
            i += 2
        elif sql[i] == "'" and i + 1 < n and sql[i + 1] == "'":
            i += 2
        elif sql[i] == "'":
            break
        else:
            i += 1
    if i >= n:
        return i, "an unterminated string"
    return i + 1, None


def _quoted_end(sql: str, i: int) -> tuple[int, str | None]:
    """After a '...' string or a "..." identifier, where a doubled quote is part of it."""
    c, n = sql[i], len(sql)
    i += 1
    while True:
        j = sql.find(c, i)
        if j < 0:
            return i, "an unterminated string or identifier"
        if j + 1 < n and sql[j + 1] == c:
            i = j + 2
            continue
        return j + 1, None


def _dollar_quoted_end(sql: str, i: int) -> tuple[int, str | None]:
    """After a $tag$...$tag$ string; a '$' that opens no tag is one character."""
    n, j = len(sql), i + 1
    while j < n and (sql[j].isalnum() or sql[j] == "_") and not (j == i + 1 and sql[j].isdigit()):
        j += 1
    if j < n and sql[j] == "$":
        tag = sql[i:j + 1]
        k = sql.find(tag, j + 1)
        if k < 0:
            return i, "an unterminated dollar-quoted string"
        return k + len(tag), None
    return i + 1, None


def wrapped(sql: str, cap: int) -> str:
    """The statement as the executor sends it: a sub-query under the row cap (one more row shows truncation)."""
    return f"SELECT * FROM (\n{sql}\n) AS mapask_capped LIMIT {int(cap) + 1}"


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
        self.backend_pids: list[int] = []  # every server session this executor opened (audits attribute reads)

    def connect(self):
        pg = _psycopg2()
        if self._conn is None or self._conn.closed:
            try:
                self._conn = pg.connect(self.dsn, connect_timeout=5, application_name="mapask")
            except pg.OperationalError as e:
                first = str(e).strip().splitlines()[0] if str(e).strip() else "no reply"
                if "password authentication failed" in first or "authentication failed" in first:
                    raise ExecutionError("auth", f"the database refused MapAsk's login ({first}); check the "
                                                 "connection's user name and password")
                raise ExecutionError("connection", f"cannot connect to the database: {first}")
            self._conn.autocommit = True  # transactions are opened explicitly as READ ONLY below
            self.backend_pids.append(self._conn.info.backend_pid)
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
            try:
                self._conn.close()
            except Exception:
                pass
            self._conn = None

    def _begin(self, pg):
        """Open the READ ONLY transaction; a connection that went stale while idle (server restarted,
        session terminated) is replaced once, since nothing of the query has been sent yet."""
        for attempt in (1, 2):
            conn = self.connect()
            try:
                with conn.cursor() as cur:
                    cur.execute("BEGIN READ ONLY")
                return conn
            except (pg.OperationalError, pg.InterfaceError) as e:
                self.close()
                if attempt == 2:
                    first = str(e).strip().splitlines()[0] if str(e).strip() else "closed"
                    raise ExecutionError("connection", f"the database connection failed: {first}")

    def run(self, sql: str, cap: int | None = None, max_cost: float | None = None) -> QueryResult:
        """Run one guarded SELECT; only the guard's regenerated SQL should reach here.

        With a cost limit (`max_cost`, else the executor's own), the planner's estimate is read first with a plain
        EXPLAIN (never ANALYZE: nothing runs) that this method builds around the same wrapped statement, inside
        the same READ ONLY transaction; over the limit it raises CostLimitError. No caller can hand in an EXPLAIN
        of its own: the guard refuses EXPLAIN, and the wrapper below makes any statement a sub-query."""
        pg = _psycopg2()
        cap = self.row_cap if cap is None else cap
        limit = self.max_cost if max_cost is None else max_cost
        if not isinstance(sql, str):
            raise ExecutionError("refused", "the query is not text")
        problem = single_statement_problem(sql)
        if problem:
            raise ExecutionError("refused", f"the query is not one balanced statement: it has {problem}")
        statement = wrapped(sql, cap)
        with self._lock:
            conn = self._begin(pg)
            t0 = time.perf_counter()
            try:
                with conn.cursor() as cur:
                    self._running = conn
                    cur.execute("SET LOCAL statement_timeout = %s", (int(self.timeout_ms),))
                    cur.execute("SET LOCAL standard_conforming_strings = on")
                    # a client that dies mid-transaction must not hold locks on the pack's tables
                    cur.execute("SET LOCAL idle_in_transaction_session_timeout = %s", (int(self.timeout_ms) + 5000,))
                    cost = None
                    if limit is not None:
                        cur.execute("EXPLAIN (FORMAT JSON) " + statement)
                        cost = float(cur.fetchone()[0][0]["Plan"]["Total Cost"])
                        if cost > float(limit):
                            raise CostLimitError(cost, float(limit))
                    cur.execute(statement)
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
            except (pg.OperationalError, pg.InterfaceError) as e:
                self.close()
                first = str(e).strip().splitlines()[0] if str(e).strip() else "closed"
                raise ExecutionError("connection", f"the database connection failed: {first}")
            except pg.Error as e:
                first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
                raise ExecutionError(getattr(e, "pgcode", None) or "database",
                                     f"the database refused the query: {first}")
            except (ValueError, UnicodeError) as e:  # e.g. text the driver cannot send
                raise ExecutionError("bad_input", f"the query could not be sent: {e}")
            finally:
                self._running = None
                self._reset()

    def _reset(self) -> None:
        """End the transaction and return the session to its defaults (settings, advisory locks, prepared
        statements): whatever a query did, the next one starts clean. A failure here drops the connection."""
        conn = self._conn
        if conn is None or conn.closed:
            return
        try:
            with conn.cursor() as cur:
                cur.execute("ROLLBACK")
                cur.execute("DISCARD ALL")
        except Exception:
            self.close()
