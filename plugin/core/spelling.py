"""Words of the vocabulary as users spell them: lemmas and plurals (lemminflect), compound number words
(number-parser) and typo correction against the pack's lexicon (rapidfuzz), each change reported."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

try:  # optional in a stock QGIS: exact words and the code's own edit distance are used without them
    from lemminflect import getAllInflections, getAllLemmas, getAllLemmasOOV
except ImportError:  # pragma: no cover
    getAllInflections = getAllLemmas = getAllLemmasOOV = None
try:
    from rapidfuzz.distance import OSA
except ImportError:  # pragma: no cover
    OSA = None
try:
    from number_parser import parse_number
except ImportError:  # pragma: no cover
    parse_number = None


def is_plural_word(word: str) -> bool:
    """Whether a word is a plural noun ('towns', 'neighbourhoods'; not 'bus', 'class')."""
    if getAllLemmas is None:
        return word.endswith("s") and not word.endswith("ss")
    # (a word the dictionary lacks, 'counties', by the inflection rules)
    lemmas = getAllLemmas(word, upos="NOUN").get("NOUN", ()) or getAllLemmasOOV(word, upos="NOUN").get("NOUN", ())
    return bool(lemmas) and word not in lemmas


@functools.lru_cache(maxsize=4096)
def singular(word: str) -> str:
    """A plural noun in the singular ('roadways' -> 'roadway'); any other word as it is."""
    if getAllLemmas is None or not is_plural_word(word):
        return word
    found = getAllLemmas(word, upos="NOUN").get("NOUN", ())
    return found[0] if found else word


def parts_of_speech(word: str) -> set[str]:
    """The parts of speech a word can be (lemminflect's universal tags), empty when it knows none."""
    return set(getAllLemmas(word)) if getAllLemmas is not None else set()


def lemmas(word: str) -> frozenset[str]:
    """Every lemma of a word, whatever its part of speech ('happens', 'happened': 'happen'); the word alone
    when lemminflect knows none."""
    found = frozenset(lem for lems in (getAllLemmas(word) if getAllLemmas else {}).values() for lem in lems)
    return found or frozenset([word])


def verb_forms(word: str) -> set[str]:
    """The Penn tags of the verb forms the word is ('noticed': VBD; 'speeding': VBG)."""
    if getAllLemmas is None:
        return set()
    return {tag for lemma in getAllLemmas(word).get("VERB", ()) for tag, forms in
            getAllInflections(lemma, upos="VERB").items() if word in forms}


def edit_distance(a: str, b: str) -> int:
    """Optimal string alignment distance (a swap of two neighbours is one edit: 'pedestrain')."""
    if OSA is not None:
        return OSA.distance(a, b)
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[-1][-1]


def allowed_edits(word: str) -> int:
    """Edits a word of this length may carry and still be read as a vocabulary word (two letters: none)."""
    return 0 if len(word) < 3 else 1 if len(word) < 8 else 2


def _slip(word: str, v: str) -> bool:
    """Whether a short word is `v` typed with two letters swapped or one left out ('teh', 'fatl'), the slips a
    short word can carry and stay readable."""
    return sorted(v) == sorted(word) or len(v) == len(word) + 1


@dataclass
class Speller:
    """Maps a word the lexicon does not hold to the one it most likely is, or None."""
    vocab: set[str]
    protected: set[str] = field(default_factory=set)  # words that are names elsewhere (places, streets)
    meaning: dict[str, frozenset] = field(default_factory=dict)  # word -> its readings, when it is a phrase alone
    most: int = 2  # edits allowed at most, whatever the length

    def lemma(self, word: str) -> str | None:
        """A form of the word the vocabulary holds: its lemma ('injuries' -> 'injury') or its plural."""
        if getAllLemmas is None:
            return None
        forms = [lem for lems in getAllLemmas(word).values() for lem in lems]
        forms += list(getAllInflections(word, upos="NOUN").get("NNS", ()))
        return next((f for f in forms if f in self.vocab and f != word), None)

    def correct(self, word: str) -> str | None:
        """The single vocabulary word within the allowed edits, or None (none, or a tie)."""
        tied = self.nearest(word)
        if not tied:
            return None
        shared = frozenset.intersection(*[self.meaning.get(v, frozenset([v])) for v in tied])
        if not shared:
            return None  # two words as close that mean different things: guessing would be a coin toss
        return tied[0]

    def nearest(self, word: str) -> list[str]:
        """The vocabulary words nearest a word within the allowed edits (several when tied)."""
        k = min(allowed_edits(word), self.most)
        short = len(word) < 5
        english = bool(parts_of_speech(word))
        if k == 0 or word in self.protected or not word.isalpha() or short and english:
            return []  # (a short English word is meant as typed: 'bust' is no slip of 'bus')
        k = 1 if english else k  # (an English word two letters from a vocabulary word is another word: 'teachers')
        best: list[tuple[int, str]] = []
        for v in self.vocab:
            # (a known word misspelt in the data itself)
            if abs(len(v) - len(word)) > k or len(v) < (3 if short else 4) or v == word:
                continue
            if english and not parts_of_speech(v):
                continue  # (an English word is no slip of a name only the data holds: 'covers' is no '<town>s')
            d = edit_distance(word, v)
            if d <= k and (not short or _slip(word, v)):
                best.append((d, v))
        best.sort()
        return [v for d, v in best if d == best[0][0]]


def number_runs(toks: list[str], number_words: dict, joiners: set[str] | None = None) -> tuple[list[str], list[dict]]:
    """Number words as digits: runs ('two thousand five hundred' -> '2500') and single words from two up."""
    if parse_number is None:
        return toks, []
    out: list[str] = []
    done: list[dict] = []
    i = 0
    joiners = joiners or set()
    while i < len(toks):
        j = i
        while j < len(toks) and (toks[j] in number_words or (toks[j] in joiners and j > i and j + 1 < len(toks)
                                                              and toks[j + 1] in number_words)):
            j += 1
        run = toks[i:j]
        value = parse_number(" ".join(run)) if len(run) >= 2 and run[-1] not in joiners else None
        if len(run) == 1 and isinstance(number_words.get(run[0]), int) and number_words[run[0]] >= 2:
            value = number_words[run[0]]  # 'the three schools' reads like 'the 3 schools' ('one' stays a word)
        if value is not None:
            out.append(str(value))
            done.append({"rule": "number words", "from": " ".join(run), "to": str(value)})
            i = j
        else:
            out.append(toks[i])
            i += 1
    return out, done
