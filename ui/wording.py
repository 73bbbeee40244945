"""What the dock says, in the pack's words: ask-backs without the pack's description, repairs, table headers."""

import html
import re
from typing import Any, Iterable, List, Optional

from qgis.PyQt.QtCore import QCoreApplication

from ..plugin.core.pack import Pack, measures_summary, pack_summary
from ..plugin.core.text import language, tokens


def tr(text: str) -> str:
    return QCoreApplication.translate("MapAsk", text)


# what each part of a frame is, as the repairs name it by its path ('group_by[0]', 'near.anchor')
PARTS = {"target": "Records", "intent": "Kind of answer", "measure": "Measure", "filters": "Condition",
         "time": "Time", "scope": "Place", "near": "Nearby features", "near.anchor": "Named feature",
         "near.distance_m": "Distance", "near.k": "How many nearest", "group_by": "Grouped by",
         "rank": "Ranking", "rank.limit": "How many shown", "having": "Condition on the count",
         "compare": "Comparison", "share_of": "Share of"}
# the columns the compiler names itself (a pack's own fields are named by their labels)
COLUMNS = {"count": "count", "matching": "matching", "total": "total", "share_pct": "share (%)",
           "rank": "rank", "tied": "groups sharing this value", "distance_m": "distance (m)", "side": "compared",
           "population": "residents", "group_key": "group", "group_id": "group"}
TIME_COLUMNS = {"year": "year", "quarter": "quarter", "month": "month", "dow": "day of week", "hour": "hour",
                "season": "season"}
MAX_SHOWN_VALUES = 6


