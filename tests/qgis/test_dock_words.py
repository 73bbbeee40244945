"""What the dock says: message-bar messages that neither stack nor come back, ask-backs, words instead of internals."""

import time

import pytest

from mapask_qgis_helpers import ask, bar_messages, dock, module, pg_connection, wait_idle  # noqa: F401 (fixtures)
from qgis.core import QgsProject
from qgis.PyQt.QtCore import QCoreApplication
from qgis.PyQt.QtGui import QKeySequence
from qgis.PyQt.QtWidgets import QAbstractButton, QApplication, QLabel

from plugin.core.pack import pack_summary


def bar_texts(dock) -> list:
    return bar_messages(dock)


def wait(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        QCoreApplication.processEvents()
        time.sleep(0.02)


def headers(dock) -> list:
    model = dock.table.model()
    return [model.headerData(i, 1) for i in range(model.columnCount())]


# ---- the message bar

def test_a_message_replaces_the_older_one_of_its_kind_and_an_expired_one_never_comes_back(dock):
    dock.notify("Export failed: disk full", True, "export")
    dock.notify("MapAsk is still answering the previous question", True, "ask")
    assert bar_texts(dock)[0] == "MapAsk is still answering the previous question"
    dock.notify("Exported to /tmp/a.csv", False, "export")
    # one per kind: the failed export is gone, not waiting beneath the newer messages
    assert sorted(bar_texts(dock)) == ["Exported to /tmp/a.csv", "MapAsk is still answering the previous question"]
    # QGIS's bar shows a hidden message again when the one above it expires: ours leave when their time is up
    messages = module("ui.messages")
    short = messages.Messages(dock.iface)
    short.push("one", "short lived", seconds=1)
    dock.notify("newest", False, "other")
    assert bar_texts(dock)[0] == "newest" and "short lived" in bar_texts(dock)
    wait(1.4)
    assert "short lived" not in bar_texts(dock) and short.current("one") is None
    dock.messages.clear()
    assert "newest" not in bar_texts(dock) and "Exported to /tmp/a.csv" not in bar_texts(dock)


def test_enter_while_a_question_runs_says_so_once_and_keeps_the_answer_coming(dock):
    dock.question_edit.setPlainText("top 5 towns with the most crashes")
    dock.ask_button.click()
    assert dock.session.task is not None
    for _ in range(3):  # Enter pressed again and again in the question box
        assert dock.ask() is None
    still = [t for t in bar_texts(dock) if "still answering" in t]
    assert len(still) == 1
    wait_idle(dock)
    assert dock.session.last.answer.status == "answered"
    assert "WORCESTER" in dock.answer_view.text.toPlainText()
    # the answer came: the notice about it is no longer news
    assert not [t for t in bar_texts(dock) if "still answering" in t]


def test_replay_and_export_messages_do_not_pile_up(dock, tmp_path):
    ask(dock, "top 5 towns with the most crashes")
    for i in range(3):
        dock.export("csv", str(tmp_path / f"a{i}.csv"))
    exported = [t for t in bar_texts(dock) if t.startswith("Exported to")]
    assert exported == [f"Exported to {tmp_path / 'a2.csv'}"]
    dock.audit_panel.replay_button.click()
    wait_idle(dock)
    dock.audit_panel.replay_button.click()
    wait_idle(dock)
    assert len([t for t in bar_texts(dock) if t.startswith("Replay:")]) == 1


# ---- ask-backs and the pack's description

def test_ask_back_says_what_was_not_understood_and_what_to_try_without_the_pack_description(dock, pack):
    shown = ask(dock, "asdf qwer")
    assert shown.answer.status == "clarify"
    text = dock.answer_view.text.toPlainText()
    assert "asdf" in text and "try a question like" in text
    assert pack_summary(pack) not in text
    assert not any(e.answers in text for e in pack.entities.values() if e.answers)
    # the description is there on request
    assert "What can I ask?" in text
    dock.answer_view.link_clicked.emit("mapask:help")
    help_text = dock.answer_view.text.toPlainText()
    assert all(e.plural in help_text for e in pack.entities.values())
    assert pack.examples[0]["question"] in help_text


def test_what_can_i_ask_and_its_examples_fill_the_question_box(dock, pack):
    assert dock.help_link.text().count("What can I ask?") == 1
    dock.help_link.linkActivated.emit("mapask:help")
    assert pack.entities["crash"].answers in dock.answer_view.text.toPlainText()
    example = pack.examples[1]["question"]
    dock.answer_view.link_clicked.emit("mapask:example:" + example)
    assert dock.question_edit.question() == example
    assert dock.session.task is None  # filled in, not asked behind the user's back


def test_a_follow_up_ask_back_never_gets_the_pack_description(dock, pack):
    ask(dock, "how many crashes in cambridge")
    shown = ask(dock, "what about zxqv", follow_up=True)
    assert shown.answer.status == "clarify"
    text = dock.answer_view.text.toPlainText()
    assert "zxqv" in text and "try a question like" in text
    assert pack_summary(pack) not in text
    # the dock takes the description off what the core says, whether the core appends it or not
    wording = module("ui.wording").Wording(dock.session.pack())
    reworded = "MapAsk did not understand: zxqv. It knows about " + "; ".join(
        e.answers for e in pack.entities.values() if e.answers) + "."
    assert wording.strip_description(reworded) == "MapAsk did not understand: zxqv."
    assert wording.strip_description(shown.answer.answer) == "MapAsk did not understand: zxqv."


def test_an_empty_question_gets_a_plain_line(dock):
    dock.question_edit.setPlainText("   ")
    dock.tabs.setCurrentIndex(dock.TAB_HISTORY)
    dock.ask_button.click()
    assert dock.session.task is None and dock.session.last is None
    assert dock.tabs.currentIndex() == dock.TAB_ANSWER
    assert dock.answer_view.text.toPlainText().startswith("Type a question first")


# ---- words instead of internals

def test_choice_buttons_keep_the_ampersand(dock):
    shown = ask(dock, "crashes near richdale")
    assert shown.answer.status == "clarify"
    buttons = dock.answer_view.choice_buttons
    wanted = "Raymond St & Richdale Ave & Walden Square Rd"
    (button,) = [b for b in buttons if b.text().replace("&&", "&") == wanted]
    assert QKeySequence.mnemonic(button.text()).isEmpty()  # no '&' taken as a shortcut marker
    dock.grab()  # lays the dock out at its size (460 px wide), as on screen
    assert button.width() >= button.sizeHint().width()  # the long name is not cut at the button's edges
    asked = []
    dock.ask = lambda q=None, follow_up=None: asked.append(q)
    button.click()
    assert asked == ["crashes near Raymond St & Richdale Ave & Walden Square Rd"]


def test_repairs_and_table_headers_use_the_packs_labels(dock, pack):
    shown = ask(dock, "top 5 towns with the most crashes")
    a = shown.answer
    assert "city_town_name" in a.columns and "tied" in a.columns and a.repairs
    text = dock.answer_view.text.toPlainText()
    assert "Repairs made" in text
    for internal in ("group_by[", "crash.city_town_name", "city_town_name", "group_field", "{", "'code'"):
        assert internal not in text, internal
    assert "Grouped by: town" in text
    shown_headers = headers(dock)
    assert shown_headers[0] == pack.entities["crash"].fields["city_town_name"].label
    assert "city_town_name" not in shown_headers and "tied" not in shown_headers
    assert "rank" in shown_headers
    # the column's own name stays one hover away, for whoever reads the SQL
    assert dock.table.model().headerData(0, 1, 3) == "city_town_name"  # Qt.ToolTipRole


def test_a_dropped_condition_reads_as_words_not_a_dict(dock, pack):
    wording = module("ui.wording").Wording(pack)
    line = wording.repair({"code": "filter_dropped", "path": "filters[0]",
                           "before": {"field": "ambnt_light_descr", "op": "in", "values": ["Dusk"], "entity": "crash",
                                      "concept": None, "any_of": [], "text": ""},
                           "after": None, "reason": "operator 'gte' cannot be applied to ambnt_light_descr"},
                          {"target": "crash"})
    assert line == "Condition: light condition Dusk left out (operator 'gte' cannot be applied to light condition)"
    near = wording.repair({"code": "near_added", "path": "near", "before": None,
                           "after": {"entity": "school", "distance_m": 150.0}, "reason": "by school"}, {})
    assert "{" not in near and "150 m" in near


def test_follow_up_layers_and_group_are_named_after_the_whole_chain(dock):
    first = ask(dock, "show crashes within 1000 feet of cambridgeport school")
    second = ask(dock, "only at night", follow_up=True)
    assert second.answer.status == "answered" and second.follow_up_of["id"] == first.entry["id"]
    result = second.presented.result
    assert result.name().startswith("show crashes within") and result.name().endswith("only at night")
    group = QgsProject.instance().layerTreeRoot().findGroup("MapAsk").findGroup(result.name())
    assert group is not None and len(group.findLayers()) == len(second.presented.layers)
    assert all(layer.name().startswith("show crashes within") for layer in second.presented.layers)
    third = ask(dock, "only in 2017", follow_up=True)
    assert third.presented.result.name().count(" → ") == 2
    assert len(third.presented.result.name()) <= 80
    assert "show crashes" in dock.follow_up.toolTip() and "only at night" in dock.follow_up.toolTip()


def test_history_shows_question_and_time_not_layer_ids(dock):
    shown = ask(dock, "top 5 towns with the most crashes")
    layer = shown.presented.result
    panel = dock.audit_panel
    panel.select(shown.entry["id"])
    item = panel.list.currentItem().text()
    assert "top 5 towns with the most crashes" in item and shown.entry["time"][:10] in item
    detail = panel.detail.toPlainText()
    assert layer.id() not in detail and layer.name() in detail
    assert "city_town_name|" not in detail and "group_by[" not in detail
    QgsProject.instance().removeMapLayer(layer.id())
    panel.refresh()
    assert "no longer in this project" in panel.detail.toPlainText()


def test_settings_dialog_text_is_not_clipped_at_any_width(qgis_app):
    dialog_module, settings = module("ui.settings_dialog"), module("plugin.qgis.settings")
    dialog = dialog_module.SettingsDialog(settings.Settings())
    dialog.show()
    QApplication.processEvents()
    # as it opens, then at other widths with the height the layout asks for
    for width in (None, dialog.minimumSizeHint().width(), 640, 900):
        if width is not None:
            dialog.resize(width, dialog.heightForWidth(width) if dialog.hasHeightForWidth()
                          else dialog.sizeHint().height())
            QApplication.processEvents()
        for w in dialog.findChildren(QLabel) + dialog.findChildren(QAbstractButton):
            if not w.isVisible():
                continue
            if isinstance(w, QLabel) and w.wordWrap():
                assert w.height() >= w.heightForWidth(w.width()), (width, w.text())
            else:
                assert w.width() >= w.sizeHint().width() and w.height() >= w.sizeHint().height() - 1, (width, w.text())
    # it can be made narrow and wide: its notes wrap rather than set its width
    assert dialog.isSizeGripEnabled() and dialog.minimumSizeHint().width() <= 640
    notes = [w for w in dialog.findChildren(QLabel) if w.objectName() in ("modelNote", "passwordNote")]
    assert len(notes) == 2 and all(n.wordWrap() for n in notes)
    dialog.close()


def test_first_answer_in_a_wgs84_project_records_a_transform_qgis_can_run(dock, pack, qgis_iface):
    """QGIS warns "Cannot use preferred transform" when the best operation needs a missing grid and the project
    names none; after an answer the project names the best one this computer can run (a user's choice stands)."""
    from qgis.core import QgsCoordinateReferenceSystem, QgsDatumTransform

    source, wgs84 = QgsCoordinateReferenceSystem(f"EPSG:{pack.srid}"), QgsCoordinateReferenceSystem("EPSG:4326")
    operations = QgsDatumTransform.operations(source, wgs84)
    if operations[0].isAvailable:
        pytest.skip("this computer has the grid of the preferred operation: QGIS has nothing to warn about")
    project, canvas = QgsProject.instance(), qgis_iface.mapCanvas()
    before = canvas.mapSettings().destinationCrs()
    try:
        _ask_in(project, canvas, dock, source, wgs84, operations)
    finally:  # the other tests' canvas
        canvas.setDestinationCrs(before)


def _ask_in(project, canvas, dock, source, wgs84, operations):
    from qgis.core import QgsCoordinateReferenceSystem, QgsDatumTransform

    project.setCrs(wgs84)
    canvas.setDestinationCrs(wgs84)
    assert not project.transformContext().hasTransform(source, wgs84)  # what made QGIS warn
    ask(dock, "map the crashes in the port")
    context = project.transformContext()
    assert context.hasTransform(source, wgs84)
    chosen = context.calculateCoordinateOperation(source, wgs84)
    assert chosen in [op.proj for op in operations if op.isAvailable]
    # a choice already in the project is never replaced
    mercator = QgsCoordinateReferenceSystem("EPSG:3857")
    ops = [op for op in QgsDatumTransform.operations(source, mercator) if op.isAvailable]
    context.addCoordinateOperation(source, mercator, ops[-1].proj, True)
    project.setTransformContext(context)
    project.setCrs(mercator)
    canvas.setDestinationCrs(mercator)
    ask(dock, "map the crashes in the port")
    assert project.transformContext().calculateCoordinateOperation(source, mercator) == ops[-1].proj
