"""The dock's controller: settings, the pipeline for the chosen connection and pack, tasks, map layers and audit."""

from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional, Tuple

from qgis.core import QgsApplication, QgsProject
from qgis.PyQt.QtCore import QObject, pyqtSignal

from ..core.audit import AuditError
from ..core.execute import Executor
from ..core.frame import Frame, frame_from_dict
from ..core.interpret_model import ModelError, backend_from_setting
from ..core.pack import Pack, load_pack
from ..core.pipeline import Answer, Pipeline
from ..core.user_examples import with_user_examples
from . import settings as settings_mod
from .connections import dsn_for
from .present import Presented, chain_title, present
from .results import hide_answers
from .project_audit import ProjectAudit
from .transforms import settle_for_pack
from .tasks import AskTask


class SessionError(RuntimeError):
    """Something the user has to fix before asking (no connection chosen, pack unreadable, busy)."""


@dataclass
class Shown:
    """The latest answer as the dock shows it."""

    answer: Answer
    entry: dict
    presented: Optional[Presented] = None
    follow_up_of: Optional[dict] = None


class Session(QObject):
    busy = pyqtSignal(bool)
    stage = pyqtSignal(str)
    answered = pyqtSignal(object)           # Shown
    replayed = pyqtSignal(dict, object)     # replay record, Answer
    failed = pyqtSignal(str)

    executor_factory = Executor  # tests swap in a slow executor to exercise Cancel

    def __init__(self, iface: Any = None, project: Optional[QgsProject] = None) -> None:
        super().__init__()
        self.iface = iface
        self.project = project or QgsProject.instance()
        self.settings = settings_mod.load()
        self.audit = ProjectAudit(self.project)
        self.task: Optional[AskTask] = None
        self.last: Optional[Shown] = None          # the latest answer of any status
        self.previous: Optional[Shown] = None      # the latest *answered* question, which a follow-up refines
        self._pipeline: Optional[Pipeline] = None
        self._pipeline_key: Optional[Tuple] = None
        self._pack: Optional[Pack] = None
        self._pack_dir = ""
        self.model_warning = ""  # set when the configured model cannot be used

    # ---- configuration
    def pack(self) -> Pack:
        pack_dir = self.settings.effective_pack_dir()
        if self._pack is None or pack_dir != self._pack_dir:
            if not pack_dir:
                raise SessionError("No knowledge pack is set: choose one in MapAsk's settings.")
            # approved examples promoted from audits teach the interpreter: they travel with the pack
            self._pack = with_user_examples(load_pack(pack_dir), self.settings.effective_user_pack_dir())
            self._pack_dir = pack_dir
        return self._pack

    def pipeline(self) -> Pipeline:
        name = self.settings.connection
        if not name:
            raise SessionError("Choose a PostGIS connection first (saved in QGIS's Browser under PostgreSQL).")
        pack = self.pack()
        model_setting = {"gguf": self.settings.model_path, "server": self.settings.model_url}.get(
            self.settings.model_kind, "none")
        max_cost = float(self.settings.cost_limit) if self.settings.cost_gate else None
        key = (name, self._pack_dir, pack.content_hash, self.settings.row_cap, self.settings.timeout_s,
               self.executor_factory, model_setting, self.settings.model_judge, max_cost)
        if self._pipeline is None or key != self._pipeline_key:
            self.close_pipeline()
            dsn = dsn_for(name)  # the password, if any, lives only in this executor's memory
            executor = self.executor_factory(dsn, timeout_ms=self.settings.timeout_s * 1000,
                                             row_cap=self.settings.row_cap)
            self.model_warning = ""
            try:
                model = backend_from_setting(model_setting)
            except ModelError as e:  # say how to fix it, and keep answering with the rules interpreter
                model, self.model_warning = None, f"{e}. MapAsk answers with its rules interpreter only."
            self._pipeline = Pipeline(pack, dsn, executor=executor, model=model, judge=self.settings.model_judge,
                                      max_cost=max_cost)
            self._pipeline_key = key
        return self._pipeline

    def close_pipeline(self) -> None:
        if self._pipeline is not None:
            self._pipeline.executor.close()
        self._pipeline, self._pipeline_key = None, None

    def reset(self) -> None:
        """A new project: forget the last answer and follow-up context, and the old project's history."""
        self.last = self.previous = None
        self.audit.clear()

    # ---- asking
    def ask(self, question: str, follow_up: bool = False, frame: Optional[Frame] = None) -> AskTask:
        if self.task is not None:
            raise SessionError("MapAsk is still answering the previous question.")
        pipe = self.pipeline()
        base = self.previous if follow_up else None
        previous = frame_from_dict(base.answer.frame) if base is not None and base.answer.frame else None
        task = AskTask(pipe, question, previous=previous, frame=frame)
        task.follow_up_of = base
        settings_mod.remember_question(self.settings, question)
        return self._start(task)

    def replay(self, entry_id: str) -> AskTask:
        """Run an entry again on the chosen connection, with no model and so no model judge.

        An answer re-runs its stored final frame. A question that was not answered has no final frame (its
        frame is the draft the pipeline stopped at: run as such, "asdf qwer" would count every record), so it is
        asked again through the rules interpreter, which says whether it still asks back or now answers."""
        if self.task is not None:
            raise SessionError("MapAsk is still answering a question.")
        entry = self.audit.store.get(entry_id)
        answered = entry.get("status") == "answered"
        if answered and not entry.get("frame"):
            raise SessionError("This entry has no final frame to replay.")
        previous = None if answered else self._replay_previous(entry)
        pipe, question = self._replay_pipeline(), entry.get("question", "")
        task = AskTask(pipe, question, replay_of=entry) if answered else AskTask(pipe, question, previous=previous)
        task.replaying, task.connection = entry, self.settings.connection
        # the replay's own connection ends with it, also when the plugin is unloaded mid-replay
        task.done.connect(lambda t: t.pipeline.executor.close())
        return self._start(task)

    def _replay_previous(self, entry: dict) -> Optional[Frame]:
        """The answer a follow-up refined, when it is still in the history (a follow-up alone means little)."""
        try:
            base = self.audit.store.get(entry["follow_up_of"]) if entry.get("follow_up_of") else None
        except AuditError:
            return None
        return frame_from_dict(base["frame"]) if base and base.get("frame") else None

    def _replay_pipeline(self) -> Pipeline:
        """A pipeline for one replay: the current pack, connection and limits, and no model.

        A replay must be deterministic: a model's interpretation or the model judge's doubt could differ from one
        run to the next, and a replay needs no model (an answer's final frame is already settled)."""
        name = self.settings.connection
        if not name:
            raise SessionError("Choose a PostGIS connection first (saved in QGIS's Browser under PostgreSQL).")
        dsn = dsn_for(name)
        executor = self.executor_factory(dsn, timeout_ms=self.settings.timeout_s * 1000,
                                         row_cap=self.settings.row_cap)
        max_cost = float(self.settings.cost_limit) if self.settings.cost_gate else None
        return Pipeline(self.pack(), dsn, executor=executor, model=None, judge=False, max_cost=max_cost)

    def _record_replay(self, task: AskTask) -> None:
        """Keep the replay in its entry, with the pack and connection it ran on, and tell the dock."""
        a, pack = task.answer, task.pipeline.pack
        record = self.audit.store.record_replay(
            task.replaying["id"], a.result_hash, len(a.rows), a.status, error=a.error,
            pack={"id": pack.id, "version": pack.version, "hash": pack.content_hash},
            connection=task.connection, rerun="frame" if task.replay_of is not None else "question")
        self.replayed.emit(record, a)

    def cancel(self) -> None:
        if self.task is not None:
            self.task.cancel()

    def _start(self, task: AskTask) -> AskTask:
        self.task = task
        task.stage_changed.connect(self.stage)
        task.done.connect(self._done)
        self.busy.emit(True)
        QgsApplication.taskManager().addTask(task)
        return task

    def _done(self, task: AskTask) -> None:
        if task is not self.task:
            return
        self.task = None
        self.busy.emit(False)
        if task.answer is None or task.entry is None:
            self.failed.emit("The question was cancelled before it started." if task.isCanceled()
                             else f"MapAsk failed: {task.error}")
            return
        if getattr(task, "replaying", None) is not None:
            self._record_replay(task)
            return
        base = getattr(task, "follow_up_of", None)
        entry = self.audit.store.add(task.entry, follow_up_of=base.entry["id"] if base else None,
                                     connection=self.settings.connection)
        shown = Shown(task.answer, entry, follow_up_of=base.entry if base else None)
        if task.answer.status == "answered":
            canvas = self.iface.mapCanvas() if self.iface is not None else None
            settle_for_pack(self.project, self.pack().srid, canvas)  # before the layers are first drawn
            shown.presented = present(task.answer, entry, self.pack(), self.settings.connection, self.project,
                                      canvas, row_cap=self.settings.row_cap, title=chain_title(self.chain(entry)))
            if shown.presented.layers:
                self.audit.store.update(entry["id"], layer_ids=[l.id() for l in shown.presented.layers])
            self.previous = shown
        else:  # an ask-back or a refusal: the previous answer's map must not pass for this one's
            hide_answers(self.project)
            shown.presented = Presented(no_map=True)
        self.last = shown
        self.answered.emit(shown)

    def chain(self, entry: dict, most: int = 6) -> List[str]:
        """The questions a follow-up refines, the first one first, ending with the entry's own question."""
        out, seen, current = [entry.get("question", "")], {entry.get("id")}, entry
        while current.get("follow_up_of") and len(out) < most:
            try:
                current = self.audit.store.get(current["follow_up_of"])
            except AuditError:  # the answer it refined was removed from the history
                break
            if current.get("id") in seen:
                break
            seen.add(current.get("id"))
            out.insert(0, current.get("question", ""))
        return out

    # ---- review
    def reviewer(self) -> str:
        return QgsApplication.userFullName() or QgsApplication.userLoginName()

    def review(self, entry_id: str, verdict: str, comment: str) -> dict:
        return self.audit.store.review(entry_id, verdict, comment, self.reviewer())

    def promote(self, entry_id: str) -> Path:
        path = self.audit.store.promote(entry_id, self.settings.effective_user_pack_dir(), self.pack().id)
        self._pack = None  # the next question reads the example just promoted
        return path

    def layers_of(self, entry: dict) -> List:
        """The entry's layers still in the project (the user may have removed some)."""
        return [l for l in (self.project.mapLayer(i) for i in entry.get("layer_ids") or []) if l is not None]

    def shutdown(self, wait_ms: int = 5000) -> None:
        """Plugin unload: stop a running question without letting it call back into a deleted dock."""
        task, self.task = self.task, None
        if task is not None:
            try:
                task.done.disconnect(self._done)
                task.stage_changed.disconnect(self.stage)
            except TypeError:
                pass
            task.cancel()
            task.waitForFinished(wait_ms)
        self.close_pipeline()
