"""The MapAsk Processing provider (id 'mapask'): mapask:ask and mapask:askfile in the Toolbox, models and qgis_process."""

from qgis.core import QgsProcessingProvider
from qgis.PyQt.QtGui import QIcon

from ..paths import ICON_PATH
from .ask import AskAlgorithm
from .ask_file import AskFileAlgorithm

PROVIDER_ID = "mapask"


class MapAskProvider(QgsProcessingProvider):
    def id(self) -> str:
        return PROVIDER_ID

    def name(self) -> str:
        return "MapAsk"

    def longName(self) -> str:  # noqa: N802 (QGIS API)
        return "MapAsk: plain-language questions over PostGIS"

    def icon(self) -> QIcon:
        return QIcon(str(ICON_PATH))

    def svgIconPath(self) -> str:  # noqa: N802 (QGIS API)
        return str(ICON_PATH)

    def loadAlgorithms(self) -> None:  # noqa: N802 (QGIS API)
        self.addAlgorithm(AskAlgorithm())
        self.addAlgorithm(AskFileAlgorithm())
