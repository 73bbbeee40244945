"""Render layers to a PNG with QGIS's own map renderer, or lay them out as a printed map; works headless."""

import textwrap
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence, Tuple, Union

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsLayoutExporter,
    QgsLayoutItem,
    QgsLayoutItemLabel,
    QgsLayoutItemLegend,
    QgsLayoutItemMap,
    QgsLayoutItemPage,
    QgsLayoutItemPicture,
    QgsLayoutItemScaleBar,
    QgsLayoutPoint,
    QgsLayoutSize,
    QgsMapLayer,
    QgsMapLayerLegendUtils,
    QgsMapRendererParallelJob,
    QgsMapSettings,
    QgsPrintLayout,
    QgsProject,
    QgsRectangle,
    QgsUnitTypes,
)
from qgis.PyQt.QtCore import QSize
from qgis.PyQt.QtGui import QColor

from .styles import installed_font


class RenderError(RuntimeError):
    """The map could not be rendered or the image not written."""


def render_png(
    layers: Sequence[QgsMapLayer],
    extent: QgsRectangle,
    path: Union[str, Path],
    crs: QgsCoordinateReferenceSystem,
    width: int = 1600,
    margin: float = 0.03,
    background: str = "white",
) -> Path:
    """Draw `layers` (first one on top, as in the layer panel) over `extent` into a PNG.

    The height follows the extent's aspect ratio so the map is not stretched; `margin` widens
    the extent by that fraction on every side so features on its edge are not cut in half.
    """
    if extent.isEmpty():
        raise RenderError("cannot render an empty extent")
    padded = QgsRectangle(extent)
    padded.grow(max(extent.width(), extent.height()) * margin)
    height = max(1, round(width * padded.height() / padded.width()))

    settings = QgsMapSettings()
    settings.setLayers(list(layers))
    settings.setDestinationCrs(crs)
    settings.setExtent(padded)
    settings.setOutputSize(QSize(width, height))
    settings.setBackgroundColor(QColor(background))
    settings.setFlag(QgsMapSettings.Antialiasing, True)
    settings.setFlag(QgsMapSettings.DrawLabeling, True)

    job = QgsMapRendererParallelJob(settings)
    job.start()
    job.waitForFinished()  # blocks; fine for a script or a worker, not for the GUI thread
    errors = [f"{e.layerID}: {e.message}" for e in job.errors()]
    if errors:
        raise RenderError("rendering failed: " + "; ".join(errors))

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not job.renderedImage().save(str(path), "PNG"):
        raise RenderError(f"could not write {path}")
    return path


# ---- a print layout: the map as a planner would print it ------------------------------------------

PAGE_MM = (297.0, 210.0)  # A4 landscape
MARGIN_MM = 10.0
LEGEND_MM = 70.0  # width of the legend column on the right of the map
LEGEND_CHARS = 30  # a longer legend line is wrapped to fit that column
NORTH_ARROW = ":/images/north_arrows/layout_default_north_arrow.svg"  # shipped inside QGIS's resources


def _label(layout: QgsPrintLayout, text: str, size: float, bold: bool = False,
           colour: str = "#202020") -> QgsLayoutItemLabel:
    item = QgsLayoutItemLabel(layout)
    item.setText(text)
    font = installed_font()
    font.setPointSizeF(size)
    font.setBold(bold)
    item.setFont(font)  # QGIS 3.22 labels take a QFont (a QgsTextFormat only from 3.24)
    item.setFontColor(QColor(colour))
    layout.addLayoutItem(item)
    return item


def _place(item: QgsLayoutItem, x: float, y: float, w: float, h: float) -> None:
    item.attemptMove(QgsLayoutPoint(x, y, QgsUnitTypes.LayoutMillimeters))
    item.attemptResize(QgsLayoutSize(w, h, QgsUnitTypes.LayoutMillimeters))


def _map_item(layout: QgsPrintLayout, layers: Sequence[QgsMapLayer], extent: QgsRectangle,
              crs: QgsCoordinateReferenceSystem, box: Tuple[float, float, float, float]) -> QgsLayoutItemMap:
    item = QgsLayoutItemMap(layout)
    layout.addLayoutItem(item)
    _place(item, *box)  # in the layout first: sizes in millimetres need its units
    item.setCrs(crs)
    item.setLayers(list(layers))
    item.setKeepLayerSet(True)  # the answer's layers, whatever the project shows meanwhile
    item.setFrameEnabled(True)
    padded = QgsRectangle(extent)
    padded.grow(max(extent.width(), extent.height()) * 0.04)
    item.setExtent(fit_extent(padded, box[2] / box[3]))
    return item


def fit_extent(extent: QgsRectangle, ratio: float) -> QgsRectangle:
    """`extent` widened in one direction to the width/height `ratio` of a frame, so nothing is stretched.

    (QgsLayoutItemMap.zoomToExtent does this from the map's current extent, which a new item does not have
    yet: in QGIS 3.22 it then divides zero by zero.)
    """
    out = QgsRectangle(extent)
    if out.width() < out.height() * ratio:
        half = out.height() * ratio / 2
        out.setXMinimum(extent.center().x() - half)
        out.setXMaximum(extent.center().x() + half)
    else:
        half = out.width() / ratio / 2
        out.setYMinimum(extent.center().y() - half)
        out.setYMaximum(extent.center().y() + half)
    return out


