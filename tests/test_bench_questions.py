"""The development question set is well formed (no database needed)."""
from collections import Counter

from bench.review import CATEGORIES, load, structure_problems


def test_question_set_structure():
    assert structure_problems(load()) == []


def test_question_set_size_and_split():
    qs = load()
    assert len(qs) >= 220
    cats = Counter(q["category"] for q in qs)
    assert all(cats[c] >= 15 for c in CATEGORIES)
    tune = sum(q["split"] == "tune" for q in qs) / len(qs)
    assert 0.5 <= tune <= 0.7
