"""QGIS entry point: put the bundled dependencies on sys.path and build the MapAsk plugin."""

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only for type hints; QGIS is always present at run time
    from qgis.gui import QgisInterface

    from .plugin.qgis.plugin import MapAskPlugin

# The plugin zip bundles pure-Python dependencies (sqlglot, PyYAML) in ext_libs/, pinned to the
# versions the tests ran with. It goes first on sys.path so those pinned versions win over any
# other copy the user's Python may have. A checkout used directly has no ext_libs/.
_EXT_LIBS = Path(__file__).resolve().parent / "ext_libs"
if _EXT_LIBS.is_dir() and str(_EXT_LIBS) not in sys.path:
    sys.path.insert(0, str(_EXT_LIBS))


def classFactory(iface: "QgisInterface") -> "MapAskPlugin":  # noqa: N802 (name required by QGIS)
    """Return the plugin object QGIS calls initGui() and unload() on."""
    # Imported here, after sys.path is ready, so that module imports can use the bundled libraries.
    from .plugin.qgis.plugin import MapAskPlugin

    return MapAskPlugin(iface)
