"""Regenerate the QML styles in resources/styles/ with PyQGIS, so each file is valid for QGIS 3.22.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/make_styles.py
The .qml files are committed; this script only documents and reproduces how they were made.
"""

from pathlib import Path
from typing import Dict, List, Tuple

from qgis.core import (
    QgsApplication,
    QgsCategorizedSymbolRenderer,
    QgsClassificationJenks,
    QgsFeatureRenderer,
    QgsFillSymbol,
    QgsGradientColorRamp,
    QgsGraduatedSymbolRenderer,
    QgsLineSymbol,
    QgsMapLayer,
    QgsMarkerSymbol,
    QgsRendererCategory,
    QgsRendererRange,
    QgsSingleSymbolRenderer,
    QgsVectorLayer,
)
from qgis.PyQt.QtGui import QColor

STYLES_DIR = Path(__file__).resolve().parents[1] / "resources" / "styles"

# MassDOT's published severity labels, byte for byte (note the trailing space in
# 'Property damage only '): a category only matches when its value is exactly the stored one.
# value -> (colour, size in mm, rendering pass: higher passes are drawn on top)
SEVERITY: Dict[str, Tuple[str, float, int]] = {
    "Fatal injury": ("#a50f15", 4.0, 4),
    "Non-fatal injury": ("#fb6a4a", 2.8, 3),
    "Property damage only ": ("#4f81bd", 2.0, 2),
    "Not Reported": ("#969696", 1.8, 1),
    "Unknown": ("#cccccc", 1.8, 1),
}


def marker(color: str, size: float) -> QgsMarkerSymbol:
    """A filled circle with a thin white outline, readable over dense points."""
    return QgsMarkerSymbol.createSimple(
        {"name": "circle", "color": color, "size": str(size), "outline_color": "255,255,255,200",
         "outline_width": "0.2", "size_unit": "MM"}
    )


def crash_severity() -> QgsFeatureRenderer:
    """Crash points categorised by crash_severity_descr, most severe drawn on top."""
    categories: List[QgsRendererCategory] = []
    for value, (color, size, rendering_pass) in SEVERITY.items():
        symbol = marker(color, size)
        symbol.symbolLayer(0).setRenderingPass(rendering_pass)
        categories.append(QgsRendererCategory(value, symbol, value, True))
    # A catch-all (empty value) so a label the pack does not know yet still shows up.
    other = marker("#000000", 1.6)
    categories.append(QgsRendererCategory("", other, "other value", True))
    renderer = QgsCategorizedSymbolRenderer("crash_severity_descr", categories)
    renderer.setUsingSymbolLevels(True)
    return renderer


def point() -> QgsFeatureRenderer:
    """One symbol for any point layer (schools, stops, result points)."""
    return QgsSingleSymbolRenderer(marker("#1f4e79", 2.4))


def line() -> QgsFeatureRenderer:
    """One thin grey line for streets and other line layers."""
    return QgsSingleSymbolRenderer(
        QgsLineSymbol.createSimple({"line_color": "#8c8c8c", "line_width": "0.3", "capstyle": "round"})
    )


def polygon_outline() -> QgsFeatureRenderer:
    """Outline only, so towns and neighbourhoods frame the data without hiding it."""
    return QgsSingleSymbolRenderer(
        QgsFillSymbol.createSimple(
            {"style": "no", "outline_color": "#404040", "outline_width": "0.6", "joinstyle": "round"}
        )
    )


def graduated_count() -> QgsFeatureRenderer:
    """Template for counts per polygon: 5 Jenks classes on 'count', light yellow to dark red.

    The classes here are placeholders; plugin/qgis/styles.py recomputes them from the layer.
    """
    ramp = QgsGradientColorRamp(QColor("#ffffb2"), QColor("#bd0026"))
    ranges = []
    bounds = [0, 1, 5, 10, 50, 100]
    for i, (low, high) in enumerate(zip(bounds, bounds[1:])):
        symbol = QgsFillSymbol.createSimple({"outline_color": "#606060", "outline_width": "0.2"})
        symbol.setColor(ramp.color(i / (len(bounds) - 2)))
        ranges.append(QgsRendererRange(low, high, symbol, f"{low} - {high}"))
    renderer = QgsGraduatedSymbolRenderer("count", ranges)
    renderer.setSourceColorRamp(ramp)
    renderer.setClassificationMethod(QgsClassificationJenks())
    return renderer


# style name -> (memory layer definition it is saved from, renderer factory)
STYLES = {
    "crash_severity": ("Point?field=crash_severity_descr:string", crash_severity),
    "point": ("Point", point),
    "line": ("MultiLineString", line),
    "polygon_outline": ("MultiPolygon", polygon_outline),
    "graduated_count": ("MultiPolygon?field=count:integer", graduated_count),
}


def main() -> None:
    """Write every style in STYLES to resources/styles/<name>.qml (symbology only)."""
    app = QgsApplication([], False)
    app.initQgis()
    STYLES_DIR.mkdir(parents=True, exist_ok=True)
    for name, (definition, factory) in STYLES.items():
        layer = QgsVectorLayer(definition, name, "memory")
        layer.setRenderer(factory())
        path = STYLES_DIR / f"{name}.qml"
        message, ok = layer.saveNamedStyle(str(path), QgsMapLayer.Symbology)
        if not ok:
            raise SystemExit(f"could not write {path}: {message}")
        print(path)
    app.exitQgis()


if __name__ == "__main__":
    main()
