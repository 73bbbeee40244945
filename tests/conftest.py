"""Shared fixtures: the real local PostGIS (reader and admin connections) and one pipeline per session."""
from __future__ import annotations

import os
from pathlib import Path

import psycopg2
import pytest

ROOT = Path(__file__).resolve().parent.parent
PORT = os.environ.get("PGPORT", "55432")
READER_DSN = os.environ.get("MAPASK_DSN", f"host=127.0.0.1 port={PORT} dbname=mapask user=mapask_reader password=mapask_reader")
ADMIN_DSN = os.environ.get("MAPASK_ADMIN_DSN", f"host={ROOT / 'var' / 'pgsock'} port={PORT} dbname=mapask user=postgres")
PACK_DIR = ROOT / "knowledge" / "massachusetts"


@pytest.fixture(scope="session")
def reader_dsn() -> str:
    return READER_DSN


@pytest.fixture(scope="session")
def admin():
    conn = psycopg2.connect(ADMIN_DSN)
    conn.autocommit = True
    yield conn
    conn.close()


@pytest.fixture(scope="session")
def pack():
    from plugin.core.pack import load_pack
    return load_pack(PACK_DIR)


@pytest.fixture(scope="session")
def pipeline(pack):
    from plugin.core.pipeline import Pipeline
    entries: list[dict] = []
    # the interpreter's readings are tested as read; the confidence threshold has tests of its own
    p = Pipeline(pack, READER_DSN, audit=entries.append, ask_below=None)
    p.audit_log = entries
    yield p
    p.executor.close()


def scalar(conn, sql: str, *args):
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchone()[0]


def rows(conn, sql: str, *args) -> list[tuple]:
    with conn.cursor() as cur:
        cur.execute(sql, args)
        return cur.fetchall()
