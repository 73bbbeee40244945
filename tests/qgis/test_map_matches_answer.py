"""The map shows what the answer counted, limited to its place and distance, never a stale answer, never the
user's layers swallowed; every MapAsk layer survives save and reopen (a real QGIS, offscreen; real PostGIS)."""

from mapask_qgis_helpers import ask, dock, module, pg_connection  # noqa: F401 (fixtures)
from qgis.core import (
    QgsCategorizedSymbolRenderer,
    QgsExpressionContextUtils,
    QgsGeometryGeneratorSymbolLayer,
    QgsLayerTreeGroup,
    QgsLayerTreeRegistryBridge,
    QgsLayoutItemLabel,
    QgsLayoutItemLegend,
    QgsProject,
    QgsVectorLayer,
)
from qgis.PyQt.QtCore import Qt


def role(layer) -> str:
    return str(QgsExpressionContextUtils.layerScope(layer).variable("mapask_role") or "")


def by_role(shown) -> dict:
    out = {}
    for layer in shown.presented.layers:
        assert role(layer) not in out, role(layer)
        out[role(layer)] = layer
    return out


def label_text(layer) -> str:
    """What a layer's labels say (an expression or a field name), for the layers MapAsk labels."""
    assert layer.labelsEnabled()
    return layer.labeling().settings().fieldName


def drawn():
    return QgsProject.instance().layerTreeRoot().checkedLayers()


def test_a_count_in_a_place_draws_the_records_it_counted_with_the_number(dock, pack):
    shown = ask(dock, "how many crashes in cambridge had injuries")
    layers = by_role(shown)
    assert set(layers) == {"result", "place"}
    records, place = layers["result"], layers["place"]
    assert records.providerType() == "postgres" and records.featureCount() == shown.answer.rows[0][0] == 22
    severity = pack.entities[shown.answer.frame["target"]].severity_field
    assert isinstance(records.renderer(), QgsCategorizedSymbolRenderer)
    assert records.renderer().classAttribute() == severity  # styled by the pack's severity
    assert "22 crashes counted" in records.name()
    assert "22 crashes" in label_text(place) and place.labeling().settings().displayAll
    assert shown.presented.result is records and not shown.presented.no_map
    assert all(layer in drawn() for layer in shown.presented.layers)


def test_counts_near_features_draw_the_records_not_only_the_features(dock):
    for question, count in (("pedestrian crashes within 100 m of schools in cambridge", 76),
                            ("bicycle police crash reports no farther than 50 m from traffic signals", 728)):
        shown = ask(dock, question)
        layers = by_role(shown)
        assert layers["result"].featureCount() == shown.answer.rows[0][0] == count, question
        assert f"{count} " in label_text(layers["number"]) and layers["number"].featureCount() == 1
        assert layers["number"].labeling().settings().priority == 10
        assert layers["support"].featureCount() > 0 and layers["search area"].featureCount() > 0
        assert [role(layer) for layer in shown.presented.layers] == ["result", "number", "support", "search area"]


def test_reference_features_are_limited_to_the_question_and_the_search_area_is_drawn(dock):
    shown = ask(dock, "crashes within 100 m of bus stops in somerville")
    layers = by_role(shown)
    stops, area = layers["support"], layers["search area"]
    assert 0 < stops.featureCount() < 200  # the stops near the counted crashes, not the region's 5,000
    assert not any("row cap" in note for note in shown.presented.notes)
    (generator, _fill) = area.renderer().symbol().symbolLayers()
    assert isinstance(generator, QgsGeometryGeneratorSymbolLayer) and "100.0" in generator.geometryExpression()
    assert area.featureCount() == stops.featureCount() and area.providerType() == "postgres"
    records = layers["result"]
    assert records.featureCount() == shown.answer.rows[0][0]
    assert {f["city_town_name"] for f in records.getFeatures()} == {"SOMERVILLE"}


def test_an_answer_without_a_map_hides_the_previous_one_and_says_so(dock):
    first = ask(dock, "map the crashes in the port")
    assert first.presented.result in drawn() and not dock.map_note.isVisible() and dock.map_note.isHidden()
    for question in ("compare crashes in cambridge and somerville", "trend of pedestrian crashes over the years",
                     "crashes by weather"):
        shown = ask(dock, question)
        assert shown.answer.status == "answered" and shown.presented.layers == []
        assert shown.presented.no_map and "No map for this answer" in shown.presented.notes[0]
        assert not dock.map_note.isHidden(), question
        assert not any(layer in drawn() for layer in first.presented.layers), question
        assert not dock.zoom_button.isEnabled() and not dock.export_actions["png"].isEnabled()
        assert dock.export_actions["chart"].isEnabled() == (dock.chart.data is not None)
    again = ask(dock, "map the crashes in the port")
    assert dock.map_note.isHidden() and again.presented.result in drawn()


