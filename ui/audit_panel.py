"""The audit panel: the project's question history, filtered; an entry's full record; Replay, Approve/Reject, Promote."""

import html
import json
from typing import Any, List, Optional

from qgis.gui import QgsFilterLineEdit
from qgis.PyQt.QtCore import Qt, pyqtSignal
from qgis.PyQt.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ..plugin.core.audit import replay_summary
from .wording import wording_for

FILTERS = [("All", None, None), ("Answered", "answered", None), ("Asked back", "clarify", None),
           ("Refused", "refused", None), ("Errors", "error", None), ("Approved", None, "approved"),
           ("Rejected", None, "rejected"), ("Not reviewed", None, "unreviewed")]
MARKS = {"approved": "✔", "rejected": "✘", None: "•"}
STATUS_WORDS = {"answered": "answered", "clarify": "asked back", "refused": "refused", "error": "error"}


def _e(v: Any) -> str:
    return html.escape("" if v is None else str(v))


def entry_html(entry: dict, follow_up_question: Optional[str] = None, layer_names: Optional[List[str]] = None,
               wording: Any = None) -> str:
    """Everything recorded about one question, for a reviewer; the raw record when part of it has an odd shape.

    `layer_names`: the entry's layers still in the project, by name (the ids are QGIS's own business);
    `wording` (ui.wording.Wording) says the repairs in the pack's labels."""
    try:
        return _entry_html(entry, follow_up_question, layer_names or [], wording)
    except Exception as err:  # a hand-edited record can break any assumption; the reviewer must still see it
        return raw_entry_html(entry, err)


def raw_entry_html(entry: Any, err: Exception) -> str:
    """The entry as recorded, with a note saying why it is not laid out."""
    text = json.dumps(entry, indent=1, sort_keys=True, default=str)
    return (f"<p style='color:#cf222e'>This entry has an unexpected shape and is shown as recorded "
            f"({_e(type(err).__name__)}: {_e(err)}).</p><pre>{_e(text)}</pre>")


def _entry_html(entry: dict, follow_up_question: Optional[str], layer_names: List[str], wording: Any) -> str:
    review = entry.get("review") or {}
    # the ids are not shown, but ids of another shape mean a hand edit the reviewer must see as recorded
    for i, layer_id in enumerate(entry.get("layer_ids") or []):
        if not isinstance(layer_id, str):
            raise TypeError(f"layer_ids[{i}] should be text")
    rows = [("Asked", entry.get("time")), ("Question", entry.get("question")),
            ("Follow-up of", follow_up_question), ("Status", STATUS_WORDS.get(entry.get("status"), entry.get("status"))),
            ("Answer", wording.strip_description(entry.get("answer") or "") if wording else entry.get("answer")),
            ("Rows", f"{entry.get('row_count', 0):,}" + (" (capped)" if entry.get("truncated") else "")),
            ("Confidence", entry.get("confidence")), ("Error", entry.get("error")),
            ("Pack", "{id} {version} (hash {hash})".format(**{"id": "", "version": "", "hash": "",
                                                                **(entry.get("pack") or {})})),
            ("Model", entry.get("model") or "none (rules interpreter)"), ("Connection", entry.get("connection")),
            ("Frame hash", entry.get("frame_hash")), ("Result hash", entry.get("result_hash")),
            ("On the map", ", ".join(layer_names) if layer_names else
             "its layers are no longer in this project" if entry.get("layer_ids") else None)]
    out = ["<table cellpadding='2'>"]
    out += [f"<tr><td valign='top'><b>{k}</b></td><td>{_e(v)}</td></tr>" for k, v in rows if v not in (None, "")]
    out.append("</table>")
    if review.get("status"):
        out.append(f"<p><b>Review:</b> {_e(review['status'])} by {_e(review.get('reviewer'))} on "
                   f"{_e(review.get('time'))}<br><i>{_e(review.get('comment'))}</i></p>")
        if len(review.get("history") or []) > 1:
            out.append("<p style='color:#57606a'>Earlier: " + "; ".join(
                f"{_e(h.get('status'))} ({_e(h.get('time'))}) {_e(h.get('comment'))}"
                for h in review["history"][:-1]) + "</p>")
    for r in entry.get("replays") or []:
        colour = "#1a7f37" if r.get("match") and not r.get("notes") else "#cf222e"
        out.append(f"<p>Replayed {_e(r.get('time'))}: "
                   f"<span style='color:{colour}'>{_e(replay_summary(entry, r))}</span></p>")
    if entry.get("promoted"):
        out.append(f"<p>Promoted to an example in {_e(entry['promoted'].get('path'))}</p>")
    if entry.get("repairs"):
        frame = entry.get("frame") if isinstance(entry.get("frame"), dict) else None
        lines = [(wording.repair(r, frame) if wording else str(r.get("reason", ""))) if isinstance(r, dict)
                 else str(r) for r in entry["repairs"]]
        out.append("<p><b>Repairs</b></p><ul style='margin-top:0'>" + "".join(f"<li>{_e(x)}</li>" for x in lines)
                   + "</ul>")
    if entry.get("notes"):
        out.append("<p><b>Notes</b></p><ul style='margin-top:0'>" + "".join(f"<li>{_e(n)}</li>" for n in entry["notes"])
                   + "</ul>")
    for title, key in (("SQL", "sql"), ("Frame", "frame"), ("Plan (DAG)", "plan"), ("Guard", "guard"),
                       ("Timings (ms)", "timings_ms"), ("Confidence features", "features"),
                       ("Model judge (what it read and replied)", "judge"), ("Planner cost", "cost")):
        value = entry.get(key)
        if value:
            text = value if isinstance(value, str) else json.dumps(value, indent=1, default=str)
            out.append(f"<p><b>{title}</b></p><pre>{_e(text)}</pre>")
    return "".join(out)


