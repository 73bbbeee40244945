"""What MapAsk's algorithms share: connection and pack parameters, the one pipeline, asking with cancel, the audit file."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from qgis.core import (
    QgsProcessingAlgorithm,
    QgsProcessingContext,
    QgsProcessingException,
    QgsProcessingFeedback,
    QgsProcessingLayerPostProcessorInterface,
    QgsProcessingParameterDefinition,
    QgsProcessingParameterFile,
    QgsProcessingParameterProviderConnection,
    QgsProcessingParameterString,
    QgsVectorLayer,
)
from qgis.PyQt.QtCore import QCoreApplication
from qgis.PyQt.QtGui import QIcon

from ...cli import DEFAULT_AUDIT, append_audit
from ...core.audit import AuditStore, scrub
from ...core.errors import ExecutionError
from ...core.execute import Executor
from ...core.interpret_model import ModelError, backend_from_setting
from ...core.layer_sql import LayerSpec, plan_layers
from ...core.pack import Pack, load_pack
from ...core.pipeline import Answer, Pipeline
from ...core.user_examples import with_user_examples
from .. import settings as settings_mod
from ..connections import ConnectionError_, connection_names, dsn_for
from ..paths import ICON_PATH
from ..results import set_provenance, style_layer

CONNECTION, PACK, AUDIT_FILE = "CONNECTION", "PACK", "AUDIT_FILE"
DSN_EXAMPLE = "'service=mapask' or 'host=127.0.0.1 port=5432 dbname=mapask user=mapask_reader'"


def tr(text: str) -> str:
    return QCoreApplication.translate("MapAsk", text)


@dataclass
class Target:
    """The database an algorithm asks: a DSN, and the saved connection's name when it came from one."""

    dsn: str
    name: str = ""  # saved QGIS connection; '' for a connection string
    label: str = ""  # for messages and the audit entry: the name, or the string without its password


def _looks_like_dsn(value: str) -> bool:
    return "=" in value or value.startswith(("postgresql://", "postgres://"))


def connection_problem(value: Any) -> Optional[str]:
    """Why CONNECTION cannot be used, in plain words (None when it can): checked before anything runs."""
    text = str(value or "").strip()
    if not text:
        return (f"CONNECTION is empty: give the name of a saved PostGIS connection (Browser > PostgreSQL) or a "
                f"libpq connection string such as {DSN_EXAMPLE}.")
    names = connection_names()
    if text in names:
        return None
    if _looks_like_dsn(text):
        try:
            from psycopg2.extensions import parse_dsn

            parse_dsn(text)
        except ImportError:  # the executor says so when it connects
            return None
        except Exception as e:  # psycopg2.ProgrammingError: libpq's own reason
            return f"CONNECTION is not a valid libpq connection string ({str(e).strip()}); for example {DSN_EXAMPLE}."
        return None
    saved = f"saved here: {', '.join(names)}" if names else "none is saved in this QGIS profile"
    return (f"There is no saved PostGIS connection named {text!r} ({saved}). Give one of those, or a libpq "
            f"connection string such as {DSN_EXAMPLE}.")


def resolve_connection(value: Any) -> Target:
    problem = connection_problem(value)
    if problem:
        raise QgsProcessingException(problem)
    text = str(value).strip()
    if text in connection_names():
        try:
            return Target(dsn_for(text), text, text)  # credentials from QGIS's auth system, in memory only
        except ConnectionError_ as e:
            raise QgsProcessingException(f"The saved connection {text!r} cannot be used: {e}.")
    return Target(text, "", scrub(text))


def pack_problem(value: Any) -> Optional[str]:
    folder = Path(str(value or settings_mod.default_pack_dir()))
    if not str(value or "") and not settings_mod.default_pack_dir():
        return "PACK is empty and this MapAsk has no bundled knowledge pack: give a pack folder."
    if not folder.is_dir():
        return f"PACK {folder} is not a folder: give a knowledge pack folder (one with a pack.yaml)."
    if not (folder / "pack.yaml").is_file():
        return f"PACK {folder} is not a knowledge pack: it has no pack.yaml."
    return None


