"""The plugin loads through classFactory under pytest-qgis, and unload() leaves nothing behind."""

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Iterator, Optional

import pytest
from qgis.core import QgsApplication, QgsProject
from qgis.PyQt import sip
from qgis.PyQt.QtCore import QCoreApplication, QEvent, Qt
from qgis.PyQt.QtWidgets import QAction, QDockWidget, QMainWindow, QMenu, QToolBar

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "mapask"  # the folder name QGIS imports the plugin under (the zip's top folder)


def import_plugin_package() -> ModuleType:
    """Import the checkout the way QGIS imports an installed plugin: as the package `mapask`."""
    if PACKAGE not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            PACKAGE, ROOT / "__init__.py", submodule_search_locations=[str(ROOT)]
        )
        module = importlib.util.module_from_spec(spec)
        sys.modules[PACKAGE] = module
        spec.loader.exec_module(module)
    return sys.modules[PACKAGE]


def flush_deletes() -> None:
    """Run the deleteLater() calls now, as returning to QGIS's event loop would."""
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)


class Window:
    """The parts of the QGIS main window the plugin touches, built for real on pytest-qgis's window.

    pytest-qgis's iface turns addDockWidget, the Database toolbar and the Database menu into
    no-ops or mocks; wiring them to real widgets (with QGIS's behaviour of dropping a plugin
    submenu once it is empty) lets the tests look at what is actually left in the window.
    """

    def __init__(self, main_window: QMainWindow) -> None:
        self.main_window = main_window
        self.toolbar = QToolBar("Database Toolbar", main_window)
        main_window.addToolBar(self.toolbar)
        self.database_menu = main_window.menuBar().addMenu("&Database")

    def submenu(self, name: str) -> Optional[QMenu]:
        for action in self.database_menu.actions():
            if action.menu() is not None and action.text() == name:
                return action.menu()
        return None

    def add_to_menu(self, name: str, action: QAction) -> None:
        menu = self.submenu(name) or self.database_menu.addMenu(name)
        menu.addAction(action)

    def remove_from_menu(self, name: str, action: QAction) -> None:
        menu = self.submenu(name)
        if menu is not None:
            menu.removeAction(action)
            if menu.isEmpty():
                self.database_menu.removeAction(menu.menuAction())
                menu.deleteLater()

    def docks(self) -> list:
        return [d for d in self.main_window.findChildren(QDockWidget) if not sip.isdeleted(d)
                and d.objectName() == "MapAskDock"]

    def plugin_actions(self) -> list:
        return [a for a in self.main_window.findChildren(QAction)
                if not sip.isdeleted(a) and a.objectName() == "mapAskToggleDock"]

    def close(self) -> None:
        self.main_window.removeToolBar(self.toolbar)
        self.toolbar.deleteLater()
        self.main_window.menuBar().removeAction(self.database_menu.menuAction())
        self.database_menu.deleteLater()
        flush_deletes()


@pytest.fixture()
def window(qgis_iface, monkeypatch) -> Iterator[Window]:
    """pytest-qgis's iface, with its toolbar, menu and dock methods acting on real widgets."""
    win = Window(qgis_iface.mainWindow())
    monkeypatch.setattr(qgis_iface, "addDatabaseToolBarIcon", win.toolbar.addAction)
    monkeypatch.setattr(qgis_iface, "removeDatabaseToolBarIcon", win.toolbar.removeAction)
    monkeypatch.setattr(qgis_iface, "addPluginToDatabaseMenu", win.add_to_menu)
    monkeypatch.setattr(qgis_iface, "removePluginDatabaseMenu", win.remove_from_menu)
    monkeypatch.setattr(qgis_iface, "addDockWidget", win.main_window.addDockWidget)
    monkeypatch.setattr(qgis_iface, "removeDockWidget", win.main_window.removeDockWidget)
    yield win
    win.close()


@pytest.fixture()
def plugin(qgis_iface, window):
    """A plugin built by classFactory with initGui() done; unloaded afterwards if still loaded."""
    instance = import_plugin_package().classFactory(qgis_iface)
    instance.initGui()
    yield instance
    if instance.docks:
        instance.unload()
        flush_deletes()