class AuditPanel(QWidget):
    """Review the history; the actions go through the dock's session (which owns store, pipeline and tasks)."""

    message = pyqtSignal(str, bool)  # text, is it a problem

    def __init__(self, session: Any, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.session = session
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        self.status_filter = QComboBox(self)
        for label, _status, _review in FILTERS:
            self.status_filter.addItem(self.tr(label))
        self.text_filter = QgsFilterLineEdit(self)
        self.text_filter.setPlaceholderText(self.tr("Filter by text…"))
        top.addWidget(self.status_filter)
        top.addWidget(self.text_filter, 1)
        layout.addLayout(top)
        self.problems = QLabel(self)
        self.problems.setObjectName("auditProblems")
        self.problems.setWordWrap(True)
        self.problems.setStyleSheet("color: #cf222e")
        self.problems.hide()
        layout.addWidget(self.problems)
        split = QSplitter(Qt.Vertical, self)
        self.list = QListWidget(split)
        self.list.setObjectName("auditList")
        self.detail = QTextBrowser(split)
        self.detail.setObjectName("auditDetail")
        split.setStretchFactor(1, 2)
        layout.addWidget(split, 1)
        self.comment = QLineEdit(self)
        self.comment.setPlaceholderText(self.tr("Reviewer comment (kept in the entry)"))
        layout.addWidget(self.comment)
        row = QHBoxLayout()
        self.replay_button = QPushButton(self.tr("Replay"), self)
        self.replay_button.setToolTip(self.tr("Run it again on the chosen connection, with no model: an answer's final "
                                              "frame (same result hash?), or a question that was not answered (does it "
                                              "still ask back?)"))
        self.approve_button = QPushButton(self.tr("Approve"), self)
        self.reject_button = QPushButton(self.tr("Reject"), self)
        self.promote_button = QPushButton(self.tr("Promote to example"), self)
        self.promote_button.setToolTip(self.tr("Approved entries only: add question → frame to your user pack"))
        self.export_button = QPushButton(self.tr("Export JSONL…"), self)
        for b in (self.replay_button, self.approve_button, self.reject_button, self.promote_button):
            row.addWidget(b)
        row.addStretch(1)
        row.addWidget(self.export_button)
        layout.addLayout(row)

        self.status_filter.currentIndexChanged.connect(self.refresh)
        self.text_filter.textChanged.connect(self.refresh)
        self.list.currentItemChanged.connect(self._show_current)
        self.replay_button.clicked.connect(self.replay)
        self.approve_button.clicked.connect(lambda: self.review("approved"))
        self.reject_button.clicked.connect(lambda: self.review("rejected"))
        self.promote_button.clicked.connect(self.promote)
        self.export_button.clicked.connect(self.export_jsonl)
        session.audit.changed.connect(self.refresh)
        session.audit.problems_found.connect(self.show_problems)
        session.busy.connect(lambda busy: self._update_buttons())
        self.refresh()

    # ---- list and detail
    def visible_entries(self) -> List[dict]:
        _label, status, review = FILTERS[self.status_filter.currentIndex()]
        return list(reversed(self.session.audit.store.filter(status, self.text_filter.text(), review)))

    def refresh(self) -> None:
        current = self.current_id()
        wording = wording_for(self.session)
        self.list.blockSignals(True)
        self.list.clear()
        for e in self.visible_entries():
            verdict = (e.get("review") or {}).get("status")
            when = str(e.get("time", ""))[:16].replace("T", " ")
            status = STATUS_WORDS.get(e.get("status"), e.get("status"))
            item = QListWidgetItem(f"{MARKS.get(verdict, '•')} {when} · {e.get('question')} · {status}")
            item.setData(Qt.UserRole, e["id"])
            answer = str(e.get("answer", ""))
            item.setToolTip(wording.strip_description(answer) if wording is not None else answer)
            self.list.addItem(item)
            if e["id"] == current:
                self.list.setCurrentItem(item)
        self.list.blockSignals(False)
        if self.list.currentItem() is None and self.list.count():
            self.list.setCurrentRow(0)
        self._show_current()
        if not self.session.audit.store.problems:
            self.problems.hide()

    def current_id(self) -> Optional[str]:
        item = self.list.currentItem()
        return item.data(Qt.UserRole) if item is not None else None

    def current_entry(self) -> Optional[dict]:
        entry_id = self.current_id()
        try:
            return self.session.audit.store.get(entry_id) if entry_id else None
        except Exception:
            return None

    def select(self, entry_id: str) -> None:
        for i in range(self.list.count()):
            if self.list.item(i).data(Qt.UserRole) == entry_id:
                self.list.setCurrentRow(i)
                return

    def _show_current(self, *_args: Any) -> None:
        e = self.current_entry()
        follow = None
        if e and e.get("follow_up_of"):
            try:
                follow = self.session.audit.store.get(e["follow_up_of"]).get("question")
            except Exception:
                follow = f"(entry {e['follow_up_of']}, not in this history)"
        try:
            names = [layer.name() for layer in self.session.layers_of(e)] if e else []
        except Exception:  # hand-edited layer ids of another shape: the entry is still shown
            names = []
        self.detail.setHtml(entry_html(e, follow, names, wording_for(self.session)) if e else
                            f"<p style='color:#57606a'>{self.tr('No questions recorded in this project yet.')}</p>")
        self._update_buttons()

    def _update_buttons(self) -> None:
        e = self.current_entry()
        busy = self.session.task is not None
        # an answer replays its final frame; a question that was not answered is asked again
        replayable = bool(e and (e.get("frame") or e.get("status") != "answered"))
        self.replay_button.setEnabled(replayable and not busy)
        self.approve_button.setEnabled(e is not None)
        self.reject_button.setEnabled(e is not None)
        approved = bool(e and (e.get("review") or {}).get("status") == "approved" and e.get("status") == "answered")
        self.promote_button.setEnabled(approved)
        self.export_button.setEnabled(bool(self.session.audit.store.entries))

    def show_problems(self, problems: List[str]) -> None:
        shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
        self.problems.setText(self.tr("Some audit entries in this project could not be read and were skipped: ")
                              + shown)
        self.problems.setToolTip("\n".join(problems))
        self.problems.show()
        skipped, kept = self.session.audit.store.skipped, len(self.session.audit.store.entries)
        if skipped:  # the History tab may be hidden: say it where it is seen on opening the project
            self.message.emit(f"MapAsk set aside {skipped} damaged audit entr{'y' if skipped == 1 else 'ies'} of "
                              f"this project and kept {kept}; the History tab says what is wrong with each.", True)

    # ---- actions
    def replay(self) -> None:
        e = self.current_entry()
        if e is None:
            return
        try:
            self.session.replay(e["id"])
        except Exception as err:
            self.message.emit(str(err), True)

    def review(self, verdict: str) -> None:
        e = self.current_entry()
        if e is not None:
            self.session.review(e["id"], verdict, self.comment.text())
            self.comment.clear()
            self.message.emit(f"Entry {verdict}.", False)

    def promote(self) -> None:
        e = self.current_entry()
        if e is None:
            return
        try:
            path = self.session.promote(e["id"])
        except Exception as err:
            self.message.emit(str(err), True)
            return
        self.message.emit(f"Added to the examples in {path}", False)

    def export_jsonl(self, path: Optional[str] = None) -> Optional[str]:
        if not path:
            path, _ = QFileDialog.getSaveFileName(self, self.tr("Export the audit history"), "mapask_audit.jsonl",
                                                  self.tr("JSON lines (*.jsonl)"))
        if not path:
            return None
        self.session.audit.store.write_jsonl(path)
        self.message.emit(f"Audit history written to {path}", False)
        return path
