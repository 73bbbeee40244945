"""Default-deny SQL guard: one read-only SELECT of the pack's tables, columns and functions; PostgreSQL's parser agrees."""
from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ErrorLevel, OptimizeError, SqlglotError
from sqlglot.optimizer.qualify import qualify
from sqlglot.optimizer.resolver import Resolver
from sqlglot.optimizer.scope import Scope, traverse_scope
from sqlglot.schema import MappingSchema

from . import pg_opinion
from .errors import GuardRefusal
from .pack import Pack
from .sql_functions import ALLOWED_FUNCTIONS, OPERATOR_CALLS, SYNTAX, call_name, function_names

# MapAsk's own queries are a few kB; the bounds keep every check well under a second (sqlglot parses ~50 kB/s)
MAX_SQL_CHARS = 30_000
MAX_PARENS = 1000
MAX_DEPTH = 200
MAX_NODES = 5_000
MAX_TOKENS = 5_000
MAX_CTES = 64
# Stars are expanded (by sqlglot, to check what flows through WITH queries): at most this many columns in all,
# bounded before expanding as stars x (widest pack table + every projection written). MapAsk's own: under 600.
MAX_EXPANDED = 5_000

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
# meta keys set on the tree before sqlglot qualifies it, read back afterwards (see Guard._resolve)
_BARE = "mapask_bare"    # a projection written without an alias
_STAR = "mapask_star"    # on a SELECT whose list holds a star: (its position, the list's length, qualified?)


@dataclass
class GuardReport:
    ok: bool
    code: str = "ok"
    reason: str = ""
    sql: str = ""
    tables: list[str] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)
    second_opinion: str = ""  # whose second opinion was asked (pglast and PostgreSQL version), or why none

    def to_dict(self) -> dict:
        return {"ok": self.ok, "code": self.code, "reason": self.reason, "tables": self.tables,
                "functions": self.functions, "second_opinion": self.second_opinion}


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


def declared_columns(pack: Pack) -> dict[str, list[str]]:
    """Each pack table's columns in the pack's order (key, fields, geom): what a star over the table becomes."""
    out: dict[str, dict[str, None]] = {}
    for e in pack.entities.values():
        cols = out.setdefault(e.table, {})
        for c in (e.key, *e.fields, "geom"):
            cols.setdefault(c, None)
    return {t: list(cols) for t, cols in out.items()}


def _mark(tree: exp.Expression) -> None:
    """Note what sqlglot's qualify will rewrite, so that what PostgreSQL does not need can be put back after."""
    for select in tree.find_all(exp.Select):
        for i, p in enumerate(select.expressions):
            if p.is_star:
                select.meta[_STAR] = (i, len(select.expressions), isinstance(p, exp.Column))
            elif not isinstance(p, exp.Alias):
                p.meta[_BARE] = True


def _unalias(select: exp.Select) -> None:
    """Drop the output aliases qualify added that PostgreSQL does not need: `t.a AS a` names itself, and
    `count(*) AS _col_0` would rename a column PostgreSQL calls `count`."""
    out = []
    for i, p in enumerate(select.expressions):
        if isinstance(p, exp.Alias):
            inner = p.this
            same = isinstance(inner, exp.Column) and isinstance(inner.this, exp.Identifier) and \
                inner.this.this == p.alias and inner.this.quoted == p.args["alias"].quoted
            made = inner.meta.get(_BARE) and (p.alias == f"_col_{i}" or p.alias == inner.output_name)
            if same or made:
                p = inner
        out.append(p)
    select.set("expressions", out)


def _star_source(select: exp.Select, star: exp.Expression) -> str:
    """The source name a star projection expands: its qualifier, else the SELECT's only FROM item."""
    if isinstance(star, exp.Column):
        return star.table
    src = select.args["from_"].this if select.args.get("from_") else None
    return src.alias_or_name if src is not None else ""


