"""mapask:ask and mapask:askfile through processing.run, against the real PostGIS: layers, tables, audit, errors."""

import json
import sys
from pathlib import Path

import pytest
from mapask_qgis_helpers import CONNECTION, PORT, READER, mapask, module, pg_connection  # noqa: F401 (fixtures)
from qgis.core import (
    QgsApplication,
    QgsProcessingContext,
    QgsProcessingException,
    QgsProcessingFeedback,
    QgsProcessingModelAlgorithm,
    QgsProcessingModelChildAlgorithm,
    QgsProcessingModelChildParameterSource,
    QgsProcessingModelOutput,
    QgsProcessingModelParameter,
    QgsProcessingParameterString,
    QgsVectorLayer,
    QgsWkbTypes,
)

READER_DSN = f"host=127.0.0.1 port={PORT} dbname=mapask user={READER[0]} password={READER[1]}"
SCHOOLS = "show the schools"        # a feature answer: every school, with its point
BY_TOWN = "crashes by town"         # a table answer: one row per town
NONSENSE = "asdf qwer"              # asked back: MapAsk does not know these words


@pytest.fixture(scope="module")
def processing(qgis_app):
    """QGIS's Processing framework with MapAsk's provider registered as the plugin registers it."""
    plugins = str(Path(QgsApplication.pkgDataPath()) / "python" / "plugins")
    if plugins not in sys.path:
        sys.path.append(plugins)
    from processing.core.Processing import Processing

    Processing.initialize()
    import processing as processing_module

    plugin = mapask().classFactory(None)  # what qgis_process does: no iface, then initProcessing()
    plugin.initProcessing()
    yield processing_module
    plugin.unload()
    assert QgsApplication.processingRegistry().providerById("mapask") is None


@pytest.fixture()
def audit_file(tmp_path) -> Path:
    return tmp_path / "audit.jsonl"


def run(processing, algorithm: str, feedback=None, **parameters):
    context = QgsProcessingContext()
    return processing.run(algorithm, parameters, context=context, feedback=feedback or QgsProcessingFeedback())


def lines(path: Path) -> list:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def expected(question: str):
    """The same question through the pipeline directly (the CLI's way), for comparison."""
    pipeline_module = module("plugin.core.pipeline")
    pipe = pipeline_module.Pipeline(mapask().__path__[0] + "/knowledge/massachusetts", READER_DSN)
    try:
        return pipe.ask(question)
    finally:
        pipe.executor.close()


# --- mapask:ask -----------------------------------------------------------------------------------

def test_feature_answer_is_a_point_layer_with_one_feature_per_row(processing, pg_connection, admin, audit_file):
    out = run(processing, "mapask:ask", QUESTION=SCHOOLS, CONNECTION=pg_connection, OUTPUT="TEMPORARY_OUTPUT",
              AUDIT_FILE=str(audit_file))
    layer = out["OUTPUT"]
    assert isinstance(layer, QgsVectorLayer) and layer.isValid()
    with admin.cursor() as cur:
        cur.execute("select count(*) from ma.school")
        schools = cur.fetchone()[0]
    assert out["STATUS"] == "answered"
    assert out["ROW_COUNT"] == schools == layer.featureCount() == len(expected(SCHOOLS).rows)
    assert QgsWkbTypes.geometryType(layer.wkbType()) == QgsWkbTypes.PointGeometry
    assert layer.crs().authid() == "EPSG:26986"
    assert all(f.hasGeometry() for f in layer.getFeatures())
    assert "geom" not in layer.fields().names() and "site_name" in layer.fields().names()
    assert str(schools) in out["ANSWER"] and 0 < out["CONFIDENCE"] <= 1


def test_table_answer_has_the_answer_rows_and_no_geometry(processing, pg_connection, audit_file):
    out = run(processing, "mapask:ask", QUESTION=BY_TOWN, CONNECTION=pg_connection, OUTPUT="TEMPORARY_OUTPUT",
              AUDIT_FILE=str(audit_file))
    layer, direct = out["OUTPUT"], expected(BY_TOWN)
    assert layer.wkbType() == QgsWkbTypes.NoGeometry
    assert out["ROW_COUNT"] == layer.featureCount() == len(direct.rows) > 300
    assert layer.fields().names() == direct.public()["columns"]
    got = sorted((f["city_town_name"], f["count"]) for f in layer.getFeatures())
    assert got == sorted((r[0], r[1]) for r in direct.public()["rows"])


