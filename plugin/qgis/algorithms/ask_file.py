"""mapask:askfile — a file of questions to one table of answers, plus each answer's layer in a GeoPackage."""

from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from qgis.core import (
    QgsFeature,
    QgsFeatureSink,
    QgsField,
    QgsFields,
    QgsProcessing,
    QgsProcessingContext,
    QgsProcessingException,
    QgsProcessingFeedback,
    QgsProcessingOutputMultipleLayers,
    QgsProcessingOutputNumber,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterFile,
    QgsProcessingParameterFileDestination,
    QgsVectorFileWriter,
    QgsWkbTypes,
)
from qgis.PyQt.QtCore import QVariant

from ...core.pipeline import Answer, Pipeline
from ..results import layer_name
from .answer_layer import AnswerRows, answer_rows
from .common import MapAskAlgorithm, ask, make_pipeline, record, result_spec, style_on_load, tr
from .questions_file import QuestionsFileError, read_questions

INPUT, OUTPUT, LAYERS = "INPUT", "OUTPUT", "LAYERS"
ANSWER_LAYERS, ASKED, ANSWERED = "ANSWER_LAYERS", "ASKED", "ANSWERED"
TABLE_FIELDS = (("n", QVariant.Int), ("question", QVariant.String), ("status", QVariant.String),
                ("answer", QVariant.String), ("confidence", QVariant.Double), ("row_count", QVariant.Int),
                ("layer", QVariant.String), ("entry_id", QVariant.String), ("error", QVariant.String))


def table_fields() -> QgsFields:
    fields = QgsFields()
    for name, kind in TABLE_FIELDS:
        fields.append(QgsField(name, kind))
    return fields


@dataclass
class Asked:
    """One question of the file, answered (or not), with its audit entry and the layer written for it."""

    n: int
    answer: Answer
    entry: dict
    layer: str = ""  # table name in the LAYERS GeoPackage ('' when none was written)


def write_layer(path: str, table: str, rows: AnswerRows, title: str, first: bool,
                context: QgsProcessingContext) -> None:
    """One answer's rows as a table of the GeoPackage at `path` (the file is replaced by the first one)."""
    options = QgsVectorFileWriter.SaveVectorOptions()
    options.driverName, options.layerName, options.fileEncoding = "GPKG", table, "UTF-8"
    options.actionOnExistingFile = (QgsVectorFileWriter.CreateOrOverwriteFile if first
                                    else QgsVectorFileWriter.CreateOrOverwriteLayer)
    options.layerOptions = [f"DESCRIPTION={title}"]
    writer = QgsVectorFileWriter.create(path, rows.fields, rows.wkb_type, rows.crs, context.transformContext(),
                                        options)
    if writer.hasError() != QgsVectorFileWriter.NoError:
        raise QgsProcessingException(f"The layer of '{title}' could not be written to {path}: {writer.errorMessage()}")
    for feature in rows.features:
        if not writer.addFeature(feature, QgsFeatureSink.FastInsert):
            raise QgsProcessingException(f"The layer of '{title}' could not be written: {writer.errorMessage()}")
    del writer  # closes the table, so the next one (and QGIS) find it whole