def qgis_moves_the_insertion_point_with_the_current_layer(qgis_iface, monkeypatch) -> None:
    """What QGIS's main window does when the current layer changes: new layers go above it, in its group."""
    plain = qgis_iface.setActiveLayer

    def set_active(layer):
        plain(layer)
        node = QgsProject.instance().layerTreeRoot().findLayer(layer.id())
        parent = node.parent()
        point = QgsLayerTreeRegistryBridge.InsertionPoint(parent, parent.children().index(node))
        QgsProject.instance().layerTreeRegistryBridge().setLayerInsertionPoint(point)

    monkeypatch.setattr(qgis_iface, "setActiveLayer", set_active)


def test_the_users_new_layers_are_not_swallowed_or_switched_off(dock, qgis_iface, monkeypatch):
    qgis_moves_the_insertion_point_with_the_current_layer(qgis_iface, monkeypatch)
    shown = ask(dock, "show crashes within 1000 feet of cambridgeport school")
    assert qgis_iface.activeLayer() is shown.presented.result  # the answer is shown selected
    mine = QgsVectorLayer("Point?crs=EPSG:26986", "my own layer", "memory")
    QgsProject.instance().addMapLayer(mine)  # the user adds a layer, as QGIS's Add Layer does
    root = QgsProject.instance().layerTreeRoot()
    node = root.findLayer(mine.id())
    assert node.parent() is root  # not inside the answer's group
    ask(dock, "compare crashes in cambridge and somerville")  # an answer with no map
    ask(dock, "top 5 towns with the most crashes")
    assert root.findLayer(mine.id()).itemVisibilityChecked() and mine in drawn()
    # a layer the user put among an earlier answer's layers stays on as well
    old_group = next(g for g in root.findGroup("MapAsk").children()
                     if isinstance(g, QgsLayerTreeGroup) and g.name() == shown.answer.question)
    theirs = QgsVectorLayer("Point?crs=EPSG:26986", "theirs", "memory")
    QgsProject.instance().addMapLayer(theirs, False)
    old_group.setItemVisibilityChecked(True)
    old_group.insertLayer(0, theirs)
    ask(dock, "map the crashes in the port")
    assert root.findLayer(theirs.id()).itemVisibilityChecked()
    assert not any(root.findLayer(layer.id()).itemVisibilityChecked() for layer in shown.presented.layers)


def test_every_mapask_layer_survives_save_close_and_reopen(dock, tmp_path):
    questions = ["crashes within 100 m of bus stops in somerville", "pedestrian crashes within 100 m of schools in cambridge",
                 "show crashes within 1000 feet of cambridgeport school",
                 "pedestrian crashes within 150 m of cambridge public schools by school",
                 "crashes by neighborhood", "share of crashes at night in cambridge"]
    made = {}
    for question in questions:
        shown = ask(dock, question)
        made.update({layer.id(): (role(layer), layer.featureCount()) for layer in shown.presented.layers})
    assert {"result", "number", "support", "search area", "place", "counted"} <= {r for r, _ in made.values()}
    project = QgsProject.instance()
    assert not [layer for layer in project.mapLayers().values() if layer.providerType() == "memory"]
    path = tmp_path / "answers.qgz"
    assert project.write(str(path))
    project.clear()
    assert project.mapLayers() == {}
    assert project.read(str(path))
    reopened = {i: layer for i, layer in project.mapLayers().items() if role(layer)}
    assert set(reopened) == set(made)
    for layer_id, layer in reopened.items():
        wanted_role, count = made[layer_id]
        assert layer.isValid() and layer.providerType() == "postgres", layer.name()
        assert role(layer) == wanted_role and layer.featureCount() == count > 0, layer.name()
    areas = [layer for layer in reopened.values() if role(layer) == "search area"]
    assert areas and all(isinstance(a.renderer().symbol().symbolLayers()[0], QgsGeometryGeneratorSymbolLayer)
                         for a in areas)


def test_png_of_a_count_has_the_number_on_the_page(dock, tmp_path):
    shown = ask(dock, "how many crashes in cambridge had injuries")
    export, layers = module("plugin.qgis.export"), shown.presented.layers
    crs = layers[0].crs()
    layout = export.answer_layout(shown.entry, layers, crs, export.combined_extent(layers, crs, QgsProject.instance()))
    items = {item.id(): item for item in layout.items() if hasattr(item, "id") and item.id()}
    assert isinstance(items["answer"], QgsLayoutItemLabel) and "22" in items["answer"].text()
    legend = items["legend"]
    assert isinstance(legend, QgsLayoutItemLegend)
    lines = [legend.model().data(legend.model().node2index(n), Qt.DisplayRole) for n in
             legend.model().rootGroup().findLayers()]
    lines += [legend.model().layerLegendNodes(n)[0].data(Qt.DisplayRole) for n in
              legend.model().rootGroup().findLayers() if len(legend.model().layerLegendNodes(n)) == 1]
    assert any("22 crashes counted" in str(line) for line in lines) and "Answer" not in lines
    path = dock.export("png", str(tmp_path / "count"))
    assert path.endswith("count.png")