def test_a_libpq_connection_string_works_and_its_password_stays_out_of_the_audit(processing, audit_file):
    out = run(processing, "mapask:ask", QUESTION=SCHOOLS, CONNECTION=READER_DSN, OUTPUT="TEMPORARY_OUTPUT",
              AUDIT_FILE=str(audit_file))
    assert out["STATUS"] == "answered" and out["OUTPUT"].featureCount() == out["ROW_COUNT"] > 0
    entry = json.loads(out["AUDIT"])
    secret = f"password={READER[1]}"  # the user name is the same word, so look for the key and value
    assert secret not in out["AUDIT"] and secret not in audit_file.read_text()
    assert f"port={PORT}" in entry["connection"] and "password=***" in entry["connection"]


def test_audit_entry_is_output_and_appended_to_the_audit_file(processing, pg_connection, audit_file):
    for question in (SCHOOLS, BY_TOWN):
        out = run(processing, "mapask:ask", QUESTION=question, CONNECTION=pg_connection,
                  OUTPUT="TEMPORARY_OUTPUT", AUDIT_FILE=str(audit_file))
    entries = lines(audit_file)
    assert [e["question"] for e in entries] == [SCHOOLS, BY_TOWN]
    assert json.loads(out["AUDIT"]) == entries[-1]
    last = entries[-1]
    assert last["connection"] == pg_connection and last["via"] == "mapask:ask"
    assert last["row_count"] == out["ROW_COUNT"] and last["sql"].lstrip().upper().startswith(("SELECT", "WITH"))
    assert last["id"] and last["frame_hash"] and last["guard"]["ok"] is True


def test_unanswered_question_gives_an_empty_table_its_status_and_is_audited(processing, pg_connection, audit_file):
    out = run(processing, "mapask:ask", QUESTION=NONSENSE, CONNECTION=pg_connection, OUTPUT="TEMPORARY_OUTPUT",
              AUDIT_FILE=str(audit_file))
    assert out["STATUS"] == "clarify" and "asdf" in out["ANSWER"]
    assert out["ROW_COUNT"] == out["OUTPUT"].featureCount() == 0
    assert out["CONFIDENCE"] is None or out["CONFIDENCE"] < 0.5
    assert [e["status"] for e in lines(audit_file)] == ["clarify"]


def test_ask_writes_a_geopackage_when_given_a_path(processing, pg_connection, tmp_path, audit_file):
    path = tmp_path / "schools.gpkg"
    out = run(processing, "mapask:ask", QUESTION=SCHOOLS, CONNECTION=pg_connection, OUTPUT=str(path),
              AUDIT_FILE=str(audit_file))
    layer = QgsVectorLayer(str(out["OUTPUT"]), "schools", "ogr")
    assert path.is_file() and layer.isValid() and layer.featureCount() == out["ROW_COUNT"] > 0


@pytest.mark.parametrize("question, connection, pack, message", [
    ("", CONNECTION, None, "QUESTION is empty"),
    ("   \n ", CONNECTION, None, "QUESTION is empty"),
    ("x" * 1200, CONNECTION, None, "at most 1000"),
    (SCHOOLS, "No such connection", None, "no saved PostGIS connection named 'No such connection'"),
    (SCHOOLS, "", None, "CONNECTION is empty"),
    (SCHOOLS, "host=127.0.0.1 port=notaport = =", None, "not a valid libpq connection string"),
    (SCHOOLS, CONNECTION, "/nonexistent/pack", "is not a folder"),
    (SCHOOLS, CONNECTION, "__tmp__", "it has no pack.yaml"),
])
def test_bad_input_is_a_clear_processing_error_and_asks_nothing(processing, pg_connection, tmp_path, audit_file,
                                                                 question, connection, pack, message):
    parameters = dict(QUESTION=question, CONNECTION=connection, OUTPUT="TEMPORARY_OUTPUT", AUDIT_FILE=str(audit_file))
    if pack:
        parameters["PACK"] = str(tmp_path) if pack == "__tmp__" else pack
    with pytest.raises(QgsProcessingException) as raised:
        run(processing, "mapask:ask", **parameters)
    assert message in str(raised.value)
    assert not audit_file.exists()


