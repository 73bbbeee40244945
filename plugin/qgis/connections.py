"""QGIS's saved PostGIS connections: list them, turn one into a DSN or a layer URI; passwords stay in memory only."""

from typing import Dict, List, Optional

from qgis.core import QgsApplication, QgsCredentials, QgsDataSourceUri, QgsProviderRegistry


class ConnectionError_(RuntimeError):
    """A saved connection is missing, or its credentials could not be read from QGIS's auth system."""


def _metadata():
    return QgsProviderRegistry.instance().providerMetadata("postgres")


def connection_names() -> List[str]:
    """Names of the PostGIS connections saved in QGIS (Browser > PostgreSQL), sorted."""
    try:
        return sorted(_metadata().connections().keys(), key=str.casefold)
    except Exception:  # no postgres provider in this QGIS build
        return []


def connection_uri(name: str) -> QgsDataSourceUri:
    """The saved connection's URI as QGIS stores it: an authcfg id rather than a password when configured."""
    try:
        conn = _metadata().findConnection(name)
    except Exception as e:  # QgsProviderConnectionException when the name is unknown
        raise ConnectionError_(f"there is no saved PostGIS connection named {name!r}") from e
    if conn is None:
        raise ConnectionError_(f"there is no saved PostGIS connection named {name!r}")
    return QgsDataSourceUri(conn.uri())


def _libpq_quote(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def dsn_from_uri(uri: QgsDataSourceUri) -> str:
    """A libpq DSN for psycopg2. Credentials held by an authcfg are expanded here, in memory, never saved."""
    items: Dict[str, str] = {}
    if uri.service():
        items["service"] = uri.service()
    for key, value in (("host", uri.host()), ("port", uri.port()), ("dbname", uri.database()),
                       ("user", uri.username()), ("password", uri.password())):
        if value:
            items[key] = value
    if uri.sslMode() != QgsDataSourceUri.SslPrefer:
        items["sslmode"] = QgsDataSourceUri.encodeSslMode(uri.sslMode())
    if uri.authConfigId():
        manager = QgsApplication.authManager()
        expanded = [uri.uri(False)]
        ok, expanded = manager.updateDataSourceUriItems(expanded, uri.authConfigId(), "postgres")
        if not ok:
            raise ConnectionError_("QGIS's authentication system could not give the credentials of "
                                   f"configuration {uri.authConfigId()} (is the master password set?)")
        for item in expanded:
            for key in ("user", "password"):
                if item.startswith(key + "="):
                    items[key] = QgsDataSourceUri(item).param(key) or item.split("=", 1)[1].strip("'")
    return " ".join(f"{k}={_libpq_quote(v)}" for k, v in items.items())


def dsn_for(name: str) -> str:
    return dsn_from_uri(connection_uri(name))


def without_password(uri: QgsDataSourceUri) -> QgsDataSourceUri:
    """The same URI with no password in it, still usable in this session; an authcfg is kept as it is.

    A layer's URI is written verbatim into the project file, so a password in it would sit there in clear.
    QGIS's postgres provider, when a connection is refused for want of a password, asks QgsCredentials
    for one under the realm of the URI's connection info (without password), and that cache is
    filled before asking the user. Putting the password there keeps the layer working now, in memory
    only; when the project is opened again, QGIS asks through its usual credential dialog, once per
    session. (Creating an authcfg instead would need the master password, a prompt of its own.)
    """
    out = QgsDataSourceUri(uri)
    password = out.password()
    if not password or out.authConfigId():
        return out
    out.setPassword("")
    QgsCredentials.instance().put(out.connectionInfo(False), out.username(), password)
    return out


def layer_uri(name: str, sql: str, key: str, srid: int, geometry_column: str = "geom") -> QgsDataSourceUri:
    """URI of a PostGIS query layer over `sql` for the saved connection: its authcfg, never a password."""
    uri = without_password(connection_uri(name))
    uri.setDataSource("", f"({sql})", geometry_column, "", key)
    uri.setSrid(str(srid))
    uri.setUseEstimatedMetadata(True)  # no full scan of the query to learn its extent
    return uri


def optional_uri(name: Optional[str]) -> Optional[QgsDataSourceUri]:
    try:
        return connection_uri(name) if name else None
    except ConnectionError_:
        return None