def _check_star_list(select: exp.Select) -> None:
    """One star per SELECT list at most, and a bare `*` only over a single FROM item: an output is then never
    wider than one source plus the columns written next to the star, so expanding stars stays linear."""
    stars = [p for p in select.expressions if p.is_star]
    if len(stars) > 1:
        raise GuardRefusal("column_not_allowed", "a SELECT list may hold one star at most")
    if stars and isinstance(stars[0], exp.Star) and select.args.get("joins"):
        raise GuardRefusal("column_not_allowed", "* over a join is not allowed: name its source (t.*) or the columns")


def _check_star_place(star: exp.Star) -> None:
    """A star may be a projection (`*`, `t.*`) or count(*); anywhere else PostgreSQL reads `t.*` as the whole
    row, real columns the pack does not declare included."""
    node: exp.Expression = star
    if isinstance(star.parent, exp.Column) and star.arg_key == "this":
        node = star.parent
    projected = isinstance(node.parent, exp.Select) and node.arg_key == "expressions"
    counted = node is star and isinstance(star.parent, exp.Count) and star.arg_key == "this"
    if not (projected or counted):
        raise GuardRefusal("column_not_allowed", "a star is allowed only as a projection or in count(*)")


def _output_ref(col: exp.Column) -> bool:
    """A bare ORDER BY or DISTINCT ON item naming one of its own query's outputs, which PostgreSQL reads as that
    output (inside an expression, `ORDER BY a + 0`, the name would be an input column: not this case)."""
    node = col.parent
    if isinstance(node, exp.Ordered):
        node = node.parent if isinstance(node.parent, exp.Order) else None
    elif isinstance(node, exp.Tuple) and isinstance(node.parent, exp.Distinct):
        node = node.parent
    elif not isinstance(node, exp.Distinct):
        node = None
    query = node.parent if node is not None else None
    return not col.table and isinstance(query, exp.Query) and col.name in query.named_selects


def _check_call(node: exp.Func, funcs: set[str]) -> None:
    """A call must be on the allow-list under the name it has to its side: a name sqlglot does not model is
    PostgreSQL's own name; a sqlglot class is accepted only as the reading of an allowed PostgreSQL name."""
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
    name, is_class = call_name(node)
    if is_class and (name in SYNTAX or (name == "if" and isinstance(node.parent, exp.Case))):
        return  # syntax, not a call (a WHEN branch of CASE is an If node to sqlglot)
    if not is_class and name == "row":
        return  # ROW(a, b): PostgreSQL's row constructor (its grammar reads row(...) as one too), no function
    names = function_names()
    if not names.allowed(name, is_class):
        shown = f"{name} (as sqlglot reads it)" if is_class else name
        raise GuardRefusal("function_not_allowed", f"function {shown} is not on the allow-list")
    funcs.add(names.canonical(name, is_class))


def _quote_as_resolved(tree: exp.Expression) -> None:
    """Quote every name PostgreSQL would otherwise read differently: qualify writes the names it makes (a star's
    columns, qualifiers) from the resolved text without quotes, and PostgreSQL folds an unquoted `Town` to `town`."""
    dialect = Dialect.get_or_raise("postgres")
    for ident in tree.find_all(exp.Identifier):
        if not ident.quoted and not isinstance(ident.parent, exp.Func) and dialect.can_quote(ident, "unsafe"):
            ident.set("quoted", True)


def _meanings(tree: exp.Expression, resolved: bool = False) -> list[str]:
    """Every name in tree order: as qualify resolved it (its normalised text), or as PostgreSQL reads it (_ident)."""
    # depth-first: the order names are written in, whatever wrappers (parentheses) the two trees differ by
    return [i.this if resolved else _ident(i) for i in tree.find_all(exp.Identifier, bfs=False)
            if not isinstance(i.parent, exp.Func)]


