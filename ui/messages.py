"""MapAsk's messages in QGIS's message bar: one current message per kind, and none that outlives its time."""

from typing import Any, Dict, Optional, Tuple

from qgis.core import Qgis
from qgis.gui import QgsMessageBar, QgsMessageBarItem
from qgis.PyQt import sip
from qgis.PyQt.QtCore import QObject, QTimer

TITLE = "MapAsk"
INFO_SECONDS = 6
PROBLEM_SECONDS = 12


class Messages(QObject):
    """Pushes MapAsk's messages to a message bar, one per kind ("ask", "export", "replay", ...).

    QGIS's bar keeps every message it was given in a stack: when the newest one expires, the one beneath it
    is shown again with its full time, so "Export failed" came back a minute later over a newer answer.
    Here a new message replaces the older one of its kind, and each message leaves the bar when its time is
    up, whether it is on top or hidden beneath another (QGIS only counts down the one on top).
    """

    def __init__(self, bar_source: Any, parent: Optional[QObject] = None) -> None:
        super().__init__(parent)
        # the iface (its messageBar()) or a bar itself: QGIS may recreate neither, but tests hand in either
        self._source = bar_source
        self._items: Dict[str, Tuple[QgsMessageBarItem, QTimer]] = {}

    def bar(self) -> Optional[QgsMessageBar]:
        if self._source is None:
            return None
        return self._source if isinstance(self._source, QgsMessageBar) else self._source.messageBar()

    def push(self, kind: str, text: str, problem: bool = False, seconds: Optional[int] = None) -> Any:
        """Show `text` as the one current message of `kind`; returns the bar item (None without a bar)."""
        bar = self.bar()
        if bar is None:
            return None
        self.clear(kind)
        seconds = seconds if seconds is not None else PROBLEM_SECONDS if problem else INFO_SECONDS
        item = QgsMessageBarItem(TITLE, text, Qgis.Warning if problem else Qgis.Info, seconds)
        bar.pushItem(item)
        timer = QTimer(self)
        timer.setSingleShot(True)
        timer.timeout.connect(lambda k=kind, i=item: self._expire(k, i))
        timer.start(seconds * 1000)
        self._items[kind] = (item, timer)
        return item

    def current(self, kind: str) -> Optional[str]:
        """The text of the message of `kind` still in the bar, if any."""
        held = self._items.get(kind)
        if held is None or not self._in_bar(held[0]):
            return None
        return held[0].text()

    def clear(self, kind: Optional[str] = None) -> None:
        """Take the message of `kind` (every kind when None) off the bar."""
        for k in [kind] if kind is not None else list(self._items):
            held = self._items.pop(k, None)
            if held is None:
                continue
            item, timer = held
            timer.stop()
            timer.deleteLater()
            self._remove(item)

    def _expire(self, kind: str, item: QgsMessageBarItem) -> None:
        held = self._items.get(kind)
        if held is not None and held[0] is item:
            self.clear(kind)
        else:
            self._remove(item)

    def _in_bar(self, item: QgsMessageBarItem) -> bool:
        bar = self.bar()
        if bar is None or sip.isdeleted(bar) or sip.isdeleted(item):
            return False
        return any(i is item for i in bar.items())

    def _remove(self, item: QgsMessageBarItem) -> None:
        # the user may have closed it, or QGIS's own countdown removed it when it was on top
        if self._in_bar(item):
            self.bar().popWidget(item)
