"""Default-deny SQL guard: one read-only SELECT over the pack's tables, columns and allow-listed functions."""
from __future__ import annotations

from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from .errors import GuardRefusal
from .pack import Pack

MAX_SQL_CHARS = 100_000
MAX_DEPTH = 200

# Functions a MapAsk query may call (lower case). Everything else is refused, including pg_* admin
# functions, lo_*, dblink, query_to_xml, set_config, pg_sleep, generate_series and nextval.
ALLOWED_FUNCTIONS = {
    # aggregates and windows
    "count", "sum", "avg", "min", "max", "stddev", "variance", "percentile_cont", "percentile_disc",
    "row_number", "rank", "dense_rank", "ntile", "first_value", "last_value", "lag", "lead", "array_agg",
    # structural nodes sqlglot models as functions
    "and", "or", "exists", "xor",
    # scalar
    "cast", "trycast", "extract", "nullif", "coalesce", "greatest", "least", "round", "floor", "ceil", "abs",
    "div", "mod", "power", "pow", "sqrt", "ln", "log", "exp", "sign", "case", "if", "date_trunc", "datetrunc",
    "timestamptrunc", "to_char", "to_date", "date_part", "make_date", "age", "now", "current_date",
    "currentdate", "upper", "lower", "trim", "length", "substring", "substr", "concat", "replace", "position",
    "strpos", "split_part", "initcap", "lpad", "rpad", "left", "right", "btrim", "ltrim", "rtrim", "tochar",
    "strtodate", "dateadd", "datediff", "interval", "avgif", "countif", "any_value", "bool_and", "bool_or",
    "filter", "stddevsamp", "stddevpop", "varsamp", "varpop", "corr", "approxdistinct", "lower", "upper",
    # PostGIS: predicates, measures, accessors, light constructors (no ST_Buffer segment games)
    "st_dwithin", "st_intersects", "st_contains", "st_within", "st_covers", "st_coveredby", "st_touches",
    "st_crosses", "st_overlaps", "st_disjoint", "st_equals", "st_distance", "st_length", "st_area",
    "st_perimeter", "st_x", "st_y", "st_centroid", "st_pointonsurface", "st_astext", "st_asgeojson",
    "st_asbinary", "st_transform", "st_setsrid", "st_srid", "st_makepoint", "st_point", "st_collect",
    "st_union", "st_envelope", "st_extent", "st_closestpoint", "st_shortestline", "st_geometrytype",
    "st_isempty", "st_npoints", "st_numgeometries", "st_geomfromtext", "st_makeenvelope", "st_multi",
}
ALLOWED_TYPES = {"int", "integer", "bigint", "smallint", "numeric", "decimal", "double", "double precision",
                 "float", "real", "text", "varchar", "char", "date", "timestamp", "time", "boolean", "bool",
                 "geometry", "interval"}
FORBIDDEN_NODES = {"Insert", "Update", "Delete", "Merge", "Create", "Drop", "Alter", "AlterTable", "Command",
                   "Copy", "Into", "Lock", "Transaction", "Commit", "Rollback", "Set", "SetItem", "Use", "Pragma",
                   "Analyze", "Grant", "Revoke", "TruncateTable", "LoadData", "Describe", "Kill", "Refresh",
                   "Cache", "Uncache", "Comment", "Summarize", "Declare", "Execute", "Attach", "Detach",
                   "Install", "Show", "Return", "Heredoc", "Parameter", "Placeholder", "SessionParameter",
                   "UserDefinedFunction", "Introducer", "National", "ByteString", "HexString", "RawString"}
SYSTEM_COLUMNS = {"ctid", "xmin", "xmax", "cmin", "cmax", "tableoid"}


@dataclass
class GuardReport:
    ok: bool
    code: str = "ok"
    reason: str = ""
    sql: str = ""
    tables: list[str] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"ok": self.ok, "code": self.code, "reason": self.reason, "tables": self.tables,
                "functions": self.functions}