def load_pack_for(value: Any, settings: settings_mod.Settings) -> Pack:
    """The pack with the user's approved examples, as the dock loads it (so both answer alike)."""
    problem = pack_problem(value)
    if problem:
        raise QgsProcessingException(problem)
    folder = str(value or settings_mod.default_pack_dir())
    try:
        return with_user_examples(load_pack(folder), settings.effective_user_pack_dir())
    except Exception as e:  # PackError, YAML errors, unreadable files: the pack is bad input
        raise QgsProcessingException(f"The knowledge pack in {folder} cannot be read: {e}")


def make_pipeline(pack: Pack, target: Target, settings: settings_mod.Settings,
                  feedback: QgsProcessingFeedback) -> Pipeline:
    """The dock's pipeline for this pack and database: same model, judge, row cap, timeout and cost gate."""
    model_setting = {"gguf": settings.model_path, "server": settings.model_url}.get(settings.model_kind, "none")
    try:
        model = backend_from_setting(model_setting)
    except ModelError as e:
        feedback.reportError(f"{e}. MapAsk answers with its rules interpreter only.", False)
        model = None
    executor = Executor(target.dsn, timeout_ms=settings.timeout_s * 1000, row_cap=settings.row_cap)
    max_cost = float(settings.cost_limit) if settings.cost_gate else None
    pipe = Pipeline(pack, target.dsn, executor=executor, model=model, judge=settings.model_judge, max_cost=max_cost)
    try:
        executor.connect()  # an unreachable database is bad input: say so before any question is asked
    except ExecutionError as e:
        raise QgsProcessingException(f"MapAsk cannot use CONNECTION {target.label}: {e}.")
    return pipe


def ask(pipe: Pipeline, question: str, feedback: QgsProcessingFeedback) -> Answer:
    """One question through the pipeline; Cancel stops it between stages and cancels a running statement."""
    def step(stage: str) -> None:
        if feedback.isCanceled():
            raise ExecutionError("cancelled", "the question was cancelled")

    feedback.canceled.connect(pipe.executor.cancel)
    try:
        return pipe.ask(question, progress=step)
    finally:
        feedback.canceled.disconnect(pipe.executor.cancel)


def record(pipe: Pipeline, answer: Answer, target: Target, audit_file: Path, algorithm: str) -> dict:
    """The answer's audit entry (id, frame hash, secrets scrubbed), appended to the audit file."""
    entry = AuditStore().add(pipe.audit_entry(answer), connection=target.label or None)
    entry["via"] = algorithm
    try:
        append_audit(audit_file, entry)
    except OSError as e:
        raise QgsProcessingException(f"The audit entry could not be written to {audit_file}: {e.strerror or e}. "
                                     "Choose another AUDIT_FILE.")
    return entry


def result_spec(answer: Answer, pack: Pack, row_cap: int) -> Optional[LayerSpec]:
    """How the dock would draw the answer's features (None for table answers)."""
    return next((s for s in plan_layers(answer, pack, row_cap).specs
                 if s.role == "result" and s.kind == "features"), None)


class AnswerStyler(QgsProcessingLayerPostProcessorInterface):
    """When QGIS loads an output layer: the dock's style for feature answers, and the answer's provenance."""

    # Processing keeps only the C++ side of a post-processor: the Python object must stay referenced
    _alive: List["AnswerStyler"] = []

    def __init__(self, entry: dict, pack: Pack, spec: Optional[LayerSpec]) -> None:
        super().__init__()
        self.entry, self.pack, self.spec = entry, pack, spec
        AnswerStyler._alive.append(self)

    def postProcessLayer(self, layer: Any, context: QgsProcessingContext,  # noqa: N802 (QGIS API)
                         feedback: QgsProcessingFeedback) -> None:
        if not isinstance(layer, QgsVectorLayer) or not layer.isValid():
            return
        if self.spec is not None and layer.isSpatial():
            style_layer(layer, self.spec, self.pack)
        set_provenance(layer, self.entry)


