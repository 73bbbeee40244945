"""The reviewer's first open: MapAsk layers with no password on this computer are named with how to give one;
a PostgreSQL connection saved in QGIS (password in its authentication database) lends them its password."""

import zipfile

import pytest
from mapask_qgis_helpers import PORT, READER, ask, bar_messages, dock, flush, pg_connection  # noqa: F401 (fixtures)
from qgis.core import QgsCredentials, QgsDataSourceUri, QgsProject, QgsProviderRegistry

PLAIN = "MapAsk test (stored password, reviewer)"


@pytest.fixture()
def plain_connection(qgis_app):
    """The analyst's connection: user and password stored in QGIS's settings, so layers leave the password out."""
    metadata = QgsProviderRegistry.instance().providerMetadata("postgres")
    uri = QgsDataSourceUri()
    uri.setConnection("127.0.0.1", PORT, "mapask", READER[0], READER[1], QgsDataSourceUri.SslDisable)
    metadata.saveConnection(metadata.createConnection(uri.uri(False), {"saveUsername": True, "savePassword": True}),
                            PLAIN)
    yield PLAIN
    metadata.deleteConnection(PLAIN)


def analysts_project(dock, plain_connection, path, host="127.0.0.1"):
    """A project as the analyst saves it (no password in it), its layers pointed at `host`."""
    dock.session.settings.connection = plain_connection
    shown = ask(dock, "top 5 towns with the most crashes")
    layer = shown.presented.result
    assert layer.isValid() and "password" not in layer.source()
    realm, layer_id = QgsDataSourceUri(layer.source()).connectionInfo(False), layer.id()
    assert QgsProject.instance().write(str(path))
    QgsProject.instance().clear()
    # this session's credentials cache (filled when the analyst's layer was made) is not on the reviewer's computer
    QgsCredentials.instance().get(realm, READER[0], "")
    if host != "127.0.0.1":
        with zipfile.ZipFile(path) as z:
            files = {n: z.read(n) for n in z.namelist()}
        for name in files:
            if name.endswith(".qgs"):
                files[name] = files[name].replace(b"host=127.0.0.1", f"host={host}".encode())
        with zipfile.ZipFile(path, "w") as z:
            for name, data in files.items():
                z.writestr(name, data)
    return shown, layer_id


def test_no_password_anywhere_names_the_database_and_how_to_give_it(dock, plain_connection, tmp_path):
    # 'localhost': the same server, but no connection saved in QGIS reaches it by that name
    shown, layer_id = analysts_project(dock, plain_connection, tmp_path / "review.qgz", host="localhost")
    dock.session.settings.connection = "some other connection"
    during_load = []  # what the bar shows as each layer has loaded, i.e. around QGIS's own password dialog
    def look(*_args):
        during_load.append(bar_messages(dock))
    QgsProject.instance().layerLoaded.connect(look)
    try:
        assert QgsProject.instance().read(str(tmp_path / "review.qgz"))
    finally:
        QgsProject.instance().layerLoaded.disconnect(look)
    flush()
    assert during_load and any("may now ask for a password" in t and "pg_service.conf" in t for t in during_load[0])
    layer = QgsProject.instance().mapLayer(layer_id)
    assert layer is not None and not layer.isValid()  # QGIS could not log in: no password, no dialog here
    (text,) = [t for t in bar_messages(dock) if "could not connect" in t]
    assert text.startswith("1 MapAsk layer of this project could not connect")
    assert f"database 'mapask' on localhost:{PORT} as user '{READER[0]}'" in text
    assert f"asked on the connection '{PLAIN}'" in text
    assert "Authentication" in text and "pg_service.conf" in text and ".pgpass" in text
    assert "password=" not in text and "fe_sendauth" not in text and "dbname=" not in text  # no raw string
    # the history is all there for the reviewer
    assert [e["id"] for e in dock.session.audit.store.entries] == [shown.entry["id"]]


def test_a_saved_connection_in_qgis_auth_database_lends_its_password(dock, plain_connection, pg_connection, tmp_path):
    _shown, layer_id = analysts_project(dock, plain_connection, tmp_path / "review.qgz")
    metadata = QgsProviderRegistry.instance().providerMetadata("postgres")
    metadata.deleteConnection(plain_connection)  # the reviewer has only the auth-database connection
    assert QgsProject.instance().read(str(tmp_path / "review.qgz"))
    flush()
    layer = QgsProject.instance().mapLayer(layer_id)
    assert layer is not None and layer.isValid() and layer.featureCount() == 5
    assert "password" not in layer.source()  # lent in memory, never written into the layer
    assert dock.logins.lent and not dock.logins.problems
    assert not [t for t in bar_messages(dock) if "password" in t]


def test_projects_without_mapask_history_are_left_alone(dock, tmp_path):
    QgsProject.instance().clear()
    path = tmp_path / "plain.qgs"
    assert QgsProject.instance().write(str(path))
    assert QgsProject.instance().read(str(path))
    assert dock.logins.problems == {} and not [t for t in bar_messages(dock) if "password" in t]
