"""PostGIS layers from a libpq connection string, through QGIS's own postgres provider."""

from typing import Optional
from urllib.parse import unquote, urlsplit, parse_qsl

from qgis.core import QgsDataSourceUri, QgsVectorLayer

from .connections import without_password


class LayerError(RuntimeError):
    """A layer could not be opened (bad connection string, missing table, refused login)."""


def uri_from_dsn(dsn: str) -> QgsDataSourceUri:
    """Parse a libpq connection string, key=value form or postgresql:// URL, into a QgsDataSourceUri.

    QgsDataSourceUri already understands the key=value form (quotes included); URLs are turned
    into that form first so users can paste either kind.
    """
    if dsn.startswith(("postgresql://", "postgres://")):
        dsn = _url_to_keywords(dsn)
    uri = QgsDataSourceUri(dsn)
    if not uri.database() and not uri.service():
        raise LayerError("the connection string names no database (dbname=...) and no service")
    return uri


def _url_to_keywords(url: str) -> str:
    """postgresql://user:pass@host:port/db?sslmode=x -> "host=... port=... dbname=... ..."."""
    parts = urlsplit(url)
    pairs = {
        "host": parts.hostname,
        "port": str(parts.port) if parts.port else None,
        "dbname": unquote(parts.path.lstrip("/")) or None,
        "user": unquote(parts.username) if parts.username else None,
        "password": unquote(parts.password) if parts.password else None,
    }
    pairs.update(parse_qsl(parts.query))
    return " ".join(f"{key}={_quote(value)}" for key, value in pairs.items() if value)


def _quote(value: str) -> str:
    """Quote a libpq value the way libpq reads it back (single quotes, backslash escapes)."""
    escaped = value.replace("\\", "\\\\").replace("'", "\\'")
    return f"'{escaped}'"


def postgis_layer(
    dsn: str,
    schema: str,
    table: str,
    name: Optional[str] = None,
    geometry_column: str = "geom",
    key_column: str = "gid",
    where: str = "",
) -> QgsVectorLayer:
    """Open schema.table as a PostGIS vector layer; `where` is a provider filter (subset string).

    The key column is given explicitly so QGIS does not guess a feature id from the table,
    which it cannot do for views or sub-queries later on.
    """
    uri = without_password(uri_from_dsn(dsn))  # the layer's source goes into project files as it is
    uri.setDataSource(schema, table, geometry_column, where, key_column)
    layer = QgsVectorLayer(uri.uri(False), name or table, "postgres")
    if not layer.isValid():
        error = layer.dataProvider().error().summary() if layer.dataProvider() else ""
        raise LayerError(f"could not open {schema}.{table} as a PostGIS layer {error}".strip())
    return layer