def style_on_load(context: QgsProcessingContext, layer_id: str, name: str, entry: dict, pack: Pack,
                  spec: Optional[LayerSpec]) -> None:
    """Name and style an output that QGIS will load into the project (the dialog, not qgis_process)."""
    if context.willLoadLayerOnCompletion(layer_id):
        details = context.layerToLoadOnCompletionDetails(layer_id)
        details.name = name
        details.setPostProcessor(AnswerStyler(entry, pack, spec))


class MapAskAlgorithm(QgsProcessingAlgorithm):
    """CONNECTION, PACK and AUDIT_FILE, checked with plain-words errors, resolved on the main thread."""

    def __init__(self) -> None:
        super().__init__()
        self.target: Optional[Target] = None
        self.pack: Optional[Pack] = None
        self.settings: Optional[settings_mod.Settings] = None
        self.audit_file = DEFAULT_AUDIT
        self.pack_value = ""
        self.problem = ""  # what prepareAlgorithm found wrong, raised when the algorithm runs

    def createInstance(self) -> "MapAskAlgorithm":  # noqa: N802 (QGIS API)
        return type(self)()

    def icon(self) -> QIcon:
        return QIcon(str(ICON_PATH))

    def svgIconPath(self) -> str:  # noqa: N802 (QGIS API)
        return str(ICON_PATH)

    def add_common_parameters(self) -> None:
        settings = settings_mod.load()
        self.addParameter(QgsProcessingParameterProviderConnection(
            CONNECTION, tr("PostGIS connection (saved name, or a libpq connection string)"), "postgres",
            defaultValue=settings.connection or None))
        self.addParameter(QgsProcessingParameterFile(
            PACK, tr("Knowledge pack folder"), behavior=QgsProcessingParameterFile.Folder,
            defaultValue=settings_mod.default_pack_dir() or None, optional=True))
        audit = QgsProcessingParameterString(AUDIT_FILE, tr("Audit file (JSON lines, appended)"),
                                             defaultValue=str(DEFAULT_AUDIT), optional=True)
        audit.setFlags(audit.flags() | QgsProcessingParameterDefinition.FlagAdvanced)
        self.addParameter(audit)

    def common_problems(self, parameters: Dict[str, Any], context: QgsProcessingContext) -> Optional[str]:
        return (connection_problem(self.parameterAsString(parameters, CONNECTION, context))
                or pack_problem(self.parameterAsString(parameters, PACK, context)))

    def prepare_common(self, parameters: Dict[str, Any], context: QgsProcessingContext) -> None:
        """On the main thread: QGIS's settings, connections and auth system are not for worker threads.

        A problem found here is kept and raised by `checked()` when the algorithm runs: QGIS turns an
        exception raised while preparing into a bare "There were errors executing the algorithm"."""
        self.settings = settings_mod.load()
        self.pack_value = self.parameterAsString(parameters, PACK, context)
        audit = self.parameterAsString(parameters, AUDIT_FILE, context).strip()
        self.audit_file = Path(audit).expanduser() if audit else DEFAULT_AUDIT
        try:
            self.target = resolve_connection(self.parameterAsString(parameters, CONNECTION, context))
        except QgsProcessingException as e:
            self.problem = str(e)

    def checked(self) -> None:
        """Raise what preparing found, then load the pack (in the worker: it is plain files)."""
        if self.problem:
            raise QgsProcessingException(self.problem)
        self.pack = load_pack_for(self.pack_value, self.settings)

    def checkParameterValues(self, parameters: Dict[str, Any],  # noqa: N802 (QGIS API)
                             context: QgsProcessingContext) -> Tuple[bool, str]:
        # ours first: they say what to change, where QGIS's own check only names the parameter
        problem = self.input_problems(parameters, context)
        if problem:
            return False, problem
        return super().checkParameterValues(parameters, context)

    def input_problems(self, parameters: Dict[str, Any], context: QgsProcessingContext) -> Optional[str]:
        """The algorithm's own checks; subclasses add theirs in front of these."""
        return self.common_problems(parameters, context)
