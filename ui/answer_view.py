"""The answer area (sentence, key numbers, confidence and its reasons, clarification choices, repairs) and the details view."""

import html
import json
from typing import Any, List, Optional

from qgis.PyQt.QtCore import Qt, pyqtSignal
from qgis.PyQt.QtGui import QFont, QFontDatabase, QGuiApplication
from qgis.PyQt.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ..plugin.core.layer_sql import value_column

STATUS_LABELS = {"answered": "answered", "clarify": "needs clarification", "refused": "refused", "error": "error"}
STATUS_COLOURS = {"answered": "#1a7f37", "clarify": "#9a6700", "refused": "#cf222e", "error": "#cf222e"}
MAX_KEY_ROWS = 6
MAX_CHOICES = 8
TWO_COLUMN_CHARS = 28
HELP_LINK = "mapask:help"
EXAMPLE_LINK = "mapask:example:"


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))


def confidence_label(value: Optional[float]) -> str:
    if value is None:
        return "not rated"
    return "high" if value >= 0.75 else "medium" if value >= 0.5 else "low"


def _number(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:,.2f}" if abs(v) < 1000 else f"{v:,.0f}"
    if isinstance(v, int) and not isinstance(v, bool):
        return f"{v:,}"
    return _e(v)


def key_numbers(columns: List[str], rows: List[list], geometry_column: Optional[str],
                headers: Optional[List[str]] = None) -> str:
    """The first rows of an aggregated answer as a small two-column table (label, value).

    The value is the answer's measure; the label, the columns before it (the groups). Columns after the
    measure (a ranking's rank and tie size) are in the table, not here.
    """
    keep = [i for i, c in enumerate(columns) if c != geometry_column and not c.endswith("_order")
            and c != "side_order"]
    if geometry_column or not rows or not keep:
        return ""
    measure = value_column(list(columns))
    value = columns.index(measure) if measure in columns else keep[-1]
    labels = [i for i in keep if i < value]
    cells = []
    for r in rows[:MAX_KEY_ROWS]:
        label = " · ".join(_e(r[i]) for i in labels) or _e((headers or columns)[value])
        cells.append(f"<tr><td>{label}</td><td align='right'><b>{_number(r[value])}</b></td></tr>")
    more = f"<tr><td colspan='2'><i>… {len(rows) - MAX_KEY_ROWS:,} more in the table</i></td></tr>" \
        if len(rows) > MAX_KEY_ROWS else ""
    return f"<table cellspacing='0' cellpadding='2'>{''.join(cells)}{more}</table>"


def lowered_reasons(features: List[dict]) -> List[str]:
    """What lowered the confidence, each reason once.

    The verifier's features overlap: the repairs feature quotes every repair's reason ("2 repair(s): A; B")
    and the feature about one kind of repair quotes that repair's reason again ("A"). A reason already
    quoted whole in another adds nothing to read; the confidence itself still counts both features.
    """
    texts = [str(f.get("evidence") or f.get("name") or "") for f in features]
    out: List[str] = []
    for text in texts:
        if text in out or any(text != other and text in other for other in texts):
            continue
        out.append(text)
    return out


