"""Headless demo: build a styled QGIS project of the Cambridge layers and render it to a PNG.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python scripts/demo.py [--out out/demo]
Connects with MAPASK_DSN (default: the project-local read-only role). The project's layers name a libpq
service, written to var/pg_service.conf, so the .qgz holds no password; QGIS finds it through PGSERVICEFILE.
"""

import argparse
import os
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a script: make the plugin package importable
    sys.path.insert(0, str(REPO))

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from qgis.core import (  # noqa: E402 (after sys.path and the Qt platform are set)
    QgsApplication,
    QgsCoordinateReferenceSystem,
    QgsDatumTransform,
    QgsPalLayerSettings,
    QgsProject,
    QgsRectangle,
    QgsReferencedRectangle,
    QgsVectorLayer,
    QgsVectorLayerSimpleLabeling,
)

from plugin.qgis.layers import postgis_layer, uri_from_dsn  # noqa: E402
from plugin.qgis.render import render_png  # noqa: E402
from plugin.qgis.styles import apply_style, label_layer  # noqa: E402

DEFAULT_DSN = "host=127.0.0.1 port=55432 dbname=mapask user=mapask_reader password=mapask_reader"
SERVICE = "mapask_demo"
SERVICE_FILE = REPO / "var" / "pg_service.conf"  # var/ is the checkout's local state, never shipped
SCHEMA = "ma"
CRS = "EPSG:26986"  # Massachusetts State Plane, metres: the CRS every table is stored in

# Drawing order, top first (as in the QGIS layer panel). Each entry: table, layer name,
# provider filter, style, style overrides (see apply_style), label field, and the scale (1:n) below
# which the labels show (one city's names would be a knot on a map of the whole state).
DEMO_LAYERS: List[Dict[str, Any]] = [
    dict(table="massdot_crash", name="MassDOT crashes (Cambridge), by severity",
         where="city_town_name = 'CAMBRIDGE'", style="crash_severity"),
    dict(table="school", name="Schools", style="point", color="#1f4e79", size=3.2),
    dict(table="cambridge_crash", name="Cambridge police crashes", style="point",
         color="#e6550d", size=1.0, opacity=0.35),
    dict(table="bike_facility", name="Bike facilities", style="line", color="#2e8b57", size=0.6),
    dict(table="street_centerline", name="Street centerlines", style="line"),
    dict(table="neighborhood", name="Neighbourhoods", style="polygon_outline",
         color="#8c8c8c", size=0.4, label="name", label_scale=100_000),
    dict(table="city_boundary", name="City boundary", style="polygon_outline", size=0.9),
]


def dsn() -> str:
    """The connection string: MAPASK_DSN, or the project-local read-only role."""
    return os.environ.get("MAPASK_DSN", DEFAULT_DSN)


def service_dsn(connection: str, path: Path = SERVICE_FILE) -> str:
    """`service=...` for `connection`: its settings go to a libpq service file (mode 600), named by PGSERVICEFILE.

    A layer's source is written verbatim into the project file; a service name keeps the password out of it,
    and QGIS and psycopg2 both read the service file. A connection that already names a service is kept.
    """
    uri = uri_from_dsn(connection)
    if uri.service():
        return connection
    settings = {"host": uri.host(), "port": uri.port(), "dbname": uri.database(), "user": uri.username(),
                "password": uri.password()}
    text = f"[{SERVICE}]\n" + "".join(f"{k}={v}\n" for k, v in settings.items() if v)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    temporary.write_text(text, encoding="utf-8")
    temporary.chmod(0o600)
    temporary.replace(path)  # whole or not at all, should two runs write it at once
    os.environ["PGSERVICEFILE"] = str(path)
    return f"service={SERVICE}"


def labels_only_closer_than(layer: QgsVectorLayer, scale: float) -> None:
    """Show `layer`'s labels only when the map is zoomed in closer than 1:`scale`."""
    settings = QgsPalLayerSettings(layer.labeling().settings())
    settings.scaleVisibility = True
    settings.minimumScale = scale  # QGIS's "minimum" scale is the most zoomed-out one
    settings.maximumScale = 0  # no limit when zooming in
    layer.setLabeling(QgsVectorLayerSimpleLabeling(settings))


def _styled_layers(connection: str) -> List[QgsVectorLayer]:
    """Open and style every layer of DEMO_LAYERS, top first."""
    layers = []
    for spec in DEMO_LAYERS:
        layer = postgis_layer(
            connection, SCHEMA, spec["table"], name=spec["name"], where=spec.get("where", "")
        )
        apply_style(
            layer, spec["style"], color=spec.get("color"), size=spec.get("size"),
            opacity=spec.get("opacity"),
        )
        if spec.get("label"):
            label_layer(layer, spec["label"])
            if spec.get("label_scale"):
                labels_only_closer_than(layer, spec["label_scale"])
        layers.append(layer)
    return layers


