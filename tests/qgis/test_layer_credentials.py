"""No password in project files: result layers of a connection that stores its password, and the demo project."""

import importlib.util
import zipfile

import pytest
from mapask_qgis_helpers import PORT, READER, ROOT, ask, dock, module, pg_connection  # noqa: F401 (fixtures)
from qgis.core import QgsDataSourceUri, QgsProject, QgsProviderRegistry

PLAIN = "MapAsk test (stored password)"


def project_text(path) -> str:
    """Every file inside a .qgz, as text."""
    with zipfile.ZipFile(path) as z:
        return "\n".join(z.read(name).decode("utf-8", "replace") for name in z.namelist())


@pytest.fixture()
def plain_connection(qgis_app):
    """A saved connection as QGIS's dialog makes it with "Store" ticked: user and password in the settings."""
    metadata = QgsProviderRegistry.instance().providerMetadata("postgres")
    uri = QgsDataSourceUri()
    uri.setConnection("127.0.0.1", PORT, "mapask", READER[0], READER[1], QgsDataSourceUri.SslDisable)
    metadata.saveConnection(metadata.createConnection(uri.uri(False), {"saveUsername": True, "savePassword": True}),
                            PLAIN)
    yield PLAIN
    metadata.deleteConnection(PLAIN)


def test_the_saved_connection_does_hold_the_password(plain_connection):
    uri = module("plugin.qgis.connections").connection_uri(plain_connection)
    assert uri.password() == READER[1] and not uri.authConfigId()  # else the tests below would prove nothing


def test_query_layer_uri_drops_the_password_and_the_layer_still_opens(plain_connection):
    conns, results = module("plugin.qgis.connections"), module("plugin.qgis.results")
    uri = conns.layer_uri(plain_connection, "SELECT 1 AS gid, ST_SetSRID(ST_MakePoint(236000, 900000), 26986) AS geom",
                          "gid", 26986)
    assert not uri.password() and "password" not in uri.uri(False)
    assert uri.username() == READER[0] and uri.host() == "127.0.0.1"
    layer = results.postgis_layer(uri.uri(False), "one point")
    assert layer.isValid() and layer.featureCount() == 1


def test_answer_layers_of_a_stored_password_connection_save_without_it(dock, plain_connection, tmp_path):
    dock.session.settings.connection = plain_connection
    shown = ask(dock, "show crashes within 1000 feet of cambridgeport school")
    layers = shown.presented.layers
    postgis = [layer for layer in layers if layer.providerType() == "postgres"]
    assert len(postgis) == len(layers) == 3 and all("password" not in layer.source() for layer in postgis)
    ids = [layer.id() for layer in postgis]
    path = tmp_path / "answer.qgz"
    assert QgsProject.instance().write(str(path))
    text = project_text(path)
    assert "password=" not in text and f"password='{READER[1]}'" not in text
    assert "dbname='mapask'" in text  # the layers are in the file, only without the password
    # and in this session the project opens again with working layers (QGIS's credentials cache)
    QgsProject.instance().clear()
    assert QgsProject.instance().read(str(path))
    reopened = [QgsProject.instance().mapLayer(layer_id) for layer_id in ids]
    assert all(layer is not None and layer.isValid() for layer in reopened)
    assert reopened[0].featureCount() == len(shown.answer.rows) > 0


def test_demo_project_names_a_service_not_a_password(qgis_app, tmp_path):
    spec = importlib.util.spec_from_file_location("mapask_demo_script", ROOT / "scripts" / "demo.py")
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    qgz, _png = demo.build_demo_project(tmp_path)
    text = project_text(qgz)
    assert "password" not in text and f"service='{demo.SERVICE}'" in text
    project = QgsProject()
    assert project.read(str(qgz))
    assert project.mapLayers() and all(layer.isValid() for layer in project.mapLayers().values())
