"""The audit history inside the QGIS project: one project entry per audit entry, read back on open, checked on save."""

import json
import os
import zipfile
from pathlib import Path
from typing import List, Optional

from qgis.core import QgsProject
from qgis.PyQt.QtCore import QObject, QTimer, pyqtSignal

from ..core.audit import FORMAT, FORMAT_VERSION, AuditStore

SCOPE = "MapAsk"
KEY = "audit"


def _key(entry_id: str) -> str:
    # project entries become XML element names, which may not start with a digit
    return f"{KEY}/e{entry_id}"


def saved_problem(path: str, entry_ids: List[str]) -> Optional[str]:
    """Why the project file at `path` does not hold every one of `entry_ids` (None when it does), in plain words."""
    p = Path(path)
    try:
        if not p.is_file():
            return "the file was not written"
        if p.stat().st_size == 0:
            return "the file is empty"
        if p.suffix.lower() == ".qgz" or zipfile.is_zipfile(p):
            with zipfile.ZipFile(p) as z:
                names = [n for n in z.namelist() if n.lower().endswith(".qgs")]
                if not names:
                    return "the file holds no project"
                text = z.read(names[0]).decode("utf-8", "replace")
        else:
            text = p.read_text(encoding="utf-8", errors="replace")
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile, RuntimeError, EOFError) as e:
        return f"the file cannot be read back ({e})"
    missing = [i for i in entry_ids if f"<e{i} " not in text and f"<e{i}>" not in text]
    if missing:
        return f"{len(missing)} of the {len(entry_ids)} questions in MapAsk's history are not in it"
    return None


def free_space(path: str) -> Optional[int]:
    """Bytes free for this user on the disk holding `path` (None when unknown)."""
    try:
        st = os.statvfs(str(Path(path).parent))
        return st.f_bavail * st.f_frsize
    except (OSError, AttributeError):  # no statvfs on Windows
        return None


class ProjectAudit(QObject):
    """Keeps an AuditStore and its project's entries in step; every change marks the project as modified.

    Entries are written as they change rather than on save, so the project's "modified" state tells the
    user there is history to save, and each entry is its own block: a damaged one is reported and skipped
    when the project is read, the others are kept.
    """

    changed = pyqtSignal()
    problems_found = pyqtSignal(list)
    save_failed = pyqtSignal(str)   # a plain-words message: the project file does not hold the history
    save_checked = pyqtSignal(str)  # the path of a save whose file was read back with every entry in it

    def __init__(self, project: Optional[QgsProject] = None) -> None:
        super().__init__()
        self.project = project or QgsProject.instance()
        self.store = AuditStore(on_change=self._write)
        self._check_pending = False
        self.last_save_problem = ""

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

    def save_started(self) -> None:
        """Connected to QgsProject.writeProject: read the file back once QGIS has finished writing it.

        QGIS 3.22 reports a .qgz save to a full disk as a success (write() returns True, projectSaved is emitted,
        the project is marked clean) and leaves an empty file; a .qgs save returns False with nobody told but
        the caller. Only reading the file back tells. The check runs from the event loop, after write() returns.
        """
        if not self._check_pending:
            self._check_pending = True
            QTimer.singleShot(0, self._check_saved)

    def _check_saved(self) -> None:
        self._check_pending = False
        path = self.project.fileName()
        if not path or self.project.projectStorage() is not None:  # saved in a database: QGIS checks that
            return
        problem = saved_problem(path, [e["id"] for e in self.store.entries])
        if problem is None:
            self.last_save_problem = ""
            self.save_checked.emit(path)
            return
        # the history is only in memory now: QGIS must keep asking to save it before it closes the project
        self.project.setDirty(True)
        free = free_space(path)
        disk = f" The disk has {free // 1024:,} KB free." if free is not None and free < 50 * 1024 * 1024 else ""
        qgis_said = f" QGIS said: {self.project.error()}" if self.project.error() else ""
        n = len(self.store.entries)
        self.last_save_problem = (
            f"The project was not saved: {problem} ({path}).{disk}{qgis_said} MapAsk still holds all {n} "
            f"question{'s' if n != 1 else ''} of its history in this session: free some space or use Save As "
            "to another place, then save again.")
        self.save_failed.emit(self.last_save_problem)

    def _write(self, entry: dict) -> None:
        self.project.writeEntry(SCOPE, "format", f"{FORMAT}/{FORMAT_VERSION}")
        self.project.writeEntry(SCOPE, _key(entry["id"]), json.dumps(entry, sort_keys=True, default=str))
        self.changed.emit()