def test_png_of_areas_keeps_every_answer_label_and_no_context_name_inside_them(dock, tmp_path):
    from qgis.core import QgsLayoutExporter

    shown = ask(dock, "crashes by neighborhood")
    export, present = module("plugin.qgis.export"), module("plugin.qgis.present")
    layers = shown.presented.layers
    crs = layers[0].crs()
    extent = export.combined_extent(layers, crs, QgsProject.instance())
    background = present.context_layers(dock.session.pack(), extent, dock.session.settings.connection,
                                        answer=layers)
    assert background
    layout = export.answer_layout(shown.entry, layers, crs, extent, background)
    assert export.legend_label(shown.presented.result) == "count by neighbourhoods"  # not a bare "Answer"
    exporter = QgsLayoutExporter(layout)
    assert exporter.exportToImage(str(tmp_path / "areas.png"), QgsLayoutExporter.ImageExportSettings()) == 0
    (results,) = exporter.labelingResults().values()
    placed = [label for label in results.allLabels() if not label.isUnplaced]
    answer = [label for label in placed if label.layerID == shown.presented.result.id()]
    assert len({label.featureId for label in answer}) == shown.presented.result.featureCount() == 13
    assert all(label.labelText.split("\n")[-1].strip() for label in answer)  # each with its count
    ids = {layer.id() for layer in background}
    assert not [label.labelText for label in placed if label.layerID in ids]


def test_exports_remember_the_folder_name_the_file_after_the_question_and_add_the_extension(dock, tmp_path,
                                                                                            monkeypatch):
    dialog = module("ui.dock").QFileDialog
    asked = []

    def save_as(_parent, _title, start, filters):
        asked.append(start)
        return str(tmp_path / "typed_without_extension"), filters.split(";;")[-1]

    monkeypatch.setattr(dialog, "getSaveFileName", staticmethod(save_as))
    settings = module("plugin.qgis.settings")
    from qgis.core import QgsSettings
    QgsSettings().remove(settings.PREFIX + "export_dir")
    shown = ask(dock, "pedestrian crashes within 150 m of cambridge public schools by school")
    written = {kind: dock.export(kind) for kind in ("gpkg", "csv", "png")}
    assert written == {kind: str(tmp_path / f"typed_without_extension.{kind}") for kind in ("gpkg", "csv", "png")}
    stem = "pedestrian_crashes_within_150_m_of_cambridge_public_schools"
    assert asked[0].endswith(f"{stem}.gpkg") and stem.startswith(module("plugin.qgis.export").file_stem(
        shown.answer.question)[:20])
    assert all(a.startswith(str(tmp_path)) for a in asked[1:])  # the folder of the last export
    assert settings.export_dir() == str(tmp_path)
    reopened = QgsVectorLayer(f"{written['gpkg']}|layername=mapask_provenance", "p", "ogr")
    assert reopened.isValid() and reopened.featureCount() == 3
    chart = dock.export("chart")  # the filter the user picked (SVG) gives the extension
    assert chart == str(tmp_path / "typed_without_extension.svg")
    assert (tmp_path / "typed_without_extension.svg").read_text().lstrip().startswith("<?xml")


def test_trend_chart_starts_at_zero_and_saves_as_png(dock, tmp_path):
    shown = ask(dock, "trend of pedestrian crashes over the years")
    assert dock.chart.data.kind == "line"
    (axes,) = dock.chart.figure.axes
    assert axes.get_ylim()[0] == 0 and axes.get_ylim()[1] >= max(r[1] for r in shown.answer.rows)
    path = dock.chart.save(str(tmp_path / "trend"))
    assert path.name == "trend.png" and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_layer_cut_at_the_row_cap_says_so(dock):
    dock.session.settings.row_cap = 40
    try:
        shown = ask(dock, "bicycle police crash reports no farther than 50 m from traffic signals")
    finally:
        dock.session.settings.row_cap = 5000
        dock.session.close_pipeline()
    layers = by_role(shown)
    assert layers["result"].featureCount() == 40 and shown.answer.rows[0][0] == 728
    notes = " ".join(shown.presented.notes)
    assert "first 40 of 728" in notes and "row cap" in notes
    assert "728 Cambridge police crash reports counted" in layers["result"].name()


def test_an_ask_back_or_refusal_leaves_no_earlier_map_on_screen(dock):
    first = ask(dock, "how many crashes in cambridge")
    assert first.presented.result in drawn()
    for question in ("crashes near the park", "how many crashes in worcester in 2019"):
        shown = ask(dock, question)
        assert shown.answer.status in ("clarify", "refused"), question
        assert not any(layer in drawn() for layer in first.presented.layers), question
        assert not dock.map_note.isHidden(), question
