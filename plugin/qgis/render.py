"""Render layers to a PNG with QGIS's own map renderer; works headless (QT_QPA_PLATFORM=offscreen)."""

from pathlib import Path
from typing import Sequence, Union

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsMapLayer,
    QgsMapRendererParallelJob,
    QgsMapSettings,
    QgsRectangle,
)
from qgis.PyQt.QtCore import QSize
from qgis.PyQt.QtGui import QColor


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
