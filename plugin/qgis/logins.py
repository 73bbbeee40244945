"""A project's MapAsk layers that cannot log in: give them a saved connection's password, or say how to give one."""

import json
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional

import psycopg2
from qgis.core import QgsCredentials, QgsDataSourceUri, QgsExpressionContextUtils, QgsPathResolver, QgsProject

from .connections import connection_names, connection_uri, dsn_from_uri

PROBE_TIMEOUT_S = 3
# libpq's words when the server wants a password it was not given (or was given a wrong one)
PASSWORD_ERRORS = ("no password supplied", "password authentication failed")


@dataclass
class LoginProblem:
    """One database the project's layers reach with no password available on this computer."""

    realm: str          # QGIS's name for the connection (its connection info without password)
    where: str          # database, host and user in words
    asked_on: str = ""  # the saved connection the questions were asked on, as the audit recorded it


def _where(uri: QgsDataSourceUri) -> str:
    if uri.service():
        place = f"the service '{uri.service()}'"
    else:
        place = f"database '{uri.database()}' on {uri.host() or 'this computer'}" + (f":{uri.port()}" if uri.port() else "")
    return place + (f" as user '{uri.username()}'" if uri.username() else "")


def _same_database(a: QgsDataSourceUri, b: QgsDataSourceUri) -> bool:
    if a.service() or b.service():
        return a.service() == b.service()
    return (a.host(), a.port() or "5432", a.database()) == (b.host(), b.port() or "5432", b.database())


def how_to_give(problem: LoginProblem) -> str:
    asked = f" (the questions were asked on the connection '{problem.asked_on}')" if problem.asked_on else ""
    return (f"no password for {problem.where}{asked} is saved on this computer. Give it once, either in QGIS: "
            "Settings > Options > Authentication, add a 'Basic' configuration with that user and password, and "
            "choose it in a PostgreSQL connection to the same database (Browser > PostgreSQL > New Connection), "
            "which MapAsk then lends to these layers; or in a libpq service file (pg_service.conf) with a password "
            "file (.pgpass) for that host, database and user. Then open the project again.")


class ProjectLogins:
    """Looks at each PostgreSQL layer source as a MapAsk project is read, before QGIS opens the layer.

    QGIS asks for a missing password with its own dialog, which shows the raw connection string and libpq's
    "fe_sendauth: no password supplied" and says nothing of where a password could be kept. Layer sources pass
    through QgsPathResolver's preprocessor before the provider connects, so here: when a PostgreSQL connection
    saved in QGIS reaches the same database as the same user, its password (from QGIS's authentication database)
    is put in QGIS's credentials cache for the layer, in memory only; when libpq finds none either, `warn` is
    told which database it is and how to give the password, while QGIS's dialog is still to come.
    """

    def __init__(self, project: QgsProject, warn: Callable[[str], None]) -> None:
        self.project = project
        self.warn = warn
        self.problems: Dict[str, LoginProblem] = {}
        self.lent: List[str] = []  # realms given a saved connection's password
        self._seen: set = set()
        self._id = QgsPathResolver.setPathPreprocessor(self._source)

    def close(self) -> None:
        QgsPathResolver.removePathPreprocessor(self._id)

    def reset(self) -> None:
        """A project starts loading: its databases are looked at afresh."""
        self.problems.clear()
        self._seen.clear()
        self.lent.clear()

    def _source(self, source: str) -> str:
        try:
            self._look(source)
        except Exception:  # reading a project must never fail because of this look
            pass
        return source

    def _look(self, source: str) -> None:
        if "dbname=" not in source and "service=" not in source:
            return
        if not self.project.entryList("MapAsk", "audit"):  # not a project with MapAsk answers
            return
        uri = QgsDataSourceUri(source)
        if uri.password() or uri.authConfigId() or not (uri.database() or uri.service()):
            return
        realm = uri.connectionInfo(False)
        if realm in self._seen:
            return
        self._seen.add(realm)
        if self._lend(uri, realm) or self._libpq_logs_in(uri):
            return
        problem = LoginProblem(realm, _where(uri), self._asked_on())
        self.problems[realm] = problem
        self.warn("QGIS may now ask for a password for this project's MapAsk layers: " + how_to_give(problem))

    def _lend(self, uri: QgsDataSourceUri, realm: str) -> bool:
        """Put the password of a saved connection to the same database and user in QGIS's credentials cache."""
        for name in connection_names():
            try:
                saved = connection_uri(name)
                if not _same_database(saved, uri):
                    continue
                dsn = psycopg2.extensions.parse_dsn(dsn_from_uri(saved))
            except Exception:  # a connection whose auth configuration cannot be read lends nothing
                continue
            if dsn.get("password") and (not uri.username() or dsn.get("user") == uri.username()):
                QgsCredentials.instance().put(realm, dsn.get("user", uri.username()), dsn["password"])
                self.lent.append(realm)
                return True
        return False

    @staticmethod
    def _libpq_logs_in(uri: QgsDataSourceUri) -> bool:
        """Whether libpq gets in without QGIS's help (a service file, .pgpass, PGPASSWORD, trust)."""
        try:
            psycopg2.connect(dsn_from_uri(uri), connect_timeout=PROBE_TIMEOUT_S).close()
            return True
        except psycopg2.OperationalError as e:
            # a server that is down or a database that is gone is QGIS's to report; only a password is ours
            return not any(p in str(e) for p in PASSWORD_ERRORS)

    def _asked_on(self) -> str:
        for key in self.project.entryList("MapAsk", "audit"):
            text, _ok = self.project.readEntry("MapAsk", f"audit/{key}")
            try:
                name = json.loads(text).get("connection")
            except (ValueError, AttributeError):
                continue
            if name:
                return str(name)
        return ""

    def report(self, layer_ids: List[str]) -> Optional[str]:
        """After reading: which MapAsk layers did not connect for want of a password, and how to give it."""
        failed: Dict[str, int] = {}
        for layer in self.project.mapLayers().values():
            mapask = layer.id() in layer_ids or bool(
                QgsExpressionContextUtils.layerScope(layer).variable("mapask_entry_id"))
            if not mapask or layer.isValid() or layer.providerType() != "postgres":
                continue
            realm = QgsDataSourceUri(layer.source()).connectionInfo(False)
            if realm in self.problems:
                failed[realm] = failed.get(realm, 0) + 1
        if not failed:
            return None
        n = sum(failed.values())
        problem = self.problems[next(iter(failed))]
        return (f"{n} MapAsk layer{'s' if n != 1 else ''} of this project could not connect: " + how_to_give(problem))