class Wording:
    """Plain words for one pack: field labels and descriptions stand for column names and frame paths."""

    def __init__(self, pack: Pack) -> None:
        self.pack = pack
        self.description = pack_summary(pack)

    # ---- ask-backs and the pack's description
    def strip_description(self, text: str) -> str:
        """The core's sentence without the pack's description, which is shown only on request.

        The description may be appended whole (as pack_summary writes it) or reworded; a sentence quoting what two
        or more entities answer is that description either way.
        """
        out = text.replace(self.description, "")
        quoted = sorted(i for i in (out.find(e.answers) for e in self.pack.entities.values() if e.answers) if i >= 0)
        if len(quoted) >= 2:
            start = max(out.rfind(". ", 0, quoted[0]), out.rfind(": ", 0, quoted[0]))
            out = out[:start + 1] if start >= 0 else ""
        return " ".join(out.split()).strip()

    def ask_back(self, answer: Any) -> str:
        """One sentence: what was not understood (the core's words) and what to try."""
        said = self.strip_description(answer.answer or "")
        if answer.clarify or answer.status != "clarify":
            return said  # the choices are buttons; a refusal or an error says why on its own
        example = self.example_for(answer.question)
        if not said:
            said = tr("MapAsk did not understand this question")
        if not example:
            return said
        return said.rstrip(".") + tr("; try a question like “{}”.").format(example)

    def example_for(self, question: str) -> str:
        """The pack's reviewed example closest in words to `question` (the first one when none is close)."""
        questions = [str(e.get("question", "")) for e in self.pack.examples if e.get("question")]
        if not questions:
            return ""
        stop = set(language(self.pack.raw.get("language", "en"))["stopwords"])
        said = {t for t in tokens(question or "") if t not in stop}
        best = max(questions, key=lambda q: len(said & set(tokens(q))))
        return best if said & set(tokens(best)) else questions[0]

    def help_html(self) -> str:
        """The pack's description, what it computes, and a few reviewed questions to start from (links)."""
        name = self.pack.raw.get("name") or self.pack.id
        ents = sorted(self.pack.entities.values(), key=lambda e: self.pack.priority(e.name))
        items = "".join(f"<li><b>{_e(e.plural)}</b>{': ' + _e(e.answers) if e.answers else ''}</li>" for e in ents)
        seen: List[str] = []
        for e in self.pack.examples:
            q = str(e.get("question", ""))
            if q and q not in seen and len(seen) < 8:
                seen.append(q)
        examples = "".join(f"<li><a href='mapask:example:{_e(q)}'>{_e(q)}</a></li>" for q in seen)
        return (f"<p><b>{_e(tr('What can I ask?'))}</b> {_e(name)}</p>"
                f"<p>{_e(tr('Questions about:'))}</p><ul style='margin-top:0'>{items}</ul>"
                f"<p>{_e(tr('MapAsk can'))} {_e(measures_summary(self.pack))}.</p>"
                + (f"<p>{_e(tr('For example (click to put one in the question box):'))}</p>"
                   f"<ul style='margin-top:0'>{examples}</ul>" if examples else ""))

    # ---- fields, columns and values in the pack's labels
    def field_label(self, name: str, target: Optional[str] = None) -> Optional[str]:
        """The label of field `name` ('crash.city_town_name' or 'city_town_name'), the target entity first."""
        if "." in name:
            ent_name, _, fname = name.partition(".")
            ent = self.pack.entities.get(ent_name)
            if ent is not None and fname in ent.fields:
                return ent.fields[fname].label
        ents = list(self.pack.entities.values())
        if target in self.pack.entities:
            ents.insert(0, self.pack.entities[target])
        for ent in ents:
            if name in ent.fields:
                return ent.fields[name].label
        return None

    def header(self, column: str, frame: Optional[dict] = None) -> str:
        """A table header for `column`: the pack's field label, or plain words for the compiler's own columns."""
        target = (frame or {}).get("target")
        label = self.field_label(column, target)
        if label:
            return label
        if column in self.pack.entities:
            return self.pack.entities[column].label
        ent = self.pack.entities.get(target or "")
        if ent is not None and column == ent.key:  # the table's own key, which the pack does not describe
            return tr("{} id").format(ent.label)
        if column == "epdo":
            return str(self.pack.convention("epdo", "name", default=tr("severity-weighted score")))
        if column.startswith("rate_per_"):
            return tr("per {} residents").format(column[len("rate_per_"):].replace("_", ","))
        for prefix, word in (("sum_", tr("total")), ("avg_", tr("average"))):
            if column.startswith(prefix):
                field = self.field_label(column[len(prefix):], target)
                return f"{word} {field or column[len(prefix):].replace('_', ' ')}"
        words = COLUMNS.get(column) or TIME_COLUMNS.get(column)
        return tr(words) if words else column.replace("_", " ")

    def headers(self, columns: Iterable[str], frame: Optional[dict] = None) -> List[str]:
        return [self.header(c, frame) for c in columns]

    def value(self, v: Any, target: Optional[str] = None) -> str:
        """A repair's before/after value in words: labels for fields and entities, never a dict or a path."""
        if v is None or v == "" or v == [] or v == {}:
            return ""
        if isinstance(v, bool):
            return tr("yes") if v else tr("no")
        if isinstance(v, float):
            return f"{v:g}"
        if isinstance(v, (list, tuple)):
            shown = [s for s in (self.value(x, target) for x in v) if s]
            more = f" (+{len(shown) - MAX_SHOWN_VALUES})" if len(shown) > MAX_SHOWN_VALUES else ""
            return ", ".join(shown[:MAX_SHOWN_VALUES]) + more
        if isinstance(v, dict):
            return self._dict_value(v, target)
        text = str(v)
        parts = [p for p in text.split("|") if p]
        labels = [self.field_label(p, target) or (self.pack.entities[p].plural if p in self.pack.entities else None)
                  for p in parts]
        if parts and all(labels):
            return " or ".join(dict.fromkeys(labels))  # each label once: a field several sources share
        return text

    def _dict_value(self, d: dict, target: Optional[str]) -> str:
        if d.get("text"):
            return str(d["text"])
        if d.get("field") and "op" in d:  # a condition: its field's label and its values
            values = self.value(d.get("values"), target)
            return f"{self.value(d['field'], d.get('entity') or target)} {values}".strip()
        if "key" in d:  # a grouping
            return self.value(d["key"], target)
        if "distance_m" in d and d.get("entity"):
            return tr("{} within {:g} m").format(self.value(d["entity"], target), float(d["distance_m"] or 0))
        if "kind" in d:  # a measure
            kind = str(d["kind"])
            return self.header(kind) if kind != "count" else tr("count")
        return ", ".join(s for s in (self.value(x, target) for x in d.values()) if s)

    def _reason(self, reason: str, target: Optional[str]) -> str:
        # a column name slipped into a reason ('has no field crash_hr') reads as its label
        return re.sub(r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b", lambda m: self.field_label(m.group(0), target) or m.group(0),
                      reason or "")

    def repair(self, r: dict, frame: Optional[dict] = None) -> str:
        """One repair as a line: what part of the question, what it became, and why; no paths, codes or dicts."""
        target = (frame or {}).get("target")
        path = str(r.get("path") or "")
        part = PARTS.get(re.sub(r"\[\d+\]", "", path)) or PARTS.get(path.split(".")[0].split("[")[0]) or "Reading"
        before, after = self.value(r.get("before"), target), self.value(r.get("after"), target)
        if path.endswith("distance_m") and after:
            after += " m"
        if before and after and before != after and after not in before.split(" or "):
            change = f"{before} → {after}"
        elif after:
            change = after
        elif before:
            change = tr("{} left out").format(before)
        else:
            change = ""
        reason = self._reason(str(r.get("reason") or ""), target)
        return f"{tr(part)}: {change}" + (f" ({reason})" if reason else "") if change else f"{tr(part)}: {reason}"


def wording_for(session: Any) -> Optional[Wording]:
    """The words of the session's pack; None while no pack can be read (the raw text is shown then)."""
    try:
        return Wording(session.pack())
    except Exception:
        return None


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value))
