"""Check a knowledge pack against the live database: tables, fields, coded labels (both ways), columns the pack
does not declare, place-name spellings, and fields left without a description."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .pack import Pack, load_pack, norm_label


@dataclass
class CheckReport:
    pack_id: str
    content_hash: str
    problems: list[str] = field(default_factory=list)
    unknown_labels: dict[str, list[str]] = field(default_factory=dict)
    # table -> columns the database has and no entity reading the table declares (as a field, key or geometry)
    unknown_columns: dict[str, list[str]] = field(default_factory=dict)
    # completeness warnings: they do not make the pack NOT OK
    no_description: list[str] = field(default_factory=list)
    unused_tables: list[str] = field(default_factory=list)
    tables: int = 0
    fields: int = 0
    labels: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems and not self.unknown_labels and not self.unknown_columns

    @property
    def warnings(self) -> list[str]:
        out = []
        if self.no_description:
            out.append(f"{len(self.no_description)} fields without a description: {_some(self.no_description)}")
        if self.unused_tables:
            out.append(f"tables in the schema no entity reads: {_some(self.unused_tables)}")
        return out

    def text(self) -> str:
        lines = [f"pack {self.pack_id} hash {self.content_hash}: {self.tables} entities, {self.fields} fields, "
                 f"{self.labels} coded labels checked"]
        lines += [f"  problem: {p}" for p in self.problems]
        for k, v in self.unknown_labels.items():
            lines.append(f"  labels in the data unknown to the pack, {k}: {_some(v)}")
        for k, v in self.unknown_columns.items():
            lines.append(f"  columns in the database the pack does not declare, {k}: {_some(v)}")
        lines += [f"  warning: {w}" for w in self.warnings]
        lines.append("OK" if self.ok else "NOT OK")
        return "\n".join(lines)


def _some(items: list[str], n: int = 10) -> str:
    return f"{items[:n]}{' ...' if len(items) > n else ''}"


def _schema_columns(cur, schema: str) -> dict[str, dict[str, str]]:
    """table -> {column: udt name} for every table and view of the schema the connection can see."""
    cur.execute("SELECT table_name, column_name, udt_name FROM information_schema.columns WHERE table_schema=%s",
                (schema,))
    out: dict[str, dict[str, str]] = {}
    for table, column, udt in cur.fetchall():
        out.setdefault(table, {})[column] = udt
    return out


def distinct_codes(cur, schema: str, table: str, column: str) -> list[str]:
    # identifiers come from the pack and were checked against information_schema just before
    cur.execute(f'SELECT DISTINCT "{column}"::text FROM "{schema}"."{table}" WHERE "{column}" IS NOT NULL ORDER BY 1')
    return [r[0] for r in cur.fetchall()]


def _check_columns(pack: Pack, cols: dict[str, dict[str, str]], rep: CheckReport) -> None:
    """Every database column of a pack table is declared by an entity reading that table: a field, the key, or
    the geometry column (a PostGIS geometry); tables no entity reads are listed as a warning."""
    declared: dict[str, set[str]] = {}
    for ent in pack.entities.values():
        declared.setdefault(ent.table, set()).update({*ent.fields, ent.key})
    for table, known in declared.items():
        have = cols.get(table)
        if not have:
            continue  # reported as a missing table
        extra = sorted(c for c, udt in have.items() if c not in known and udt != "geometry")
        if extra:
            rep.unknown_columns[f"{pack.schema}.{table}"] = extra
    rep.unused_tables = sorted(f"{pack.schema}.{t}" for t in cols if t not in declared)


def _check_place_names(pack: Pack, cur, rep: CheckReport) -> None:
    """`places: {<area entity>: {field, same: {<area name>: [<values this field holds for it>]}}}`: each area
    name is a name of the area entity, each value is in the field's data."""
    for ent in pack.entities.values():
        for area_name, pf in (ent.places or {}).items():
            same = pf.get("same") or {}
            if not same:
                continue
            area = pack.entities.get(area_name)
            if area is None or not area.names:
                rep.problems.append(f"{ent.name}.places.{area_name}: 'same' needs an area entity with names")
                continue
            names = {norm_label(n) for n in distinct_codes(cur, pack.schema, area.table, area.names[0])}
            values = {norm_label(v) for v in distinct_codes(cur, pack.schema, ent.table, pf["field"])}
            for name, spelled in same.items():
                if norm_label(name) not in names:
                    rep.problems.append(f"{ent.name}.places.{area_name}.same: no {area.label} named {name!r}")
                lost = [v for v in spelled or [] if norm_label(v) not in values]
                if lost:
                    rep.problems.append(f"{ent.name}.places.{area_name}.same[{name!r}]: not in "
                                        f"{ent.table}.{pf['field']}: {lost}")


def check_pack(pack: Pack, conn) -> CheckReport:
    rep = CheckReport(pack.id, pack.content_hash)
    with conn.cursor() as cur:
        schema_cols = _schema_columns(cur, pack.schema)
        for ent in pack.entities.values():
            cols = set(schema_cols.get(ent.table, {}))
            if not cols:
                rep.problems.append(f"entity {ent.name}: table {pack.schema}.{ent.table} not found")
                continue
            rep.tables += 1
            for fname, f in ent.fields.items():
                rep.fields += 1
                if not (f.description or "").strip():
                    rep.no_description.append(f"{ent.name}.{fname}")
                if fname not in cols:
                    rep.problems.append(f"{ent.name}.{fname}: no such column")
                    continue
                if f.kind != "coded":
                    continue
                data = distinct_codes(cur, pack.schema, ent.table, fname)
                known = set(f.codes)
                rep.labels += len(known)
                missing = sorted(known - set(data))
                if missing:
                    rep.problems.append(f"{ent.name}.{fname}: labels not in the data: {missing}")
                unknown = sorted(set(data) - known)
                if unknown:
                    rep.unknown_labels[f"{ent.table}.{fname}"] = unknown
        _check_columns(pack, schema_cols, rep)
        _check_place_names(pack, cur, rep)
        for c in pack.concepts.values():
            for ename, pred in c.where.items():
                ent = pack.entities[ename]
                for p in pred.get("any", [pred]):
                    vals = p.get("in") or p.get("has") or []
                    f = ent.fields[p["field"]]
                    if f.kind == "coded" and vals:
                        got = pack.labels_for(ent, f.name, vals, "has" if "has" in p else "in")
                        found = {norm_label(g) for g in got}
                        parts = {norm_label(x) for g in got for x in (g.split(f.separator) if f.separator else [g])}
                        lost = [v for v in vals if norm_label(v) not in found | parts]
                        if lost:
                            rep.problems.append(f"concept {c.name}: {ename}.{f.name} has no label for {lost}")
    return rep


def write_codes(pack_dir: str | Path, conn) -> Path:
    """Draft codes.yaml from the data: every published label of every coded field, exactly as published."""
    pack = load_pack(pack_dir)
    out: dict[str, dict[str, list[str]]] = {}
    with conn.cursor() as cur:
        for ent in pack.entities.values():
            for fname, f in ent.fields.items():
                if f.kind == "coded":
                    out.setdefault(ent.table, {})[fname] = distinct_codes(cur, pack.schema, ent.table, fname)
    path = Path(pack_dir) / "codes.yaml"
    header = ("# Published labels of every coded field, exactly as in the data (trailing spaces and case kept).\n"
              "# Drafted by `mapask check --write-codes`, then reviewed; `mapask check` compares it with the data.\n")
    path.write_text(header + yaml.safe_dump({"codes": out}, allow_unicode=True, sort_keys=True, width=200),
                    encoding="utf-8")
    return path
