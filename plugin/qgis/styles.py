"""Apply the .qml styles shipped in resources/styles/ to layers."""

from typing import Optional

from qgis.core import (
    QgsClassificationJenks,
    QgsFillSymbol,
    QgsGeometryGeneratorSymbolLayer,
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
    QgsWkbTypes,
)
from qgis.PyQt.QtGui import QColor, QFont, QFontInfo, QPainter

import re

from .paths import STYLES_DIR, style_path


ANSWER_LABELS = 10   # label priority of an answer's own labels (QGIS's highest)
CONTEXT_LABELS = 1   # background names: placed only where no answer label wants the room
SEARCH_FILL = "255,236,150"   # multiplied over the map: a pale tint that keeps what lies below readable
SEARCH_EDGE = "180,120,0"


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

    The overrides let one generic style serve many layers (two kinds of point
    feature can share 'point') without a .qml file per layer. `color` is "#rrggbb"; `size` is the marker size
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


def apply_graduated(layer: QgsVectorLayer, field: str, classes: int = 5, template: str = "graduated_count") -> None:
    """Apply a graduated template to `field`, with Jenks classes computed from the layer.

    Never more classes than distinct values (Jenks invents empty classes otherwise). Markers also
    grow with their class, so a count reads on a point map without a legend.
    """
    apply_style(layer, template)
    renderer = layer.renderer()
    if not isinstance(renderer, QgsGraduatedSymbolRenderer):
        raise StyleError(f"{template}.qml does not hold a graduated renderer")
    index = layer.fields().indexOf(field)
    distinct = len(layer.uniqueValues(index)) if index >= 0 else classes
    renderer.setClassAttribute(field)
    renderer.setClassificationMethod(QgsClassificationJenks())
    renderer.updateClasses(layer, max(1, min(classes, distinct)))
    if 1 < distinct <= classes:
        _one_class_per_value(renderer, sorted(v for v in layer.uniqueValues(index) if v is not None))
    for i, rng in enumerate(renderer.ranges()):
        if rng.lowerValue() == rng.upperValue():  # "0" rather than "0 - 0"
            renderer.updateRangeLabel(i, _number(rng.upperValue()))
    for i, rng in enumerate(renderer.ranges()):
        if isinstance(rng.symbol(), QgsMarkerSymbol):
            symbol = rng.symbol().clone()
            symbol.setSize(2.5 + 1.4 * i)
            renderer.updateRangeSymbol(i, symbol)
    layer.triggerRepaint()


def _one_class_per_value(renderer: QgsGraduatedSymbolRenderer, values: list) -> None:
    """A class for each value, in order, labelled with it.

    With no more values than classes QGIS 3.22's Jenks returns the values as breaks in feature order,
    unsorted, which gives ranges such as "362 - 249"; sorted values are the natural breaks anyway.
    """
    if len(values) != len(renderer.ranges()):
        return
    for i, value in enumerate(values):
        renderer.updateRangeLowerValue(i, float(values[i - 1] if i else value))
        renderer.updateRangeUpperValue(i, float(value))
        renderer.updateRangeLabel(i, _number(value))


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def installed_font() -> QFont:
    """The default font under the name of the family actually drawn, which is installed on this system.

    The default font can be a family the font database only stands in for (Qt's offscreen platform says
    "DejaVu LGC Sans"); a style saving that name makes QGIS warn "Font not available" when it loads it.
    """
    font = QFont()
    font.setFamily(QFontInfo(font).family())
    return font


def label_layer(layer: QgsVectorLayer, field: str, size: float = 9.0, expression: bool = False,
                priority: int = 5, show_all: bool = False, inside: bool = False, bold: bool = False) -> None:
    """Label features with `field` (or an expression) in dark grey with a white halo, readable over any style.

    `priority` (0-10) decides who gets the room when labels collide; `show_all` draws every label even over
    another (an answer's few numbers must all be on the map); `inside` keeps a polygon's name inside it."""
    text = QgsTextFormat()
    font = installed_font()
    font.setBold(bold)
    text.setFont(font)
    text.setSize(size)
    text.setColor(QColor("#303030"))
    halo = QgsTextBufferSettings()
    halo.setEnabled(True)
    halo.setSize(0.8)
    halo.setColor(QColor("white"))
    text.setBuffer(halo)
    settings = QgsPalLayerSettings()
    settings.fieldName = field
    settings.isExpression = expression
    settings.setFormat(text)
    settings.priority = priority
    settings.displayAll = show_all
    if inside:
        settings.fitInPolygonOnly = True
    layer.setLabeling(QgsVectorLayerSimpleLabeling(settings))
    layer.setLabelsEnabled(True)


def search_area_expression(distance_m: float) -> str:
    return f"buffer($geometry, {float(distance_m)!r})"


def apply_search_area(layer: QgsVectorLayer, distance_m: float) -> None:
    """Draw the area within `distance_m` of each feature (in the layer's CRS units) as one tinted area.

    The features stay what the database returned (the guard allows no buffering in SQL): a geometry generator
    buffers them while drawing. Every edge is drawn first and every fill over it (symbol levels), so where two
    areas overlap no inner edge shows, and the fill is multiplied over the map, so nothing under it is hidden.
    """
    symbol = {QgsWkbTypes.PointGeometry: QgsMarkerSymbol, QgsWkbTypes.LineGeometry: QgsLineSymbol}.get(
        layer.geometryType(), QgsFillSymbol)()
    symbol.deleteSymbolLayer(0)
    edge = QgsFillSymbol.createSimple({"style": "no", "outline_color": SEARCH_EDGE, "outline_style": "dash",
                                       "outline_width": "0.6"})
    fill = QgsFillSymbol.createSimple({"color": SEARCH_FILL, "outline_style": "no"})
    for rendering_pass, sub in enumerate((edge, fill)):
        generator = QgsGeometryGeneratorSymbolLayer.create({"geometryModifier": search_area_expression(distance_m),
                                                            "SymbolType": "Fill"})
        generator.setSubSymbol(sub)
        generator.setRenderingPass(rendering_pass)
        symbol.appendSymbolLayer(generator)
    renderer = QgsSingleSymbolRenderer(symbol)
    renderer.setUsingSymbolLevels(True)
    layer.setRenderer(renderer)
    layer.setBlendMode(QPainter.CompositionMode_Multiply)
    layer.triggerRepaint()


def style_classifying(field: str) -> Optional[str]:
    """The shipped categorised style whose classes are values of `field` (e.g. a pack's severity field), if any.

    Looked up by the field the .qml classifies rather than by file name, so no domain word lives in code.
    """
    pattern = re.compile(r'<renderer-v2[^>]*\battr="([^"]*)"[^>]*\btype="categorizedSymbol"'
                         r'|<renderer-v2[^>]*\btype="categorizedSymbol"[^>]*\battr="([^"]*)"')
    for path in sorted(STYLES_DIR.glob("*.qml")):
        match = pattern.search(path.read_text(encoding="utf-8", errors="replace"))
        if match and field in match.groups():
            return path.stem
    return None
