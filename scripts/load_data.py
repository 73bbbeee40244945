"""Load a pack's published source files into PostGIS (staging schema, then swap), and set up the reader role."""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import re
import sys
import time
from pathlib import Path

import psycopg2
import yaml
from psycopg2 import sql

ROOT = Path(__file__).resolve().parent.parent
GEOM_TYPES = {"Point": "Point", "MultiPoint": "Point", "LineString": "MultiLineString",
              "MultiLineString": "MultiLineString", "Polygon": "MultiPolygon",
              "MultiPolygon": "MultiPolygon"}


class LoadError(Exception):
    """A source file is missing or malformed; the previous load is left intact."""


def snake(name: str) -> str:
    """Publisher's field name -> snake_case column name ('Object 1' -> object_1, 'GlobalID' -> global_id)."""
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name.strip())
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", s)
    s = re.sub(r"[^0-9A-Za-z]+", "_", s).strip("_").lower()
    return s or "field"


def cast_expr(col: str, cast: str | None) -> sql.Composable:
    """SQL expression turning a text column into its published type."""
    c = sql.Identifier(col)
    if not cast:
        return c
    kind, _, fmt = cast.partition(":")
    if kind == "date" and fmt:
        return sql.SQL("to_date({}, {})").format(c, sql.Literal(fmt))
    if kind == "time" and fmt:
        return sql.SQL("to_timestamp({}, {})::time").format(c, sql.Literal(fmt))
    if kind == "int":
        return sql.SQL("{}::numeric::integer").format(c)
    if kind == "bigint":
        return sql.SQL("{}::numeric::bigint").format(c)
    if kind == "double":
        return sql.SQL("{}::double precision").format(c)
    if kind == "bool":
        return sql.SQL("{}::boolean").format(c)
    if kind in ("date", "timestamp", "time"):
        return sql.SQL("{}::" + kind).format(c)
    raise LoadError(f"unknown cast {cast!r} for column {col}")


def read_csv(path: Path) -> tuple[list[str], list[list[str | None]], list[str | None]]:
    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.reader(fh)
        try:
            header = next(reader)
        except StopIteration:
            raise LoadError(f"{path.name}: the file is empty")
        rows = []
        for i, rec in enumerate(reader, start=2):
            if len(rec) != len(header):
                raise LoadError(f"{path.name}: line {i} has {len(rec)} fields, the header has {len(header)}")
            rows.append([v if v != "" else None for v in rec])
    return [snake(h) for h in header], rows, [None] * len(rows)


def prop_text(v) -> str | None:
    if v is None:
        return None
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (dict, list)):
        return json.dumps(v)
    return str(v)


def read_geojson(path: Path) -> tuple[list[str], list[list[str | None]], list[str | None]]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        feats = doc["features"]
    except (ValueError, KeyError, TypeError) as exc:
        raise LoadError(f"{path.name}: not a GeoJSON FeatureCollection ({exc})")
    keys: dict[str, str] = {}
    for f in feats:
        for k in (f.get("properties") or {}):
            keys.setdefault(k, snake(k))
    names = list(keys)
    rows, geoms = [], []
    for f in feats:
        props = f.get("properties") or {}
        rows.append([prop_text(props.get(k)) for k in names])
        g = f.get("geometry")
        geoms.append(json.dumps(g) if g else None)
    return list(keys.values()), rows, geoms


def copy_rows(cur, table: sql.Composable, cols: list[str], rows: list[list]) -> None:
    buf = io.StringIO()
    w = csv.writer(buf)
    for r in rows:
        w.writerow(["\\N" if v is None else v for v in r])
    buf.seek(0)
    cur.copy_expert(sql.SQL("COPY {} ({}) FROM STDIN WITH (FORMAT csv, NULL '\\N')").format(
        table, sql.SQL(", ").join(map(sql.Identifier, cols))).as_string(cur), buf)


