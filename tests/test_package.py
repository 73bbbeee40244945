"""What we ship: the plugin zip is complete and self-contained, and the headless demo renders a map."""

import configparser
import csv
import importlib
import importlib.util
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType

import pytest
from qgis.core import (
    QgsCategorizedSymbolRenderer,
    QgsFeature,
    QgsGeometry,
    QgsGraduatedSymbolRenderer,
    QgsProject,
    QgsVectorLayer,
)
from qgis.PyQt.QtGui import QImage

ROOT = Path(__file__).resolve().parents[1]
STOCK_PYTHON = "/usr/bin/python3"  # Debian's Python, which QGIS runs on: no venv, no pip packages


def load_script(name: str) -> ModuleType:
    """Import scripts/<name>.py as a module (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"mapask_script_{name}", ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def qgis_module(name: str) -> ModuleType:
    """Import plugin.qgis.<name> from the checkout (as scripts/demo.py does)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    return importlib.import_module(f"plugin.qgis.{name}")


package_script = load_script("package")


@pytest.fixture(scope="module")
def built_zip(tmp_path_factory) -> Path:
    """Build the zip once, the way `make package` does, into a temporary dist folder."""
    dist = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, str(ROOT / "scripts" / "package.py"), "--dist-dir", str(dist)],
                   check=True, timeout=300)
    (zip_path,) = dist.glob("mapask-*.zip")
    return zip_path


@pytest.fixture(scope="module")
def installed(built_zip, tmp_path_factory) -> Path:
    """Install the zip into an empty QGIS profile with `package.py --install`; return plugins dir."""
    profile = tmp_path_factory.mktemp("profile")
    subprocess.run([sys.executable, str(ROOT / "scripts" / "package.py"), "--install",
                    "--zip", str(built_zip), "--profile-dir", str(profile)], check=True, timeout=120)
    plugins_dir = profile / "python" / "plugins"
    assert sorted(p.name for p in plugins_dir.iterdir()) == ["mapask"]
    assert not (plugins_dir / "mapask").is_symlink()
    return plugins_dir