class Guard:
    def __init__(self, pack: Pack):
        self.pack = pack
        self.tables = {e.table: set(e.fields) | {e.key, "geom"} for e in pack.entities.values()}
        self.columns = set().union(*self.tables.values())

    def check(self, sql: str) -> GuardReport:
        """Report (never raises) whether `sql` may run; `sql` in the report is regenerated from the checked tree."""
        try:
            return self._check(sql)
        except GuardRefusal as r:
            return GuardReport(False, r.code, str(r))
        except RecursionError:
            return GuardReport(False, "too_deep", "the statement is nested too deeply to check")
        except Exception as e:  # any parser surprise is a refusal, never a pass
            return GuardReport(False, "parse_error", f"the statement could not be checked: {type(e).__name__}")

    def _check(self, sql: str) -> GuardReport:
        if not isinstance(sql, str) or not sql.strip():
            raise GuardRefusal("empty", "no SQL to run")
        if len(sql) > MAX_SQL_CHARS:
            raise GuardRefusal("too_long", f"the statement is longer than {MAX_SQL_CHARS} characters")
        if sql.count("(") > 2000:
            raise GuardRefusal("too_deep", "the statement is nested too deeply to check")
        try:
            trees = [t for t in sqlglot.parse(sql, read="postgres") if t is not None]
        except SqlglotError as e:
            raise GuardRefusal("parse_error", f"the statement does not parse as PostgreSQL: {str(e)[:200]}")
        if len(trees) != 1:
            raise GuardRefusal("multiple_statements", f"exactly one statement is allowed, found {len(trees)}")
        tree = trees[0]
        if not isinstance(tree, (exp.Select, exp.Union, exp.Intersect, exp.Except, exp.Subquery)):
            raise GuardRefusal("not_select", f"only SELECT is allowed, found {type(tree).__name__.upper()}")
        ctes: set[str] = set()
        aliases: set[str] = set()
        tables, funcs = set(), set()
        for node in tree.walk():
            name = type(node).__name__
            if name in FORBIDDEN_NODES:
                raise GuardRefusal("forbidden_statement", f"{name.upper()} is not allowed in a read-only query")
            if node.depth > MAX_DEPTH:
                raise GuardRefusal("too_deep", "the statement is nested too deeply to check")
            if isinstance(node, exp.With) and node.args.get("recursive"):
                raise GuardRefusal("recursive", "WITH RECURSIVE is not allowed")
            if isinstance(node, exp.CTE):
                ctes.add(node.alias_or_name.lower())
            if isinstance(node, exp.Alias) and node.alias:
                aliases.add(node.alias.lower())
            if isinstance(node, exp.TableAlias) and node.name:
                aliases.add(node.name.lower())
            if isinstance(node, exp.TableAlias):
                aliases.update(c.name.lower() for c in node.columns)
            if isinstance(node, exp.Select) and node.args.get("locks"):
                raise GuardRefusal("locking", "locking clauses (FOR UPDATE/SHARE) are not allowed")
        for node in tree.walk():
            if isinstance(node, exp.Table):
                t, db = node.name.lower(), (node.db or "").lower()
                if node.args.get("catalog"):
                    raise GuardRefusal("catalog", "cross-database references are not allowed")
                if not db and t in ctes:
                    continue
                if not isinstance(node.this, exp.Identifier):
                    raise GuardRefusal("table_function", "table functions are not allowed in FROM")
                if db != self.pack.schema.lower() or t not in self.tables:
                    raise GuardRefusal("table_not_allowed",
                                       f"table {db + '.' if db else ''}{t} is not one of the pack's tables")
                tables.add(f"{db}.{t}")
            elif isinstance(node, exp.Func):
                fname = (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).lower()
                if isinstance(node, exp.Anonymous) and "." in (node.name or ""):
                    raise GuardRefusal("function_not_allowed", f"function {node.name} is not allowed")
                if fname not in ALLOWED_FUNCTIONS:
                    raise GuardRefusal("function_not_allowed", f"function {fname} is not on the allow-list")
                funcs.add(fname)
            elif isinstance(node, exp.DataType):
                tname = node.sql("postgres").lower().split("(")[0].strip()
                if tname not in ALLOWED_TYPES:
                    raise GuardRefusal("type_not_allowed", f"type {tname} is not allowed")
            elif isinstance(node, exp.Column):
                c = node.name.lower()
                if c in SYSTEM_COLUMNS:
                    raise GuardRefusal("column_not_allowed", f"system column {c} is not allowed")
                if node.this and not isinstance(node.this, (exp.Identifier, exp.Star)):
                    raise GuardRefusal("column_not_allowed", "computed column references are not allowed")
                if c not in self.columns and c not in aliases and c != "*" and c not in ctes:
                    raise GuardRefusal("column_not_allowed", f"column {c} is not in the pack")
            elif isinstance(node, (exp.Dot,)) and not isinstance(node.parent, exp.Column):
                raise GuardRefusal("column_not_allowed", "qualified expressions are not allowed")
        out = tree.sql("postgres", pretty=True)
        return GuardReport(True, "ok", "", out, sorted(tables), sorted(funcs))