def load_table(cur, spec: dict, schema: str, data_dir: Path, srid: int) -> int:
    """Load one table's files into `schema` and return its row count."""
    name = spec["table"]
    parts = []
    for f in spec["files"]:
        path = data_dir / f["file"]
        if not path.is_file():
            raise LoadError(f"{path}: file not found")
        cols, rows, geoms = read_csv(path) if spec["format"] == "csv" else read_geojson(path)
        if len(set(cols)) != len(cols):
            raise LoadError(f"{path.name}: two fields map to the same column name")
        for k, v in (f.get("constants") or {}).items():
            cols = cols + [k]
            rows = [r + [v] for r in rows]
        parts.append((cols, rows, geoms))
    all_cols: list[str] = []
    for cols, _, _ in parts:
        all_cols += [c for c in cols if c not in all_cols]
    raw = sql.Identifier(schema, "_raw_" + name)
    cur.execute(sql.SQL("CREATE TABLE {} (gid serial, {}, _geojson text)").format(
        raw, sql.SQL(", ").join(sql.SQL("{} text").format(sql.Identifier(c)) for c in all_cols)))
    n = 0
    for cols, rows, geoms in parts:
        copy_rows(cur, raw, cols + ["_geojson"], [r + [g] for r, g in zip(rows, geoms)])
        n += len(rows)
    casts = spec.get("casts") or {}
    unknown = set(casts) - set(all_cols)
    if unknown:
        raise LoadError(f"{name}: casts name columns the files do not have: {sorted(unknown)}")
    select = [sql.SQL("gid")] + [sql.SQL("{} AS {}").format(cast_expr(c, casts.get(c)), sql.Identifier(c))
                                 for c in all_cols]
    if spec["format"] == "geojson":
        cur.execute(sql.SQL("SELECT DISTINCT ST_GeometryType(ST_GeomFromGeoJSON(_geojson)) FROM {} "
                            "WHERE _geojson IS NOT NULL").format(raw))
        kinds = {GEOM_TYPES[r[0].removeprefix("ST_")] for r in cur.fetchall()}
        if len(kinds) != 1:
            raise LoadError(f"{name}: mixed geometry kinds {kinds}")
        gtype = kinds.pop()
        g = sql.SQL("ST_Transform(ST_SetSRID(ST_GeomFromGeoJSON(_geojson), 4326), {})").format(sql.Literal(srid))
        if gtype != "Point":
            g = sql.SQL("ST_Multi({})").format(g)
    else:
        gtype = "Point"
        p = spec["point"]
        lon = sql.SQL("{}::double precision").format(sql.Identifier(p["lon"]))
        lat = sql.SQL("{}::double precision").format(sql.Identifier(p["lat"]))
        g = sql.SQL("CASE WHEN {lon} IS NOT NULL AND {lat} IS NOT NULL THEN "
                    "ST_Transform(ST_SetSRID(ST_MakePoint({lon}, {lat}), 4326), {srid}) END").format(
            lon=lon, lat=lat, srid=sql.Literal(srid))
    select.append(sql.SQL("{}::geometry({}, {}) AS geom").format(g, sql.SQL(gtype), sql.Literal(srid)))
    tbl = sql.Identifier(schema, name)
    # rows written in spatial order share pages by place: a town or buffer touches fewer pages (bench/SCALE.md)
    order = sql.SQL("geom, gid" if spec.get("physical_order") == "geom" else "gid")
    cur.execute(sql.SQL("CREATE TABLE {} AS SELECT {} FROM {} ORDER BY {}").format(
        tbl, sql.SQL(", ").join(select), raw, order))
    cur.execute(sql.SQL("DROP TABLE {}").format(raw))
    cur.execute(sql.SQL("ALTER TABLE {} ADD PRIMARY KEY (gid)").format(tbl))
    cur.execute(sql.SQL("CREATE INDEX ON {} USING gist (geom)").format(tbl))
    for col in spec.get("unique") or []:
        cur.execute(sql.SQL("CREATE UNIQUE INDEX ON {} ({})").format(tbl, sql.Identifier(col)))
    for col in spec.get("indexes") or []:
        cur.execute(sql.SQL("CREATE INDEX ON {} ({})").format(tbl, sql.Identifier(col)))
    for d in spec.get("date_part_indexes") or []:
        # written as the compiler writes its conditions; INCLUDE lets a count be answered from the index alone
        cur.execute(sql.SQL("CREATE INDEX ON {} (({})) INCLUDE ({})").format(
            tbl, date_part(d), sql.Identifier(d["column"])))
    for d in spec.get("date_part_statistics") or []:
        # parts with few values (year, quarter): the planner needs their distribution, not an index
        for form, e in (("", date_part(d)), ("_int", sql.SQL("({})::integer").format(date_part(d)))):
            cur.execute(sql.SQL("CREATE STATISTICS {} ON ({}) FROM {}").format(
                sql.Identifier(schema, f"{name}_{d['part']}{form}_stx"), e, tbl))
    cur.execute(sql.SQL("SELECT count(*) FROM {}").format(tbl))
    got = cur.fetchone()[0]
    if got != n:
        raise LoadError(f"{name}: {got} rows in the table but {n} in the files")
    return n


DATE_PARTS = {"year": "YEAR", "quarter": "QUARTER", "month": "MONTH", "isodow": "ISODOW", "day": "DAY",
              "hour": "HOUR"}


