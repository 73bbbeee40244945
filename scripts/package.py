"""Build the installable plugin zip (dist/mapask-<version>.zip) and install it into a QGIS profile.

    python scripts/package.py                      build the zip
    python scripts/package.py --install            build, then extract it into the default profile
    python scripts/package.py --install --link     symlink the checkout instead (for development)
    python scripts/package.py --install --profile-dir DIR [--zip dist/mapask-0.1.0.zip]

The zip holds one folder, mapask/, which QGIS imports as the package `mapask`. Pure-Python
dependencies go into mapask/ext_libs/ (the plugin puts that folder on sys.path), pinned to the
versions in requirements.txt, so the plugin runs in a stock QGIS whose Python has none of them.
"""

import argparse
import configparser
import importlib.metadata
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_NAME = "mapask"
# What goes into the zip, relative to the checkout; missing optional files are skipped.
INCLUDE = ["metadata.txt", "__init__.py", "plugin", "ui", "resources", "knowledge",
           "LICENSE", "LICENSE.txt", "LICENSE.md", "README.md"]
EXCLUDE_DIRS = {"__pycache__", "tests", "bench", "var", "out", ".venv", ".git", "dist",
                "ext_libs", ".pytest_cache", ".hypothesis"}
EXCLUDE_SUFFIXES = {".pyc", ".pyo"}
# Bundled: pure Python (or with a pure-Python fallback, as PyYAML has). rapidfuzz and jsonschema
# are optional in the plugin and llama-cpp-python is compiled, so none of those are bundled.
BUNDLED = ["sqlglot", "PyYAML", "lemminflect", "number-parser"]
COMPILED_SUFFIXES = {".so", ".pyd", ".dylib", ".dll"}
DEFAULT_PROFILE = Path.home() / ".local/share/QGIS/QGIS3/profiles/default"


def plugin_version() -> str:
    """The version field of metadata.txt: the single source of the plugin's version."""
    parser = configparser.ConfigParser()
    parser.read(ROOT / "metadata.txt", encoding="utf-8")
    return parser["general"]["version"]


def pinned_versions(names: Sequence[str]) -> Dict[str, str]:
    """name -> version for `names`, read from the name==version lines of requirements.txt."""
    pins = {}
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = (part.strip() for part in line.split("==", 1))
            pins[name.lower()] = version
    missing = [name for name in names if name.lower() not in pins]
    if missing:
        raise SystemExit(f"requirements.txt pins no version for: {', '.join(missing)}")
    return {name: pins[name.lower()] for name in names}


def build_ext_libs(target: Path) -> None:
    """Install the pinned BUNDLED packages into `target`, then drop compiled extensions."""
    pins = pinned_versions(BUNDLED)
    target.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
               "--no-deps", "--no-compile", "--target", str(target)]
    command += [f"{name}=={version}" for name, version in pins.items()]
    if subprocess.run(command, check=False).returncode != 0:
        # Offline: fall back to the copies installed here, if they are the pinned versions.
        print("pip install failed; copying the installed distributions instead", file=sys.stderr)
        for name, version in pins.items():
            _copy_installed(name, version, target)
    _strip_compiled(target)


def _copy_installed(name: str, version: str, target: Path) -> None:
    """Copy the files of the installed distribution `name` into `target` (must be `version`)."""
    dist = importlib.metadata.distribution(name)
    if dist.version != version:
        raise SystemExit(f"{name} {dist.version} is installed but requirements.txt pins {version}")
    for file in dist.files or []:
        if file.parts[0] == ".." or "__pycache__" in file.parts:  # scripts in bin/, bytecode
            continue
        destination = target / file
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(dist.locate_file(file), destination)