def test_an_unreachable_database_is_a_clear_error(processing, audit_file):
    closed = "host=127.0.0.1 port=1 dbname=mapask user=mapask_reader connect_timeout=2"
    with pytest.raises(QgsProcessingException) as raised:
        run(processing, "mapask:ask", QUESTION=SCHOOLS, CONNECTION=closed, OUTPUT="TEMPORARY_OUTPUT",
            AUDIT_FILE=str(audit_file))
    assert "cannot connect to the database" in str(raised.value)
    assert not audit_file.exists()


def test_a_damaged_pack_is_a_clear_error(processing, pg_connection, tmp_path, audit_file):
    (tmp_path / "pack.yaml").write_text("id: [unclosed\n", encoding="utf-8")
    with pytest.raises(QgsProcessingException) as raised:
        run(processing, "mapask:ask", QUESTION=SCHOOLS, CONNECTION=pg_connection, PACK=str(tmp_path),
            OUTPUT="TEMPORARY_OUTPUT", AUDIT_FILE=str(audit_file))
    assert "cannot be read" in str(raised.value)


# --- mapask:askfile -------------------------------------------------------------------------------

def write_csv(path: Path) -> Path:
    path.write_text(f'id,question\n1,{SCHOOLS}\n2,"{BY_TOWN}"\n3,{NONSENSE}\n4,"crashes in cambridge, by year"\n',
                    encoding="utf-8")
    return path


def test_askfile_answers_a_csv_into_one_table_and_a_layer_per_answer(processing, pg_connection, tmp_path,
                                                                     audit_file):
    gpkg = tmp_path / "answers.gpkg"
    out = run(processing, "mapask:askfile", INPUT=str(write_csv(tmp_path / "q.csv")), CONNECTION=pg_connection,
              OUTPUT="TEMPORARY_OUTPUT", LAYERS=str(gpkg), AUDIT_FILE=str(audit_file))
    table = out["OUTPUT"]
    rows = sorted((f.attributes() for f in table.getFeatures()), key=lambda r: r[0])
    names = table.fields().names()
    assert names[:6] == ["n", "question", "status", "answer", "confidence", "row_count"]
    got = {r[names.index("question")]: r for r in rows}
    assert [r[0] for r in rows] == [1, 2, 3, 4] and out["ASKED"] == 4 and out["ANSWERED"] == 3
    assert got[NONSENSE][names.index("status")] == "clarify" and got[NONSENSE][names.index("layer")] == ""
    assert got["crashes in cambridge, by year"][names.index("status")] == "answered"
    # each answered question's layer holds exactly its rows: features for the schools, a table for the towns
    assert len(out["ANSWER_LAYERS"]) == 3
    for question, want_geometry in ((SCHOOLS, True), (BY_TOWN, False)):
        row = got[question]
        layer = QgsVectorLayer(f"{gpkg}|layername={row[names.index('layer')]}", question, "ogr")
        assert layer.isValid() and layer.featureCount() == row[names.index("row_count")] > 0
        assert layer.isSpatial() is want_geometry
    assert got[SCHOOLS][names.index("row_count")] == len(expected(SCHOOLS).rows)
    audited = lines(audit_file)
    assert [e["question"] for e in audited] == [r[1] for r in rows]
    assert [e["id"] for e in audited] == [r[names.index("entry_id")] for r in rows]
    assert {e["via"] for e in audited} == {"mapask:askfile"}


def test_askfile_reads_a_text_file_one_question_a_line(processing, pg_connection, tmp_path, audit_file):
    path = tmp_path / "q.txt"
    path.write_text(f"# crash questions\n{SCHOOLS}\n\n   {BY_TOWN}  \n", encoding="utf-8")
    out = run(processing, "mapask:askfile", INPUT=str(path), CONNECTION=pg_connection,
              OUTPUT="TEMPORARY_OUTPUT", AUDIT_FILE=str(audit_file))
    table = out["OUTPUT"]
    assert sorted(f["question"] for f in table.getFeatures()) == sorted([SCHOOLS, BY_TOWN])
    assert table.featureCount() == out["ASKED"] == out["ANSWERED"] == 2
    assert out["ANSWER_LAYERS"] == []  # no LAYERS GeoPackage asked for