def test_class_factory_builds_the_plugin_without_touching_the_window(qgis_iface, window):
    instance = import_plugin_package().classFactory(qgis_iface)
    assert type(instance).__name__ == "MapAskPlugin"
    assert window.docks() == [] and window.plugin_actions() == []


def test_init_gui_adds_toolbar_action_menu_entry_and_hidden_dock(plugin, window):
    (action,) = window.plugin_actions()
    assert action.isCheckable() and not action.isChecked()
    assert not action.icon().isNull()
    assert window.toolbar.actions() == [action]
    assert window.submenu("&MapAsk").actions() == [action]

    (dock,) = window.docks()
    assert dock is plugin.dock
    assert window.main_window.dockWidgetArea(dock) == Qt.RightDockWidgetArea
    assert dock.isHidden()
    assert dock.question_edit.isEnabled() and dock.ask_button.isEnabled()
    assert not dock.cancel_button.isEnabled()  # nothing to cancel until a question runs


def mapask_providers() -> list:
    return [p for p in QgsApplication.processingRegistry().providers() if p.id() == "mapask"]


def test_init_gui_registers_the_processing_provider_with_both_algorithms(plugin):
    (provider,) = mapask_providers()
    assert provider is plugin.provider
    assert sorted(a.id() for a in provider.algorithms()) == ["mapask:ask", "mapask:askfile"]


def test_init_processing_alone_registers_the_provider_once_and_unload_removes_it(qgis_iface, window):
    """qgis_process calls only initProcessing(); QGIS may call it before initGui()."""
    instance = import_plugin_package().classFactory(None)
    instance.initProcessing()
    instance.initProcessing()
    assert len(mapask_providers()) == 1
    instance.unload()
    assert mapask_providers() == [] and instance.provider is None


def test_action_toggles_the_dock(plugin, window):
    # QgsDockWidget tracks visibility through Qt's visibilityChanged, which only fires for
    # a shown window, so show pytest-qgis's (offscreen) main window for this test.
    window.main_window.show()
    try:
        (action,) = window.plugin_actions()
        action.trigger()
        QCoreApplication.processEvents()
        assert not plugin.dock.isHidden() and action.isChecked()
        action.trigger()
        QCoreApplication.processEvents()
        assert plugin.dock.isHidden() and not action.isChecked()
        plugin.dock.setUserVisible(True)  # the dock's own close button path: action follows
        QCoreApplication.processEvents()
        assert action.isChecked()
        plugin.dock.close()
        QCoreApplication.processEvents()
        assert not action.isChecked()
    finally:
        window.main_window.hide()


def test_new_project_clears_the_question(plugin):
    plugin.dock.question_edit.setPlainText("crashes near schools")
    QgsProject.instance().clear()
    assert plugin.dock.question_edit.toPlainText() == ""


def test_unload_leaves_no_action_menu_dock_or_connection(plugin, window):
    connections = list(plugin.connections)
    assert connections, "initGui() should record the signals it connects"

    plugin.unload()
    flush_deletes()

    assert window.docks() == []
    assert window.plugin_actions() == []
    assert window.toolbar.actions() == []
    assert window.submenu("&MapAsk") is None
    assert mapask_providers() == [] and plugin.provider is None
    assert (plugin.actions, plugin.toolbar_actions, plugin.menu_actions, plugin.docks,
            plugin.connections) == ([], [], [], [], [])
    for signal, slot in connections:
        with pytest.raises(TypeError):  # PyQt raises when the pair is not connected
            signal.disconnect(slot)
    QgsProject.instance().clear()  # would reach a deleted dock if still connected


def test_reload_cycles_do_not_accumulate(qgis_iface, window):
    package = import_plugin_package()
    for _ in range(3):
        instance = package.classFactory(qgis_iface)
        instance.initGui()
        assert len(window.docks()) == 1 and len(window.plugin_actions()) == 1
        assert len(mapask_providers()) == 1
        instance.unload()
        flush_deletes()
    assert window.docks() == [] and window.plugin_actions() == [] and mapask_providers() == []


def test_unload_without_init_gui_is_harmless(qgis_iface, window):
    import_plugin_package().classFactory(qgis_iface).unload()
