"""Execution-match grading: does a predicted result carry the reference result?

grade(pred_columns, pred_rows, ref_columns, ref_rows, order_matters) -> (ok, reason)

Values are normalised before comparison:
  - None stays None;
  - booleans stay booleans (True never equals the number 1);
  - numbers (int, float, Decimal) are first rounded to 12 significant digits (this removes
    floating-point noise: 0.1 + 0.2 == 0.3); a value that is then integral is kept exactly
    (a count of 10,001 must not match 10,000; 2017 matches 2017.0 and Decimal('2017'));
    any other value is rounded to 4 significant digits, so 33.333333 matches 33.33 and
    99.99999 matches 100; NaN matches NaN;
  - strings are stripped and case-folded ('Property damage only ' == 'property damage only');
  - dates, times and timestamps become ISO text ('2017-01-13', '15:26:00',
    '2017-01-13 15:26:00'), so they also match the same text; a date never equals a
    timestamp;
  - anything else (bytes, geometry, dicts) becomes its text form.

Column names and column order are ignored. Every reference column must be matched by a
distinct prediction column holding the same values; the prediction may carry extra columns
(a label, a geometry, a second measure). Among the assignments of prediction columns to
reference columns, one must make the multiset of row tuples equal (the list of row tuples,
when order_matters). Candidate columns are found first by comparing the multiset (or the
sequence) of each column's values; the few consistent assignments are then tried with
pruning on partial row tuples.

Pure: no database, no I/O.
"""
from __future__ import annotations

import datetime as _dt
import math
from collections import Counter
from decimal import Decimal
from typing import Any, Sequence

SIG_DIGITS = 4
MAX_ASSIGNMENTS = 20000


def _round_sig(x: float, digits: int) -> float:
    if x == 0 or math.isinf(x):
        return float(x)
    return float(f"{x:.{digits - 1}e}")


def normalise(v: Any) -> tuple:
    """One value -> a hashable, type-tagged normal form."""
    if v is None:
        return ("null",)
    if isinstance(v, bool):
        return ("bool", v)
    if isinstance(v, (int, float, Decimal)):
        x = float(v)
        if math.isnan(x):
            return ("num", "nan")
        x = _round_sig(x, 12)
        if not (x.is_integer() and abs(x) < 2 ** 53):
            x = _round_sig(x, SIG_DIGITS)
        return ("num", x + 0.0)  # + 0.0 turns -0.0 into 0.0
    if isinstance(v, str):
        return ("str", v.strip().casefold())
    if isinstance(v, _dt.datetime):
        return ("str", v.isoformat(sep=" ").casefold())
    if isinstance(v, (_dt.date, _dt.time)):
        return ("str", v.isoformat().casefold())
    if isinstance(v, (bytes, bytearray, memoryview)):
        return ("bytes", bytes(v).hex())
    return ("other", str(v))


def _columns(rows: Sequence[Sequence[Any]], width: int) -> list[tuple]:
    cols = [[] for _ in range(width)]
    for r in rows:
        for j in range(width):
            cols[j].append(normalise(r[j]))
    return [tuple(c) for c in cols]


def _show(v: tuple) -> str:
    return "NULL" if v[0] == "null" else repr(v[1])


