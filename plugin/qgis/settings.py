"""MapAsk's settings in QgsSettings, all under the prefix "MapAsk/", behind small typed get/set helpers."""

from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import List

from qgis.core import QgsSettings

from .paths import PLUGIN_DIR

PREFIX = "MapAsk/"
HISTORY_MAX = 50
MODEL_KINDS = ("none", "gguf", "server")


def default_pack_dir() -> str:
    """The first pack shipped with the plugin (knowledge/<pack>/pack.yaml), or '' when there is none."""
    packs = sorted(p.parent for p in (PLUGIN_DIR / "knowledge").glob("*/pack.yaml"))
    return str(packs[0]) if packs else ""


def default_user_pack_dir() -> str:
    """Where promoted examples go unless the user chose a folder: beside QGIS's own profile settings."""
    from qgis.core import QgsApplication

    return str(Path(QgsApplication.qgisSettingsDirPath()) / "mapask" / "user_pack")


@dataclass
class Settings:
    """Everything MapAsk remembers between sessions. Never a password: those stay in QGIS's auth system."""

    connection: str = ""            # name of a saved QGIS PostGIS connection
    pack_dir: str = ""
    user_pack_dir: str = ""         # promoted examples are written here
    model_kind: str = "none"        # none | gguf | server
    model_path: str = ""
    model_url: str = ""
    model_judge: bool = True        # with a model: let it judge answers (it can only lower confidence)
    row_cap: int = 5000
    timeout_s: int = 30
    cost_gate: bool = False         # refuse queries whose planner cost estimate is over cost_limit
    cost_limit: int = 1_000_000
    history: List[str] = field(default_factory=list)

    def effective_pack_dir(self) -> str:
        return self.pack_dir or default_pack_dir()

    def effective_user_pack_dir(self) -> str:
        return self.user_pack_dir or default_user_pack_dir()


def load() -> Settings:
    s = QgsSettings()
    out = Settings()
    for f in fields(Settings):
        default = getattr(out, f.name)
        if f.name == "history":
            value = s.value(PREFIX + f.name, [])
            value = [value] if isinstance(value, str) else list(value or [])
        elif isinstance(default, bool):  # before int: bool is an int; ini files hold "true"/"false"
            raw = s.value(PREFIX + f.name, default)
            if isinstance(raw, bool):
                value = raw
            elif str(raw).strip().lower() in ("true", "1", "yes", "on", "false", "0", "no", "off"):
                value = str(raw).strip().lower() in ("true", "1", "yes", "on")
            else:  # a hand-edited ini file: keep the default
                value = default
        elif isinstance(default, int):
            try:
                value = int(s.value(PREFIX + f.name, default))
            except (TypeError, ValueError):  # a hand-edited ini file: keep the default
                value = default
        else:
            value = str(s.value(PREFIX + f.name, default) or "")
        setattr(out, f.name, value)
    if out.model_kind not in MODEL_KINDS:
        out.model_kind = "none"
    out.row_cap = max(1, out.row_cap)
    out.timeout_s = max(1, out.timeout_s)
    out.cost_limit = max(1, out.cost_limit)
    return out


def save(settings: Settings) -> None:
    s = QgsSettings()
    for f in fields(Settings):
        s.setValue(PREFIX + f.name, getattr(settings, f.name))


def remember_question(settings: Settings, question: str) -> None:
    """Most recent first, no duplicates, at most HISTORY_MAX; saved at once."""
    q = " ".join(question.split())
    if not q:
        return
    settings.history = [q] + [h for h in settings.history if h != q][: HISTORY_MAX - 1]
    QgsSettings().setValue(PREFIX + "history", settings.history)


def export_dir() -> str:
    """The folder of the last export, or '' before the first one (QgsSettings, under MapAsk/)."""
    folder = str(QgsSettings().value(PREFIX + "export_dir", "") or "")
    return folder if folder and Path(folder).is_dir() else ""


def remember_export_dir(path: str) -> None:
    QgsSettings().setValue(PREFIX + "export_dir", str(Path(path).resolve().parent))
