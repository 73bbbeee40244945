"""Screenshots of the dock (offscreen grab) and of the answer's map, written to out/screenshots/ to be looked at."""

from pathlib import Path

from mapask_qgis_helpers import ROOT, ask, dock, module, pg_connection  # noqa: F401 (fixtures)
from qgis.core import QgsProject
from qgis.PyQt.QtCore import QCoreApplication
from qgis.PyQt.QtGui import QImage

OUT = ROOT / "out" / "screenshots"


def grab(widget, name: str) -> Path:
    QCoreApplication.processEvents()
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}.png"
    assert widget.grab().save(str(path))
    image = QImage(str(path))
    assert not image.isNull() and image.width() > 300
    return path


def test_screenshots_of_dock_tabs_and_map(dock):
    dock.show()
    shown = ask(dock, "pedestrian crashes within 150 m of cambridge public schools by school")
    grab(dock, "dock_answer")
    dock.tabs.setCurrentIndex(dock.TAB_TABLE)
    grab(dock, "dock_table")
    dock.tabs.setCurrentIndex(dock.TAB_CHART)
    grab(dock, "dock_chart")
    dock.tabs.setCurrentIndex(dock.TAB_DETAILS)
    grab(dock, "dock_details")
    ask(dock, "show crashes within 1000 feet of cambridgeport school")
    grab(dock, "dock_answer_proximity")
    ask(dock, "trend of pedestrian crashes over the years")
    dock.tabs.setCurrentIndex(dock.TAB_CHART)
    grab(dock, "dock_chart_trend")
    ask(dock, "crashes in paris")
    grab(dock, "dock_asked_back")
    ask(dock, "top 5 towns with the most crashes")
    dock.session.review(dock.session.last.entry["id"], "approved", "matches the MassDOT top-crash list")
    dock.tabs.setCurrentIndex(dock.TAB_HISTORY)
    grab(dock, "dock_history")
    # the maps, drawn by QGIS's renderer as the PNG export does
    export = module("plugin.qgis.export")
    export.export_png(OUT / "map_top_towns.png", dock.session.last.entry, dock.session.last.presented.layers)
    export.export_png(OUT / "map_schools.png", shown.entry, shown.presented.layers)
    dock.hide()
    assert QgsProject.instance().layerTreeRoot().findGroup("MapAsk") is not None