def run_stock_python(code: str, plugins_dir: Path, tmp_path: Path, *args: str) -> str:
    """Run `code` with Debian's Python in isolated mode (-I: no PYTHONPATH, no user site, no cwd).

    The environment is emptied too, so nothing from the venv or the checkout can leak in:
    the only way to MapAsk or its dependencies is the installed plugin folder.
    """
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8",
           "QT_QPA_PLATFORM": "offscreen", "XDG_RUNTIME_DIR": str(tmp_path)}
    result = subprocess.run([STOCK_PYTHON, "-I", "-c", code, str(plugins_dir), *args],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
    return result.stdout


# --- the zip ------------------------------------------------------------------------------------

def test_zip_holds_one_mapask_folder_with_the_plugin(built_zip):
    names = zipfile.ZipFile(built_zip).namelist()
    assert all(name.startswith("mapask/") for name in names)
    for required in ["metadata.txt", "__init__.py", "plugin/__init__.py", "plugin/qgis/plugin.py",
                     "plugin/qgis/algorithms/provider.py", "plugin/qgis/algorithms/ask.py",
                     "plugin/qgis/algorithms/ask_file.py", "plugin/cli.py",
                     "plugin/qgis/layers.py", "plugin/qgis/render.py", "plugin/qgis/styles.py",
                     "ui/__init__.py", "ui/dock.py", "resources/icon.svg",
                     "resources/styles/crash_severity.qml"]:
        assert f"mapask/{required}" in names
    packs = {p.relative_to(ROOT).as_posix() for p in (ROOT / "knowledge").rglob("*")
             if p.is_file() and "__pycache__" not in p.parts}
    assert packs and packs <= {name[len("mapask/"):] for name in names}


def test_zip_leaves_out_development_files_and_compiled_code(built_zip):
    for name in zipfile.ZipFile(built_zip).namelist():
        parts = set(name.split("/"))
        assert not parts & {"__pycache__", "tests", "bench", "var", "out", ".venv", ".git", "dist"}, name
        assert not name.endswith((".pyc", ".so", ".pyd", ".dylib")), name


def test_zip_bundles_exactly_the_pinned_pure_python_dependencies(built_zip):
    pins = package_script.pinned_versions(["sqlglot", "PyYAML"])
    top = {name.split("/")[2] for name in zipfile.ZipFile(built_zip).namelist()
           if name.startswith("mapask/ext_libs/") and name.count("/") > 2}
    assert f"sqlglot-{pins['sqlglot']}.dist-info" in top
    assert f"pyyaml-{pins['PyYAML']}.dist-info" in top
    assert {"sqlglot", "yaml"} <= top
    assert not {t for t in top if re.match(r"(rapidfuzz|jsonschema|llama)", t, re.I)}


def test_metadata_is_complete_for_the_plugin_repository(built_zip):
    archive = zipfile.ZipFile(built_zip)
    parser = configparser.ConfigParser()
    parser.read_string(archive.read("mapask/metadata.txt").decode("utf-8"))
    meta = parser["general"]
    for key in ["name", "qgisMinimumVersion", "description", "about", "version", "author", "email",
                "repository", "tracker", "homepage", "tags", "icon", "category", "experimental"]:
        assert meta.get(key, "").strip(), f"metadata.txt lacks {key}"
    assert meta["name"] == "MapAsk"
    assert meta["qgisMinimumVersion"] == "3.22"
    assert re.fullmatch(r"\d+\.\d+\.\d+", meta["version"])
    assert built_zip.name == f"mapask-{meta['version']}.zip"
    assert len(meta["about"].splitlines()) > 1
    assert meta.getboolean("experimental") is True
    assert meta.getboolean("hasProcessingProvider") is True  # qgis_process loads only plugins that say so
    assert f"mapask/{meta['icon']}" in archive.namelist()


# --- the installed zip in a stock QGIS Python ---------------------------------------------------

LOAD_IN_STOCK_QGIS = r"""
import importlib.util, os, sys
plugins_dir, sqlglot_pin, yaml_pin = sys.argv[1:4]
assert not any(".venv" in p for p in sys.path), sys.path
assert importlib.util.find_spec("sqlglot") is None, "sqlglot is importable without the plugin"

import qgis.utils
from qgis.core import QgsApplication
from qgis.PyQt.QtCore import QCoreApplication, QEvent
from qgis.PyQt.QtWidgets import QDockWidget, QMainWindow

app = QgsApplication([], True)
app.initQgis()

def fail(type_, value, tb, msg, *args, **kwargs):  # instead of QGIS's modal error dialog
    import traceback
    traceback.print_exception(type_, value, tb)
    sys.exit(f"QGIS reported: {msg}")
qgis.utils.open_stack_dialog = fail

class Iface:
    # The QgisInterface methods MapAsk calls, acting on a real (offscreen) main window.
    def __init__(self):
        self.window = QMainWindow()
        self.toolbar = self.window.addToolBar("Database")
        self.menus = {}
    def mainWindow(self): return self.window
    def addDockWidget(self, area, dock): self.window.addDockWidget(area, dock)
    def removeDockWidget(self, dock): self.window.removeDockWidget(dock)
    def addDatabaseToolBarIcon(self, action): self.toolbar.addAction(action)
    def removeDatabaseToolBarIcon(self, action): self.toolbar.removeAction(action)
    def addPluginToDatabaseMenu(self, name, action): self.menus.setdefault(name, []).append(action)
    def removePluginDatabaseMenu(self, name, action):
        self.menus[name].remove(action)
        if not self.menus[name]:
            del self.menus[name]

iface = qgis.utils.iface = Iface()
# What QGIS does at start-up for each plugin folder: put it on sys.path, read every metadata.txt.
sys.path.insert(0, plugins_dir)
qgis.utils.plugin_paths = [plugins_dir]
qgis.utils.updateAvailablePlugins()
assert qgis.utils.available_plugins == ["mapask"], qgis.utils.available_plugins
assert qgis.utils.pluginMetadata("mapask", "name") == "MapAsk"

assert qgis.utils.loadPlugin("mapask")
assert qgis.utils.startPlugin("mapask")
assert iface.window.findChild(QDockWidget, "MapAskDock") is not None
provider = QgsApplication.processingRegistry().providerById("mapask")
assert sorted(a.id() for a in provider.algorithms()) == ["mapask:ask", "mapask:askfile"]
assert len(iface.toolbar.actions()) == 1 and len(iface.menus["&MapAsk"]) == 1

import sqlglot, yaml
ext_libs = os.path.join(plugins_dir, "mapask", "ext_libs")
assert sqlglot.__file__.startswith(ext_libs), sqlglot.__file__
assert yaml.__file__.startswith(ext_libs), yaml.__file__
assert sqlglot.__version__ == sqlglot_pin and yaml.__version__ == yaml_pin
assert sqlglot.transpile("select 1 as x", read="postgres") == ["SELECT 1 AS x"]
assert yaml.safe_load("a: [1, 'Property damage only ']") == {"a": [1, "Property damage only "]}

assert qgis.utils.unloadPlugin("mapask")
QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
assert iface.window.findChild(QDockWidget, "MapAskDock") is None
assert iface.toolbar.actions() == [] and iface.menus == {}
assert QgsApplication.processingRegistry().providerById("mapask") is None
print("loaded and unloaded")
app.exitQgis()
"""

IMPORT_EVERY_MODULE = r"""
import importlib, pkgutil, sys
plugins_dir = sys.argv[1]
sys.path.insert(0, plugins_dir)
import mapask  # runs classFactory's module: puts ext_libs on sys.path
names = [info.name for info in pkgutil.walk_packages(mapask.__path__, "mapask.")]
for name in names:
    importlib.import_module(name)
print("\n".join(names))
"""


def test_installed_zip_loads_and_unloads_in_stock_qgis_python(installed, tmp_path):
    pins = package_script.pinned_versions(["sqlglot", "PyYAML"])
    out = run_stock_python(LOAD_IN_STOCK_QGIS, installed, tmp_path, pins["sqlglot"], pins["PyYAML"])
    assert "loaded and unloaded" in out


def test_every_plugin_module_imports_from_the_installed_zip(installed, tmp_path):
    """Catches absolute imports (`import plugin.core...`) and unbundled hard dependencies."""
    modules = run_stock_python(IMPORT_EVERY_MODULE, installed, tmp_path).split()
    assert "mapask.plugin.qgis.plugin" in modules and "mapask.ui.dock" in modules
    assert "mapask.plugin.qgis.algorithms.provider" in modules


def test_link_install_points_at_the_checkout_and_gives_it_ext_libs(tmp_path, monkeypatch):
    """`--link` makes the profile's mapask folder a symlink to the checkout, with ext_libs/ in it."""
    checkout = tmp_path / "checkout"  # a stand-in, so the real checkout is left alone
    checkout.mkdir()
    monkeypatch.setattr(package_script, "ROOT", checkout)
    monkeypatch.setattr(package_script, "build_ext_libs", lambda target: target.mkdir())
    profile = tmp_path / "profile"
    (profile / "python" / "plugins" / "mapask").mkdir(parents=True)  # an older install
    destination = package_script.install(None, profile, link=True)
    assert destination == profile / "python" / "plugins" / "mapask"
    assert destination.is_symlink() and destination.resolve() == checkout
    assert (checkout / "ext_libs").is_dir()


# --- the installed zip under qgis_process ------------------------------------------------------

def qgis_process_binary() -> str:
    """qgis_process, or the binary behind Debian 12's wrapper, which passes an option the binary refuses
    ("Command --noversioncheck not known!", qgis/QGIS#57683)."""
    for name in ("qgis_process", "qgis_process.bin"):
        path = shutil.which(name)
        if path and subprocess.run([path, "--help"], capture_output=True, timeout=120,
                                   env=QGIS_PROCESS_BASE_ENV).returncode == 0:
            return path
    pytest.skip("no working qgis_process (install Debian's qgis package)")


QGIS_PROCESS_BASE_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "QT_QPA_PLATFORM": "offscreen"}


