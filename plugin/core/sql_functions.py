"""Which functions a guarded statement may call: PostgreSQL's names on the allow-list, and the names sqlglot gives them."""
from __future__ import annotations

import re
from functools import lru_cache

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ErrorLevel, SqlglotError

# What PostgreSQL calls (lower case), never a sqlglot class name: a name written as a call that sqlglot does not
# model stays a call of that very name, so a sqlglot name here would let a user-made function of that name run.
# Refused, among others: pg_* admin and file functions, lo_*, dblink, query_to_xml, set_config,
# current_setting, pg_sleep, generate_series, nextval, advisory locks; and what turns a cheap join into one
# huge value (server memory, measured at 2 GB in 6 s for ST_Collect over a 10,000 x 351 cross join):
# string_agg, array_agg, ARRAY(subquery), ST_Collect/ST_Union aggregates, replace (nested, it multiplies a
# string's length at every level), lpad/rpad/repeat, ST_Buffer (segment-count games).
ALLOWED_FUNCTIONS = frozenset({
    # aggregates and windows
    "count", "sum", "avg", "min", "max", "stddev", "stddev_samp", "stddev_pop", "variance", "var_samp", "var_pop",
    "corr", "percentile_cont", "percentile_disc", "bool_and", "bool_or", "row_number", "rank", "dense_rank",
    "ntile", "first_value", "last_value", "lag", "lead",
    # scalar (trim, substring, position, extract: the SQL forms PostgreSQL reads as btrim/ltrim/rtrim and others)
    "nullif", "coalesce", "greatest", "least", "round", "floor", "ceil", "ceiling", "abs", "div", "mod", "power",
    "pow", "sqrt", "ln", "log", "exp", "sign", "date_trunc", "date_part", "extract", "to_char", "to_date",
    "to_timestamp", "make_date", "make_time", "make_timestamp", "age", "now", "current_date", "current_timestamp",
    "upper", "lower", "trim", "btrim", "ltrim", "rtrim", "length", "char_length", "substring", "substr", "concat",
    "position", "strpos", "split_part", "initcap", "left", "right", "string_to_array", "array_length",
    "cardinality", "array_position", "unnest",
    # PostGIS: predicates, measures, accessors, light constructors (no ST_Buffer segment games)
    "st_dwithin", "st_intersects", "st_contains", "st_within", "st_covers", "st_coveredby", "st_touches",
    "st_crosses", "st_overlaps", "st_disjoint", "st_equals", "st_distance", "st_length", "st_area",
    "st_perimeter", "st_x", "st_y", "st_centroid", "st_pointonsurface", "st_astext", "st_asgeojson",
    "st_asbinary", "st_transform", "st_setsrid", "st_srid", "st_makepoint", "st_point", "st_envelope", "st_extent",
    "st_closestpoint", "st_shortestline", "st_geometrytype", "st_isempty", "st_npoints", "st_numgeometries",
    "st_geomfromtext", "st_makeenvelope", "st_multi",
})
# sqlglot nodes that are SQL syntax, not calls of a function (boolean logic, CASE, casts, EXISTS, ARRAY[...])
SYNTAX = frozenset({"and", "or", "case", "cast", "exists", "array"})
# sqlglot nodes that are operators to it but reach PostgreSQL as a call: div(a, b) is read as integer division and
# emitted as CAST(DIV(a, b) AS DECIMAL), so the guard counts the call PostgreSQL will make
OPERATOR_CALLS = {exp.IntDiv: "div"}
_MAX_PROBE_ARGS = 3  # a class sqlglot picks only from more arguments is refused (safe); a test calls every entry
_FIRST_WORD = re.compile(r"\s*SELECT\s+([A-Za-z_][A-Za-z0-9_]*)")


def call_name(node: exp.Func) -> tuple[str, bool]:
    """(name, is a sqlglot class): a call sqlglot does not model keeps the name written; else its class name."""
    if isinstance(node, exp.Anonymous):
        ident = node.this
        return (ident.this if isinstance(ident, exp.Identifier) else str(ident or "")).lower(), False
    return node.sql_name().lower(), True


