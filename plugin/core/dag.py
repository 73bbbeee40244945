"""The typed DAG: one dataclass per kind of step, each carrying what the compiler needs to render it."""
from __future__ import annotations

from dataclasses import MISSING, dataclass, fields, is_dataclass
from dataclasses import field as dc_field
from typing import Any, ClassVar, Optional, Union

from .errors import CompileError
from .frame import Place, Predicate, TimeSpec

# What flows along an edge: 'rows' of the target entity, 'features' of the support entity, 'ids' of the records
# found near the support, 'dated' per-date partial counts, or an aggregated 'table'.


@dataclass(kw_only=True)
class Node:
    """One step of the plan: `id` names the CTE it becomes, `inputs` the steps it reads."""
    id: str
    inputs: list[str] = dc_field(default_factory=list)
    op: ClassVar[str] = ""
    accepts: ClassVar[frozenset[str]] = frozenset()
    produces: ClassVar[Optional[str]] = "rows"

    def params(self) -> dict:
        """The node's own fields as plain data, defaults left out (what the dock and the audit entry show)."""
        d = _plain(self)
        d.pop("id", None), d.pop("inputs", None)
        return d


def _plain(v: Any) -> Any:
    """Dataclasses as dicts of the fields that differ from their defaults, lists item by item."""
    if is_dataclass(v) and not isinstance(v, type):
        out = {}
        for f in fields(v):
            x = getattr(v, f.name)
            default = f.default if f.default is not MISSING else \
                f.default_factory() if f.default_factory is not MISSING else MISSING
            if x != default:
                out[f.name] = _plain(x)
        return out
    return [_plain(x) for x in v] if isinstance(v, (list, tuple)) else v


ROWS = frozenset({"rows"})
ROWS_AND_IDS = frozenset({"rows", "ids"})


@dataclass
class Weight:
    """One EPDO weight and the published severity labels it applies to."""
    weight: float
    labels: list[str] = dc_field(default_factory=list)


@dataclass
class MeasureSpec:
    """What a group or comparison side measures, fully resolved (the compiler renders it, it decides nothing)."""
    kind: str = "count"  # count | distinct | epdo | sum | avg | share | share_of
    column: str = "count"
    field: Optional[str] = None  # sum/avg: the number field; epdo: the severity field
    outer: bool = False  # rows come from an outer join: a NULL row is no record
    weights: list[Weight] = dc_field(default_factory=list)
    default_weight: float = 1
    share_of: list[Predicate] = dc_field(default_factory=list)
    numerator: str = "filter"  # share_of: 'filter' (records meeting share_of) | 'near_ids' (that step, counted once)
    resum: bool = False  # the input holds per-date partial measures ('dated'): add them up
    mean: bool = False  # epdo: the mean weight per record instead of the total
    scale: float = 1.0  # sum/avg of a length: metres per unit asked (a mile: 1609.344)


@dataclass
class GroupColumn:
    """One grouping of an aggregate: its output column, and the column that orders it when it has one."""
    kind: str  # field | time | area
    key: str
    name: str
    order: Optional[str] = None
    sorted: bool = False  # the final rows follow this grouping (calendar parts)
    outside: bool = False  # area: records outside every area as a group of their own
    empty: bool = True     # area: areas without records listed with 0


@dataclass
class OrderKey:
    """One key of the final ORDER BY."""
    column: str
    desc: bool = False
    nulls_last: Optional[bool] = None
    quoted: bool = False


@dataclass
class SideRate:
    """A comparison side's rate: its count (or EPDO) over the population of its place."""
    place: str
    numerator: str
    per: int
    population: str
    population_field: str


# ---- rows of the target entity
@dataclass(kw_only=True)
class Load(Node):
    """The target entity's table, with the condition the pack says its rows carry."""
    entity: str
    where: list[Predicate] = dc_field(default_factory=list)
    op = "load"
    accepts = frozenset()


@dataclass(kw_only=True)
class Filter(Node):
    """Records meeting the question's predicates and time."""
    entity: str
    predicates: list[Predicate] = dc_field(default_factory=list)
    time: Optional[TimeSpec] = None
    op = "filter"
    accepts = ROWS


@dataclass(kw_only=True)
class ScopeArea(Node):
    """Records inside named polygons, found from the polygons' side (few polygons, many records)."""
    entity: str
    area: str
    names: list[str] = dc_field(default_factory=list)
    op = "scope_area"
    accepts = ROWS


@dataclass(kw_only=True)
class Scope(Node):
    """Records in named places, one OR group per kind of place, the groups ANDed."""
    entity: str
    places: list[list[Place]] = dc_field(default_factory=list)
    op = "scope"
    accepts = ROWS


# ---- proximity
@dataclass(kw_only=True)
class Support(Node):
    """The features a proximity relation measures from: filtered, scoped, or one named anchor."""
    entity: str
    predicates: list[Predicate] = dc_field(default_factory=list)
    scope: list[Place] = dc_field(default_factory=list)
    where: list[Predicate] = dc_field(default_factory=list)
    anchor: Optional[str] = None
    materialized: bool = False  # a handful of parts read once per record
    op = "support"
    accepts = frozenset()
    produces = "features"


NEAR_INPUTS = frozenset({"rows", "features"})


@dataclass(kw_only=True)
class NearIds(Node):
    """Keys of the records within `distance_m` of a support feature, found from the support (a share's numerator)."""
    entity: str
    distance_m: float
    op = "near_ids"
    accepts = NEAR_INPUTS
    produces = "ids"


@dataclass(kw_only=True)
class NearSome(Node):
    """Exists: records with at least one support feature within `distance_m`, each counted once."""
    entity: str
    distance_m: float
    # where the search starts: 'support' (few features probe the records' spatial index) or 'records' (each
    # record probes the support)
    drive: str = "records"
    op = "near_some"
    accepts = NEAR_INPUTS