@pytest.fixture(scope="module")
def qgis_process(built_zip, tmp_path_factory, reader_dsn):
    """Run qgis_process as a user whose default profile holds only the installed zip, with mapask enabled.

    qgis_process reads the default profile under $HOME (~/.local/share/QGIS/QGIS3/profiles/default) and loads
    the enabled plugins of its python/plugins folder that declare hasProcessingProvider=yes.
    """
    home = tmp_path_factory.mktemp("home")
    runtime = home / "runtime"
    runtime.mkdir(mode=0o700)
    profile = home / ".local" / "share" / "QGIS" / "QGIS3" / "profiles" / "default"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "package.py"), "--install", "--zip", str(built_zip),
                    "--profile-dir", str(profile)], check=True, timeout=120)
    # a libpq service file: the password stays out of the command line, which qgis_process echoes
    services = home / "pg_service.conf"
    services.write_text("[mapask_test]\n" + "\n".join(reader_dsn.split()) + "\n", encoding="utf-8")
    env = dict(QGIS_PROCESS_BASE_ENV, HOME=str(home), XDG_RUNTIME_DIR=str(runtime), PGSERVICEFILE=str(services))
    binary = qgis_process_binary()

    def run(*args: str, check: bool = True) -> subprocess.CompletedProcess:
        result = subprocess.run([binary, *args], cwd=home, env=env, capture_output=True, text=True, timeout=300)
        if check:
            assert result.returncode == 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        return result

    run.home = home
    run.before = run("plugins").stdout  # installed, not yet enabled
    run("plugins", "enable", "mapask")
    return run


