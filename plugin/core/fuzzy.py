"""Fuzzy string scores (0-100): rapidfuzz when installed, difflib otherwise (stock QGIS)."""
from __future__ import annotations

try:
    from rapidfuzz import fuzz as _fuzz
    from rapidfuzz import process as _process

    def ratio(a: str, b: str) -> float:
        return _fuzz.ratio(a, b)

    def best(query: str, choices: list[str], cutoff: float) -> list[tuple[str, float]]:
        return [(c, s) for c, s, _ in _process.extract(query, choices, scorer=_fuzz.ratio, limit=5,
                                                        score_cutoff=cutoff)]
except ImportError:  # pragma: no cover - exercised only without rapidfuzz
    import difflib

    def ratio(a: str, b: str) -> float:
        return 100.0 * difflib.SequenceMatcher(None, a, b).ratio()

    def best(query: str, choices: list[str], cutoff: float) -> list[tuple[str, float]]:
        scored = [(c, ratio(query, c)) for c in difflib.get_close_matches(query, choices, n=5, cutoff=cutoff / 100)]
        return sorted(scored, key=lambda x: -x[1])
