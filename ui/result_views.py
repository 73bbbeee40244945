"""The answer's table (sortable, without geometry) and a simple chart for trends, comparisons and rankings."""

from dataclasses import dataclass
from typing import Any, List, Optional

from qgis.PyQt.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt
from qgis.PyQt.QtWidgets import QAbstractItemView, QLabel, QTableView, QVBoxLayout, QWidget

from ..plugin.core.layer_sql import value_column

MAX_BARS = 20


class RowsModel(QAbstractTableModel):
    """Read-only rows of an answer; numbers sort as numbers."""

    def __init__(self, columns: List[str], rows: List[list], hidden: Optional[str] = None) -> None:
        super().__init__()
        self.keep = [i for i, c in enumerate(columns) if c != hidden]
        self.columns = [columns[i] for i in self.keep]
        self.rows = rows

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802 (Qt API)
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: N802 (Qt API)
        return 0 if parent.isValid() else len(self.columns)

    def data(self, index: QModelIndex, role: int = Qt.DisplayRole) -> Any:
        value = self.rows[index.row()][self.keep[index.column()]]
        if role == Qt.DisplayRole:
            if isinstance(value, float):
                return f"{value:,.2f}"
            return "" if value is None else str(value)
        if role == Qt.UserRole:  # sort key
            return value if isinstance(value, (int, float)) else ("" if value is None else str(value))
        if role == Qt.TextAlignmentRole and isinstance(value, (int, float)) and not isinstance(value, bool):
            return int(Qt.AlignRight | Qt.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: int, role: int = Qt.DisplayRole) -> Any:  # noqa: N802
        if role == Qt.DisplayRole:
            return self.columns[section] if orientation == Qt.Horizontal else str(section + 1)
        return None


def make_table(parent: QWidget) -> QTableView:
    view = QTableView(parent)
    view.setObjectName("resultTable")
    view.setSortingEnabled(True)
    view.setSelectionBehavior(QAbstractItemView.SelectRows)
    view.setEditTriggers(QAbstractItemView.NoEditTriggers)
    view.setAlternatingRowColors(True)
    return view


def show_rows(view: QTableView, columns: List[str], rows: List[list], hidden: Optional[str]) -> RowsModel:
    model = RowsModel(columns, rows, hidden)
    proxy = QSortFilterProxyModel(view)
    proxy.setSourceModel(model)
    proxy.setSortRole(Qt.UserRole)
    view.setModel(proxy)
    view.sortByColumn(-1, Qt.AscendingOrder)  # keep the answer's own order until the user sorts
    view.resizeColumnsToContents()
    return model


@dataclass
class ChartData:
    kind: str          # line | bar | barh
    labels: List[str]
    values: List[float]
    title: str
    ylabel: str


def chart_data(answer: Any) -> Optional[ChartData]:
    """What to chart for an aggregated answer: a line for trends, bars for comparisons and rankings."""
    cols, rows = list(answer.columns), answer.rows
    if answer.geometry_column or len(rows) < 2:
        return None
    value = value_column(cols)
    if value is None:
        return None
    vi = cols.index(value)
    numeric = {i for i, c in enumerate(cols) if all(isinstance(r[i], (int, float)) or r[i] is None for r in rows)}
    label_idx = [i for i, c in enumerate(cols) if i not in numeric and not c.endswith("_order")]
    if not label_idx:  # years, months, hours: numeric labels
        label_idx = [i for i, c in enumerate(cols) if i != vi and not c.endswith("_order")][:1]
    if not label_idx:
        return None
    labels = [" · ".join("" if r[i] is None else str(r[i]) for i in label_idx) for r in rows]
    values = [float(r[vi] or 0) for r in rows]
    frame = answer.frame or {}
    trend = frame.get("intent") == "trend" or any(g.get("kind") == "time" for g in frame.get("group_by") or [])
    if trend:
        return ChartData("line", labels, values, answer.question, value)
    if frame.get("intent") == "compare" or frame.get("compare"):
        return ChartData("bar", labels, values, answer.question, value)
    return ChartData("barh", labels[:MAX_BARS], values[:MAX_BARS], answer.question, value)


class ChartView(QWidget):
    """A matplotlib chart embedded in Qt (QGIS on Debian and Windows ships matplotlib)."""

    def __init__(self, parent: Optional[QWidget] = None) -> None:
        super().__init__(parent)
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.message = QLabel(self)
        self.message.setWordWrap(True)
        self.layout_.addWidget(self.message)
        self.canvas = None
        self.figure = None
        self.data: Optional[ChartData] = None
        try:
            from matplotlib.backends.backend_qt5agg import FigureCanvasQTAgg
            from matplotlib.figure import Figure
        except ImportError:  # charts are a convenience; the table always has the numbers
            self.message.setText(self.tr("Charts need matplotlib, which this QGIS does not have."))
            return
        self.figure = Figure(figsize=(4, 3), dpi=90)
        self.canvas = FigureCanvasQTAgg(self.figure)
        self.canvas.setParent(self)
        self.layout_.addWidget(self.canvas, 1)
        self.show_answer(None)

    def show_answer(self, answer: Any) -> bool:
        """Draw the chart for `answer`; False (and a short message) when there is nothing to chart."""
        self.data = chart_data(answer) if answer is not None else None
        if self.figure is None:
            return False
        self.figure.clear()
        if self.data is None:
            self.message.setText(self.tr("No chart for this answer: charts show trends, comparisons and rankings."))
            self.message.show()
            self.canvas.draw_idle()
            return False
        self.message.hide()
        d = self.data
        ax = self.figure.add_subplot(111)
        if d.kind == "line":
            ax.plot(range(len(d.values)), d.values, marker="o", color="#0969da")
            ax.set_xticks(range(len(d.labels)))
            ax.set_xticklabels(d.labels, rotation=45 if len(d.labels) > 8 else 0, ha="right" if len(d.labels) > 8 else "center")
        elif d.kind == "bar":
            ax.bar(d.labels, d.values, color="#fd8d3c")
        else:
            ax.barh(list(reversed(d.labels)), list(reversed(d.values)), color="#fd8d3c")
            ax.tick_params(axis="y", labelsize=8)
        ax.set_title(d.title[:70], fontsize=9)
        ax.set_ylabel(d.ylabel if d.kind != "barh" else "")
        if d.kind == "barh":
            ax.set_xlabel(d.ylabel)
        ax.grid(True, axis="x" if d.kind == "barh" else "y", alpha=0.3)
        # room for the category names on the left of horizontal bars, for slanted labels below others
        longest = max((len(label) for label in d.labels), default=0)
        left = min(0.55, 0.08 + 0.013 * longest) if d.kind == "barh" else 0.14
        bottom = 0.22 if d.kind != "barh" and len(d.labels) > 8 else 0.12
        self.figure.subplots_adjust(left=left, right=0.97, top=0.92, bottom=bottom)
        self.canvas.draw_idle()
        return True
