"""Where the plugin's files live, whether run from a checkout, a zip install or a symlink."""

from pathlib import Path

# plugin/qgis/paths.py -> the plugin folder (repo root in a checkout, mapask/ in the zip).
PLUGIN_DIR = Path(__file__).resolve().parents[2]
RESOURCES_DIR = PLUGIN_DIR / "resources"
STYLES_DIR = RESOURCES_DIR / "styles"
ICON_PATH = RESOURCES_DIR / "icon.svg"


def style_path(name: str) -> Path:
    """Return resources/styles/<name>.qml, raising FileNotFoundError when it is not there."""
    path = STYLES_DIR / f"{name}.qml"
    if not path.is_file():
        known = sorted(p.stem for p in STYLES_DIR.glob("*.qml"))
        raise FileNotFoundError(f"no style {name!r} in {STYLES_DIR} (known: {', '.join(known)})")
    return path
