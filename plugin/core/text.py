"""Text normalisation and tokenising shared by the interpreter and the anchor index."""
from __future__ import annotations

import functools
import re
import unicodedata
from pathlib import Path
from typing import Any

import yaml

_UNIT_GLUE = re.compile(r"(?<=\d)(m|ft|km|mi|feet|foot|meters|metres|meter|metre|yds|yards|pm|am|st|nd|rd|th|s)\b")


def normalize(text: str) -> str:
    """Lower-case, unify punctuation, split glued units ('150m' -> '150 m'), drop thousands separators."""
    t = unicodedata.normalize("NFKC", text).casefold()
    t = t.replace("\u2019", "'").replace("\u2018", "'").replace("&", " and ")
    t = re.sub(r"(?<=\d),(?=\d{3}\b)", "", t)
    t = re.sub(r"(?<=\d)\.(?=\d)", "\x00", t)  # keep decimal points
    t = _UNIT_GLUE.sub(lambda m: " " + m.group(1) if m.group(1) not in ("st", "nd", "rd", "th", "s") else "", t)
    t = re.sub(r"(?<=\w)'s\b", "", t).replace("'", "")  # a possessive names its owner ('the town's' is 'the town')
    t = re.sub(r"(?<=\d)\s*-\s*(?=\d)", " to ", t)  # 2012-2016 -> 2012 to 2016
    t = re.sub(r"(?<=\d)k?\+", lambda m: m.group(0)[:-1] + " plus", t)  # '75+', '50k+': '75 plus' (or more)
    t = re.sub(r"(?<=[^\W\d_])/(?=[^\W\d_])", " or ", t)  # 'fatal/injury' is either (labels read the same way)
    t = re.sub(r"(?<!\d):|:(?!\d)", " ", t)  # a colon stays only inside a time ('7:30')
    # a fraction in digits ('1/4') keeps its slash as a word of its own for the quantity rules; a date's does not
    t = re.sub(r"(?<![\d/.])(\d+)/(\d+)(?![\d/])", "\\1 \x01 \\2", t)
    t = re.sub(r"[^\w%:\x00\x01]+", " ", t)
    return " ".join(t.replace("\x00", ".").replace("\x01", "/").split())


_BRACKETED = re.compile(r"\b(\w{2,8})\s*\(([^()]{3,120})\)")


def drop_expansions(text: str) -> str:
    """'<ABBR> (<words whose initials spell it>) <word>' -> '<ABBR> <word>': a bracket spelling out the
    abbreviation before it says nothing new, and would part the abbreviation from the words it goes with."""
    def spelt(m: re.Match) -> str:
        short, initials = m.group(1).lower(), [w[0] for w in re.findall(r"\w+", m.group(2).lower())]
        return m.group(1) if len(initials) >= len(short) and initials[0] == short[0] and \
            _subsequence(short, initials) else m.group(0)
    return _BRACKETED.sub(spelt, text)


def _subsequence(short: str, initials: list[str]) -> bool:
    it = iter(initials)
    return all(ch in it for ch in short) and initials[-1] == short[-1]


def tokens(text: str) -> list[str]:
    return normalize(text).split()


@functools.lru_cache(maxsize=4)
def language(code: str = "en") -> dict[str, Any]:
    """The interpreter's grammar words for one language (plugin/core/language_<code>.yaml)."""
    from .phrase_rules import rule_files
    path = Path(__file__).with_name(f"language_{code}.yaml")
    lang = yaml.safe_load(path.read_text(encoding="utf-8"))
    excl = rule_files(code).get("exclusion", {})
    # the exclusion rules' cue words are read by the annotator like every other cue
    lang["cues"]["exclude_before"] = list(excl.get("before", []))
    lang["cues"]["exclude_after"] = list(excl.get("after", []))
    lang["cues"]["either_way_after"] = list(excl.get("either_way_after", []))
    lang["cues"]["either_way_before"] = list(excl.get("either_way_before", []))
    lang["cues"]["either_way_kept"] = list(excl.get("either_way_kept", []))
    lang["cues"]["either_way_restated"] = list(excl.get("either_way_restated", []))
    lang["cues"]["either_way_beyond"] = list(excl.get("either_way_beyond", []))
    lang["cues"]["declining"] = list(excl.get("declining", []))
    lang["no_information"] = list(excl.get("no_information", []))
    # 'at least one signal': read as one phrase, before 'least' could be read as a ranking
    lang["cues"]["exists"] = [w for w in rule_files(code).get("quantifiers", {}).get("exists", []) if " " in w]
    return lang


def phrase_key(phrase: str) -> tuple[str, ...]:
    return tuple(tokens(phrase))


def to_number(tok: str, lang: dict) -> float | None:
    try:
        return float(tok)
    except ValueError:
        v = lang["number_words"].get(tok)
        return float(v) if v is not None else None
