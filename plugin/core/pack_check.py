"""Check a knowledge pack against the live database: tables, fields, coded labels (both ways)."""
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
    tables: int = 0
    fields: int = 0
    labels: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems and not self.unknown_labels

    def text(self) -> str:
        lines = [f"pack {self.pack_id} hash {self.content_hash}: {self.tables} entities, {self.fields} fields, "
                 f"{self.labels} coded labels checked"]
        lines += [f"  problem: {p}" for p in self.problems]
        for k, v in self.unknown_labels.items():
            lines.append(f"  labels in the data unknown to the pack, {k}: {v[:10]}{' ...' if len(v) > 10 else ''}")
        lines.append("OK" if self.ok else "NOT OK")
        return "\n".join(lines)


def _columns(cur, schema: str, table: str) -> set[str]:
    cur.execute("SELECT column_name FROM information_schema.columns WHERE table_schema=%s AND table_name=%s",
                (schema, table))
    return {r[0] for r in cur.fetchall()}


def distinct_codes(cur, schema: str, table: str, column: str) -> list[str]:
    # identifiers come from the pack and were checked against information_schema just before
    cur.execute(f'SELECT DISTINCT "{column}"::text FROM "{schema}"."{table}" WHERE "{column}" IS NOT NULL ORDER BY 1')
    return [r[0] for r in cur.fetchall()]


def check_pack(pack: Pack, conn) -> CheckReport:
    rep = CheckReport(pack.id, pack.content_hash)
    with conn.cursor() as cur:
        for ent in pack.entities.values():
            cols = _columns(cur, pack.schema, ent.table)
            if not cols:
                rep.problems.append(f"entity {ent.name}: table {pack.schema}.{ent.table} not found")
                continue
            rep.tables += 1
            for fname, f in ent.fields.items():
                rep.fields += 1
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
