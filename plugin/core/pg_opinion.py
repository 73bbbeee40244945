"""A second opinion from PostgreSQL's own parser (pglast, libpg_query): what the server will read and call."""
from __future__ import annotations

from dataclasses import dataclass, field

try:  # compiled: a desktop QGIS may lack it, and then the guard says it ran without this opinion
    import pglast
    from pglast import ast as pg_ast
    from pglast import enums as pg_enums
    from pglast.parser import ParseError
except ImportError:  # pragma: no cover - exercised only where pglast is missing
    pglast = None

# The reason codes of a refusal by the second opinion (the guard's own codes never start with pg_)
CODES = frozenset({"pg_parse_error", "pg_not_select", "pg_into", "pg_locking", "pg_relations", "pg_functions",
                   "pg_types"})
# Types a cast may name as PostgreSQL spells them (pg_catalog's internal names); arrays of them too
PG_TYPES = frozenset({"int2", "int4", "int8", "numeric", "float4", "float8", "text", "varchar", "bpchar", "date",
                      "timestamp", "timestamptz", "time", "timetz", "bool", "geometry", "geography", "interval"})


@dataclass
class PgReading:
    """What libpg_query found in one statement; `problem` (with its reason code) when it is no plain SELECT."""
    relations: set[str] = field(default_factory=set)   # schema.table, or a bare name no WITH query defines
    functions: set[str] = field(default_factory=set)   # names as PostgreSQL will look them up
    types: set[str] = field(default_factory=set)
    code: str = ""
    problem: str = ""


def available() -> str:
    """'pglast <version> (PostgreSQL <major>)', or '' when pglast is not installed."""
    if pglast is None:
        return ""
    major = pglast.parser.get_postgresql_version()[0]
    return f"pglast {pglast.__version__.lstrip('v')} (PostgreSQL {major})"


def read(sql: str) -> PgReading:
    """Parse `sql` as the server will and collect its relations, functions and cast types."""
    out = PgReading()
    try:
        stmts = pglast.parser.parse_sql(sql)
    except ParseError as e:
        return PgReading(code="pg_parse_error", problem=f"PostgreSQL's parser does not read it: {str(e)[:160]}")
    if len(stmts) != 1 or not isinstance(stmts[0].stmt, pg_ast.SelectStmt):
        kinds = ", ".join(type(s.stmt).__name__ for s in stmts) or "nothing"
        return PgReading(code="pg_not_select", problem=f"PostgreSQL's parser reads {kinds}, not one SELECT")
    _Walker(out).node(stmts[0].stmt, frozenset())
    return out


_SVF = {0: "current_date", 1: "current_time", 2: "current_time", 3: "current_timestamp", 4: "current_timestamp",
        5: "localtime", 6: "localtime", 7: "localtimestamp", 8: "localtimestamp", 9: "current_role",
        10: "current_user", 11: "user", 12: "session_user", 13: "current_catalog", 14: "current_schema"}


class _Walker:
    """Walks libpg_query's raw tree keeping the WITH queries in scope (PostgreSQL's rules: a WITH query is seen by
    its statement and everything nested in it; inside a non-recursive WITH list only by the ones after it)."""

    def __init__(self, out: PgReading):
        self.out = out

    def fail(self, code: str, problem: str) -> None:
        if not self.out.code:
            self.out.code, self.out.problem = code, problem

    def node(self, n, ctes: frozenset) -> None:
        if isinstance(n, (list, tuple)):
            for x in n:
                self.node(x, ctes)
            return
        if not isinstance(n, pg_ast.Node):
            return
        if isinstance(n, pg_ast.SelectStmt):
            ctes = self.select(n, ctes)
        elif isinstance(n, pg_ast.CommonTableExpr):
            if not isinstance(n.ctequery, pg_ast.SelectStmt):
                self.fail("pg_not_select", f"WITH query {n.ctename} is a {type(n.ctequery).__name__}")
        else:
            self.leaf(n, ctes)
        for name in n.__slots__:
            if name != "withClause":
                self.node(getattr(n, name), ctes)

    def select(self, n, ctes: frozenset) -> frozenset:
        if n.intoClause is not None:
            self.fail("pg_into", "PostgreSQL's parser reads SELECT ... INTO (it creates a table)")
        if n.lockingClause:
            self.fail("pg_locking", "PostgreSQL's parser reads a locking clause (FOR UPDATE/SHARE)")
        w = n.withClause
        if w is None:
            return ctes
        if w.recursive:
            self.fail("pg_not_select", "WITH RECURSIVE")
        seen = set(ctes)
        names = [c.ctename for c in w.ctes or ()]
        for i, cte in enumerate(w.ctes or ()):
            self.node(cte, frozenset(seen | set(names[:i])))
        return frozenset(seen | set(names))

    def leaf(self, n, ctes: frozenset) -> None:
        out = self.out
        if isinstance(n, pg_ast.RangeVar):
            if n.catalogname:
                self.fail("pg_relations", f"a cross-database name {n.catalogname}.{n.schemaname}.{n.relname}")
            if n.schemaname:
                out.relations.add(f"{n.schemaname}.{n.relname}")
            elif n.relname not in ctes:
                out.relations.add(n.relname)  # found through search_path: never a pack table
        elif isinstance(n, (pg_ast.RangeFunction, pg_ast.RangeTableFunc, pg_ast.RangeTableSample)):
            self.fail("pg_relations", f"PostgreSQL's parser reads a {type(n).__name__} in FROM")
        elif isinstance(n, pg_ast.FuncCall):
            names = [s.sval for s in n.funcname]
            if len(names) == 2 and names[0] == "pg_catalog" and n.funcformat == pg_enums.CoercionForm.COERCE_SQL_SYNTAX:
                names = names[1:]  # TRIM(...), SUBSTRING(... FROM ...), EXTRACT(...): SQL syntax for a built-in
            out.functions.add(".".join(names))
        elif isinstance(n, pg_ast.CoalesceExpr):
            out.functions.add("coalesce")
        elif isinstance(n, pg_ast.MinMaxExpr):
            out.functions.add("greatest" if n.op == pg_enums.MinMaxOp.IS_GREATEST else "least")
        elif isinstance(n, pg_ast.A_Expr):
            if n.kind == pg_enums.A_Expr_Kind.AEXPR_NULLIF:
                out.functions.add("nullif")
            elif n.name and len(n.name) > 1:
                self.fail("pg_functions", "an operator named by its schema (OPERATOR(schema.op))")
        elif isinstance(n, pg_ast.SQLValueFunction):
            out.functions.add(_SVF.get(int(n.op), f"sqlvaluefunction {int(n.op)}"))
        elif isinstance(n, pg_ast.TypeName):
            names = [s.sval for s in n.names]
            if len(names) == 2 and names[0] == "pg_catalog":
                names = names[1:]
            out.types.add(".".join(names))
