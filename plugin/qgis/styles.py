"""Apply the .qml styles shipped in resources/styles/ to layers."""

from typing import Optional

from qgis.core import (
    QgsClassificationJenks,
    QgsFillSymbol,
    QgsGraduatedSymbolRenderer,
    QgsLineSymbol,
    QgsMarkerSymbol,
    QgsPalLayerSettings,
    QgsSingleSymbolRenderer,
    QgsSymbol,
    QgsTextBufferSettings,
    QgsTextFormat,
    QgsVectorLayer,
    QgsVectorLayerSimpleLabeling,
)
from qgis.PyQt.QtGui import QColor

from .paths import style_path


class StyleError(RuntimeError):
    """A style file could not be applied to a layer."""


def apply_style(
    layer: QgsVectorLayer,
    name: str,
    color: Optional[str] = None,
    size: Optional[float] = None,
    opacity: Optional[float] = None,
) -> None:
    """Load resources/styles/<name>.qml into `layer`, then optionally adjust a single symbol.

    The overrides let one generic style serve many layers (schools and bus stops both use
    'point') without a .qml file per layer. `color` is "#rrggbb"; `size` is the marker size
    or line width in mm; for fills both apply to the outline, since the only single-symbol
    polygon style is outline-only. `opacity` runs from 0 (invisible) to 1.
    """
    message, ok = layer.loadNamedStyle(str(style_path(name)))
    if not ok:
        raise StyleError(f"style {name!r} not applied to {layer.name()}: {message}")
    renderer = layer.renderer()
    if isinstance(renderer, QgsSingleSymbolRenderer):
        _adjust_symbol(renderer.symbol(), color, size, opacity)
    layer.triggerRepaint()


def _adjust_symbol(
    symbol: QgsSymbol, color: Optional[str], size: Optional[float], opacity: Optional[float]
) -> None:
    """Apply the overrides of apply_style() to one symbol, by geometry kind."""
    if isinstance(symbol, QgsFillSymbol):
        for index in range(symbol.symbolLayerCount()):
            symbol_layer = symbol.symbolLayer(index)
            if color:
                symbol_layer.setStrokeColor(QColor(color))
            if size is not None and hasattr(symbol_layer, "setStrokeWidth"):
                symbol_layer.setStrokeWidth(size)
    else:
        if color:
            symbol.setColor(QColor(color))
        if size is not None and isinstance(symbol, QgsMarkerSymbol):
            symbol.setSize(size)
        elif size is not None and isinstance(symbol, QgsLineSymbol):
            symbol.setWidth(size)
    if opacity is not None:
        symbol.setOpacity(opacity)


def apply_graduated(layer: QgsVectorLayer, field: str, classes: int = 5) -> None:
    """Apply the graduated_count template to `field`, with Jenks classes computed from the layer."""
    apply_style(layer, "graduated_count")
    renderer = layer.renderer()
    if not isinstance(renderer, QgsGraduatedSymbolRenderer):
        raise StyleError("graduated_count.qml does not hold a graduated renderer")
    renderer.setClassAttribute(field)
    renderer.setClassificationMethod(QgsClassificationJenks())
    renderer.updateClasses(layer, classes)
    layer.triggerRepaint()


def label_layer(layer: QgsVectorLayer, field: str, size: float = 9.0) -> None:
    """Label features with `field` in dark grey with a white halo, readable over any style."""
    text = QgsTextFormat()
    text.setSize(size)
    text.setColor(QColor("#303030"))
    halo = QgsTextBufferSettings()
    halo.setEnabled(True)
    halo.setSize(0.8)
    halo.setColor(QColor("white"))
    text.setBuffer(halo)
    settings = QgsPalLayerSettings()
    settings.fieldName = field
    settings.setFormat(text)
    layer.setLabeling(QgsVectorLayerSimpleLabeling(settings))
    layer.setLabelsEnabled(True)