class CancelAfterFirst(QgsProcessingFeedback):
    """Presses Cancel once the first question has been answered."""

    def pushInfo(self, info: str) -> None:  # noqa: N802 (QGIS API)
        super().pushInfo(info)
        if info.startswith("1/"):
            self.cancel()


def test_askfile_stops_between_questions_on_cancel_and_keeps_what_was_answered(processing, pg_connection,
                                                                               tmp_path, audit_file):
    out = run(processing, "mapask:askfile", feedback=CancelAfterFirst(), INPUT=str(write_csv(tmp_path / "q.csv")),
              CONNECTION=pg_connection, OUTPUT="TEMPORARY_OUTPUT", AUDIT_FILE=str(audit_file))
    assert out["ASKED"] == 1 and out["OUTPUT"].featureCount() == 1
    assert [e["question"] for e in lines(audit_file)] == [SCHOOLS]


def test_ask_cancelled_before_it_starts_is_an_audited_error_not_a_crash(processing, pg_connection, audit_file):
    feedback = QgsProcessingFeedback()
    feedback.cancel()
    out = run(processing, "mapask:ask", feedback=feedback, QUESTION=SCHOOLS, CONNECTION=pg_connection,
              OUTPUT="TEMPORARY_OUTPUT", AUDIT_FILE=str(audit_file))
    assert out["STATUS"] == "error" and out["ROW_COUNT"] == out["OUTPUT"].featureCount() == 0
    (entry,) = lines(audit_file)
    assert "cancelled" in entry["error"]


@pytest.mark.parametrize("content, name, message", [
    ("", "empty.txt", "holds no question"),
    ("# only a comment\n\n", "comments.txt", "holds no question"),
    ("id,text\n1,show the schools\n", "no_header.csv", "none is named 'question'"),
    (None, "missing.csv", "there is no file"),
])
def test_askfile_bad_files_are_clear_errors(processing, pg_connection, tmp_path, audit_file, content, name, message):
    path = tmp_path / name
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(QgsProcessingException) as raised:
        run(processing, "mapask:askfile", INPUT=str(path), CONNECTION=pg_connection, OUTPUT="TEMPORARY_OUTPUT",
            AUDIT_FILE=str(audit_file))
    assert message in str(raised.value)
    assert not audit_file.exists()


# --- the Toolbox, batch and model builder ---------------------------------------------------------

def test_both_algorithms_are_in_the_toolbox_and_the_model_builder(processing):
    registry = QgsApplication.processingRegistry()
    provider = registry.providerById("mapask")
    assert provider is not None and not provider.icon().isNull()
    assert sorted(a.id() for a in provider.algorithms()) == ["mapask:ask", "mapask:askfile"]
    for algorithm in provider.algorithms():
        assert not algorithm.flags() & (algorithm.FlagHideFromModeler | algorithm.FlagHideFromToolbox)
        assert algorithm.shortHelpString()


def test_every_parameter_has_a_batch_and_a_modeler_widget(processing, qgis_iface):
    from qgis.gui import QgsGui, QgsProcessingGui

    gui = QgsGui.processingGuiRegistry()
    for algorithm in QgsApplication.processingRegistry().providerById("mapask").algorithms():
        for parameter in algorithm.parameterDefinitions():
            for kind in (QgsProcessingGui.Batch, QgsProcessingGui.Modeler, QgsProcessingGui.Standard):
                assert gui.createParameterWidgetWrapper(parameter, kind) is not None, (parameter.name(), kind)


