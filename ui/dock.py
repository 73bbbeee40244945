"""The MapAsk dock panel: connection, question with history, Ask/Cancel with progress, answer, table, chart, details, history."""

import re
from pathlib import Path
from typing import Any, Optional

from qgis.core import QgsProject
from qgis.gui import QgsDockWidget
from qgis.PyQt import sip
from qgis.PyQt.QtCore import Qt
from qgis.PyQt.QtGui import QIcon
from qgis.PyQt.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMenu,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..plugin.core.text import language
from ..plugin.qgis import settings as settings_mod
from ..plugin.qgis.connections import connection_names
from ..plugin.qgis.export import export_csv, export_gpkg, export_png, file_stem, with_suffix
from ..plugin.qgis.logins import ProjectLogins
from ..plugin.qgis.present import context_layers
from ..plugin.qgis.results import combined_extent, is_mapask_layer, select_matching, zoom_to
from ..plugin.qgis.session import Session
from ..plugin.qgis.tasks import STAGE_LABELS
from .answer_view import EXAMPLE_LINK, HELP_LINK, AnswerView, DetailsView
from .audit_panel import AuditPanel
from .messages import Messages
from .question_edit import QuestionEdit
from .result_views import ChartView, make_table, show_rows
from .settings_dialog import SettingsDialog
from .wording import wording_for

def _alive(layer: Any) -> bool:
    """False once the user has removed the layer from the project (its C++ object is gone)."""
    return layer is not None and not sip.isdeleted(layer)


LOGIN_SECONDS = 60  # long enough to read and act on, after closing QGIS's own password dialog
EXPORT_FILTERS = {"gpkg": "GeoPackage (*.gpkg)", "csv": "CSV (*.csv)", "png": "PNG image (*.png)",
                  "chart": "PNG image (*.png);;SVG image (*.svg)"}


