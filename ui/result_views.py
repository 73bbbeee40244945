"""The answer's table (sortable, without geometry) and a simple chart for trends, comparisons and rankings."""

import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, List, Optional

from qgis.PyQt.QtCore import QAbstractTableModel, QModelIndex, QSortFilterProxyModel, Qt
from qgis.PyQt.QtWidgets import QAbstractItemView, QLabel, QTableView, QVBoxLayout, QWidget

from ..plugin.core.layer_sql import value_column

MAX_BARS = 20
TITLE_POINTS = 9
TITLE_LINES = 2
MIN_LAYOUT_PX = (200, 150)


class RowsModel(QAbstractTableModel):
    """Read-only rows of an answer; numbers sort as numbers."""

    def __init__(self, columns: List[str], rows: List[list], hidden: Optional[str] = None,
                 headers: Optional[List[str]] = None) -> None:
        super().__init__()
        self.keep = [i for i, c in enumerate(columns) if c != hidden]
        self.columns = [columns[i] for i in self.keep]
        # the pack's labels ('town'), not the database's column names ('city_town_name')
        named = headers if headers is not None and len(headers) == len(columns) else columns
        self.headers = [named[i] for i in self.keep]
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
            return self.headers[section] if orientation == Qt.Horizontal else str(section + 1)
        if role == Qt.ToolTipRole and orientation == Qt.Horizontal:
            return self.columns[section]  # the column's own name, for whoever reads the SQL
        return None


def make_table(parent: QWidget) -> QTableView:
    view = QTableView(parent)
    view.setObjectName("resultTable")
    view.setSortingEnabled(True)
    view.setSelectionBehavior(QAbstractItemView.SelectRows)
    view.setEditTriggers(QAbstractItemView.NoEditTriggers)
    view.setAlternatingRowColors(True)
    return view


def show_rows(view: QTableView, columns: List[str], rows: List[list], hidden: Optional[str],
              headers: Optional[List[str]] = None) -> RowsModel:
    model = RowsModel(columns, rows, hidden, headers)
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


def chart_data(answer: Any, headers: Optional[List[str]] = None) -> Optional[ChartData]:
    """What to chart for an aggregated answer: a line for trends, bars for comparisons and rankings.

    `headers`: the columns in plain words (the value axis is labelled with the measure's)."""
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
    if headers is not None and len(headers) == len(cols):
        value = headers[vi]
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
        self.title_text = None  # the figure's title (a matplotlib Text), re-wrapped when the chart is resized
        self.data: Optional[ChartData] = None
        try:
            from matplotlib.backends.backend_qt5agg import FigureCanvasQTAgg
            from matplotlib.figure import Figure
        except ImportError:  # charts are a convenience; the table always has the numbers
            self.message.setText(self.tr("Charts need matplotlib, which this QGIS does not have."))
            return
        # constrained layout finds room for the title and the tick labels at every size the dock takes
        self.figure = Figure(figsize=(4, 3), dpi=90, constrained_layout=True)
        self.canvas = FigureCanvasQTAgg(self.figure)
        self.canvas.setParent(self)
        self.canvas.mpl_connect("resize_event", lambda _event: self._fit_to_size())
        self.layout_.addWidget(self.canvas, 1)
        self.show_answer(None)

    def show_answer(self, answer: Any, headers: Optional[List[str]] = None) -> bool:
        """Draw the chart for `answer`; False (and a short message) when there is nothing to chart."""
        self.data = chart_data(answer, headers) if answer is not None else None
        if self.figure is None:
            return False
        self.figure.clear()
        self.title_text = None
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
            # a count's trend read from a cut axis exaggerates every change: start at zero
            ax.set_ylim(bottom=min(0.0, min(d.values)), top=max(d.values) * 1.08 if max(d.values) > 0 else None)
            ax.set_xticks(range(len(d.labels)))
            ax.set_xticklabels(d.labels, rotation=45 if len(d.labels) > 8 else 0, ha="right" if len(d.labels) > 8 else "center")
        elif d.kind == "bar":
            ax.bar(d.labels, d.values, color="#fd8d3c")
        else:
            ax.barh(list(reversed(d.labels)), list(reversed(d.values)), color="#fd8d3c")
            ax.tick_params(axis="y", labelsize=8)
        self.title_text = self.figure.suptitle("", fontsize=TITLE_POINTS)
        self._fit_title()
        ax.set_ylabel(d.ylabel if d.kind != "barh" else "")
        if d.kind == "barh":
            ax.set_xlabel(d.ylabel)
        ax.grid(True, axis="x" if d.kind == "barh" else "y", alpha=0.3)
        self.canvas.draw_idle()
        return True

    def save(self, path: str) -> Path:
        """The chart as a PNG or an SVG (by the name's suffix; PNG when it has none), as wide as a page column."""
        if self.figure is None or self.data is None:
            raise ValueError("there is no chart for this answer")
        out = Path(path)
        if out.suffix.lower() not in (".png", ".svg"):
            out = out.with_name(out.name + ".png")
        out.parent.mkdir(parents=True, exist_ok=True)
        size, dpi = self.figure.get_size_inches(), self.figure.dpi
        try:
            self.figure.set_size_inches(8, 5)  # the dock's size is whatever the user dragged it to
            self._constrained(True)
            self._fit_title()
            self.figure.savefig(str(out), format=out.suffix[1:].lower(), dpi=150)
        finally:
            self.figure.set_size_inches(*size)
            self.figure.set_dpi(dpi)
            self._fit_to_size()
            self.canvas.draw_idle()
        return out

    def title_lines(self) -> List[str]:
        """The question as the chart's title, wrapped to the figure's width (never cut off at its edge)."""
        if self.data is None or self.figure is None:
            return []
        width_px = self.figure.get_figwidth() * self.figure.dpi
        chars = max(24, int(width_px / (TITLE_POINTS * 0.62 * self.figure.dpi / 72)))  # average glyph width
        return textwrap.wrap(self.data.title, chars, max_lines=TITLE_LINES, placeholder=" …")

    def _fit_to_size(self) -> None:
        """On resize: re-wrap the title; lay out only when there is room (a hidden tab's canvas is tiny, and
        constrained layout then warns that the axes collapsed)."""
        roomy = self.canvas.width() >= MIN_LAYOUT_PX[0] and self.canvas.height() >= MIN_LAYOUT_PX[1]
        self._constrained(roomy)
        self._fit_title()

    def _constrained(self, on: bool) -> None:
        if hasattr(self.figure, "set_layout_engine"):  # matplotlib 3.6 and later
            self.figure.set_layout_engine("constrained" if on else "none")
        else:
            self.figure.set_constrained_layout(on)

    def _fit_title(self) -> None:
        if self.title_text is not None:
            self.title_text.set_text("\n".join(self.title_lines()))
