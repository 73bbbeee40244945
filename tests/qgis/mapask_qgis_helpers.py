"""Fixtures for the dock tests: the plugin imported as QGIS imports it, a saved PostGIS connection with an auth config."""

import importlib.util
import os
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest
from qgis.core import (
    QgsApplication,
    QgsAuthMethodConfig,
    QgsDataSourceUri,
    QgsProject,
    QgsProviderRegistry,
)
from qgis.PyQt.QtCore import QCoreApplication, QEvent

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "mapask"
CONNECTION = "MapAsk test (reader)"
MASTER = "mapask-tests-master"  # only guards the throw-away test profile's auth database
READER = ("mapask_reader", "mapask_reader")
PORT = os.environ.get("PGPORT", "55432")


def mapask() -> ModuleType:
    """Import the checkout the way QGIS imports an installed plugin: as the package `mapask`."""
    if PACKAGE not in sys.modules:
        spec = importlib.util.spec_from_file_location(PACKAGE, ROOT / "__init__.py",
                                                      submodule_search_locations=[str(ROOT)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[PACKAGE] = module
        spec.loader.exec_module(module)
    return sys.modules[PACKAGE]


def module(name: str) -> ModuleType:
    mapask()
    return importlib.import_module(f"{PACKAGE}.{name}")


def flush() -> None:
    QCoreApplication.processEvents()
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)


def wait_idle(dock, timeout: float = 90.0) -> None:
    """Let the task manager run the dock's task and deliver its result, as QGIS's event loop would."""
    end = time.monotonic() + timeout
    while dock.session.task is not None:
        QCoreApplication.processEvents()
        if time.monotonic() > end:
            raise AssertionError("the MapAsk task did not finish in time")
        time.sleep(0.01)
    QCoreApplication.processEvents()


def bar_messages(dock, level=None) -> list:
    """The texts in QGIS's message bar (all of its stack, not only the one on top), of one level or all."""
    return [item.text() for item in dock.iface.messageBar().items() if level is None or item.level() == level]


def ask(dock, question: str, follow_up: bool = False, timeout: float = 90.0):
    """Type the question into the dock, press Ask, wait for the task; returns what the dock shows."""
    dock.question_edit.setPlainText(question)
    dock.follow_up.setChecked(follow_up)
    dock.ask_button.click()
    assert dock.session.task is not None or dock.session.last is not None, "Ask did not start a task"
    wait_idle(dock, timeout)
    return dock.session.last


@pytest.fixture(scope="session")
def pg_connection(qgis_app) -> str:
    """A saved QGIS PostGIS connection whose credentials live in QGIS's auth database (authcfg)."""
    manager = QgsApplication.authManager()
    if not manager.setMasterPassword(MASTER, True):
        pytest.skip("the test profile's auth database has another master password")
    config = QgsAuthMethodConfig("Basic")
    config.setName("MapAsk tests")
    config.setConfig("username", READER[0])
    config.setConfig("password", READER[1])
    ok, config = manager.storeAuthenticationConfig(config)
    assert ok
    metadata = QgsProviderRegistry.instance().providerMetadata("postgres")
    uri = QgsDataSourceUri()
    uri.setConnection("127.0.0.1", PORT, "mapask", "", "", QgsDataSourceUri.SslDisable, config.id())
    metadata.saveConnection(metadata.createConnection(uri.uri(False), {}), CONNECTION)
    yield CONNECTION
    metadata.deleteConnection(CONNECTION)
    manager.removeAuthenticationConfig(config.id())


@pytest.fixture()
def dock(qgis_iface, pg_connection, tmp_path):
    """A MapAsk dock on pytest-qgis's window, using the test connection and a temporary user pack."""
    QgsProject.instance().clear()
    dock_module = module("ui.dock")
    widget = dock_module.MapAskDock(qgis_iface.mainWindow(), qgis_iface)
    widget.session.settings.connection = pg_connection
    widget.session.settings.user_pack_dir = str(tmp_path / "user_pack")
    widget.resize(460, 820)
    # what MapAskPlugin.initGui() wires up (tested in tests/test_plugin_load.py)
    project = QgsProject.instance()
    project.cleared.connect(widget.reset)
    project.readProject.connect(widget.project_read)
    project.writeProject.connect(widget.project_writing)
    yield widget
    project.cleared.disconnect(widget.reset)
    project.readProject.disconnect(widget.project_read)
    project.writeProject.disconnect(widget.project_writing)
    widget.shutdown()
    widget.deleteLater()
    flush()
    QgsProject.instance().clear()
    qgis_iface.messageBar().clear_messages()
    qgis_iface.messageBar().clearWidgets()
