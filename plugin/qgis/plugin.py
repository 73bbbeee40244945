"""The MapAsk plugin object: adds its action, menu entry and dock, and removes all of them again."""

from typing import Callable, List, Optional, Tuple

from qgis.core import QgsApplication, QgsProject
from qgis.gui import QgisInterface, QgsDockWidget
from qgis.PyQt.QtCore import QCoreApplication, Qt, pyqtBoundSignal
from qgis.PyQt.QtGui import QIcon
from qgis.PyQt.QtWidgets import QAction

# ui/ sits next to plugin/ in the plugin folder, which QGIS imports as one package (mapask),
# so this module is only importable as part of that package, never as top-level `plugin`.
from ...ui.dock import MapAskDock
from .algorithms.provider import MapAskProvider
from .paths import ICON_PATH

MENU_NAME = "&MapAsk"


def tr(text: str) -> str:
    """Translate a user-visible string in the MapAsk context."""
    return QCoreApplication.translate("MapAsk", text)


class MapAskPlugin:
    """What QGIS builds through classFactory(); owns everything the plugin adds to the window.

    Every action, menu entry, dock and signal connection is recorded in a list as it is made,
    so unload() can undo exactly that list and a test can prove nothing is left behind.
    """

    def __init__(self, iface: QgisInterface) -> None:
        self.iface = iface
        self.actions: List[QAction] = []
        self.toolbar_actions: List[QAction] = []
        self.menu_actions: List[QAction] = []
        self.docks: List[QgsDockWidget] = []
        self.connections: List[Tuple[pyqtBoundSignal, Callable[..., object]]] = []
        self.dock: Optional[MapAskDock] = None
        self.provider: Optional[MapAskProvider] = None

    # --- QGIS plugin API -------------------------------------------------------------------

    def initProcessing(self) -> None:  # noqa: N802 (name required by QGIS)
        """Register the Processing provider (mapask:ask, mapask:askfile); qgis_process calls only this."""
        if self.provider is None:
            self.provider = MapAskProvider()
            QgsApplication.processingRegistry().addProvider(self.provider)

    def initGui(self) -> None:  # noqa: N802 (name required by QGIS)
        """Add the Processing provider, the dock (hidden), a checkable toolbar action and a Database > MapAsk menu entry."""
        self.initProcessing()
        main_window = self.iface.mainWindow()

        self.dock = MapAskDock(main_window, self.iface)
        self.iface.addDockWidget(Qt.RightDockWidgetArea, self.dock)
        self.dock.hide()
        self.docks.append(self.dock)

        action = QAction(QIcon(str(ICON_PATH)), tr("MapAsk"), main_window)
        action.setObjectName("mapAskToggleDock")
        action.setToolTip(tr("Show or hide the MapAsk panel"))
        action.setCheckable(True)
        # QgsDockWidget keeps the action's checked state and the dock's visibility in step,
        # including when the user closes the dock with its own title-bar button.
        self.dock.setToggleVisibilityAction(action)
        self.actions.append(action)

        self.iface.addDatabaseToolBarIcon(action)
        self.toolbar_actions.append(action)
        self.iface.addPluginToDatabaseMenu(MENU_NAME, action)
        self.menu_actions.append(action)

        # A question typed for one project must not survive into the next one; the audit history
        # belongs to the project, so it is read back whenever a project is opened.
        self._connect(QgsProject.instance().cleared, self.dock.reset)
        self._connect(QgsProject.instance().readProject, self._project_read)
        # a save can fail without QGIS saying so to plugins (a full disk leaves an empty .qgz): check each one
        self._connect(QgsProject.instance().writeProject, self._project_writing)

    def unload(self) -> None:
        """Undo initGui(): stop a running question, disconnect signals, remove menu/toolbar entries, delete the dock."""
        for dock in self.docks:
            dock.shutdown()
        for signal, slot in reversed(self.connections):
            try:
                signal.disconnect(slot)
            except TypeError:  # already disconnected, e.g. its sender was deleted first
                pass
        self.connections.clear()

        for action in self.menu_actions:
            self.iface.removePluginDatabaseMenu(MENU_NAME, action)
        self.menu_actions.clear()
        for action in self.toolbar_actions:
            self.iface.removeDatabaseToolBarIcon(action)
        self.toolbar_actions.clear()

        # Docks go before the actions: a dock keeps a pointer to its toggle action (and
        # setToggleVisibilityAction(None) crashes QGIS 3.22), so the action must outlive it.
        for dock in self.docks:
            dock.close()
            self.iface.removeDockWidget(dock)
            dock.deleteLater()
        self.docks.clear()
        self.dock = None

        for action in self.actions:
            action.deleteLater()
        self.actions.clear()

        if self.provider is not None:  # the registry owns the provider and deletes it here
            QgsApplication.processingRegistry().removeProvider(self.provider)
            self.provider = None

    # --- helpers -----------------------------------------------------------------------------

    def _project_read(self, *_document: object) -> None:
        if self.dock is not None:
            self.dock.project_read()

    def _project_writing(self, *_document: object) -> None:
        if self.dock is not None:
            self.dock.project_writing()

    def _connect(self, signal: pyqtBoundSignal, slot: Callable[..., object]) -> None:
        """Connect and remember the pair, so unload() can disconnect it."""
        signal.connect(slot)
        self.connections.append((signal, slot))
