"""Default-deny SQL guard: one read-only SELECT over the pack's tables, columns and allow-listed functions."""
from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ErrorLevel, SqlglotError

from .errors import GuardRefusal
from .pack import Pack

# MapAsk's own queries are a few kB; the bounds keep every check well under a second (sqlglot parses ~50 kB/s)
MAX_SQL_CHARS = 30_000
MAX_PARENS = 1000
MAX_DEPTH = 200
MAX_NODES = 5_000
MAX_TOKENS = 5_000
MAX_CTES = 64

# Functions a MapAsk query may call (lower case; sqlglot's class name for the functions it models).
# Everything else is refused: pg_* admin and file functions, lo_*, dblink, query_to_xml, set_config,
# current_setting, pg_sleep, generate_series, nextval, advisory locks; and what turns a cheap join into one
# huge value (server memory, measured at 2 GB in 6 s for ST_Collect over a 10,000 x 351 cross join):
# string_agg, array_agg, ARRAY(subquery), ST_Collect/ST_Union aggregates, replace (nested, it multiplies a
# string's length at every level), lpad/rpad/repeat, ST_Buffer (segment-count games).
ALLOWED_FUNCTIONS = {
    # aggregates and windows
    "count", "sum", "avg", "min", "max", "stddev", "variance", "percentile_cont", "percentile_disc",
    "row_number", "rank", "dense_rank", "ntile", "first_value", "last_value", "lag", "lead",
    # structural nodes sqlglot models as functions
    "and", "or", "exists", "xor", "array",
    # scalar
    "cast", "trycast", "extract", "nullif", "coalesce", "greatest", "least", "round", "floor", "ceil", "abs",
    "div", "mod", "power", "pow", "sqrt", "ln", "log", "exp", "sign", "case", "if", "date_trunc", "datetrunc",
    "timestamptrunc", "to_char", "to_date", "date_part", "make_date", "age", "now", "current_date",
    "currentdate", "currenttimestamp", "current_timestamp", "upper", "lower", "trim", "length", "substring",
    "substr", "concat", "position", "strpos", "split_part", "initcap", "left", "right", "btrim", "ltrim", "rtrim",
    "tochar", "timetostr", "time_to_str", "strtotime", "str_to_time", "strtodate", "str_to_date", "dateadd",
    "datediff", "interval", "avgif", "countif", "any_value", "bool_and", "bool_or", "filter", "stddevsamp",
    "stddevpop", "varsamp", "varpop", "corr", "approxdistinct", "string_to_array", "stringtoarray",
    "array_length", "arraysize", "cardinality", "array_position", "arraycontains", "array_contains",
    "unnest",
    # PostGIS: predicates, measures, accessors, light constructors (no ST_Buffer segment games)
    "st_dwithin", "st_intersects", "st_contains", "st_within", "st_covers", "st_coveredby", "st_touches",
    "st_crosses", "st_overlaps", "st_disjoint", "st_equals", "st_distance", "st_length", "st_area",
    "st_perimeter", "st_x", "st_y", "st_centroid", "st_pointonsurface", "st_astext", "st_asgeojson",
    "st_asbinary", "st_transform", "st_setsrid", "st_srid", "st_makepoint", "st_point", "st_envelope", "st_extent",
    "st_closestpoint", "st_shortestline", "st_geometrytype", "st_isempty", "st_npoints", "st_numgeometries",
    "st_geomfromtext", "st_makeenvelope", "st_multi",
}
# Base type names a cast may name (arrays of them are allowed too). No reg* types, no row/composite types.
ALLOWED_TYPES = {"int", "integer", "bigint", "smallint", "numeric", "decimal", "double", "double precision",
                 "float", "real", "text", "varchar", "char", "date", "timestamp", "timestamptz", "time",
                 "timetz", "boolean", "bool", "geometry", "geography", "interval"}