def json_results(result: subprocess.CompletedProcess) -> dict:
    """The results object of `qgis_process --json run` (stdout holds only that JSON)."""
    return json.loads(result.stdout[result.stdout.index("{"):])["results"]


def test_qgis_process_lists_mapask_as_a_processing_plugin_once_enabled(qgis_process):
    assert re.search(r"^\s+mapask$", qgis_process.before, re.M), qgis_process.before
    after = qgis_process("plugins").stdout
    assert re.search(r"^\* mapask$", after, re.M), after
    listed = qgis_process("list").stdout
    assert "mapask:ask" in listed and "mapask:askfile" in listed
    assert "QUESTION" in qgis_process("help", "mapask:ask").stdout


def test_qgis_process_runs_ask_and_writes_the_answer_layer(qgis_process, qgis_app, admin):
    out, audit = qgis_process.home / "schools.gpkg", qgis_process.home / "audit.jsonl"
    result = qgis_process("--json", "run", "mapask:ask", "--", "QUESTION=show the schools",
                          "CONNECTION=service=mapask_test", f"OUTPUT={out}", f"AUDIT_FILE={audit}")
    results = json_results(result)
    layer = QgsVectorLayer(str(out), "schools", "ogr")
    with admin.cursor() as cur:
        cur.execute("select count(*) from ma.school")
        schools = cur.fetchone()[0]
    assert results["STATUS"] == "answered" and results["ROW_COUNT"] == schools
    assert layer.isValid() and layer.featureCount() == schools and layer.isSpatial()
    (entry,) = [json.loads(line) for line in audit.read_text(encoding="utf-8").splitlines()]
    assert entry["id"] == json.loads(results["AUDIT"])["id"] and entry["connection"] == "service=mapask_test"