def answer_html(shown: Any, wording: Any = None) -> str:
    """The answer as rich text: everything a user needs to judge it, most important first.

    `wording` (ui.wording.Wording for the pack) words ask-backs, repairs and headers in the pack's labels."""
    a, entry = shown.answer, shown.entry
    colour = STATUS_COLOURS.get(a.status, "#57606a")
    sentence = wording.ask_back(a) if wording is not None else a.answer
    readback = (getattr(a, "readback", None) or {}).get("text", "")
    parts = [f"<p style='color:#57606a'><i>{_e(readback)}</i></p>"] if readback and a.status == "answered" else []
    parts.append(f"<p style='font-size:11pt'>{_e(sentence)}</p>")
    if a.status == "clarify" and not a.clarify:
        parts.append(f"<p><a href='{HELP_LINK}'>What can I ask?</a></p>")
    if shown.follow_up_of:
        parts.append(f"<p style='color:#0969da'>↳ Follow-up of: “{_e(shown.follow_up_of.get('question'))}”</p>")
    meta = [f"<span style='color:{colour}'><b>{_e(STATUS_LABELS.get(a.status, a.status))}</b></span>"]
    if a.status == "answered":
        meta.append(f"{len(a.rows):,} row{'s' if len(a.rows) != 1 else ''}" + (" (capped)" if a.truncated else ""))
    if a.confidence is not None:
        meta.append(f"confidence <b>{a.confidence:.2f}</b> ({confidence_label(a.confidence)})")
    parts.append("<p>" + " · ".join(meta) + "</p>")
    headers = wording.headers(a.columns, a.frame) if wording is not None else None
    parts.append(key_numbers(a.columns, a.rows, a.geometry_column, headers))
    # only what is present counts, each with the sign of its fitted weight: what lowers it, then what raises it
    active = [f for f in a.features if abs((f.get("value") or 0) * (f.get("weight") or 0)) >= 0.3]
    lowered = [f for f in active if f["weight"] * f["value"] < 0]
    raised = [f for f in active if f["weight"] * f["value"] > 0]
    if active:
        items = [f"<li style='color:#9a6700'>− {_e(text)}</li>" for text in lowered_reasons(lowered)]
        said = lowered_reasons(lowered)
        items += [f"<li style='color:#1a7f37'>+ {_e(text)}</li>" for text in lowered_reasons(raised)
                  if not any(text in other for other in said)]  # a reason quoted whole in another adds nothing
        parts.append("<p><b>Why this confidence</b></p><ul style='margin-top:0'>" + "".join(items) + "</ul>")
    if a.repairs:
        items = [f"<li>{_e(wording.repair(r, a.frame) if wording is not None else r.get('reason'))}</li>"
                 for r in a.repairs]
        parts.append("<p><b>Repairs made</b></p><ul style='margin-top:0'>" + "".join(items) + "</ul>")
    notes = list(a.notes or [])
    presented = getattr(shown, "presented", None)
    if presented is not None:
        notes += presented.notes
        if presented.layers:
            notes.append("On the map: " + ", ".join(_e(layer.name()) for layer in presented.layers))
    if a.error:
        notes.append(f"Error: {a.error}")
    if notes:
        parts.append("<p style='color:#57606a'>" + "<br>".join(_e(n) if not n.startswith("On the map")
                                                                else n for n in notes) + "</p>")
    parts.append(f"<p style='color:#8c959f'>Audit entry {_e(entry.get('id'))}</p>")
    return "".join(p for p in parts if p)


def details_text(shown: Any) -> str:
    a, entry = shown.answer, shown.entry
    timings = ", ".join(f"{k} {v:.0f} ms" for k, v in (a.timings_ms or {}).items())
    sections = [("SQL (checked by the guard)", a.sql or "(none)"),
                ("Frame", json.dumps(a.frame, indent=2, default=str)),
                ("Repairs (as recorded)", json.dumps(a.repairs, indent=2, default=str) if a.repairs else "(none)"),
                ("Plan (DAG)", "\n".join(f"{n.get('id')}: {n.get('op')}({', '.join(n.get('inputs') or [])}) "
                                         f"{json.dumps(n.get('params'), default=str)}" for n in a.plan) or "(none)"),
                ("Guard", json.dumps(a.guard, indent=2, default=str)),
                ("Timings", timings or "(none)"),
                ("Audit entry", f"{entry.get('id')}  frame {entry.get('frame_hash')}  result {a.result_hash}")]
    return "\n\n".join(f"-- {title}\n{body}" for title, body in sections)