def _strip_compiled(target: Path) -> None:
    """Remove compiled extensions so the bundle is the same on every platform.

    PyYAML falls back to its pure-Python parser when its C extension is missing; its top-level
    _yaml package only re-exports that extension, so it goes too.
    """
    for path in sorted(target.rglob("*")):
        if path.is_file() and path.suffix in COMPILED_SUFFIXES:
            path.unlink()
    for leftover in ("_yaml", "bin"):
        shutil.rmtree(target / leftover, ignore_errors=True)
    for cache in list(target.rglob("__pycache__")):
        shutil.rmtree(cache, ignore_errors=True)


def plugin_files() -> Iterator[Path]:
    """Every file of the plugin, relative to the checkout, in a stable order."""
    for name in INCLUDE:
        path = ROOT / name
        if path.is_file():
            yield Path(name)
        elif path.is_dir():
            for file in sorted(path.rglob("*")):
                relative = file.relative_to(ROOT)
                if (file.is_file() and file.suffix not in EXCLUDE_SUFFIXES
                        and not EXCLUDE_DIRS.intersection(relative.parts)):
                    yield relative


def build_zip(dist_dir: Path) -> Path:
    """Write dist_dir/mapask-<version>.zip with the plugin and its bundled dependencies."""
    dist_dir.mkdir(parents=True, exist_ok=True)
    zip_path = dist_dir / f"{PLUGIN_NAME}-{plugin_version()}.zip"
    with tempfile.TemporaryDirectory() as tmp:
        ext_libs = Path(tmp) / "ext_libs"
        build_ext_libs(ext_libs)
        with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as archive:
            for relative in plugin_files():
                archive.write(ROOT / relative, f"{PLUGIN_NAME}/{relative.as_posix()}")
            for file in sorted(p for p in ext_libs.rglob("*") if p.is_file()):
                archive.write(file, f"{PLUGIN_NAME}/ext_libs/{file.relative_to(ext_libs).as_posix()}")
    return zip_path


def install(zip_path: Optional[Path], profile_dir: Path, link: bool) -> Path:
    """Put the plugin into profile_dir/python/plugins/mapask, replacing what was there.

    With `link`, the folder is a symlink to this checkout (edits show up after a plugin
    reload) and ext_libs/ is built inside the checkout so the link works in a stock QGIS too.
    """
    plugins_dir = profile_dir / "python" / "plugins"
    plugins_dir.mkdir(parents=True, exist_ok=True)
    destination = plugins_dir / PLUGIN_NAME
    if destination.is_symlink() or destination.is_file():
        destination.unlink()
    elif destination.is_dir():
        shutil.rmtree(destination)
    if link:
        shutil.rmtree(ROOT / "ext_libs", ignore_errors=True)
        build_ext_libs(ROOT / "ext_libs")
        destination.symlink_to(ROOT, target_is_directory=True)
    else:
        assert zip_path is not None
        with zipfile.ZipFile(zip_path) as archive:
            archive.extractall(plugins_dir)
    return destination


def main(argv: Optional[List[str]] = None) -> int:
    """Command line: build, and with --install also install; print the paths."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist-dir", type=Path, default=ROOT / "dist", help="where the zip goes")
    parser.add_argument("--install", action="store_true", help="install into a QGIS profile")
    parser.add_argument("--profile-dir", type=Path, default=DEFAULT_PROFILE,
                        help=f"QGIS profile folder (default {DEFAULT_PROFILE})")
    parser.add_argument("--link", action="store_true", help="with --install: symlink the checkout")
    parser.add_argument("--zip", type=Path, help="with --install: install this zip, do not build")
    args = parser.parse_args(argv)

    zip_path = args.zip
    if zip_path is None and not (args.install and args.link):
        zip_path = build_zip(args.dist_dir)
        print(f"built {zip_path}")
    if args.install:
        destination = install(zip_path, args.profile_dir.expanduser(), args.link)
        print(f"installed {destination}" + (f" -> {ROOT}" if args.link else ""))
        print("restart QGIS (or use Plugin Reloader), then enable MapAsk in Plugins > Manage")
    return 0


if __name__ == "__main__":
    sys.exit(main())
