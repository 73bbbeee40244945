"""MapAsk settings: knowledge pack, user pack for promoted examples, model, row cap, time limit and cost gate (stored in QgsSettings)."""

from typing import Optional

from qgis.gui import QgsFileWidget
from qgis.PyQt.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QRadioButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from ..plugin.core.pg_opinion import available as second_opinion
from ..plugin.qgis.settings import Settings, default_pack_dir, default_user_pack_dir


class SettingsDialog(QDialog):
    """Edits a copy of the settings; `result_settings()` gives the edited copy after Accept."""

    def __init__(self, settings: Settings, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("MapAsk settings"))
        self.setObjectName("MapAskSettings")
        self.settings = settings
        form = QFormLayout()
        self.pack_dir = QgsFileWidget(self)
        self.pack_dir.setStorageMode(QgsFileWidget.GetDirectory)
        self.pack_dir.setFilePath(settings.pack_dir)
        self.pack_dir.lineEdit().setPlaceholderText(default_pack_dir())
        form.addRow(self.tr("Knowledge pack folder"), self.pack_dir)
        self.user_pack_dir = QgsFileWidget(self)
        self.user_pack_dir.setStorageMode(QgsFileWidget.GetDirectory)
        self.user_pack_dir.setFilePath(settings.user_pack_dir)
        self.user_pack_dir.lineEdit().setPlaceholderText(default_user_pack_dir())
        form.addRow(self.tr("User pack (promoted examples)"), self.user_pack_dir)

        self.model_none = QRadioButton(self.tr("None: rules interpreter only"), self)
        self.model_gguf = QRadioButton(self.tr("Local GGUF file"), self)
        self.model_server = QRadioButton(self.tr("Server (OpenAI-compatible URL)"), self)
        self.model_group = QButtonGroup(self)
        for b in (self.model_none, self.model_gguf, self.model_server):
            self.model_group.addButton(b)
        self.model_path = QgsFileWidget(self)
        self.model_path.setFilter(self.tr("GGUF models (*.gguf)"))
        self.model_path.setFilePath(settings.model_path)
        self.model_url = QLineEdit(settings.model_url, self)
        self.model_url.setPlaceholderText("http://127.0.0.1:8000/v1")
        model_box = QVBoxLayout()
        model_box.addWidget(self.model_none)
        gguf_row = QHBoxLayout()
        gguf_row.addWidget(self.model_gguf)
        gguf_row.addWidget(self.model_path, 1)
        model_box.addLayout(gguf_row)
        server_row = QHBoxLayout()
        server_row.addWidget(self.model_server)
        server_row.addWidget(self.model_url, 1)
        model_box.addLayout(server_row)
        self.model_judge = QCheckBox(self.tr("Let the model check each answer"), self)
        self.model_judge.setObjectName("modelJudge")
        self.model_judge.setChecked(settings.model_judge)
        model_box.addWidget(self.model_judge)
        note = QLabel(self.tr("The model only interprets and comments: its check can only lower the confidence, "
                              "every query is still checked and run read-only, and the rules answer stands unless "
                              "the rules cannot answer."), self)
        note.setObjectName("modelNote")
        note.setWordWrap(True)
        note.setStyleSheet("color: #57606a")
        model_box.addWidget(note)
        # a box of its own, not a form row: a wrapped label nested in a QFormLayout row is given the height of
        # one line (Qt does not pass height-for-width through it), which clipped this note
        model_group = QGroupBox(self.tr("Model"), self)
        model_group.setLayout(model_box)
        {"gguf": self.model_gguf, "server": self.model_server}.get(settings.model_kind, self.model_none).setChecked(True)

        limits = QFormLayout()
        self.row_cap = QSpinBox(self)
        self.row_cap.setRange(1, 1_000_000)
        self.row_cap.setValue(settings.row_cap)
        limits.addRow(self.tr("Row cap"), self.row_cap)
        self.timeout = QSpinBox(self)
        self.timeout.setRange(1, 3600)
        self.timeout.setSuffix(" s")
        self.timeout.setValue(settings.timeout_s)
        limits.addRow(self.tr("Query time limit"), self.timeout)
        # off by default: the planner's estimate is a rough unit-less number; the time limit is the real bound
        self.cost_gate = QCheckBox(self.tr("Refuse queries estimated above"), self)
        self.cost_gate.setObjectName("costGate")
        self.cost_gate.setChecked(settings.cost_gate)
        self.cost_limit = QSpinBox(self)
        self.cost_limit.setObjectName("costLimit")
        self.cost_limit.setRange(1, 2_000_000_000)
        self.cost_limit.setSingleStep(100_000)
        self.cost_limit.setValue(min(settings.cost_limit, 2_000_000_000))
        self.cost_limit.setToolTip(self.tr("PostgreSQL's EXPLAIN total cost (no query is run to estimate it)"))
        self.cost_limit.setEnabled(settings.cost_gate)
        self.cost_gate.toggled.connect(self.cost_limit.setEnabled)
        cost_row = QHBoxLayout()
        cost_row.addWidget(self.cost_gate)
        cost_row.addWidget(self.cost_limit, 1)
        limits.addRow(self.tr("Cost limit"), cost_row)
        by = second_opinion()
        self.opinion = QLabel(self.tr("PostgreSQL's own parser ({0}) checks every query a second time").format(by)
                              if by else self.tr("Without a second opinion: PostgreSQL's parser (the pglast package) "
                                                 "is not installed, so only the guard's own check runs"), self)
        self.opinion.setObjectName("guardOpinion")
        self.opinion.setWordWrap(True)
        limits.addRow(self.tr("SQL check"), self.opinion)

        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel, self)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(model_group)
        layout.addLayout(limits)
        passwords = QLabel(self.tr("Passwords are never stored by MapAsk: they stay in QGIS's saved "
                                   "connection or its authentication database."), self)
        passwords.setObjectName("passwordNote")
        passwords.setWordWrap(True)
        layout.addWidget(passwords)
        layout.addStretch(1)
        layout.addWidget(buttons)
        self.setSizeGripEnabled(True)
        self.resize(560, self.sizeHint().height())

    def result_settings(self) -> Settings:
        s = self.settings
        s.pack_dir = self.pack_dir.filePath().strip()
        s.user_pack_dir = self.user_pack_dir.filePath().strip()
        s.model_kind = "gguf" if self.model_gguf.isChecked() else "server" if self.model_server.isChecked() else "none"
        s.model_path = self.model_path.filePath().strip()
        s.model_url = self.model_url.text().strip()
        s.row_cap = self.row_cap.value()
        s.timeout_s = self.timeout.value()
        s.model_judge = self.model_judge.isChecked()
        s.cost_gate = self.cost_gate.isChecked()
        s.cost_limit = self.cost_limit.value()
        return s