class AskFileAlgorithm(MapAskAlgorithm):
    """Ask every question of a file, one after another, through the same pipeline as mapask:ask."""

    def __init__(self) -> None:
        super().__init__()
        self.questions: List[str] = []

    def name(self) -> str:
        return "askfile"

    def displayName(self) -> str:  # noqa: N802 (QGIS API)
        return tr("Ask the questions of a file")

    def shortHelpString(self) -> str:  # noqa: N802 (QGIS API)
        return tr("Answers every question of a file, in order: a CSV with a 'question' column (or a single "
                  "column), or a text file with one question a line ('#' lines are skipped).\n\nThe answers "
                  "table has one row per question: n, question, status, answer, confidence, row_count, layer, "
                  "entry_id, error. Each answered question's rows also go into the LAYERS GeoPackage as a table "
                  "named in the 'layer' column (features with geometry, or a table). Every question is "
                  "recorded in AUDIT_FILE. Cancel stops after the question being answered; the rows so far "
                  "are kept.")

    def initAlgorithm(self, config: Optional[Dict[str, Any]] = None) -> None:  # noqa: N802 (QGIS API)
        self.addParameter(QgsProcessingParameterFile(
            INPUT, tr("Questions file (CSV or text)"), behavior=QgsProcessingParameterFile.File,
            fileFilter=tr("Questions (*.csv *.txt);;All files (*.*)")))
        self.add_common_parameters()
        self.addParameter(QgsProcessingParameterFeatureSink(
            OUTPUT, tr("Answers"), QgsProcessing.TypeVector))
        self.addParameter(QgsProcessingParameterFileDestination(
            LAYERS, tr("Answer layers (GeoPackage)"), fileFilter=tr("GeoPackage (*.gpkg)"), optional=True))
        self.addOutput(QgsProcessingOutputMultipleLayers(ANSWER_LAYERS, tr("Answer layers")))
        self.addOutput(QgsProcessingOutputNumber(ASKED, tr("Questions asked")))
        self.addOutput(QgsProcessingOutputNumber(ANSWERED, tr("Questions answered")))

    def _read(self, parameters: Dict[str, Any], context: QgsProcessingContext) -> List[str]:
        path = self.parameterAsFile(parameters, INPUT, context)
        if not path:
            raise QuestionsFileError("INPUT is empty: give a CSV or text file of questions")
        return read_questions(path)

    def input_problems(self, parameters: Dict[str, Any], context: QgsProcessingContext) -> Optional[str]:
        try:
            self._read(parameters, context)
        except QuestionsFileError as e:
            return f"{e}."
        return super().input_problems(parameters, context)

    def prepareAlgorithm(self, parameters: Dict[str, Any], context: QgsProcessingContext,  # noqa: N802
                         feedback: QgsProcessingFeedback) -> bool:
        self.prepare_common(parameters, context)
        try:
            self.questions = self._read(parameters, context)
        except QuestionsFileError as e:
            self.problem = f"{e}."
        return True

    def processAlgorithm(self, parameters: Dict[str, Any], context: QgsProcessingContext,  # noqa: N802
                         feedback: QgsProcessingFeedback) -> Dict[str, Any]:
        self.checked()
        sink, dest_id = self.parameterAsSink(parameters, OUTPUT, context, table_fields(), QgsWkbTypes.NoGeometry)
        if sink is None:
            raise QgsProcessingException(self.invalidSinkError(parameters, OUTPUT))
        layers_path = self.parameterAsFileOutput(parameters, LAYERS, context)
        pipe = make_pipeline(self.pack, self.target, self.settings, feedback)
        asked: List[Asked] = []
        try:
            self._ask_all(pipe, layers_path, asked, context, feedback)
        finally:
            pipe.executor.close()
            for item in asked:  # what was answered before a failure or Cancel is kept
                sink.addFeature(self._row(item), QgsFeatureSink.FastInsert)
        if feedback.isCanceled():
            feedback.reportError(f"Cancelled after {len(asked)} of {len(self.questions)} questions; "
                                 "the answers table holds those.", False)
        uris = [f"{layers_path}|layername={a.layer}" for a in asked if a.layer]
        return {OUTPUT: dest_id, LAYERS: layers_path if uris else None, ANSWER_LAYERS: uris,
                ASKED: len(asked), ANSWERED: sum(a.answer.status == "answered" for a in asked)}

    def _ask_all(self, pipe: Pipeline, layers_path: str, asked: List[Asked], context: QgsProcessingContext,
                 feedback: QgsProcessingFeedback) -> None:
        """Ask each question in turn into `asked`, so whatever stops the run leaves the answers so far."""
        total = len(self.questions)
        for n, question in enumerate(self.questions, start=1):
            if feedback.isCanceled():
                break
            answer = ask(pipe, question, feedback)
            entry = record(pipe, answer, self.target, self.audit_file, "mapask:askfile")
            item = Asked(n, answer, entry)
            if layers_path and answer.status == "answered":
                item.layer = self._layer(item, layers_path, not any(a.layer for a in asked), context)
            asked.append(item)
            feedback.pushInfo(f"{n}/{total} {question}\n    {answer.status}: {answer.answer}")
            feedback.setProgress(100.0 * n / total)

    def _layer(self, item: Asked, path: str, first: bool, context: QgsProcessingContext) -> str:
        table = f"q{item.n:03d}"
        rows = answer_rows(item.answer, self.pack)
        title = item.answer.question
        write_layer(path, table, rows, title, first, context)
        uri = f"{path}|layername={table}"
        context.addLayerToLoadOnCompletion(uri, QgsProcessingContext.LayerDetails(
            layer_name(title), context.project(), ANSWER_LAYERS))
        style_on_load(context, uri, layer_name(title), item.entry, self.pack,
                      result_spec(item.answer, self.pack, self.settings.row_cap) if rows.spatial else None)
        return table

    @staticmethod
    def _row(item: Asked) -> QgsFeature:
        a = item.answer
        feature = QgsFeature(table_fields())
        feature.setAttributes([item.n, a.question, a.status, a.answer, a.confidence, len(a.rows), item.layer,
                               item.entry.get("id", ""), a.error or ""])
        return feature
