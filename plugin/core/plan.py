"""Frame -> typed DAG of operations (load, filter, scope, near, aggregate, rate, keep, rank, compare, output)."""
from __future__ import annotations

from dataclasses import dataclass, field

from .errors import CompileError
from .frame import Frame

# what each operation consumes and produces: 'rows' of the target entity, or an aggregated 'table'
NODE_TYPES = {"load": (None, "rows"), "filter": ("rows", "rows"), "scope": ("rows", "rows"),
              "support": (None, "rows"), "near": ("rows", "rows"), "aggregate": ("rows", "table"),
              "rate": ("table", "table"), "keep": ("table", "table"), "rank": ("table", "table"), "compare": ("rows", "table"),
              "output": (None, None)}


@dataclass
class Node:
    id: str
    op: str
    inputs: list[str] = field(default_factory=list)
    params: dict = field(default_factory=dict)


@dataclass
class Plan:
    nodes: list[Node]

    def check(self) -> None:
        """Acyclic (inputs always precede) and type-consistent (each input produces what the node consumes)."""
        seen: dict[str, Node] = {}
        for n in self.nodes:
            if n.op not in NODE_TYPES:
                raise CompileError(f"unknown operation {n.op}")
            want = NODE_TYPES[n.op][0]
            for i in n.inputs:
                if i not in seen:
                    raise CompileError(f"node {n.id} uses {i} before it is defined (cycle or dangling edge)")
                got = NODE_TYPES[seen[i].op][1]
                if want and got != want and not (n.op == "near" and seen[i].op == "support"):
                    raise CompileError(f"node {n.id} ({n.op}) expects {want} but {i} gives {got}")
            seen[n.id] = n

    def to_dict(self) -> list[dict]:
        return [{"id": n.id, "op": n.op, "inputs": n.inputs, "params": n.params} for n in self.nodes]


def plan(frame: Frame) -> Plan:
    nodes = [Node("load", "load", [], {"entity": frame.target})]
    last = "load"
    if frame.filters or not frame.time.empty():
        nodes.append(Node("filtered", "filter", [last], {"predicates": len(frame.filters), "time": not frame.time.empty()}))
        last = "filtered"
    if frame.scope:
        nodes.append(Node("scoped", "scope", [last], {"places": [p.name for p in frame.scope]}))
        last = "scoped"
    if frame.near:
        nodes.append(Node("support", "support", [], {"entity": frame.near.entity,
                                                     "anchor": frame.near.anchor.name if frame.near.anchor else None}))
        nodes.append(Node("near", "near", [last, "support"], {"mode": frame.near.mode,
                                                              "distance_m": frame.near.distance_m}))
        last = "near"
    if frame.compare:
        nodes.append(Node("compared", "compare", [last], {"sides": [s.label for s in frame.compare]}))
        last = "compared"
    elif frame.intent not in ("list", "locate"):
        nodes.append(Node("aggregated", "aggregate", [last], {"measure": frame.measure.kind,
                                                              "group_by": [g.key for g in frame.group_by]}))
        last = "aggregated"
        if frame.measure.kind == "rate":
            nodes.append(Node("rated", "rate", [last], {"per": frame.measure.per}))
            last = "rated"
        if frame.having:
            nodes.append(Node("kept", "keep", [last], {"where": [(h.op, h.values[0]) for h in frame.having]}))
            last = "kept"
        if frame.rank:
            nodes.append(Node("ranked", "rank", [last], {"order": frame.rank.order, "limit": frame.rank.limit}))
            last = "ranked"
    nodes.append(Node("output", "output", [last], {"output": frame.output}))
    p = Plan(nodes)
    p.check()
    return p