def _legend(layout: QgsPrintLayout, map_item: QgsLayoutItemMap, entries: Sequence[Tuple[QgsMapLayer, str]],
            x: float, y: float) -> QgsLayoutItemLegend:
    """A legend of the given layers only (not the whole project), each under a short label of its own."""
    legend = QgsLayoutItemLegend(layout)
    layout.addLayoutItem(legend)  # before the tree is filled: adding it copies the tree afresh
    legend.setTitle("Legend")
    legend.setLinkedMap(map_item)
    legend.setAutoUpdateModel(False)  # the legend now owns a copy of the project's tree: empty it, then fill it
    root = legend.model().rootGroup()
    root.removeAllChildren()
    for layer, label in entries:
        label = "\n".join(textwrap.wrap(label, LEGEND_CHARS)) or label  # the legend column has a fixed width
        node = root.addLayer(layer)
        node.setCustomProperty("legend/title-label", label)
        if len(legend.model().layerLegendNodes(node)) == 1:
            # a single symbol shares the layer's line, and QGIS 3.22 labels it with the layer's name
            QgsMapLayerLegendUtils.setLegendNodeUserLabel(node, 0, label)
            legend.model().refreshLayerLegend(node)
    legend.setSymbolWidth(6)
    legend.setSymbolHeight(4)
    legend.attemptMove(QgsLayoutPoint(x, y, QgsUnitTypes.LayoutMillimeters))
    legend.adjustBoxSize()
    return legend


def _scale_bar(layout: QgsPrintLayout, map_item: QgsLayoutItemMap, x: float, y: float) -> QgsLayoutItemScaleBar:
    bar = QgsLayoutItemScaleBar(layout)
    bar.setStyle("Single Box")
    bar.setLinkedMap(map_item)
    bar.applyDefaultSize(bar.guessUnits())  # metres or kilometres, a round length about a fifth of the map
    bar.setBackgroundEnabled(True)  # readable over drawn features
    layout.addLayoutItem(bar)
    bar.attemptMove(QgsLayoutPoint(x, y, QgsUnitTypes.LayoutMillimeters))
    return bar


def _north_arrow(layout: QgsPrintLayout, map_item: QgsLayoutItemMap, x: float, y: float) -> QgsLayoutItemPicture:
    arrow = QgsLayoutItemPicture(layout)
    arrow.setPicturePath(NORTH_ARROW)
    arrow.setLinkedMap(map_item)  # turns with the map if it is ever rotated
    layout.addLayoutItem(arrow)
    _place(arrow, x, y, 9, 14)
    return arrow


def map_layout(project: QgsProject, layers: Sequence[QgsMapLayer], legend: Sequence[Tuple[QgsMapLayer, str]],
               extent: QgsRectangle, crs: QgsCoordinateReferenceSystem, title: str, note: str,
               subtitle: str = "") -> QgsPrintLayout:
    """An A4 landscape layout: title, subtitle, map of `layers` (first on top), legend, scale bar, north arrow,
    note.

    `legend` pairs layers with the label each shows in the legend; `subtitle` is the answer in words (its
    number is on the page whatever the map can show); `note` says where the map comes from.
    """
    if extent.isEmpty():
        raise RenderError("cannot lay out an empty extent")
    width, height = PAGE_MM
    layout = QgsPrintLayout(project)
    layout.initializeDefaults()  # one A4 page
    layout.pageCollection().page(0).setPageSize("A4", QgsLayoutItemPage.Landscape)
    layout.setName(title[:80])
    m = MARGIN_MM
    title_item = _label(layout, title, 15, bold=True)
    title_item.setId("title")
    _place(title_item, m, 5, width - 2 * m, 9)
    answer_item = _label(layout, subtitle, 9.5, colour="#24292f")
    answer_item.setId("answer")
    _place(answer_item, m, 14, width - 2 * m, 11)
    box = (m, 26, width - 3 * m - LEGEND_MM, height - 26 - 18)
    map_item = _map_item(layout, layers, extent, crs, box)
    map_item.setId("map")
    _legend(layout, map_item, legend, box[0] + box[2] + m, box[1]).setId("legend")
    _scale_bar(layout, map_item, box[0] + 3, box[1] + box[3] - 14).setId("scale bar")
    _north_arrow(layout, map_item, box[0] + box[2] - 13, box[1] + 3).setId("north arrow")
    note_item = _label(layout, note, 7.5, colour="#57606a")
    note_item.setId("note")
    _place(note_item, m, height - 16, width - 2 * m, 10)
    return layout


@contextmanager
def _quiet_gdal() -> Iterator[None]:
    """Hush GDAL while QGIS exports a PNG: it tries to georeference the file in place, which the PNG driver
    cannot do, and says so on stderr ("ERROR 6") although the image is written whole."""
    try:
        from osgeo import gdal
    except ImportError:
        yield
        return
    gdal.PushErrorHandler("CPLQuietErrorHandler")
    try:
        yield
    finally:
        gdal.PopErrorHandler()


def export_layout_png(layout: QgsPrintLayout, path: Union[str, Path], width: int = 1600) -> Path:
    """The layout's first page as a PNG `width` pixels wide (the height follows the page's shape)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    settings = QgsLayoutExporter.ImageExportSettings()
    settings.dpi = width * 25.4 / PAGE_MM[0]
    settings.exportMetadata = False  # the caller writes its own provenance into the PNG
    with _quiet_gdal():
        result = QgsLayoutExporter(layout).exportToImage(str(path), settings)
    if result != QgsLayoutExporter.Success:
        raise RenderError(f"could not write {path} (layout export error {result})")
    return path
