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


class CompileError(MapAskError):
    """A frame could not be turned into SQL."""