class Guard:
    def __init__(self, pack: Pack, second_opinion: bool = True):
        self.pack = pack
        # PostgreSQL's own parser reads every statement the guard accepts (pg_opinion); without pglast the
        # report says the guard ran alone
        self.opinion = pg_opinion.available() if second_opinion else ""
        self.opinion_label = self.opinion or ("none: pglast is not installed" if second_opinion else "none: turned off")
        self.declared = declared_columns(pack)
        self.tables = {t: set(cols) for t, cols in self.declared.items()}
        self.widest = max(map(len, self.declared.values()), default=0)
        # the pack's own names, exactly as PostgreSQL knows them (the query's identifiers are normalised instead)
        self.schema = MappingSchema({pack.schema: {t: {c: "unknown" for c in cols} for t, cols in self.declared.items()}},
                                    dialect="postgres", normalize=False)

    def check(self, sql: str) -> GuardReport:
        """Report (never raises) whether `sql` may run; `sql` in the report is regenerated from the checked tree."""
        try:
            rep = self._check(sql)
        except GuardRefusal as r:
            rep = GuardReport(False, r.code, str(r))
        except RecursionError:
            rep = GuardReport(False, "too_deep", "the statement is nested too deeply to check")
        except Exception as e:  # any parser surprise is a refusal, never a pass
            rep = GuardReport(False, "parse_error", f"the statement could not be checked: {type(e).__name__}")
        rep.second_opinion = self.opinion_label
        return rep

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
        tree = self._resolve(tree)
        out = self._generate(tree)
        # What runs is `out`, not `sql`: it must itself pass the statement rules and regenerate to the same text,
        # so no difference between how sqlglot and PostgreSQL read a string can slip anything past the checks.
        # Its columns were resolved in the tree `out` was generated from (qualified: every column names its
        # source); the identical round trip shows the text is that tree, so resolving again would repeat the
        # most expensive step for nothing (it doubled the time every question spends here).
        again = self._parse(out)
        tables, funcs = self._inspect(again)
        if self._generate(again) != out:
            raise GuardRefusal("unstable", "the statement does not survive a parse/generate round trip")
        # the same text is not enough: each name must also mean in `out` what it meant when it was resolved
        if _meanings(tree, resolved=True) != _meanings(again):
            raise GuardRefusal("unstable", "a name in the regenerated statement does not mean what was checked")
        if self.opinion:
            self._second_opinion(out, tables, funcs)
        return GuardReport(True, "ok", "", out, sorted(tables), sorted(funcs))

    def _second_opinion(self, sql: str, tables: set[str], funcs: set[str]) -> None:
        """PostgreSQL's parser must read `sql` as one SELECT without INTO or locking that reads the relations and
        calls the functions (in their canonical names) the guard found; any disagreement is a refusal (pg_* code)."""
        r = pg_opinion.read(sql)
        if r.code:
            raise GuardRefusal(r.code, r.problem)
        if r.relations != tables:
            raise GuardRefusal("pg_relations", f"PostgreSQL's parser reads {sorted(r.relations)}, the guard checked "
                                               f"{sorted(tables)}")
        names = function_names()
        outside = sorted(f for f in r.functions if f not in ALLOWED_FUNCTIONS)
        if outside:
            raise GuardRefusal("pg_functions", f"PostgreSQL's parser reads calls of {outside}: not on the allow-list")
        theirs = {names.canonical(f, False) for f in r.functions}
        if theirs != funcs:
            raise GuardRefusal("pg_functions", f"PostgreSQL's parser reads calls of {sorted(theirs)}, the guard "
                                               f"found {sorted(funcs)}")
        types = sorted(t for t in r.types if t not in pg_opinion.PG_TYPES)
        if types:
            raise GuardRefusal("pg_types", f"PostgreSQL's parser reads casts to {types}: not allowed")

    def _resolve(self, tree: exp.Expression) -> exp.Expression:
        """Qualify every column with sqlglot's optimizer against the pack's declared columns, check that each
        reference resolves (per table, through WITH queries and subqueries), and return the qualified tree.

        What runs names every column's source and lists a pack table's declared columns in place of a star
        over it, so PostgreSQL cannot read a name differently from sqlglot: as a real column the pack does
        not declare, say, or through a name sqlglot took for an outer query's output."""
        _mark(tree)
        try:
            tree = qualify(tree, dialect="postgres", schema=self.schema, quote_identifiers=False,
                           allow_partial_qualification=True,  # unknown columns are refused below, by table
                           validate_qualify_columns=False)  # _check_columns is stricter: every column resolves
            restore = self._check_columns(tree)
        except OptimizeError as e:  # e.g. an alias used twice in one FROM, a column no source has
            raise GuardRefusal("column_not_allowed", f"a column does not resolve: {str(e).splitlines()[0][:200]}")
        for select in tree.find_all(exp.Select):
            _unalias(select)  # before the stars are put back: qualify numbered its `_col_<i>` in the expanded lists
        for undo in restore:
            undo()
        _quote_as_resolved(tree)
        return tree

    def _check_columns(self, tree: exp.Expression) -> list:
        """Refuse any column reference that does not resolve; return the star restorations to apply after."""
        checked: set[int] = set()
        restore = []
        for scope in traverse_scope(tree):
            local = scope.selected_sources
            resolver = Resolver(scope, self.schema)
            for col in scope.columns:
                if col.is_star or col.table not in local:
                    continue  # stars: below; an outer reference: in the scope whose FROM holds its source
                checked.add(id(col))
                self._check_column(col, local[col.table][1], resolver)
            if isinstance(scope.expression, exp.Select):
                restore += self._check_stars(scope, resolver)
        for node in tree.walk():
            if isinstance(node, exp.TableColumn):
                raise GuardRefusal("column_not_allowed", f"whole-row reference {node.name} (a table used as a value) "
                                                         f"is not allowed")
            if isinstance(node, exp.Dot):  # sqlglot's reading of `a.b.c` as a field of a column: PostgreSQL's differs
                raise GuardRefusal("column_not_allowed", "qualified expressions are not allowed")
            if isinstance(node, exp.Column) and id(node) not in checked and not node.is_star and not _output_ref(node):
                raise GuardRefusal("column_not_allowed",
                                   f"column {node.sql('postgres')} does not resolve to a table or WITH query in scope")
        return restore

    def _check_column(self, col: exp.Column, source: exp.Table | Scope, resolver: Resolver) -> None:
        if isinstance(source, exp.Table):
            if source.db != self.pack.schema or col.name not in self.tables.get(source.name, ()):
                raise GuardRefusal("column_not_allowed", f"column {col.name} is not one of the pack's columns "
                                                         f"of table {source.db}.{source.name}")
            return
        outputs = resolver.get_source_columns(col.table)
        if col.name not in outputs or "*" in outputs:
            raise GuardRefusal("column_not_allowed", f"column {col.table}.{col.name}: {col.table} has no output "
                                                     f"column {col.name}")

    def _check_stars(self, scope: Scope, resolver: Resolver) -> list:
        """A star sqlglot could not expand must be over a WITH query or subquery (whose outputs are checked);
        a star over one that sqlglot expanded is put back, for a short statement (return: how)."""
        select = scope.expression
        for p in select.expressions:
            if p.is_star and not isinstance(scope.selected_sources.get(_star_source(select, p), (0, 0))[1], Scope):
                raise GuardRefusal("column_not_allowed", f"the star over {_star_source(select, p) or 'nothing'} "
                                                         f"cannot be checked column by column")
        if _STAR not in select.meta:
            return []
        at, written, qualified = select.meta[_STAR]
        run = select.expressions[at:at + len(select.expressions) - written + 1]
        cols = [p.this if isinstance(p, exp.Alias) and p.alias == p.this.output_name else p for p in run]
        if not cols or not all(isinstance(c, exp.Column) and c.table == cols[0].table for c in cols):
            return []
        name = cols[0].table
        source = scope.selected_sources.get(name, (0, 0))[1]
        if not isinstance(source, Scope) or [c.name for c in cols] != list(resolver.get_source_columns(name)):
            return []  # over a pack table the expansion is the point: only its declared columns are read
        star = exp.Column(this=exp.Star(), table=cols[0].args["table"].copy()) if qualified else exp.Star()

        def undo() -> None:
            select.set("expressions", select.expressions[:at] + [star] + select.expressions[at + len(run):])
        return [undo]

    @staticmethod
    def _parse(sql: str) -> exp.Expression:
        try:
            dialect = Dialect.get_or_raise("postgres")
            tokens = dialect.tokenize(sql)
            if len(tokens) > MAX_TOKENS:
                raise GuardRefusal("too_large", f"the statement has more than {MAX_TOKENS} tokens")
            # a trailing comment after the last ';' is no statement (sqlglot keeps it as a Semicolon node)
            trees = [t for t in dialect.parser().parse(tokens, sql) if t is not None and not isinstance(t, exp.Semicolon)]
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
            # copy=False: the tree is not used after it is generated, and copying costs a tenth of the check
            return tree.sql("postgres", copy=False, pretty=True, comments=False, unsupported_level=ErrorLevel.RAISE)
        except SqlglotError as e:
            raise GuardRefusal("unsupported", f"the statement uses syntax MapAsk cannot check: {str(e)[:200]}")

    def _check_table(self, node: exp.Table, tables: set[str]) -> None:
        """A pack table named by its schema (added to `tables`), or a WITH query in scope; nothing else."""
        if node.args.get("catalog"):
            raise GuardRefusal("catalog", "cross-database references are not allowed")
        if not isinstance(node.this, exp.Identifier) or node.args.get("rows_from"):
            raise GuardRefusal("table_function", "table functions are not allowed in FROM")
        t = _ident(node.this)
        db = _ident(node.args["db"]) if node.args.get("db") else ""
        if not db and _cte_in_scope(node, t):
            return
        if db != self.pack.schema or t not in self.tables:
            shown = f"{db}.{t}" if db else t
            raise GuardRefusal("table_not_allowed", f"table {shown} is not one of the pack's tables")
        tables.add(f"{db}.{t}")

    def _inspect(self, tree: exp.Expression) -> tuple[set[str], set[str]]:
        tables, funcs = set(), set()
        nodes = []
        stars = outputs = 0
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
            if isinstance(node, exp.Select):
                if node.args.get("locks"):
                    raise GuardRefusal("locking", "locking clauses (FOR UPDATE/SHARE) are not allowed")
                _check_star_list(node)
                stars += sum(p.is_star for p in node.expressions)
                outputs += len(node.expressions)
            if isinstance(node, (exp.Values, exp.Unnest)):  # sources whose width is written out, not a pack table's
                first = node.expressions[0] if node.expressions else None
                outputs += len(first.expressions) if isinstance(first, exp.Tuple) else len(node.expressions)
            if isinstance(node, exp.Star):
                _check_star_place(node)
        # one star per SELECT (see _check_star_list): no output is wider than a table plus the projections written
        if stars * (self.widest + outputs) > MAX_EXPANDED:
            raise GuardRefusal("too_large", f"the statement's stars would expand to more than {MAX_EXPANDED} columns")
        depth = {id(tree): 0}
        for node in nodes:
            if node is not tree:
                d = depth[id(node.parent)] + 1
                if d > MAX_DEPTH:
                    raise GuardRefusal("too_deep", "the statement is nested too deeply to check")
                depth[id(node)] = d
        for node in nodes:
            if isinstance(node, exp.Table):
                self._check_table(node, tables)
            elif isinstance(node, exp.Func):
                _check_call(node, funcs)
            elif type(node) in OPERATOR_CALLS:  # an operator to sqlglot, a call to PostgreSQL (see sql_functions)
                funcs.add(function_names().canonical(OPERATOR_CALLS[type(node)], False))
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
            elif isinstance(node, (exp.Dot,)) and not isinstance(node.parent, exp.Column):
                raise GuardRefusal("column_not_allowed", "qualified expressions are not allowed")
        return tables, funcs
