"""mapask:ask — one question to a layer (features, or a table), the answer, its status, confidence and audit entry."""

import json
from typing import Any, Dict, Optional

from qgis.core import (
    QgsProcessing,
    QgsProcessingContext,
    QgsProcessingException,
    QgsProcessingFeedback,
    QgsProcessingOutputNumber,
    QgsProcessingOutputString,
    QgsProcessingParameterFeatureSink,
    QgsProcessingParameterString,
)

from ...core.pipeline import MAX_QUESTION_CHARS
from ..results import layer_name
from .answer_layer import answer_rows, write_rows
from .common import MapAskAlgorithm, ask, make_pipeline, record, result_spec, style_on_load, tr

QUESTION, OUTPUT = "QUESTION", "OUTPUT"
ANSWER, STATUS, CONFIDENCE, ROW_COUNT, AUDIT = "ANSWER", "STATUS", "CONFIDENCE", "ROW_COUNT", "AUDIT"


def question_problem(value: Any) -> Optional[str]:
    text = " ".join(str(value or "").split())
    if not text:
        return "QUESTION is empty: type a question, for example 'pedestrian crashes in cambridge in 2016'."
    if len(text) > MAX_QUESTION_CHARS:
        return f"QUESTION is {len(text)} characters long; MapAsk reads at most {MAX_QUESTION_CHARS}."
    return None


class AskAlgorithm(MapAskAlgorithm):
    """Ask one question through the pipeline the dock and the CLI use."""

    def name(self) -> str:
        return "ask"

    def displayName(self) -> str:  # noqa: N802 (QGIS API)
        return tr("Ask a question")

    def shortHelpString(self) -> str:  # noqa: N802 (QGIS API)
        return tr("Answers one plain-language question about the PostGIS database with a checked, read-only "
                  "query, as the MapAsk panel does.\n\nThe answer layer holds the answer's rows: features with "
                  "their geometry when the answer lists features, otherwise a table (counts, groups, shares). "
                  "A question MapAsk cannot answer gives an empty table, STATUS clarify, refused or error, and "
                  "ANSWER says why.\n\nCONNECTION is the name of a saved PostGIS connection or a libpq "
                  "connection string ('service=...' or 'host=... dbname=... user=...'). Every question is "
                  "recorded: AUDIT is its audit entry as JSON, also appended to AUDIT_FILE.")

    def initAlgorithm(self, config: Optional[Dict[str, Any]] = None) -> None:  # noqa: N802 (QGIS API)
        self.addParameter(QgsProcessingParameterString(QUESTION, tr("Question")))
        self.add_common_parameters()
        self.addParameter(QgsProcessingParameterFeatureSink(
            OUTPUT, tr("Answer layer"), QgsProcessing.TypeVectorAnyGeometry))
        self.addOutput(QgsProcessingOutputString(ANSWER, tr("Answer")))
        self.addOutput(QgsProcessingOutputString(STATUS, tr("Status (answered, clarify, refused, error)")))
        self.addOutput(QgsProcessingOutputNumber(CONFIDENCE, tr("Confidence (0-1)")))
        self.addOutput(QgsProcessingOutputNumber(ROW_COUNT, tr("Number of rows in the answer")))
        self.addOutput(QgsProcessingOutputString(AUDIT, tr("Audit entry (JSON)")))

    def input_problems(self, parameters: Dict[str, Any], context: QgsProcessingContext) -> Optional[str]:
        return (question_problem(self.parameterAsString(parameters, QUESTION, context))
                or super().input_problems(parameters, context))

    def prepareAlgorithm(self, parameters: Dict[str, Any], context: QgsProcessingContext,  # noqa: N802
                         feedback: QgsProcessingFeedback) -> bool:
        self.prepare_common(parameters, context)
        # also when a caller skipped checkParameterValues
        self.problem = question_problem(self.parameterAsString(parameters, QUESTION, context)) or self.problem
        return True

    def processAlgorithm(self, parameters: Dict[str, Any], context: QgsProcessingContext,  # noqa: N802
                         feedback: QgsProcessingFeedback) -> Dict[str, Any]:
        self.checked()
        question = " ".join(self.parameterAsString(parameters, QUESTION, context).split())
        pipe = make_pipeline(self.pack, self.target, self.settings, feedback)
        try:
            feedback.pushInfo(f"Asking: {question}")
            answer = ask(pipe, question, feedback)
            entry = record(pipe, answer, self.target, self.audit_file, "mapask:ask")
        finally:
            pipe.executor.close()
        rows = answer_rows(answer, self.pack)
        sink, dest_id = self.parameterAsSink(parameters, OUTPUT, context, rows.fields, rows.wkb_type, rows.crs)
        if sink is None:
            raise QgsProcessingException(self.invalidSinkError(parameters, OUTPUT))
        error = write_rows(rows, sink)
        if error:
            raise QgsProcessingException(f"The answer layer could not be written: {error}")
        del sink  # flushes a file output before QGIS reads it back
        if answer.status == "answered":
            feedback.pushInfo(answer.answer)
        else:
            feedback.reportError(f"{answer.status}: {answer.answer}", False)
        style_on_load(context, dest_id, layer_name(question), entry, self.pack,
                      result_spec(answer, self.pack, self.settings.row_cap) if rows.spatial else None)
        return {OUTPUT: dest_id, ANSWER: answer.answer, STATUS: answer.status, CONFIDENCE: answer.confidence,
                ROW_COUNT: len(answer.rows), AUDIT: json.dumps(entry, default=str, sort_keys=True)}
