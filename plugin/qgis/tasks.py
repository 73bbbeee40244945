"""Questions and replays as QgsTasks: the dock stays responsive, progress follows the stages, Cancel stops the query."""

import threading
from typing import Optional, Set

from qgis.core import QgsTask
from qgis.PyQt.QtCore import pyqtSignal

from ..core.errors import ExecutionError
from ..core.frame import Frame
from ..core.pipeline import STAGES, Answer, Pipeline

# QGIS's task manager owns running tasks, but the Python side of a task must outlive its run too.
_RUNNING: Set["AskTask"] = set()

STAGE_LABELS = {"link": "Linking words to the data", "interpret": "Interpreting the question",
                "model": "Asking the model", "repair": "Checking the question", "plan": "Planning the query",
                "compile": "Writing the SQL", "guard": "Checking the SQL", "execute": "Running the query",
                "verify": "Verifying the result", "explain": "Writing the answer",
                "judge": "The model is checking the answer"}


class AskTask(QgsTask):
    """Runs one question (or one replay) through the pipeline in a worker thread."""

    stage_changed = pyqtSignal(str)
    done = pyqtSignal(object)  # the task itself, on the main thread, once it has finished

    def __init__(self, pipeline: Pipeline, question: str, previous: Optional[Frame] = None,
                 frame: Optional[Frame] = None, replay_of: Optional[dict] = None) -> None:
        label = "MapAsk replay" if replay_of else "MapAsk"
        super().__init__(f"{label}: {question[:60]}", QgsTask.CanCancel)
        self.pipeline = pipeline
        self.question = question
        self.previous = previous
        self.frame = frame
        self.replay_of = replay_of
        self.answer: Optional[Answer] = None
        self.entry: Optional[dict] = None
        self.error: Optional[str] = None
        self.stage = ""
        self._stopper: Optional[threading.Thread] = None
        # a plain Python flag: the C++ task may already be deleted when the stopper thread looks
        self._ran = threading.Event()
        _RUNNING.add(self)

    def run(self) -> bool:  # worker thread
        def step(stage: str) -> None:
            if self.isCanceled():  # stop between stages; the audit still records the question
                raise ExecutionError("cancelled", "the question was cancelled")
            self.stage = stage
            self.setProgress(100.0 * STAGES.index(stage) / len(STAGES))
            self.stage_changed.emit(stage)

        try:
            return self._run(step)
        finally:
            self._ran.set()

    def _run(self, step) -> bool:
        try:
            if self.replay_of is not None:
                self.answer = self.pipeline.replay(self.replay_of, progress=step)
            else:
                self.answer = self.pipeline.ask(self.question, previous=self.previous, frame=self.frame,
                                                progress=step)
            self.entry = self.pipeline.audit_entry(self.answer)
        except Exception as e:  # the pipeline records its own failures; this is anything outside it
            self.error = f"{type(e).__name__}: {e}"
            return False
        self.setProgress(100.0)
        return True

    def cancel(self) -> None:
        """Cancel now: the flag stops the next stage, and the database is told to stop the running statement.

        The statement may not have reached the database yet when Cancel is pressed, so the cancel is
        repeated briefly until the worker has finished.
        """
        super().cancel()
        executor = self.pipeline.executor
        executor.cancel()
        if self._stopper is None:
            ran = self._ran

            def keep_cancelling() -> None:
                for _ in range(100):
                    if ran.wait(0.1):
                        return
                    executor.cancel()
            self._stopper = threading.Thread(target=keep_cancelling, daemon=True)
            self._stopper.start()

    def finished(self, result: bool) -> None:  # main thread
        self._ran.set()  # also when cancelled before it ever ran
        _RUNNING.discard(self)
        self.done.emit(self)

    def cancelled(self) -> bool:
        return self.isCanceled() or bool(self.answer and "cancelled" in (self.answer.error or ""))
