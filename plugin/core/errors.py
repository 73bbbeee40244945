"""Typed exceptions of the MapAsk pipeline (each carries a plain-language message)."""
from __future__ import annotations


class MapAskError(Exception):
    """Base class: any pipeline failure with a message meant for the user."""


class PackError(MapAskError):
    """The knowledge pack is missing, malformed or inconsistent."""


class GuardRefusal(MapAskError):
    """The SQL guard refused a statement; `code` says which rule."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


class ExecutionError(MapAskError):
    """The database could not run a checked query (timeout, connection, cancel)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


class CostLimitError(ExecutionError):
    """The planner's estimated total cost of a checked query is over the configured limit; nothing ran."""

    def __init__(self, cost: float, limit: float):
        super().__init__("too_costly", f"the planner estimates the query's cost at {cost:,.0f}, over the limit "
                                       f"of {limit:,.0f}")
        self.cost = cost
        self.limit = limit


class CompileError(MapAskError):
    """A frame could not be turned into SQL."""
