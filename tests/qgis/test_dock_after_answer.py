"""After an answer: the Layers panel shows it (its group open, its layer current, earlier answers off), the
answer lists its key numbers and each confidence reason once, and the chart's title fits the chart."""

from mapask_qgis_helpers import ask, dock, module, pg_connection  # noqa: F401 (fixtures)
from qgis.core import QgsProject
from qgis.PyQt.QtCore import QCoreApplication


def mapask_group():
    return QgsProject.instance().layerTreeRoot().findGroup("MapAsk")


def test_latest_answer_is_shown_and_current_earlier_ones_are_kept_but_off(dock, qgis_iface):
    first = ask(dock, "show crashes within 1000 feet of cambridgeport school")
    second = ask(dock, "top 5 towns with the most crashes")
    group = mapask_group()
    assert group.isExpanded() and group.itemVisibilityChecked()
    newest, earlier = group.children()
    assert newest.name() == second.answer.question and earlier.name() == first.answer.question
    # the latest answer: open, drawn, its result layer current and its legend open
    assert newest.isExpanded() and newest.itemVisibilityChecked()
    assert [n.layer() for n in newest.findLayers()] == second.presented.layers
    assert newest.findLayer(second.presented.result.id()).isExpanded()
    assert qgis_iface.activeLayer() is second.presented.result
    # earlier answers stay in the project, closed and not drawn
    assert not earlier.isExpanded() and not earlier.itemVisibilityChecked()
    assert all(QgsProject.instance().mapLayer(layer.id()) is not None for layer in first.presented.layers)
    drawn = QgsProject.instance().layerTreeRoot().checkedLayers()
    assert second.presented.result in drawn
    assert not any(layer in drawn for layer in first.presented.layers)
    # a third answer: the second closes in turn, the first stays closed
    third = ask(dock, "map the crashes in the port")
    assert [g.name() for g in group.children()] == [third.answer.question, second.answer.question,
                                                   first.answer.question]
    assert [g.itemVisibilityChecked() for g in group.children()] == [True, False, False]
    assert qgis_iface.activeLayer() is third.presented.result


def test_a_switched_off_mapask_group_is_switched_back_on_for_a_new_answer(dock):
    ask(dock, "map the crashes in the port")
    mapask_group().setItemVisibilityChecked(False)
    shown = ask(dock, "top 5 towns with the most crashes")
    assert shown.presented.result in QgsProject.instance().layerTreeRoot().checkedLayers()


def test_each_confidence_reason_is_listed_once(dock):
    # (bike crashes: the source is the pack's default among two that could answer, a guess and a repair at once)
    shown = ask(dock, "bike crashes by public school, 150 m around each")
    lowered = [f for f in shown.answer.features if abs((f.get("value") or 0) * (f.get("weight") or 0)) >= 0.3]
    entity = next((f["evidence"] for f in lowered if f["name"] == "entity_guessed"), None)
    assert entity and any(entity in f["evidence"] for f in lowered if f["name"].startswith("repairs"))  # the overlap
    text = dock.answer_view.text.toPlainText()
    why = text.split("Why this confidence", 1)[1].split("Repairs made", 1)[0]
    assert why.count(entity) == 1
    assert all(part in why for f in lowered for part in f["evidence"].split("; "))  # nothing lost


def test_key_numbers_show_each_group_with_its_measure_not_its_rank(dock):
    shown = ask(dock, "top 5 towns with the most crashes")
    a = shown.answer
    assert a.columns.index("count") < len(a.columns) - 1  # columns after the measure (rank, tie size)
    table = module("ui.answer_view").key_numbers(a.columns, a.rows, a.geometry_column)
    for row in a.rows:
        town, count = row[a.columns.index("city_town_name")], row[a.columns.index("count")]
        assert f"<td>{town}</td><td align='right'><b>{count:,}</b></td>" in table


def test_chart_title_is_wrapped_inside_the_chart(dock):
    dock.show()
    ask(dock, "pedestrian crashes within 150 m of cambridge public schools by school")
    dock.tabs.setCurrentIndex(dock.TAB_CHART)
    QCoreApplication.processEvents()
    chart = dock.chart
    chart.canvas.draw()
    figure_box = chart.figure.bbox
    title_box = chart.title_text.get_window_extent(chart.canvas.get_renderer())
    assert chart.title_text.get_text().replace("\n", " ") == chart.data.title
    assert figure_box.x0 <= title_box.x0 and title_box.x1 <= figure_box.x1
    assert title_box.y1 <= figure_box.y1
    dock.hide()
