"""Database-side property: the relations PostgreSQL plans to read for an accepted statement are the guard's.

For each statement the guard accepted, the statement exactly as the executor sends it (plugin.core.execute.wrapped)
is explained by the reader role with EXPLAIN (VERBOSE, FORMAT JSON) in a READ ONLY transaction; every plan node
that reads a relation names it ("Schema" + "Relation Name"). The property: planned == checked. The planner may
drop a relation it proves unneeded (a join it can remove, a scan under a constant-false filter): such statements
are counted apart and listed; a planned relation the guard did not check is a failure. With the pack's declared
columns, each scan's outputs and conditions (`alias.column` in VERBOSE's Output, Filter, Index Cond) must name only
columns the pack declares for that relation: a column read that the pack does not allow is a failure too. (The
executor's wrapper puts a second entry in every plan's range table, so VERBOSE qualifies every column.)
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .common import READER_DSN


@dataclass
class PlanCheck:
    label: str
    checked: set[str]
    planned: set[str] = field(default_factory=set)
    error: str = ""
    undeclared: set[str] = field(default_factory=set)  # relation.column read although the pack does not declare it

    @property
    def equal(self) -> bool:
        return not self.error and self.planned == self.checked

    @property
    def pruned(self) -> bool:
        return not self.error and self.planned < self.checked

    @property
    def broken(self) -> bool:
        return not self.error and (not self.planned <= self.checked or bool(self.undeclared))


def plan_relations(plan: dict) -> set[str]:
    """Every relation a JSON plan reads, in all its nodes (init plans and sub-plans included)."""
    out, stack = set(), [plan]
    while stack:
        node = stack.pop()
        if "Relation Name" in node:
            out.add(f"{node.get('Schema', '?')}.{node['Relation Name']}")
        stack.extend(node.get("Plans", []))
    return out


_PARTS = ("Output", "Filter", "Index Cond", "Recheck Cond", "Join Filter")


def undeclared_columns(plan: dict, declared: dict[str, set[str]]) -> set[str]:
    """relation.column pairs a plan's scans read (qualified by the scan's alias) that `declared` does not hold."""
    out, stack = set(), [plan]
    while stack:
        node = stack.pop()
        stack.extend(node.get("Plans", []))
        rel = f"{node.get('Schema', '?')}.{node['Relation Name']}" if "Relation Name" in node else ""
        alias = node.get("Alias")
        if not rel or rel not in declared or not alias:
            continue
        text = " ".join(x if isinstance(x, str) else " ".join(x) for k in _PARTS if (x := node.get(k)))
        text = re.sub(r"'(?:[^']|'')*'", "''", text)  # a literal 'a.b' names no column
        quoted = '"' + alias.replace('"', '""') + '"'
        for q in {alias, quoted}:
            for m in re.finditer(r'(?<![\w"])' + re.escape(q) + r'\.("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*|\*)', text):
                col = m.group(1)
                col = col[1:-1].replace('""', '"') if col.startswith('"') else col
                if col not in declared[rel]:
                    out.add(f"{rel}.{col}")
    return out


def check_plans(items: list[tuple[str, object]], dsn: str = READER_DSN, timeout_ms: int = 5000,
                declared: dict[str, set[str]] | None = None) -> list[PlanCheck]:
    """items: (label, accepted GuardReport). One reader session; each EXPLAIN in its own READ ONLY transaction.
    `declared`: schema.table -> the columns the pack declares (checks the columns each scan reads)."""
    import psycopg2
    from plugin.core.execute import wrapped
    conn = psycopg2.connect(dsn, application_name="mapask_plan_property")
    out = []
    try:
        for label, rep in items:
            res = PlanCheck(label, set(rep.tables))
            try:
                with conn.cursor() as cur:
                    cur.execute("BEGIN READ ONLY")
                    cur.execute("SET LOCAL statement_timeout = %s", (int(timeout_ms),))
                    cur.execute("EXPLAIN (VERBOSE, FORMAT JSON) " + wrapped(rep.sql, 100))
                    plan = cur.fetchone()[0][0]["Plan"]
                    res.planned = plan_relations(plan)
                    res.undeclared = undeclared_columns(plan, declared) if declared else set()
            except psycopg2.Error as e:
                res.error = (getattr(e, "pgcode", None) or "error") + " " + str(e).strip().splitlines()[0][:120]
            finally:
                conn.rollback()
            out.append(res)
    finally:
        conn.close()
    return out


def plan_lines(checks: list[PlanCheck], what: str) -> list[str]:
    equal = sum(c.equal for c in checks)
    pruned = [c for c in checks if c.pruned]
    broken = [c for c in checks if c.broken]
    errors = [c for c in checks if c.error]
    lines = [f"EXPLAIN (VERBOSE, FORMAT JSON) property over {len(checks)} accepted statements ({what}):",
             f"  planned relations == relations the guard checked: {equal}",
             f"  planner dropped a checked relation (proved unneeded; nothing else read): {len(pruned)}",
             f"  planned a relation the guard did not check (FAIL): {len(broken)}",
             f"  EXPLAIN refused by the database (the statement would fail too): {len(errors)}"]
    cols = sum(1 for c in checks if not c.error and not c.undeclared)
    lines.insert(4, f"  every column the scans read is one the pack declares for that relation: {cols}/{len(checks) - len(errors)}")
    lines += [f"    FAIL {c.label}: planned {sorted(c.planned)}, checked {sorted(c.checked)}, undeclared columns read "
              f"{sorted(c.undeclared)}" for c in broken]
    lines += [f"    dropped {c.label}: planned {sorted(c.planned)}, checked {sorted(c.checked)}" for c in pruned[:8]]
    lines += [f"    error {c.label}: {c.error}" for c in errors[:8]]
    return lines