def pin_available_transform(project: QgsProject, crs: QgsCoordinateReferenceSystem,
                            other: str = "EPSG:4326") -> Optional[str]:
    """Choose, in the project, the most accurate transform to `other` that this machine can run.

    QGIS transforms to WGS 84 behind the scenes; when the most accurate operation needs a grid file that is
    not installed, it warns "Cannot use preferred transform" on every start. A choice in the project's
    transform context (Project Properties > Transformations) is used as it is, without the warning.
    Returns the operation's name, or None when the preferred one is available or none is.
    """
    target = QgsCoordinateReferenceSystem(other)
    operations = QgsDatumTransform.operations(crs, target)
    if not operations or operations[0].isAvailable:
        return None
    usable = next((op for op in operations if op.isAvailable), None)
    if usable is None:
        return None
    context = project.transformContext()
    context.addCoordinateOperation(crs, target, usable.proj)
    project.setTransformContext(context)
    return usable.name


def build_demo_project(out_dir: Path) -> Tuple[Path, Path]:
    """Write out_dir/mapask_demo.qgz and out_dir/cambridge.png; return both paths.

    Needs a running QgsApplication (main() makes one; tests use pytest-qgis's).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    crs = QgsCoordinateReferenceSystem(CRS)
    layers = _styled_layers(service_dsn(dsn()))
    boundary = next(layer for layer in layers if layer.name() == "City boundary")
    extent = QgsRectangle(boundary.extent())

    # A project of its own rather than QgsProject.instance(), so a caller's project is untouched.
    project = QgsProject()
    project.setTitle("MapAsk demo: Cambridge, MA")
    project.setCrs(crs)
    pin_available_transform(project, crs)
    root = project.layerTreeRoot()
    for layer in layers:
        # addMapLayer(layer) alone would put each new layer on top of the tree, reversing the
        # order; appending to the tree explicitly keeps DEMO_LAYERS' top-first order.
        project.addMapLayer(layer, False)
        root.addLayer(layer)
    project.viewSettings().setDefaultViewExtent(QgsReferencedRectangle(extent, crs))
    qgz_path = out_dir / "mapask_demo.qgz"
    if not project.write(str(qgz_path)):
        raise RuntimeError(f"could not write {qgz_path}: {project.error()}")

    png_path = render_png(layers, extent, out_dir / "cambridge.png", crs)
    return qgz_path, png_path


# a handful of questions of each kind the pipeline answers, plus bad input it must refuse or ask back
DEMO_QUESTIONS = {
    "counts and lists": ["how many crashes in cambridge", "fatal crashes in worcester county",
                         "number of head-on crashes on icy roads", "list the fatal crashes in plymouth county"],
    "time filters": ["icy crashes in worcestor in january", "crashes on weekends in boston",
                     "crashes between 7 and 9 am in springfield", "crashes in the winter in lowell"],
    "groupings": ["crashes by weather condition", "crashes by county", "pedestrian crashes by neighborhood",
                  "crashes by hour of day"],
    "top-N": ["top 5 towns with the most crashes", "which 3 counties had the most fatal crashes",
              "top 5 towns for fatal crashes", "towns with more than 100 crashes"],
    "shares": ["what percentage of crashes happened at night", "share of crashes on wet roads by county",
               "what share of police crash reports involved a pedestrian"],
    "places": ["crashes in the port neighborhood", "how many bike crashes in cambridgeport",
               "injury crashes in middlesex county in december"],
    "proximity": ["pedestrian crashes within 150 m of cambridge public schools by school",
                  "show crashes within 500 ft of mass ave in cambridge",
                  "police crashes within 30 m of traffic signals",
                  "the nearest traffic signal to cambridgeport school"],
    "EPDO and rates": ["epdo by county", "crash rate per 1000 residents by town",
                       "top 10 towns by crashes per 1000 residents", "total population of towns"],
    "comparisons": ["compare crashes in boston vs worcester", "compare bike crashes in 2015 and 2016",
                    "crashes at night vs daylight", "compare crashes in boston with crashes in worcester"],
    "trends": ["trend of bicycle crashes in cambridge over the years", "crashes by month",
               "crashes by day of week", "pedestrian crashes per year in cambridge"],
    "bad input": ["crashes in paris", "crash costs", "how many potholes in cambridge", "delete all crashes"],
}


def ask_demo_questions(out_dir: Path) -> Path:
    """Ask a handful of questions of each kind through the same pipeline as the CLI; write the answers as
    JSON lines."""
    import json
    import os
    sys.path.insert(0, str(REPO))
    from plugin.core.pipeline import Pipeline
    dsn = os.environ.get("MAPASK_DSN", DEFAULT_DSN)
    pipe = Pipeline(REPO / "knowledge" / "massachusetts", dsn)
    path = out_dir / "answers.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for kind, questions in DEMO_QUESTIONS.items():
            print(f"\n== {kind}")
            for q in questions:
                a = pipe.ask(q)
                print(f"Q: {q}\n   [{a.status}] {a.answer[:200]}")
                fh.write(json.dumps({"kind": kind, "question": q, **a.public()}, default=str) + "\n")
    pipe.executor.close()
    return path


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Command-line entry point: build the demo project and map, print where they are."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "out" / "demo", help="output folder")
    args = parser.parse_args(argv)

    app = QgsApplication([], False)
    app.initQgis()
    try:
        qgz_path, png_path = build_demo_project(args.out)
        print(f"project: {qgz_path}")
        print(f"map:     {png_path}")
        print(f"answers: {ask_demo_questions(args.out)}")
    finally:
        app.exitQgis()
    return 0


if __name__ == "__main__":
    sys.exit(main())
