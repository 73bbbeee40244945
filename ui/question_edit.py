"""The question box: Enter asks, Shift+Enter breaks the line, Up/Down walk through earlier questions."""

from typing import List, Optional

from qgis.PyQt.QtCore import Qt, pyqtSignal
from qgis.PyQt.QtGui import QKeyEvent, QTextCursor
from qgis.PyQt.QtWidgets import QPlainTextEdit, QWidget


class QuestionEdit(QPlainTextEdit):
    """A small multi-line editor with shell-like history (most recent first)."""

    submitted = pyqtSignal()

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.history: List[str] = []
        self._pos = -1          # -1: editing a new question; else an index into history
        self._draft = ""        # what was typed before walking into the history
        self.setTabChangesFocus(True)
        # three lines tall: enough for a long question, small enough to leave room for the answer
        self.setFixedHeight(self.fontMetrics().lineSpacing() * 3 + 14)

    def set_history(self, items: List[str]) -> None:
        self.history = list(items)
        self._pos = -1

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt override)
        key, mods = event.key(), event.modifiers()
        if key in (Qt.Key_Return, Qt.Key_Enter) and not mods & Qt.ShiftModifier:
            self.submitted.emit()
            return
        cursor = self.textCursor()
        if key == Qt.Key_Up and cursor.blockNumber() == 0 and self.history:
            self._walk(+1)
            return
        if key == Qt.Key_Down and cursor.blockNumber() == self.document().blockCount() - 1 and self._pos >= 0:
            self._walk(-1)
            return
        super().keyPressEvent(event)

    def _walk(self, step: int) -> None:
        if self._pos == -1:
            self._draft = self.toPlainText()
        self._pos = max(-1, min(len(self.history) - 1, self._pos + step))
        self.setPlainText(self._draft if self._pos == -1 else self.history[self._pos])
        self.moveCursor(QTextCursor.End)

    def question(self) -> str:
        return " ".join(self.toPlainText().split())