class AnswerView(QWidget):
    """Shows one answer; clarification choices are buttons that re-ask the question with the choice."""

    choice_clicked = pyqtSignal(str, str)  # what the question said, what the user chose
    link_clicked = pyqtSignal(str)         # a mapask: link in the text ("What can I ask?", an example)

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.text = QTextBrowser(self)
        self.text.setObjectName("answerText")
        self.text.setOpenLinks(False)
        self.text.anchorClicked.connect(lambda url: self.link_clicked.emit(url.toString()))
        self.choices = QWidget(self)
        self.choices.setObjectName("clarifyChoices")
        self.choice_grid = QGridLayout(self.choices)
        self.choice_grid.setContentsMargins(0, 0, 0, 0)
        self.choice_buttons: List[QPushButton] = []
        layout.addWidget(self.text, 1)
        layout.addWidget(self.choices)
        self.clear()

    def clear(self, message: str = "") -> None:
        self.text.setHtml(f"<p style='color:#57606a'>{_e(message)}</p>" if message else "")
        self._set_choices([])

    def show_answer(self, shown: Any, wording: Any = None) -> None:
        self.text.setHtml(answer_html(shown, wording))
        self._set_choices(shown.answer.clarify or [])

    def show_html(self, text: str) -> None:
        """Rich text of the dock's own (the pack's description), in place of an answer."""
        self.text.setHtml(text)
        self._set_choices([])

    def _set_choices(self, clarify: List[dict]) -> None:
        self.choice_buttons = []
        while self.choice_grid.count():
            item = self.choice_grid.takeAt(0)
            if item.widget():
                item.widget().deleteLater()
        row = 0
        for item in clarify[:2]:
            said = str(item.get("text", ""))
            label = QLabel(f"“{said}” could mean:", self.choices)
            label.setTextFormat(Qt.PlainText)
            self.choice_grid.addWidget(label, row, 0, 1, 2)
            row += 1
            choices = [str(c) for c in item.get("choices", [])[:MAX_CHOICES]]
            # two buttons a row when the names are short; a long one would be cut at the button's edges
            per_row = 1 if any(len(c) > TWO_COLUMN_CHARS for c in choices) else 2
            for i, choice in enumerate(choices):
                # '&' marks a shortcut key in a button's text: 'Raymond St & Richdale Ave' lost its '&'
                button = QPushButton(choice.replace("&", "&&"), self.choices)
                button.setToolTip(f"Ask again with “{choice}” for “{said}”")
                button.clicked.connect(lambda _=False, s=said, c=choice: self.choice_clicked.emit(s, c))
                self.choice_grid.addWidget(button, row + i // per_row, i % per_row, 1, 3 - per_row)
                self.choice_buttons.append(button)
            row += (len(choices) + per_row - 1) // per_row
        self.choices.setVisible(bool(self.choice_buttons))


class DetailsView(QWidget):
    """Frame, DAG, SQL, guard report and timings as read-only text, with copy buttons."""

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.text = QPlainTextEdit(self)
        self.text.setObjectName("detailsText")
        self.text.setReadOnly(True)
        font = QFontDatabase.systemFont(QFontDatabase.FixedFont)
        if not font.fixedPitch():  # some platforms (offscreen) answer with a proportional font
            font = QFont("monospace")
            font.setStyleHint(QFont.TypeWriter)
        self.text.setFont(font)
        self.text.setLineWrapMode(QPlainTextEdit.NoWrap)
        buttons = QHBoxLayout()
        self.copy_sql = QPushButton(self.tr("Copy SQL"), self)
        self.copy_frame = QPushButton(self.tr("Copy frame"), self)
        self.copy_all = QPushButton(self.tr("Copy all"), self)
        for b in (self.copy_sql, self.copy_frame, self.copy_all):
            buttons.addWidget(b)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        layout.addWidget(self.text, 1)
        self.shown: Any = None
        self.copy_sql.clicked.connect(lambda: self._copy(self.shown.answer.sql if self.shown else ""))
        self.copy_frame.clicked.connect(
            lambda: self._copy(json.dumps(self.shown.answer.frame, indent=2, default=str) if self.shown else ""))
        self.copy_all.clicked.connect(lambda: self._copy(self.text.toPlainText()))
        self.show_answer(None)

    def show_answer(self, shown: Any) -> None:
        self.shown = shown
        self.text.setPlainText(details_text(shown) if shown else "")
        for b in (self.copy_sql, self.copy_frame, self.copy_all):
            b.setEnabled(shown is not None)

    @staticmethod
    def _copy(text: str) -> None:
        QGuiApplication.clipboard().setText(text)