def grade(pred_columns: Sequence[str], pred_rows: Sequence[Sequence[Any]],
          ref_columns: Sequence[str], ref_rows: Sequence[Sequence[Any]],
          order_matters: bool) -> tuple[bool, str]:
    """Execution match of a predicted result against the reference result."""
    n_ref, n_pred = len(ref_columns), len(pred_columns)
    for name, rows, width in (("reference", ref_rows, n_ref), ("prediction", pred_rows, n_pred)):
        for r in rows:
            if len(r) != width:
                return False, f"{name} row has {len(r)} values for {width} columns"
    if n_pred < n_ref:
        return False, f"prediction has {n_pred} columns, the reference needs {n_ref}"
    if len(pred_rows) != len(ref_rows):
        return False, f"row count {len(pred_rows)} != reference {len(ref_rows)}"
    if n_ref == 0:
        return True, "match (reference has no columns)"

    ref_cols = _columns(ref_rows, n_ref)
    pred_cols = _columns(pred_rows, n_pred)

    # 1. candidate prediction columns per reference column, by value multiset (or sequence)
    def col_key(c: tuple):
        return c if order_matters else frozenset(Counter(c).items())

    pred_keys = [col_key(c) for c in pred_cols]
    candidates: list[list[int]] = []
    for j, rc in enumerate(ref_cols):
        k = col_key(rc)
        cand = [i for i, pk in enumerate(pred_keys) if pk == k]
        if not cand:
            if order_matters:
                unordered = frozenset(Counter(rc).items())
                if any(frozenset(Counter(pc).items()) == unordered for pc in pred_cols):
                    return False, (f"reference column {ref_columns[j]!r}: values present but "
                                   f"in a different row order")
            sample = ", ".join(_show(v) for v in rc[:3])
            return False, (f"no prediction column holds the values of reference column "
                           f"{ref_columns[j]!r} ({sample}{', ...' if len(rc) > 3 else ''})")
        candidates.append(cand)

    # prediction columns with identical value sequences are interchangeable: keep one per class
    rep: dict[tuple, int] = {}
    klass = []
    for i, pc in enumerate(pred_cols):
        klass.append(rep.setdefault(pc, i))
    class_size = Counter(klass)

    # 2. try assignments, most constrained reference column first, pruning on partial tuples
    order = sorted(range(n_ref), key=lambda j: len(candidates[j]))
    used: Counter = Counter()
    chosen: dict[int, int] = {}
    tried = 0

    def partial_ok(depth: int) -> bool:
        js = order[:depth]
        pred_t = [tuple(pred_cols[chosen[j]][r] for j in js) for r in range(len(pred_rows))]
        ref_t = [tuple(ref_cols[j][r] for j in js) for r in range(len(ref_rows))]
        if order_matters:
            return pred_t == ref_t
        return Counter(pred_t) == Counter(ref_t)

    def search(depth: int) -> bool:
        nonlocal tried
        if depth == n_ref:
            return True
        j = order[depth]
        seen_classes = set()
        for i in candidates[j]:
            c = klass[i]
            if c in seen_classes or used[c] >= class_size[c]:
                continue
            seen_classes.add(c)
            tried += 1
            if tried > MAX_ASSIGNMENTS:
                return False
            used[c] += 1
            chosen[j] = c
            if depth == 0 or partial_ok(depth + 1):
                if search(depth + 1):
                    return True
            used[c] -= 1
            del chosen[j]
        return False

    if search(0):
        mapping = ", ".join(f"{ref_columns[j]}<-{pred_columns[chosen[j]]}" for j in range(n_ref))
        return True, f"match ({mapping})"
    if tried > MAX_ASSIGNMENTS:
        return False, "column assignment search gave up (too many interchangeable columns)"
    if order_matters:
        return False, "every column matches alone, but no assignment gives the same rows in the same order"
    return False, "every column matches alone, but no assignment gives the same multiset of rows"


def grade_sides(pred_columns: Sequence[str], pred_rows: Sequence[Sequence[Any]],
                ref_columns: Sequence[str], ref_rows: Sequence[Sequence[Any]]) -> tuple[bool, str]:
    """A comparison: the numbers per side, in the order the sides were named. Side labels are free text ('2010'
    or 'in 2010'), so text columns of the reference are not matched; a reference written as one row with a
    column per side is read as one value per side."""
    num = [j for j in range(len(ref_columns)) if all(isinstance(r[j], (int, float, Decimal)) or r[j] is None
                                                     for r in ref_rows)]
    ref_rows = _in_order_of_labels(pred_rows, ref_rows, num)
    if not num:
        return grade(pred_columns, pred_rows, ref_columns, ref_rows, True)
    if len(ref_rows) == 1 and len(num) == len(pred_rows) and len(num) > 1:
        cols, rows = ["value"], [[ref_rows[0][j]] for j in num]  # wide: one column per side
    else:
        cols, rows = [ref_columns[j] for j in num], [[r[j] for j in num] for r in ref_rows]
    ok, why = grade(pred_columns, pred_rows, cols, rows, True)
    return ok, why if ok else f"sides: {why}"


def _in_order_of_labels(pred_rows: Sequence[Sequence[Any]], ref_rows: Sequence[Sequence[Any]],
                        num: list[int]) -> Sequence[Sequence[Any]]:
    """Reference rows put in the order of the prediction's sides when each row's label names exactly one side
    (a reference grouped by the compared field comes in the database's order, not the order the sides were said)."""
    def key(v: Any) -> str:
        return "".join(ch for ch in str(v).lower() if ch.isalnum())
    labels = [next((key(v) for j, v in enumerate(r) if j not in num and isinstance(v, str)), "") for r in ref_rows]
    sides = [" ".join(key(v) for v in r if isinstance(v, str)) for r in pred_rows]
    if len(ref_rows) != len(pred_rows) or len(ref_rows) < 2 or not all(labels):
        return ref_rows
    order = [[i for i, lb in enumerate(labels) if lb in side] for side in sides]
    if any(len(o) != 1 for o in order) or len({o[0] for o in order}) != len(order):
        return ref_rows
    return [ref_rows[o[0]] for o in order]


def round_like_reference(pred_rows: Sequence[Sequence[Any]], ref_rows: Sequence[Sequence[Any]]) -> list[list]:
    """Prediction numbers rounded to the decimals of the reference when every fractional number of the reference
    has at most 2 (the references round shares and rates to 2 decimals by convention, some totals to 1; 1.5635 % is
    the reference's 1.56 %, 10849.45 feet its 10849.4)."""
    fracs = [float(v) for r in ref_rows for v in r if isinstance(v, (float, Decimal)) and float(v) != int(float(v))]
    if not fracs or any(abs(round(x, 2) - x) > 1e-9 for x in fracs):
        return [list(r) for r in pred_rows]
    places = 1 if all(abs(round(x, 1) - x) < 1e-9 for x in fracs) else 2
    return [[round(float(v), places) if isinstance(v, (float, Decimal)) else v for v in r] for r in pred_rows]
