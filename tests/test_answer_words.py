"""Answer sentences put what was said where English puts it: 'crashes with injuries', not 'injuries crashes'."""

import pytest


@pytest.mark.parametrize("question, said, not_said", [
    ("how many crashes with injuries", "crashes with injuries", "injuries crashes"),
    ("night crashes on wet roads", "crashes with wet roads at night", "wet roads crashes"),
    ("crashes in the dark in 2017", "crashes in the dark", "dark crashes"),
    ("fatal crashes in boston", "fatal MassDOT crash in Boston", "crash fatal"),
    ("injury crashes", "injury crashes", "crashes with injury"),
])
def test_conditions_read_before_or_after_the_noun(pipeline, question, said, not_said):
    a = pipeline.ask(question)
    assert a.status == "answered", a.answer
    assert said in a.answer and not_said not in a.answer, a.answer


def test_a_follow_up_condition_reads_after_the_noun(pipeline):
    from plugin.core.frame import frame_from_dict

    first = pipeline.ask("how many crashes in cambridge")
    a = pipeline.ask("what about at night", previous=frame_from_dict(first.frame))
    assert "crashes at night in Cambridge" in a.answer and "at night crashes" not in a.answer