def test_qgis_process_runs_askfile_into_a_table_and_a_geopackage(qgis_process, qgis_app, reader_dsn):
    home = qgis_process.home
    questions = home / "questions.txt"
    questions.write_text("show the schools\ncrashes by town\nasdf qwer\n", encoding="utf-8")
    result = qgis_process("--json", "run", "mapask:askfile", "--", f"INPUT={questions}", f"CONNECTION={reader_dsn}",
                          f"OUTPUT={home / 'answers.csv'}", f"LAYERS={home / 'answers.gpkg'}",
                          f"AUDIT_FILE={home / 'audit_file.jsonl'}")
    results = json_results(result)
    assert (results["ASKED"], results["ANSWERED"], len(results["ANSWER_LAYERS"])) == (3, 2, 2)
    with (home / "answers.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["status"] for r in rows] == ["answered", "answered", "clarify"]
    for row in rows[:2]:
        layer = QgsVectorLayer(f"{home / 'answers.gpkg'}|layername={row['layer']}", row["question"], "ogr")
        assert layer.isValid() and layer.featureCount() == int(row["row_count"]) > 0


def test_qgis_process_reports_bad_input_and_fails(qgis_process):
    result = qgis_process("run", "mapask:ask", "--", "QUESTION= ", "CONNECTION=service=mapask_test",
                          f"OUTPUT={qgis_process.home / 'x.gpkg'}", check=False)
    assert result.returncode != 0 and "QUESTION is empty" in result.stdout + result.stderr
    result = qgis_process("run", "mapask:ask", "--", "QUESTION=show the schools", "CONNECTION=Nowhere",
                          f"OUTPUT={qgis_process.home / 'x.gpkg'}", check=False)
    assert result.returncode != 0 and "no saved PostGIS connection named 'Nowhere'" in result.stdout + result.stderr
    assert not (qgis_process.home / "x.gpkg").exists()


# --- styles -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, definition", [
    ("crash_severity", "Point?field=crash_severity_descr:string"),
    ("point", "Point"),
    ("line", "MultiLineString"),
    ("polygon_outline", "MultiPolygon"),
])
def test_every_shipped_style_applies(qgis_app, name, definition):
    apply_style = qgis_module("styles").apply_style
    layer = QgsVectorLayer(definition, name, "memory")
    apply_style(layer, name, color="#123456", size=1.5, opacity=0.5)
    assert layer.renderer() is not None


def test_graduated_template_recomputes_classes_for_any_count_field(qgis_app):
    apply_graduated = qgis_module("styles").apply_graduated
    layer = QgsVectorLayer("MultiPolygon?field=crashes:integer", "counts", "memory")
    features = []
    for i, value in enumerate([0, 2, 3, 8, 20, 21, 70, 300]):
        feature = QgsFeature(layer.fields())
        feature.setAttributes([value])
        feature.setGeometry(QgsGeometry.fromWkt(f"MULTIPOLYGON((({i} 0,{i + 1} 0,{i + 1} 1,{i} 0)))"))
        features.append(feature)
    layer.dataProvider().addFeatures(features)
    apply_graduated(layer, "crashes", classes=4)
    renderer = layer.renderer()
    assert isinstance(renderer, QgsGraduatedSymbolRenderer)
    assert renderer.classAttribute() == "crashes"
    assert len(renderer.ranges()) == 4
    assert renderer.ranges()[0].lowerValue() == 0 and renderer.ranges()[-1].upperValue() == 300


# --- the headless demo --------------------------------------------------------------------------

def test_demo_builds_a_project_and_renders_a_styled_map(tmp_path, qgis_app):
    demo = load_script("demo")
    qgz_path, png_path = demo.build_demo_project(tmp_path)

    assert zipfile.is_zipfile(qgz_path)
    project = QgsProject()
    assert project.read(str(qgz_path))
    layers = {layer.name(): layer for layer in project.mapLayers().values()}
    top_first = [layer.name() for layer in project.layerTreeRoot().layerOrder()]
    assert top_first == [spec["name"] for spec in demo.DEMO_LAYERS]
    assert all(layer.isValid() and layer.providerType() == "postgres" for layer in layers.values())
    severity = next(layer for layer in layers.values() if layer.name().startswith("MassDOT"))
    assert severity.subsetString() == "city_town_name = 'CAMBRIDGE'"
    assert severity.featureCount() > 0
    renderer = severity.renderer()
    assert isinstance(renderer, QgsCategorizedSymbolRenderer)
    assert "Property damage only " in {c.value() for c in renderer.categories()}

    image = QImage(str(png_path))
    assert not image.isNull() and image.width() >= 800
    colours = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
    assert len(colours) > 20  # white background, grey streets, green lanes, coloured points, labels
    white = image.pixel(0, 0)
    drawn = sum(1 for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)
                if image.pixel(x, y) != white)
    assert drawn > 0.02 * (image.width() // 7) * (image.height() // 7)
