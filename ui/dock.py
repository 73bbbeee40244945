"""The MapAsk dock panel: for now a placeholder; a later issue adds the question workflow."""

from typing import Optional

from qgis.gui import QgsDockWidget
from qgis.PyQt.QtCore import Qt
from qgis.PyQt.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget


class MapAskDock(QgsDockWidget):
    """Dock holding the question box; disabled until the question pipeline is wired in."""

    OBJECT_NAME = "MapAskDock"

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__("MapAsk", parent)
        # A stable objectName lets QGIS restore the dock's position between sessions.
        self.setObjectName(self.OBJECT_NAME)

        body = QWidget(self)
        layout = QVBoxLayout(body)
        self.status_label = QLabel(
            self.tr("MapAsk is installed. Asking questions arrives in a later version."), body
        )
        self.status_label.setWordWrap(True)
        self.question_edit = QPlainTextEdit(body)
        self.question_edit.setObjectName("questionEdit")
        self.question_edit.setPlaceholderText(
            self.tr("e.g. pedestrian crashes within 150 m of Cambridge schools since 2015, by school")
        )
        self.question_edit.setEnabled(False)
        layout.addWidget(self.status_label)
        layout.addWidget(self.question_edit)
        layout.addStretch(1)
        self.setWidget(body)
        self.setAllowedAreas(Qt.LeftDockWidgetArea | Qt.RightDockWidgetArea)

    def reset(self) -> None:
        """Forget the current question; called when QGIS starts a new or other project."""
        self.question_edit.clear()