class MapAskDock(QgsDockWidget):
    """Ask a question, see the answer on the map and in the panel, review the project's history."""

    OBJECT_NAME = "MapAskDock"
    TAB_ANSWER, TAB_TABLE, TAB_CHART, TAB_DETAILS, TAB_HISTORY = range(5)

    def __init__(self, parent: Optional[QWidget] = None, iface: Any = None) -> None:
        super().__init__("MapAsk", parent)
        # A stable objectName lets QGIS restore the dock's position between sessions.
        self.setObjectName(self.OBJECT_NAME)
        self.iface = iface
        self.session = Session(iface)
        self.messages = Messages(iface, self)
        # a reviewer opening someone else's project: say which database wants a password and where to keep it
        self.logins = ProjectLogins(self.session.project,
                                    lambda text: self.notify(text, True, "connection", LOGIN_SECONDS))
        self._last_follow_up = False
        body = QWidget(self)
        layout = QVBoxLayout(body)

        top = QHBoxLayout()
        top.addWidget(QLabel(self.tr("Database"), body))
        self.connection_combo = QComboBox(body)
        self.connection_combo.setObjectName("connectionCombo")
        self.connection_combo.setToolTip(self.tr("A PostGIS connection saved in QGIS (Browser > PostgreSQL)"))
        top.addWidget(self.connection_combo, 1)
        self.refresh_button = QToolButton(body)
        self.refresh_button.setIcon(QIcon(":/images/themes/default/mActionRefresh.svg"))
        self.refresh_button.setToolTip(self.tr("Reload the saved connections"))
        self.settings_button = QToolButton(body)
        self.settings_button.setIcon(QIcon(":/images/themes/default/mActionOptions.svg"))
        self.settings_button.setToolTip(self.tr("MapAsk settings: knowledge pack, model, limits"))
        top.addWidget(self.refresh_button)
        top.addWidget(self.settings_button)
        layout.addLayout(top)

        self.question_edit = QuestionEdit(body)
        self.question_edit.setObjectName("questionEdit")
        # the pack's example is filled in when the dock is first shown: reading a pack takes a second
        # or more, which QGIS's start-up should not pay for a hidden dock
        self.question_edit.setPlaceholderText(self.tr("Ask a question about the data (Enter asks, ↑ ↓ earlier questions)"))
        self._hinted = False
        self.question_edit.set_history(self.session.settings.history)
        layout.addWidget(self.question_edit)

        row = QHBoxLayout()
        self.follow_up = QCheckBox(self.tr("Follow-up"), body)
        self.follow_up.setObjectName("followUp")
        self.follow_up.setSizePolicy(QSizePolicy.Ignored, self.follow_up.sizePolicy().verticalPolicy())
        self.follow_up.setToolTip(self.tr("Refine the previous answer (\"only at night\", \"now for 2016\")"))
        row.addWidget(self.follow_up, 1)
        # the pack's description, shown on request rather than appended to every ask-back
        self.help_link = QLabel(f"<a href='{HELP_LINK}'>{self.tr('What can I ask?')}</a>", body)
        self.help_link.setObjectName("helpLink")
        self.help_link.setToolTip(self.tr("What this knowledge pack holds, and questions to start from"))
        self.help_link.linkActivated.connect(self._link)
        row.addWidget(self.help_link)
        self.ask_button = QPushButton(self.tr("Ask"), body)
        self.ask_button.setDefault(True)
        self.cancel_button = QPushButton(self.tr("Cancel"), body)
        self.cancel_button.setEnabled(False)
        row.addWidget(self.ask_button)
        row.addWidget(self.cancel_button)
        layout.addLayout(row)

        self.progress = QProgressBar(body)
        self.progress.setRange(0, len(STAGE_LABELS))
        self.progress.setTextVisible(True)
        self.progress.hide()
        layout.addWidget(self.progress)

        # stays until a save is read back whole: the history is then only in memory
        self.save_warning = QLabel(body)
        self.save_warning.setObjectName("saveWarning")
        self.save_warning.setWordWrap(True)
        self.save_warning.setStyleSheet("color: #cf222e")
        self.save_warning.hide()
        layout.addWidget(self.save_warning)

        self.tabs = QTabWidget(body)
        self.answer_view = AnswerView(self.tabs)
        self.table = make_table(self.tabs)
        self.chart = ChartView(self.tabs)
        self.details = DetailsView(self.tabs)
        self.audit_panel = AuditPanel(self.session, self.tabs)
        for widget, label in ((self.answer_view, "Answer"), (self.table, "Table"), (self.chart, "Chart"),
                              (self.details, "Details"), (self.audit_panel, "History")):
            self.tabs.addTab(widget, self.tr(label))
        layout.addWidget(self.tabs, 1)

        bottom = QHBoxLayout()
        self.zoom_button = QPushButton(self.tr("Zoom to result"), body)
        self.export_button = QToolButton(body)
        self.export_button.setText(self.tr("Export"))
        self.export_button.setPopupMode(QToolButton.InstantPopup)
        menu = QMenu(self.export_button)
        self.export_actions = {}
        for kind, label in (("gpkg", "GeoPackage with provenance…"), ("csv", "CSV table…"), ("png", "PNG map…"),
                            ("chart", "Chart as PNG or SVG…")):
            self.export_actions[kind] = menu.addAction(self.tr(label), lambda k=kind: self.export(k))
        self.export_button.setMenu(menu)
        # said under the answer when it has nothing to draw, so the empty map is not read as an empty answer
        self.map_note = QLabel(self.tr("No map for this answer"), body)
        self.map_note.setObjectName("mapNote")
        self.map_note.setStyleSheet("color: #57606a")
        self.map_note.hide()
        bottom.addWidget(self.map_note)
        bottom.addStretch(1)
        bottom.addWidget(self.zoom_button)
        bottom.addWidget(self.export_button)
        layout.addLayout(bottom)
        self.setWidget(body)
        self.setAllowedAreas(Qt.LeftDockWidgetArea | Qt.RightDockWidgetArea)

        self.ask_button.clicked.connect(lambda: self.ask())
        self.question_edit.submitted.connect(lambda: self.ask())
        self.question_edit.textChanged.connect(self._guess_follow_up)
        self.cancel_button.clicked.connect(self.session.cancel)
        self.refresh_button.clicked.connect(self.refresh_connections)
        self.settings_button.clicked.connect(self.open_settings)
        self.connection_combo.currentTextChanged.connect(self._connection_chosen)
        self.zoom_button.clicked.connect(self.zoom_to_result)
        self.table.doubleClicked.connect(self._zoom_to_selection)
        self.answer_view.choice_clicked.connect(self.choose)
        self.answer_view.link_clicked.connect(self._link)
        self.audit_panel.message.connect(lambda text, bad: self.notify(text, bad, "history"))
        self.session.busy.connect(self._busy)
        self.session.stage.connect(self._stage)
        self.session.answered.connect(self.show_answer)
        self.session.replayed.connect(self._replayed)
        self.session.failed.connect(lambda text: self.notify(text, True))
        self.session.audit.save_failed.connect(self._save_failed)
        self.session.audit.save_checked.connect(lambda _path: self.save_warning.hide())
        self.refresh_connections()
        self.session.audit.load()  # the plugin may be switched on with a project already open
        self._update_state()

    def showEvent(self, event: Any) -> None:  # noqa: N802 (Qt override)
        super().showEvent(event)
        if not self._hinted:
            self._hinted = True
            self.question_edit.setPlaceholderText(self._placeholder())

    def _placeholder(self) -> str:
        """A hint from the pack's own reviewed examples, so it always fits the data at hand."""
        hint = self.tr("Ask a question about the data (Enter asks, ↑ ↓ earlier questions)")
        try:
            examples = self.session.pack().examples
        except Exception:  # no readable pack yet: the settings dialog will say why on Ask
            return hint
        ranked = [e for e in examples if (e.get("frame") or {}).get("intent") == "rank"] or examples
        return f"{hint}, e.g. {ranked[0]['question']}" if ranked else hint

    # ---- connection and settings
    def refresh_connections(self) -> None:
        names = connection_names()
        wanted = self.session.settings.connection
        self.connection_combo.blockSignals(True)
        self.connection_combo.clear()
        self.connection_combo.addItems(names)
        self.connection_combo.blockSignals(False)
        if names:
            self.connection_combo.setCurrentIndex(names.index(wanted) if wanted in names else 0)
            self._connection_chosen(self.connection_combo.currentText())
        else:
            self.answer_view.clear(self.tr("No PostGIS connection is saved in QGIS yet: add one in the Browser "
                                           "panel (PostgreSQL > New Connection), then press refresh."))

    def _connection_chosen(self, name: str) -> None:
        if name and name != self.session.settings.connection:
            self.session.settings.connection = name
            settings_mod.save(self.session.settings)

    def open_settings(self) -> None:
        dialog = SettingsDialog(self.session.settings, self)
        if dialog.exec_():
            settings_mod.save(dialog.result_settings())

    # ---- asking
    def ask(self, question: Optional[str] = None, follow_up: Optional[bool] = None, frame: Any = None) -> Any:
        """Start answering `question` (default: the question box), or the reading `frame` the user chose; returns
        the task, or None with a message."""
        q = question or self.question_edit.question()
        if self.session.task is not None:  # Enter in the question box while a question runs: its answer stays
            self.notify(self.tr("MapAsk is still answering the previous question; press Cancel to stop it."), True)
            return None
        if not q:
            self.tabs.setCurrentIndex(self.TAB_ANSWER)
            self.answer_view.clear(self._empty_question_line())
            return None
        follow = self.follow_up.isChecked() if follow_up is None else follow_up
        try:
            task = self.session.ask(q, follow_up=follow and self.session.previous is not None, frame=frame)
        except Exception as err:  # nothing to ask with yet: say what to fix
            self.answer_view.clear(str(err))
            self.notify(str(err), True)
            return None
        self.messages.clear("ask")  # a problem with an earlier question is no longer news
        self._last_follow_up = follow
        self.question_edit.set_history(self.session.settings.history)
        self.answer_view.clear(self.tr("Working on: ") + q)
        return task

    def _empty_question_line(self) -> str:
        wording = wording_for(self.session)
        example = wording.example_for("") if wording is not None else ""
        return (self.tr("Type a question first, for example: ") + example if example else
                self.tr("Type a question first."))

    def _link(self, link: str) -> None:
        """A mapask: link: the pack's description, or one of its example questions put in the question box."""
        if link == HELP_LINK:
            self.show_help()
        elif link.startswith(EXAMPLE_LINK):
            self.question_edit.setPlainText(link[len(EXAMPLE_LINK):])
            self.question_edit.setFocus()

    def show_help(self) -> None:
        """What the pack can answer ("What can I ask?"): shown only when asked for."""
        self.tabs.setCurrentIndex(self.TAB_ANSWER)
        wording = wording_for(self.session)
        if wording is None:
            self.answer_view.clear(self.tr("No knowledge pack can be read yet: choose one in MapAsk's settings."))
        else:
            self.answer_view.show_html(wording.help_html())

    def choose(self, said: str, choice: str) -> None:
        """A clarification choice: the same question, with what was said replaced by the choice."""
        q = self.session.last.answer.question if self.session.last else self.question_edit.question()
        offered = [c for c in (self.session.last.answer.clarify if self.session.last else []) or []
                   if c.get("frames") and str(c.get("text")) == said]
        if offered:  # MapAsk's own reading, offered below its confidence bar: answer exactly that reading
            from ..plugin.core.frame import frame_from_dict
            texts = [str(c) for c in offered[0].get("choices", [])]
            pick = texts.index(choice) if choice in texts else 0
            self.ask(q, follow_up=False, frame=frame_from_dict(offered[0]["frames"][pick]))
            return
        new = re.sub(re.escape(said), choice, q, count=1, flags=re.I) if said and said.lower() in q.lower() \
            else f"{q} {choice}"
        self.question_edit.setPlainText(new)
        self.ask(new, follow_up=self._last_follow_up)

    def _guess_follow_up(self) -> None:
        """Tick Follow-up when the question opens with one of the language's follow-up cues ("only", "now")."""
        prev = self.session.previous
        if prev is None or self.session.task is not None:
            return
        try:
            cues = language(self.session.pack().raw.get("language", "en"))["cues"].get("follow_up") or []
        except Exception:
            cues = []
        text = self.question_edit.toPlainText().strip().lower()
        if text and any(text == c or text.startswith(c + " ") for c in cues):
            self.follow_up.setChecked(True)

    def _busy(self, busy: bool) -> None:
        self.ask_button.setEnabled(not busy)
        self.cancel_button.setEnabled(busy)
        self.progress.setVisible(busy)
        self.progress.setValue(0)
        self.progress.setFormat(self.tr("Starting…"))

    def _stage(self, stage: str) -> None:
        self.progress.setValue(list(STAGE_LABELS).index(stage) + 1 if stage in STAGE_LABELS else 0)
        self.progress.setFormat(STAGE_LABELS.get(stage, stage) + "…")

    # ---- showing
    def show_answer(self, shown: Any) -> None:
        a = shown.answer
        wording = wording_for(self.session)
        headers = wording.headers(a.columns, a.frame) if wording is not None else None
        self.answer_view.show_answer(shown, wording)
        self.details.show_answer(shown)
        self.rows_model = show_rows(self.table, a.columns if a.status == "answered" else [],
                                    a.rows if a.status == "answered" else [], a.geometry_column, headers)
        self.table.selectionModel().selectionChanged.connect(self._table_selection)
        charted = self.chart.show_answer(a if a.status == "answered" else None, headers)
        self.tabs.setTabEnabled(self.TAB_CHART, charted)
        self.tabs.setCurrentIndex(self.TAB_ANSWER)
        self.follow_up.setChecked(False)
        self._update_state()
        self.audit_panel.select(shown.entry["id"])
        if a.status == "error":
            self.notify(a.answer, True)
        else:
            self.messages.clear("ask")

    def _table_selection(self, *_args: Any) -> None:
        """Rows picked in the table are selected on the map; double-click zooms to them."""
        last = self.session.last
        shown = last.presented if last else None
        if shown is None or not _alive(shown.result) or not shown.match_column:
            return
        columns = last.answer.columns
        if shown.match_column not in columns:
            return
        i = columns.index(shown.match_column)
        proxy = self.table.model()
        rows = {proxy.mapToSource(index).row() for index in self.table.selectionModel().selectedRows()}
        select_matching(shown.result, shown.match_column, [last.answer.rows[r][i] for r in rows])

    def _zoom_to_selection(self, *_args: Any) -> None:
        last = self.session.last
        if self.iface is not None and last and last.presented and _alive(last.presented.result):
            self.iface.mapCanvas().zoomToSelected(last.presented.result)

    def _replayed(self, record: dict, answer: Any) -> None:
        # the summary compares statuses for a question that was not answered, hashes for one that was
        self.notify(self.tr("Replay: ") + record["summary"], not record["match"] or bool(record["notes"]), "replay")
        self.audit_panel.refresh()

    def _update_state(self) -> None:
        prev = self.session.previous
        self.follow_up.setEnabled(prev is not None)
        if prev is None:
            self.follow_up.setText(self.tr("Follow-up (ask a question first)"))
        else:  # a refinement of a refinement names every question it refines
            chain = self.session.chain(prev.entry)
            full = self.tr("Follow-up of: ") + " + ".join(f"“{q}”" for q in chain)
            # the whole chain in the tooltip; the box shows what fits, so a long question never widens the dock
            self.follow_up.setToolTip(full)
            self.follow_up.setText(self.follow_up.fontMetrics().elidedText(full, Qt.ElideRight, 280))
        last = self.session.last
        has_layers = bool(last and last.presented and last.presented.layers)
        self.zoom_button.setEnabled(has_layers)
        self.map_note.setVisible(bool(last and last.presented and last.presented.no_map))
        self.export_button.setEnabled(bool(last and last.answer.status == "answered"))
        self.export_actions["png"].setEnabled(has_layers)
        self.export_actions["chart"].setEnabled(self.chart.data is not None)

    def notify(self, text: str, problem: bool = False, kind: str = "ask", seconds: Optional[int] = None) -> None:
        """One current message per kind in QGIS's message bar: a newer one replaces it, an expired one stays gone."""
        self.messages.push(kind, text, problem, seconds)

    def zoom_to_result(self) -> None:
        last = self.session.last
        if last and last.presented and self.iface is not None:
            zoom_to(self.iface.mapCanvas(), [l for l in last.presented.layers if _alive(l)], QgsProject.instance())

    def export(self, kind: str, path: Optional[str] = None) -> Optional[str]:
        """Export the latest answer as gpkg, csv, png or its chart; asks for a file name unless `path` is given.

        The dialog opens in the folder of the last export, on a name made from the question; a name typed
        without its extension gets it."""
        last = self.session.last
        if last is None or last.answer.status != "answered":
            return None
        if not path:
            path = self._ask_path(kind, last.answer.question)
        if not path:
            return None
        try:
            written = str(self._write_export(kind, path, last))
        except Exception as err:
            self.notify(self.tr("Export failed: ") + str(err), True, "export")
            return None
        settings_mod.remember_export_dir(written)
        self.notify(self.tr("Exported to ") + written, False, "export")
        return written

    def _ask_path(self, kind: str, question: str) -> str:
        folder = settings_mod.export_dir() or QgsProject.instance().homePath() or str(Path.home())
        suffix = "png" if kind == "chart" else kind
        start = str(Path(folder) / f"{file_stem(question)}.{suffix}")
        path, chosen = QFileDialog.getSaveFileName(self, self.tr("Export the answer"), start, EXPORT_FILTERS[kind])
        if path and kind == "chart" and not Path(path).suffix.lower() in (".png", ".svg"):
            path = str(with_suffix(path, ".svg" if "svg" in chosen.lower() else ".png"))
        return path

    def _write_export(self, kind: str, path: str, last: Any) -> Path:
        layers = [l for l in last.presented.layers if _alive(l)] if last.presented else []
        a = last.answer
        if kind == "gpkg":
            return export_gpkg(path, last.entry, layers, a.columns, a.rows)
        if kind == "csv":
            return export_csv(path, last.entry, a.columns, a.rows, a.geometry_column)
        if kind == "chart":
            return self.chart.save(path)
        canvas = self.iface.mapCanvas() if self.iface is not None else None
        background = [l for l in (canvas.layers() if canvas else []) if l not in layers and not is_mapask_layer(l)]
        crs = canvas.mapSettings().destinationCrs() if canvas else None
        if not background and layers:  # an empty project: draw the pack's areas for context
            extent = combined_extent(layers, layers[0].crs(), QgsProject.instance())
            background = context_layers(self.session.pack(), extent, self.session.settings.connection,
                                        answer=layers)
            crs = layers[0].crs()
        return export_png(path, last.entry, layers, crs, None, background)

    # ---- project life cycle
    def project_writing(self, *_document: Any) -> None:
        """QGIS is saving the project: check the saved file once it is written (see ProjectAudit.save_started)."""
        self.session.audit.save_started()

    def _save_failed(self, text: str) -> None:
        self.save_warning.setText(text)
        self.save_warning.show()
        self.notify(text, True, "save")

    def project_read(self) -> None:
        self.save_warning.hide()  # it was about the project that was open before
        self.messages.clear()
        self.session.reset()
        self.session.audit.load()
        self._update_state()
        ids = [i for e in self.session.audit.store.entries for i in (e.get("layer_ids") or []) if isinstance(i, str)]
        failed = self.logins.report(ids)
        if failed:
            self.notify(failed, True, "connection", LOGIN_SECONDS)

    def reset(self) -> None:
        """Forget the current question and history; called when QGIS starts a new or other project."""
        self.question_edit.clear()
        self.save_warning.hide()
        self.messages.clear()
        self.logins.reset()  # QGIS clears the project before reading the next one
        self.session.reset()
        self.answer_view.clear()
        self.details.show_answer(None)
        show_rows(self.table, [], [], None)
        self.chart.show_answer(None)
        self._update_state()

    def shutdown(self) -> None:
        """Plugin unload: stop a running question first, so nothing calls back into a deleted dock."""
        self.session.shutdown()
        self.logins.close()
        self.messages.clear()