def date_part(d: dict) -> sql.Composable:
    if d.get("part") not in DATE_PARTS:
        raise LoadError(f"unknown date part {d.get('part')!r}: one of {', '.join(DATE_PARTS)}")
    return sql.SQL("EXTRACT({} FROM {})").format(sql.SQL(DATE_PARTS[d["part"]]), sql.Identifier(d["column"]))


READER_SQL = """
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = %(role)s) THEN
    EXECUTE format('CREATE ROLE %%I LOGIN', %(role)s);
  END IF;
END $$;
"""


def setup_reader(cur, dbname: str, schema: str, role: str, password: str) -> None:
    """The plugin's role: read-only, this schema only, no admin rights."""
    cur.execute(READER_SQL, {"role": role})
    r = sql.Identifier(role)
    cur.execute(sql.SQL("ALTER ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION "
                        "NOBYPASSRLS PASSWORD {}").format(r, sql.Literal(password)))
    cur.execute(sql.SQL("ALTER ROLE {} SET default_transaction_read_only = on").format(r))
    cur.execute(sql.SQL("ALTER ROLE {} SET statement_timeout = '60s'").format(r))
    cur.execute(sql.SQL("REVOKE ALL ON DATABASE {} FROM PUBLIC").format(sql.Identifier(dbname)))
    cur.execute(sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(dbname), r))
    cur.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC")
    cur.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(sql.Identifier(schema), r))
    cur.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA {} TO {}").format(sql.Identifier(schema), r))
    # PostGIS lives in public: its functions stay executable; its one table is read by ST_Transform.
    cur.execute(sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(r))
    # PostgreSQL lets any role create large objects even in a READ ONLY transaction, and end sessions
    # of its own role: neither is reading, so PUBLIC loses them.
    cur.execute("REVOKE EXECUTE ON FUNCTION lo_create(oid), lo_creat(integer), lo_from_bytea(oid, bytea), "
                "lo_import(text), lo_import(text, oid), lo_put(oid, bigint, bytea), lo_unlink(oid), "
                "pg_terminate_backend(integer, bigint), pg_cancel_backend(integer) FROM PUBLIC")
    cur.execute(sql.SQL("ALTER ROLE {} SET idle_in_transaction_session_timeout = '30s'").format(r))
    # PostGIS's costly spatial functions push every spatial plan over the JIT thresholds: 0.4 s of compiling in
    # front of queries that run in milliseconds (bench/SCALE.md)
    cur.execute(sql.SQL("ALTER ROLE {} SET jit = off").format(r))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pack", default=str(ROOT / "knowledge" / "massachusetts"))
    ap.add_argument("--dsn", default=os.environ.get("MAPASK_ADMIN_DSN", ""))
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--reader", default="mapask_reader")
    ap.add_argument("--reader-password", default="mapask_reader")
    args = ap.parse_args(argv)
    pack = Path(args.pack)
    spec = yaml.safe_load((pack / "sources.yaml").read_text())
    schema = spec["schema"]
    data_dir = Path(args.data_dir) if args.data_dir else (pack / spec["data_dir"]).resolve()
    if not (pack / spec["data_dir"]).exists() and not args.data_dir:
        data_dir = (ROOT.parent / "shared" / "data" / pack.name).resolve()
    staging = schema + "_staging"
    t0 = time.time()
    conn = psycopg2.connect(args.dsn)
    try:
        with conn:
            with conn.cursor() as cur:
                cur.execute("CREATE EXTENSION IF NOT EXISTS postgis")
                cur.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(staging)))
                cur.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(staging)))
                counts = {}
                for t in spec["tables"]:
                    counts[t["table"]] = load_table(cur, t, staging, data_dir, spec["srid"])
                # swap in one transaction: readers see either the old or the new load
                cur.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
                cur.execute(sql.SQL("ALTER SCHEMA {} RENAME TO {}").format(
                    sql.Identifier(staging), sql.Identifier(schema)))
                cur.execute("SELECT current_database()")
                setup_reader(cur, cur.fetchone()[0], schema, args.reader, args.reader_password)
        conn.autocommit = True
        with conn.cursor() as cur:
            # VACUUM also marks the new pages all-visible: index-only scans then skip the table
            for name in counts:
                cur.execute(sql.SQL("VACUUM (ANALYZE) {}").format(sql.Identifier(schema, name)))
    except LoadError as exc:
        print(f"load: stopped, previous data left intact: {exc}", file=sys.stderr)
        return 1
    finally:
        conn.close()
    for k, v in counts.items():
        print(f"  {schema}.{k}: {v} rows")
    print(f"load: {sum(counts.values())} rows in {len(counts)} tables in {time.time() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