FORBIDDEN_NODES = {"Insert", "Update", "Delete", "Merge", "Create", "Drop", "Alter", "AlterTable", "Command",
                   "Copy", "Into", "Lock", "Transaction", "Commit", "Rollback", "Set", "SetItem", "Use", "Pragma",
                   "Analyze", "Grant", "Revoke", "TruncateTable", "LoadData", "Describe", "Kill", "Refresh",
                   "Cache", "Uncache", "Comment", "Summarize", "Declare", "Execute", "Attach", "Detach",
                   "Install", "Show", "Return", "Heredoc", "Parameter", "Placeholder", "SessionParameter",
                   "UserDefinedFunction", "Introducer", "National", "ByteString", "HexString", "RawString",
                   "BitString", "Operator", "Prepare", "Deallocate", "Call", "Notify", "Listen", "Vacuum",
                   "Cluster", "Checkpoint", "Reindex", "Load"}
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


def _ident(node) -> str:
    """The name PostgreSQL resolves: a quoted identifier exactly as written, an unquoted one folded to lower case."""
    if isinstance(node, exp.Identifier):
        return node.this if node.quoted else node.this.lower()
    return str(node or "").lower()


def _with_of(node: exp.Expression) -> exp.With | None:
    w = node.args.get("with_") if "with_" in node.arg_types else node.args.get("with")
    return w if isinstance(w, exp.With) else None


def _cte_in_scope(table: exp.Table, name: str) -> bool:
    """Whether an unqualified table name refers to a CTE visible at that point (PostgreSQL's scoping rules).

    A CTE is visible in the query that owns its WITH clause and everything nested in it; inside the WITH
    list of a non-recursive WITH, a CTE sees only the CTEs before it (never itself or later ones).
    """
    came_from: exp.Expression = table
    node = table.parent
    limit: dict[int, int] = {}
    while node is not None:
        if isinstance(node, exp.With):
            for i, cte in enumerate(node.expressions):
                if cte is came_from:
                    limit[id(node)] = i
        w = _with_of(node)
        if w is not None:
            names = [_ident(c.args["alias"].this) if c.args.get("alias") else "" for c in w.expressions]
            visible = names[:limit[id(w)]] if id(w) in limit else names
            if name in visible:
                return True
        came_from, node = node, node.parent
    return False