def test_a_model_chains_the_answer_layer_into_a_buffer(processing, pg_connection, audit_file):
    """ask -> native:buffer in a model, as the model builder would save it."""
    model = QgsProcessingModelAlgorithm("MapAsk then buffer", "tests")
    model.addModelParameter(QgsProcessingParameterString("question", "Question"),
                            QgsProcessingModelParameter("question"))
    ask = QgsProcessingModelChildAlgorithm("mapask:ask")
    ask.setChildId("ask")
    ask.addParameterSources("QUESTION", [QgsProcessingModelChildParameterSource.fromModelParameter("question")])
    ask.addParameterSources("CONNECTION", [QgsProcessingModelChildParameterSource.fromStaticValue(pg_connection)])
    ask.addParameterSources("AUDIT_FILE", [QgsProcessingModelChildParameterSource.fromStaticValue(str(audit_file))])
    model.addChildAlgorithm(ask)
    buffer = QgsProcessingModelChildAlgorithm("native:buffer")
    buffer.setChildId("buffer")
    buffer.addParameterSources("INPUT", [QgsProcessingModelChildParameterSource.fromChildOutput("ask", "OUTPUT")])
    for name, value in (("DISTANCE", 100), ("SEGMENTS", 5), ("END_CAP_STYLE", 0), ("JOIN_STYLE", 0),
                        ("MITER_LIMIT", 2), ("DISSOLVE", False)):
        buffer.addParameterSources(name, [QgsProcessingModelChildParameterSource.fromStaticValue(value)])
    buffer.setModelOutputs({"buffered": QgsProcessingModelOutput("buffered")})
    buffer.modelOutput("buffered").setChildOutputName("OUTPUT")
    model.addChildAlgorithm(buffer)
    assert model.validate()[0], model.validate()[1]
    out = run(processing, model, question=SCHOOLS, **{"buffer:buffered": "TEMPORARY_OUTPUT"})
    buffered = out["buffer:buffered"]
    buffered = buffered if isinstance(buffered, QgsVectorLayer) else QgsVectorLayer(buffered, "b", "ogr")
    assert buffered.featureCount() == len(expected(SCHOOLS).rows)
    assert QgsWkbTypes.geometryType(buffered.wkbType()) == QgsWkbTypes.PolygonGeometry
    assert [e["question"] for e in lines(audit_file)] == [SCHOOLS]


def test_a_caller_that_skips_the_parameter_check_still_gets_the_clear_error(processing, pg_connection, audit_file):
    algorithm = QgsApplication.processingRegistry().createAlgorithmById("mapask:ask")
    with pytest.raises(QgsProcessingException) as raised:
        algorithm.run({"QUESTION": " ", "CONNECTION": pg_connection, "OUTPUT": "TEMPORARY_OUTPUT",
                       "AUDIT_FILE": str(audit_file)}, QgsProcessingContext(), QgsProcessingFeedback(), {}, False)
    assert "QUESTION is empty" in str(raised.value)
    assert not audit_file.exists()


def test_run_and_load_names_styles_and_labels_the_layer_with_its_provenance(processing, pg_connection, audit_file):
    from qgis.core import QgsExpressionContextUtils, QgsProject

    QgsProject.instance().clear()
    out = processing.runAndLoadResults("mapask:ask", {"QUESTION": SCHOOLS, "CONNECTION": pg_connection,
                                                      "OUTPUT": "TEMPORARY_OUTPUT", "AUDIT_FILE": str(audit_file)})
    layer = QgsProject.instance().mapLayer(out["OUTPUT"])
    try:
        assert layer is not None and layer.name() == SCHOOLS
        assert layer.featureCount() == out["ROW_COUNT"] > 0
        scope = QgsExpressionContextUtils.layerScope(layer)
        assert scope.variable("mapask_entry_id") == json.loads(out["AUDIT"])["id"]
        assert scope.variable("mapask_question") == SCHOOLS and "SELECT" in scope.variable("mapask_sql").upper()
        assert layer.metadata().title() == SCHOOLS
    finally:
        QgsProject.instance().clear()


def test_askfile_run_and_load_adds_each_answer_layer_named_by_its_question(processing, pg_connection, tmp_path,
                                                                           audit_file):
    from qgis.core import QgsExpressionContextUtils, QgsProject

    QgsProject.instance().clear()
    out = processing.runAndLoadResults("mapask:askfile", {
        "INPUT": str(write_csv(tmp_path / "q.csv")), "CONNECTION": pg_connection, "OUTPUT": "TEMPORARY_OUTPUT",
        "LAYERS": str(tmp_path / "answers.gpkg"), "AUDIT_FILE": str(audit_file)})
    try:
        loaded = {layer.name(): layer for layer in QgsProject.instance().mapLayers().values()}
        entries = {e["question"]: e for e in lines(audit_file)}
        for question in (SCHOOLS, BY_TOWN, "crashes in cambridge, by year"):
            layer = loaded[question]
            assert layer.featureCount() == entries[question]["row_count"]
            assert QgsExpressionContextUtils.layerScope(layer).variable("mapask_entry_id") == entries[question]["id"]
        assert NONSENSE not in loaded and len(out["ANSWER_LAYERS"]) == 3
    finally:
        QgsProject.instance().clear()