class FunctionNames:
    """The allow-list read through sqlglot's parser: each allowed name is called with 0..3 arguments, and the
    sqlglot class a call parses to is accepted when the call it generates for PostgreSQL is itself allowed
    (`date_trunc` parses to `timestamp_trunc` and generates DATE_TRUNC). Names that are one function to either
    side (`substr`/`substring`, `now`/CURRENT_TIMESTAMP, `btrim`/`trim`) share one canonical name."""

    def __init__(self) -> None:
        self.classes: set[str] = set()   # sqlglot class names accepted
        self.unread: dict[str, str] = {}  # allowed name -> why no call of it parses to an accepted class
        self.operators: dict[str, str] = {}  # allowed name -> the operator node sqlglot reads a call of it as
        self._parent: dict[str, str] = {}
        dialect = Dialect.get_or_raise("postgres")
        for name in sorted(ALLOWED_FUNCTIONS):
            if not self._probe(dialect, name) and name not in self.unread:
                self.unread[name] = "no call of it parses to a function sqlglot generates back as an allowed one"

    def _probe(self, dialect: Dialect, name: str) -> bool:
        accepted = False
        for k in range(_MAX_PROBE_ARGS + 1):
            try:
                tree = dialect.parse(f"SELECT {name}({', '.join(['x'] * k)})")[0]
                node = tree.expressions[0]
                if self._operator(name, node):
                    accepted = True
                    continue
                if not isinstance(node, exp.Func):
                    continue
                key, is_class = call_name(node)
                if key in SYNTAX and is_class:
                    continue
                out = tree.sql("postgres", unsupported_level=ErrorLevel.RAISE)
            except (SqlglotError, IndexError, AttributeError):
                continue
            m = _FIRST_WORD.match(out)
            emitted = m.group(1).lower() if m else ""
            if emitted not in ALLOWED_FUNCTIONS:
                continue  # e.g. a call sqlglot rewrites into CASE: that reading is not accepted
            if is_class:
                self.classes.add(key)
                self._union(f"sqlglot:{key}", f"pg:{emitted}")
            self._union(f"pg:{name}", f"pg:{emitted}")
            accepted = True
            if not is_class:
                break  # a name sqlglot does not model stays that name with any number of arguments
        return accepted

    def _operator(self, name: str, node: exp.Expression) -> bool:
        """A call sqlglot reads as an operator: one PostgreSQL receives as this call, or an operator (mod -> %)."""
        inner = node.find(*OPERATOR_CALLS)
        if inner is not None and OPERATOR_CALLS[type(inner)] == name:
            self._union(f"pg:{name}", f"pg:{name}")
            self.operators[name] = type(inner).__name__
            return True
        if isinstance(node, exp.Binary) and not isinstance(node, exp.Func):
            self.operators[name] = type(node).__name__
            return True
        return False

    def _find(self, key: str) -> str:
        self._parent.setdefault(key, key)
        while self._parent[key] != key:
            self._parent[key] = self._parent[self._parent[key]]
            key = self._parent[key]
        return key

    def _union(self, a: str, b: str) -> None:
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            self._parent[max(ra, rb)] = min(ra, rb)  # the representative: the smallest name, pg: before sqlglot:

    def allowed(self, name: str, is_class: bool) -> bool:
        return name in self.classes if is_class else name in ALLOWED_FUNCTIONS

    def canonical(self, name: str, is_class: bool) -> str:
        """One name for every spelling of the same function (a PostgreSQL name where there is one)."""
        return self._find(f"{'sqlglot' if is_class else 'pg'}:{name}").split(":", 1)[1]


@lru_cache(maxsize=1)
def function_names() -> FunctionNames:
    """Built once per process (about 250 tiny parses)."""
    return FunctionNames()