class Guard:
    def __init__(self, pack: Pack):
        self.pack = pack
        self.tables = {e.table: set(e.fields) | {e.key, "geom"} for e in pack.entities.values()}
        self.columns = {c.lower() for c in set().union(*self.tables.values())}

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
        if "\x00" in sql:
            raise GuardRefusal("bad_character", "the statement contains a NUL character")
        try:
            sql.encode("utf-8")
        except UnicodeEncodeError:
            raise GuardRefusal("bad_character", "the statement is not valid Unicode text")
        if sql.count("(") > MAX_PARENS or sql.count("[") > MAX_PARENS:
            raise GuardRefusal("too_deep", "the statement is nested too deeply to check")
        tree = self._parse(sql)
        tables, funcs = self._inspect(tree)
        out = self._generate(tree)
        # What runs is `out`, not `sql`: it must itself pass every rule and regenerate to the same text, so
        # no difference between how sqlglot and PostgreSQL read a string can slip anything past the checks.
        again = self._parse(out)
        self._inspect(again)
        if self._generate(again) != out:
            raise GuardRefusal("unstable", "the statement does not survive a parse/generate round trip")
        return GuardReport(True, "ok", "", out, sorted(tables), sorted(funcs))

    @staticmethod
    def _parse(sql: str) -> exp.Expression:
        try:
            dialect = Dialect.get_or_raise("postgres")
            tokens = dialect.tokenize(sql)
            if len(tokens) > MAX_TOKENS:
                raise GuardRefusal("too_large", f"the statement has more than {MAX_TOKENS} tokens")
            trees = [t for t in dialect.parser().parse(tokens, sql) if t is not None]
        except SqlglotError as e:
            raise GuardRefusal("parse_error", f"the statement does not parse as PostgreSQL: {str(e)[:200]}")
        if len(trees) != 1:
            raise GuardRefusal("multiple_statements", f"exactly one statement is allowed, found {len(trees)}")
        tree = trees[0]
        if not isinstance(tree, (exp.Select, exp.Union, exp.Intersect, exp.Except, exp.Subquery)):
            raise GuardRefusal("not_select", f"only SELECT is allowed, found {type(tree).__name__.upper()}")
        return tree

    @staticmethod
    def _generate(tree: exp.Expression) -> str:
        try:
            # comments are dropped: PostgreSQL nests /* */ and sqlglot does not, so none may reach the server
            return tree.sql("postgres", pretty=True, comments=False, unsupported_level=ErrorLevel.RAISE)
        except SqlglotError as e:
            raise GuardRefusal("unsupported", f"the statement uses syntax MapAsk cannot check: {str(e)[:200]}")

    def _inspect(self, tree: exp.Expression) -> tuple[set[str], set[str]]:
        ctes: set[str] = set()
        aliases: set[str] = set()
        tables, funcs = set(), set()
        nodes = []
        for node in tree.walk():
            nodes.append(node)
            if len(nodes) > MAX_NODES:
                raise GuardRefusal("too_large", "the statement is too large to check")
            name = type(node).__name__
            if name in FORBIDDEN_NODES:
                raise GuardRefusal("forbidden_statement", f"{name.upper()} is not allowed in a read-only query")
            if isinstance(node, exp.With):
                if node.args.get("recursive"):
                    raise GuardRefusal("recursive", "WITH RECURSIVE is not allowed")
                if len(node.expressions) > MAX_CTES:
                    raise GuardRefusal("too_large", f"more than {MAX_CTES} WITH queries")
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
        depth = {id(tree): 0}
        for node in nodes:
            if node is not tree:
                d = depth[id(node.parent)] + 1
                if d > MAX_DEPTH:
                    raise GuardRefusal("too_deep", "the statement is nested too deeply to check")
                depth[id(node)] = d
        schema = self.pack.schema
        for node in nodes:
            if isinstance(node, exp.Table):
                if node.args.get("catalog"):
                    raise GuardRefusal("catalog", "cross-database references are not allowed")
                if not isinstance(node.this, exp.Identifier) or node.args.get("rows_from"):
                    raise GuardRefusal("table_function", "table functions are not allowed in FROM")
                t = _ident(node.this)
                db = _ident(node.args["db"]) if node.args.get("db") else ""
                if not db and _cte_in_scope(node, t):
                    continue
                if db != schema or t not in self.tables:
                    shown = f"{db}.{t}" if db else t
                    raise GuardRefusal("table_not_allowed", f"table {shown} is not one of the pack's tables")
                tables.add(f"{db}.{t}")
            elif isinstance(node, exp.Func):
                if isinstance(node, exp.Array) and any(isinstance(a, exp.Query) for a in node.expressions):
                    raise GuardRefusal("function_not_allowed", "ARRAY(subquery) is not allowed")
                if isinstance(node, exp.Anonymous):
                    ident = node.this
                    fname = ident.this if isinstance(ident, exp.Identifier) else str(ident or "")
                    if "." in fname:
                        raise GuardRefusal("function_not_allowed", f"function {fname} is not allowed")
                    if isinstance(ident, exp.Identifier) and ident.quoted:
                        if fname != fname.lower():  # a mixed-case quoted name is never a built-in function
                            raise GuardRefusal("function_not_allowed", f'function "{fname}" is not on the allow-list')
                        node.set("this", fname)  # generate it unquoted: sqlglot would upper-case a quoted name
                    fname = fname.lower()
                else:
                    fname = node.sql_name().lower()
                if fname not in ALLOWED_FUNCTIONS:
                    raise GuardRefusal("function_not_allowed", f"function {fname} is not on the allow-list")
                funcs.add(fname)
            elif isinstance(node, exp.DataType):
                tname = node.sql("postgres").lower().split("(")[0].strip()
                while tname.endswith("[]"):
                    tname = tname[:-2].strip()
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
        return tables, funcs
