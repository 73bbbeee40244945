"""Screenshots of MapAsk inside a real QGIS: dock, map and audit panel, under Xvfb, into out/screenshots/.

    .venv/bin/python scripts/screenshots.py [--project out/demo/mapask_demo.qgz] [--out out/screenshots]

Starts `qgis` under xvfb-run with a throw-away profile and runs this file inside it (qgis --code): the
plugin is loaded from the checkout, a saved PostGIS connection is made whose password lives in that
profile's auth database, questions are asked in the dock as a user would, and the window is grabbed.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

# inside QGIS this file is exec()'d without a __file__: the launcher passes the checkout's path
REPO = Path(os.environ["MAPASK_REPO"]) if "MAPASK_REPO" in os.environ else Path(__file__).resolve().parents[1]
SELF = REPO / "scripts" / "screenshots.py"
# demo questions for the demo pack, not code knowledge: a grouping near features, a ranking, a count in a place
# (its records and number), a count near a class of features (reference features limited, search area), and a
# comparison (no map: the earlier answers are switched off and the dock says so)
QUESTIONS = ["pedestrian crashes within 150 m of cambridge public schools by school",
             "top 5 towns with the most crashes",
             "how many crashes in cambridge had injuries",
             "crashes within 100 m of bus stops in somerville",
             "compare crashes in cambridge and somerville"]
CONNECTION = "MapAsk demo (reader)"
SERVICE_FILE = REPO / "var" / "pg_service.conf"  # written by scripts/demo.py: the demo project's layers name its service


def launch(project: Path, out: Path) -> int:
    """Outside QGIS: start QGIS under Xvfb with this file as its start-up code."""
    profile = Path(tempfile.mkdtemp(prefix="mapask-qgis-profile-"))
    default = profile / "profiles" / "default"
    # install the plugin zip into the throw-away profile and switch it on, as a user would
    dist = profile / "dist"
    subprocess.run([sys.executable, str(REPO / "scripts" / "package.py"), "--dist-dir", str(dist)], check=True)
    (zip_path,) = dist.glob("mapask-*.zip")
    subprocess.run([sys.executable, str(REPO / "scripts" / "package.py"), "--install", "--zip", str(zip_path),
                    "--profile-dir", str(default)], check=True)
    ini = default / "QGIS" / "QGIS3.ini"
    ini.parent.mkdir(parents=True, exist_ok=True)
    ini.write_text("[PythonPlugins]\nmapask=true\n")
    env = dict(os.environ, MAPASK_SHOTS=str(out), MAPASK_REPO=str(REPO), QT_QPA_PLATFORM="xcb",
               XDG_RUNTIME_DIR=str(profile))
    if SERVICE_FILE.exists():  # the demo project's layers name a service, not a password
        env["PGSERVICEFILE"] = str(SERVICE_FILE)
    cmd = ["xvfb-run", "-a", "-s", "-screen 0 1680x1050x24", "qgis", "--profiles-path", str(profile),
           "--nologo", "--noversioncheck", "--code", str(SELF), str(project)]
    print(" ".join(cmd))
    code = subprocess.run(cmd, env=env, timeout=600).returncode
    error = out / "qgis_error.txt"
    if error.exists():
        print(error.read_text(), file=sys.stderr)
        return 1
    return code


def size_panels(window, dock, layers_width: int = 340, dock_width: int = 600) -> None:
    """Panels as a user would drag them: the Layers panel wide enough for an answer's group and layer names,
    the MapAsk dock as wide as it grows once an answer fills its follow-up label (else it widens after the
    map was zoomed to the answer, and the canvas, narrower, cuts the answer's edges off)."""
    from qgis.PyQt.QtCore import Qt
    from qgis.PyQt.QtWidgets import QDockWidget

    panels = [(window.findChild(QDockWidget, "Layers"), layers_width), (dock, dock_width)]
    panels = [(panel, width) for panel, width in panels if panel is not None]
    window.resizeDocks([p for p, _ in panels], [w for _, w in panels], Qt.Horizontal)


def inside_qgis() -> None:
    """Inside QGIS (qgis --code): load MapAsk, ask, grab, quit."""
    from qgis.core import (QgsApplication, QgsAuthMethodConfig, QgsDataSourceUri, QgsProject,
                           QgsProviderRegistry)
    from qgis.PyQt.QtCore import QTimer
    from qgis.utils import iface

    out = Path(os.environ["MAPASK_SHOTS"])
    out.mkdir(parents=True, exist_ok=True)
    auth = QgsApplication.authManager()
    auth.setMasterPassword("mapask-screenshots", True)  # a fresh, throw-away profile
    config = QgsAuthMethodConfig("Basic")
    config.setName("MapAsk reader")
    config.setConfig("username", os.environ.get("MAPASK_USER", "mapask_reader"))
    config.setConfig("password", os.environ.get("MAPASK_PASSWORD", "mapask_reader"))
    _ok, config = auth.storeAuthenticationConfig(config)
    uri = QgsDataSourceUri()
    uri.setConnection("127.0.0.1", os.environ.get("PGPORT", "55432"), "mapask", "", "",
                      QgsDataSourceUri.SslDisable, config.id())
    metadata = QgsProviderRegistry.instance().providerMetadata("postgres")
    metadata.saveConnection(metadata.createConnection(uri.uri(False), {}), CONNECTION)

    import qgis.utils

    plugin = qgis.utils.plugins["mapask"]  # loaded by QGIS from the profile at start-up
    dock = plugin.dock
    dock.refresh_connections()
    dock.connection_combo.setCurrentText(CONNECTION)
    dock.setUserVisible(True)
    iface.mainWindow().resize(1680, 1050)
    iface.mainWindow().showMaximized()
    size_panels(iface.mainWindow(), dock)

    checks: dict = {}

    def mapask_layers() -> dict:
        """Every MapAsk layer in the project: provider, valid, features (after a reopen: all still there)."""
        from qgis.core import QgsExpressionContextUtils
        out_ = {}
        for layer in QgsProject.instance().mapLayers().values():
            role = QgsExpressionContextUtils.layerScope(layer).variable("mapask_role")
            if role:
                out_[layer.name()] = {"role": role, "provider": layer.providerType(), "valid": layer.isValid(),
                                      "features": layer.featureCount()}
        return out_

    def after_answers(user_layer: str) -> dict:
        """Where the user's layer went and whether it is still drawn; what the dock says of the last answer."""
        root = QgsProject.instance().layerTreeRoot()
        node = root.findLayer(user_layer)
        return {"user_layer_parent": "root" if node.parent() is root else node.parent().name(),
                "user_layer_drawn": node.isVisible(), "no_map_note": not dock.map_note.isHidden(),
                "layers_drawn": [layer.name() for layer in root.checkedLayers()], "before_reopen": mapask_layers()}

    steps = []
    for i, q in enumerate(QUESTIONS):
        steps += [lambda q=q: (dock.question_edit.setPlainText(q), dock.ask()), "wait",
                  lambda i=i: iface.mainWindow().grab().save(str(out / f"qgis_window_{i + 1}.png")),
                  lambda i=i: dock.grab().save(str(out / f"qgis_dock_{i + 1}.png")),
                  lambda i=i: iface.mapCanvas().saveAsImage(str(out / f"qgis_map_{i + 1}.png"))]
        if i == len(QUESTIONS) - 2:  # the user adds a layer of their own while MapAsk's answer is selected
            steps += [lambda: checks.update(user_layer=iface.addVectorLayer("Point?crs=EPSG:26986", "my layer",
                                                                              "memory").id())]
    steps += [lambda: checks.update(after_answers(checks["user_layer"])),
              lambda: dock.session.review(dock.session.last.entry["id"], "approved", "checked: matches the list"),
              lambda: dock.tabs.setCurrentIndex(dock.TAB_HISTORY),
              lambda: dock.grab().save(str(out / "qgis_audit_panel.png")),
              lambda: QgsProject.instance().write(str(out / "qgis_review.qgz")),
              lambda: QgsProject.instance().setDirty(False),
              lambda: QgsProject.instance().read(str(out / "qgis_review.qgz")),
              lambda: checks.update(reopened=mapask_layers()),
              lambda: (out / "qgis_checks.json").write_text(json.dumps(checks, indent=1)),
              lambda: QgsProject.instance().setDirty(False),
              lambda: QgsApplication.exit(0)]

    def fail(text: str) -> None:
        (out / "qgis_error.txt").write_text(text)
        QgsProject.instance().setDirty(False)
        QgsApplication.exit(1)

    def run_next() -> None:
        if not steps:
            return
        if steps[0] == "wait":
            if dock.session.task is not None:
                QTimer.singleShot(200, run_next)
                return
            steps.pop(0)
            QTimer.singleShot(1500, run_next)  # let the canvas finish drawing
            return
        try:
            steps.pop(0)()
        except Exception:  # a screenshot run must end, and say why
            import traceback
            fail(traceback.format_exc())
            return
        QTimer.singleShot(600, run_next)

    QTimer.singleShot(3000, run_next)
    QTimer.singleShot(420_000, lambda: fail("timed out"))


if __name__ == "__main__" and "MAPASK_SHOTS" not in os.environ:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", default=str(REPO / "out" / "demo" / "mapask_demo.qgz"))
    parser.add_argument("--out", default=str(REPO / "out" / "screenshots"))
    args = parser.parse_args()
    sys.exit(launch(Path(args.project), Path(args.out).resolve()))
elif "MAPASK_SHOTS" in os.environ:
    inside_qgis()
