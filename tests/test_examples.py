"""The pack's reviewed examples: each question still interprets to its reviewed frame (regression guard)."""
from __future__ import annotations

import pytest

from plugin.core.frame import frame_from_dict
from plugin.core.pack import load_pack
from conftest import PACK_DIR

EXAMPLES = load_pack(PACK_DIR).examples


def test_pack_has_examples_of_many_kinds():
    intents = {e["frame"]["intent"] for e in EXAMPLES}
    assert len(EXAMPLES) >= 15 and {"count", "list", "rank", "share", "compare", "trend"} <= intents


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["question"][:40] for e in EXAMPLES])
def test_example_still_interprets_to_its_reviewed_frame(pipeline, example):
    a = pipeline.ask(example["question"])
    assert a.status == "answered"
    assert frame_from_dict(a.frame).hash() == frame_from_dict(example["frame"]).hash()
