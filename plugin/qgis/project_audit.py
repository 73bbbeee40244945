"""The audit history inside the QGIS project: one project entry per audit entry, read back on open."""

import json
from typing import Optional

from qgis.core import QgsProject
from qgis.PyQt.QtCore import QObject, pyqtSignal

from ..core.audit import FORMAT, FORMAT_VERSION, AuditStore

SCOPE = "MapAsk"
KEY = "audit"


def _key(entry_id: str) -> str:
    # project entries become XML element names, which may not start with a digit
    return f"{KEY}/e{entry_id}"


class ProjectAudit(QObject):
    """Keeps an AuditStore and its project's entries in step; every change marks the project as modified.

    Entries are written as they change rather than on save, so the project's "modified" state tells the
    user there is history to save, and each entry is its own block: a damaged one is reported and skipped
    when the project is read, the others are kept.
    """

    changed = pyqtSignal()
    problems_found = pyqtSignal(list)

    def __init__(self, project: Optional[QgsProject] = None) -> None:
        super().__init__()
        self.project = project or QgsProject.instance()
        self.store = AuditStore(on_change=self._write)

    def load(self) -> AuditStore:
        """Read the history of the project just opened (connected to QgsProject.readProject)."""
        blocks = {}
        for key in self.project.entryList(SCOPE, KEY):
            text, _ok = self.project.readEntry(SCOPE, f"{KEY}/{key}")
            blocks[key[1:] if key.startswith("e") else key] = text
        self.store = AuditStore.from_blocks(blocks)
        fmt, ok = self.project.readEntry(SCOPE, "format")
        if ok and fmt and fmt != f"{FORMAT}/{FORMAT_VERSION}":
            self.store.problems.insert(0, f"the audit history was written as {fmt}; this MapAsk reads "
                                          f"{FORMAT}/{FORMAT_VERSION} and kept what it could read")
        self.store.on_change = self._write
        self.changed.emit()
        if self.store.problems:
            self.problems_found.emit(list(self.store.problems))
        return self.store

    def clear(self) -> None:
        """A new or closed project: forget the history without touching any project."""
        self.store = AuditStore(on_change=self._write)
        self.changed.emit()

    def _write(self, entry: dict) -> None:
        self.project.writeEntry(SCOPE, "format", f"{FORMAT}/{FORMAT_VERSION}")
        self.project.writeEntry(SCOPE, _key(entry["id"]), json.dumps(entry, sort_keys=True, default=str))
        self.changed.emit()