@dataclass(kw_only=True)
class NearNone(Node):
    """Anti-join: located records with no support feature within `distance_m` ('farther than d from any X')."""
    entity: str
    distance_m: float
    op = "near_none"
    accepts = NEAR_INPUTS


@dataclass(kw_only=True)
class Nearest(Node):
    """The `k` records closest to the support, each with its distance to the nearest feature."""
    entity: str
    k: int
    anchored: bool = False  # one named feature (its parts, read once) rather than a class found by the index
    op = "nearest"
    accepts = NEAR_INPUTS


@dataclass(kw_only=True)
class NearGroup(Node):
    """Each support feature with the records within `distance_m` (none: one NULL row), labelled for grouping."""
    entity: str
    support: str
    distance_m: float
    op = "near_group"
    accepts = NEAR_INPUTS


# ---- comparison
@dataclass(kw_only=True)
class Side(Node):
    """One side of a comparison: its own predicates, time and places, and the measure over them."""
    entity: str
    order: int
    label: Union[int, str]
    predicates: list[Predicate] = dc_field(default_factory=list)
    time: Optional[TimeSpec] = None
    scope: list[Place] = dc_field(default_factory=list)
    measure: MeasureSpec = dc_field(default_factory=MeasureSpec)
    rate: Optional[SideRate] = None
    op = "side"
    accepts = ROWS_AND_IDS
    produces = "table"


@dataclass(kw_only=True)
class Compare(Node):
    """The sides, one row each, in the order they were named."""
    op = "compare"
    accepts = frozenset({"table"})
    produces = "table"


# ---- aggregation
@dataclass(kw_only=True)
class ByTime(Node):
    """Partial measures per stored date (and grouped fields): a few hundred rows the calendar parts come from."""
    entity: str
    keys: list[str] = dc_field(default_factory=list)
    measure: MeasureSpec = dc_field(default_factory=MeasureSpec)
    op = "by_time"
    accepts = ROWS_AND_IDS
    produces = "dated"


@dataclass(kw_only=True)
class Aggregate(Node):
    """The measure per group (or once); grouped by support features when `support_label` names that column."""
    entity: str
    groups: list[GroupColumn] = dc_field(default_factory=list)
    support_label: Optional[str] = None
    # the support's key column named so in the output: features apart even when they share a name (not lines,
    # whose segments of one street are one group)
    support_key: Optional[str] = None
    measure: MeasureSpec = dc_field(default_factory=MeasureSpec)
    op = "aggregate"
    accepts = frozenset({"rows", "ids", "dated"})
    produces = "table"


@dataclass(kw_only=True)
class Rate(Node):
    """Count (or EPDO) per `per` residents of the population entity."""
    entity: str
    numerator: str
    per: int
    population: str
    population_field: str
    accepts = frozenset({"table"})
    produces = "table"

    @property
    def column(self) -> str:
        """Name of the rate column."""
        return f"rate_per_{self.per}"


@dataclass(kw_only=True)
class RateByGroup(Rate):
    """A rate per group, each group joined to its own population by name."""
    by: str
    op = "rate_by_group"


@dataclass(kw_only=True)
class RateOverAll(Rate):
    """One rate over the population of all areas together."""
    op = "rate_over_all"


@dataclass(kw_only=True)
class RateOfPlace(Rate):
    """One rate for the one named place the question is about."""
    place: str
    op = "rate_of_place"


@dataclass(kw_only=True)
class Keep(Node):
    """Groups whose measure meets every (operator, number) condition."""
    column: str
    where: list[tuple[str, float]] = dc_field(default_factory=list)
    op = "keep"
    accepts = frozenset({"table"})
    produces = "table"


@dataclass(kw_only=True)
class Rank(Node):
    """Each group's rank by `column`, and how many groups share its value (a cut inside a tie is then visible)."""
    column: str
    desc: bool = True
    op = "rank"
    accepts = frozenset({"table"})
    produces = "table"


@dataclass(kw_only=True)
class Output(Node):
    """The final SELECT over the last step: its order, row limit, and what the rows are."""
    order: list[OrderKey] = dc_field(default_factory=list)
    limit: Optional[int] = None
    geometry: bool = False  # the rows are features
    order_matters: bool = False
    op = "output"
    accepts = frozenset({"rows", "table"})
    produces = None


@dataclass
class Plan:
    """The steps in order: every input precedes the step that reads it."""
    nodes: list[Node]

    def check(self) -> None:
        """Acyclic (inputs always precede), one output last, each input giving what its reader accepts."""
        seen: dict[str, Node] = {}
        for n in self.nodes:
            for i in n.inputs:
                if i not in seen:
                    raise CompileError(f"node {n.id} uses {i} before it is defined (cycle or dangling edge)")
                if seen[i].produces not in n.accepts:
                    raise CompileError(f"node {n.id} ({n.op}) takes {sorted(n.accepts)} "
                                       f"but {i} gives {seen[i].produces}")
            if n.id in seen:
                raise CompileError(f"node {n.id} is defined twice")
            seen[n.id] = n
        if not self.nodes or not isinstance(self.nodes[-1], Output) or \
                sum(isinstance(n, Output) for n in self.nodes) != 1:
            raise CompileError("a plan ends with its one output step")

    def node(self, kind: type) -> Optional[Node]:
        """The first node of a kind, if any."""
        return next((n for n in self.nodes if isinstance(n, kind)), None)

    def to_dict(self) -> list[dict]:
        """Plain data for the dock and the audit entry: id, op, inputs, params per step."""
        return [{"id": n.id, "op": n.op, "inputs": n.inputs, "params": n.params()} for n in self.nodes]
