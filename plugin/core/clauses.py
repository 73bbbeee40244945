"""Sentences and clauses of a message: which ask the question, which only state conditions, which are context."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .spelling import parts_of_speech, verb_forms
from .text import normalize

# a sentence ends at . ? ! ; followed by a space (a decimal point has none); a leading clause at , : or a dash
_SENTENCE = re.compile(r"(?<=[.?!;])\s+(?=\S)")
_ASIDE = ("purpose", "deadline", "remark")  # kinds of clause set aside whatever the others are
_LEAD = re.compile(r"\s*(?:,(?!\d{3}\b)|:(?!\d)|\s[-\u2013\u2014]+\s)\s*")  # (not the comma of '10,000')


@dataclass
class Clause:
    """A piece of the message, its tokens [start, end) in the joined token list, and its role."""
    raw: str
    start: int = 0
    end: int = 0
    kind: str = "question"  # question | statement | purpose | deadline (a purpose that says by when) | remark
    asks: bool = False      # holds a question word or ends with '?'
    states: bool = False    # opens with the speaker as subject ('we ...', 'our ...') and holds no question word
    reports: bool = False   # tells what someone said or showed ('the official said ...'), asking nothing itself
    opens: bool = False     # the first clause of its sentence: no phrase reads across into it


def pieces(question: str, rules: dict) -> list[Clause]:
    """The message cut into sentences, and a leading clause cut off where a purpose or greeting opens it or a
    colon closes it."""
    openers = [tuple(normalize(o).split()) for o in rules.get("purpose_openers", [])]
    deadlines = [tuple(normalize(o).split()) for o in rules.get("deadline_openers", [])]
    out: list[Clause] = []
    for said, meant in (rules.get("contractions") or {}).items():
        end = r"(?!\w)" if said[-1:].isalnum() else ""  # ('hr' is not the start of 'hrs')
        question = re.sub(rf"(?i)(?<!\w){re.escape(said).replace(chr(39), '[' + chr(39) + chr(8217) + ']')}{end}", meant,
                          question)
    for rw in rules.get("rewrites", []):  # ('jun-aug': a dash between two months is a range, not a compound word)
        question = re.sub(rw["pattern"], lambda m, rw=rw: _rewritten(m, rw), question)
    for sent in _sentences(question.strip(), rules):
        first = len(out)
        # ('<greeting> - for the <newsletter>, could you ...'): a lead cut off may open on another
        while True:
            lead, sent = _cut_lead(sent, rules, openers, deadlines)
            if lead is None:
                break
            out.append(lead)
        out += _trailing(sent, rules)
        out[first].opens = True
    qwords = set(rules.get("question_words", []))
    first = set(rules.get("question_openers", []))
    greet = set(rules.get("greetings", []))
    subjects = set(rules.get("statement_openers", []))
    others = set(rules.get("told_subjects", []))
    said = [v.split() for v in rules.get("saying_verbs", [])]
    for c in out:
        toks = normalize(c.raw).split()
        lead = next((t for t in toks if t not in greet), "")
        c.asks = c.raw.rstrip().endswith("?") or lead in first or any(
            t in qwords and not _embedded(toks, i, rules, said) for i, t in enumerate(toks))
        c.states = not c.asks and lead in subjects
        c.reports = not c.asks and (any(toks[i:i + len(v)] == v for v in said for i in range(len(toks))) or
                                    _told(toks, others))
        if len(out) > 1 and not c.asks and not c.states and c.kind == "question" and (
                _names_message(c.raw.rstrip(" .!;"), rules) or any(tuple(toks[:len(o)]) == o for o in openers)):
            c.kind = "purpose"  # ('<topic> pricing question.' before the question): a sentence saying what the message is
    return out


def _rewritten(m: re.Match, rw: dict) -> str:
    """A rewrite rule's text for one match; '{month<n>}' is the name of the month numbered by group n (a date in
    digits said as the time rules read it), and a number that is no month leaves the match as it was."""
    names = rw.get("month_names") or []
    out = m.expand(rw["to"])
    for n in sorted(set(re.findall(r"\{month(\d)\}", out))):
        k = int(m.group(int(n)))
        if not 1 <= k <= len(names):
            return m.group(0)
        out = out.replace(f"{{month{n}}}", names[k - 1])
    return out


def _embedded(toks: list[str], i: int, rules: dict, said: list[list[str]]) -> bool:
    """Whether the question word at `i` asks nothing itself: it opens a relative clause after a noun ('a <person>
    who lives ...') or what someone said ('<they> are arguing about which ...')."""
    before = toks[i - 1] if i else ""
    if toks[i] in rules.get("relative_question_words", []) and before and "NOUN" in (pos := parts_of_speech(before)) and "VERB" not in pos:
        return True
    return any(toks[j:j + len(v)] == v and j + len(v) <= i for v in said for j in range(i))


def _sentences(text: str, rules: dict) -> list[str]:
    """The sentences of a message; a period after an abbreviation ('<name> Jr.', 'Mt. <name>') ends none."""
    short = set(rules.get("abbreviations", []))
    never_final = set(rules.get("never_final", []))  # ('<a> vs. the <b>'): these end no sentence, whatever follows
    # (unless what follows opens a sentence: 'on <name> Ave. Compare ...')
    openers = {w for key in ("question_words", "question_openers", "statement_openers", "greetings", "told_subjects")
               for w in rules.get(key, [])} | {o.split()[0] for o in rules.get("purpose_openers", [])}
    out: list[str] = []
    for part in _SENTENCE.split(text):
        words = out[-1].rstrip().split() if out else []
        nxt = normalize(part).split()[:1]
        last = words[-1][:-1].lower() if words and words[-1].endswith(".") else ""
        if last in never_final or last in short and nxt and nxt[0] not in openers:
            out[-1] += " " + part
        else:
            out.append(part)
    return out


def _cut_lead(sent: str, rules: dict, openers: list[tuple], deadlines: list[tuple]) -> tuple[Clause | None, str]:
    """The leading clause of a sentence, when a purpose or greeting opens it or a colon or dash closes it, and the
    rest of the sentence."""
    m = _lead(sent, rules)
    if m is None and any(tuple(normalize(sent).split()[:len(o)]) == o for o in openers):
        ask = _request_in(sent, rules)  # ('for the <report> I need <records> ...' with no comma): cut where it asks
        if ask:
            return Clause(sent[:ask], kind="purpose"), sent[ask:]
    head = normalize(sent[:m.start()]).split() if m else []
    deadline = bool(head) and any(tuple(head[:len(o)]) == o for o in deadlines)
    purpose = deadline or bool(head) and any(tuple(head[:len(o)]) == o for o in openers)
    # a colon or a dash closes a clause of its own ('<the need> - how many ...?'); a comma only a purpose
    closed = bool(m) and m.group(0).strip()[:1] in (":", "-", "\u2013", "\u2014")
    # ('<topic> check:', '<topic> angle for the report -'): a closed lead with a word for what the message is, is its purpose
    # ('As a <topic> check for my <report>, ...'): an opener that is a purpose only with a word for the message
    named = bool(head) and any(tuple(head[:len(o.split())]) == tuple(o.split()) for o in rules.get("purpose_if_named", []))
    purpose = purpose or (closed or named) and _names_message(sent[:m.start()], rules)
    ask = _request_in(sent[:m.start()], rules) if m and purpose and not deadline else None
    if ask:  # ('for the <study> we need <records> ...,'): the purpose ends where the speaker asks
        return Clause(sent[:ask], kind="purpose"), sent[ask:]
    if m and (purpose or closed) and sent[m.end():].strip():
        return Clause(sent[:m.start()], kind="deadline" if deadline else "purpose" if purpose else "question"), \
            sent[m.end():]
    return None, sent


def _told(toks: list[str], others: set[str]) -> bool:
    """Whether a sentence tells what someone did: it opens with a third party as subject and a verb in the past
    tense follows within three words ('the <official> <compared> ...'), so a cue word in it asks nothing."""
    # (a past form only: 'feed' is also a present verb and a noun)
    return bool(toks) and toks[0] in others and any("VBD" in (f := verb_forms(t)) and f <= {"VBD", "VBN"}
                                                    for t in toks[1:4])


def _trailing(sent: str, rules: dict) -> list[Clause]:
    """The sentence, cut where a remark ('..., I know that ...'), a purpose ('... so I can map them') or a reason
    ('... since <something> <happened>') closes it."""
    if any(re.match(r"(?i)\s*" + r"\s+".join(map(re.escape, c.split())) + r"\b", sent)
           for c in rules.get("remark_closers", [])):
        return [Clause(sent, kind="remark")]  # ('I know <year> is partial; ...'): a sentence that is a remark
    for closers, kind in (("remark_closers", "remark"), ("purpose_closers", "purpose")):
        tail = _closer(sent, rules.get(closers, []))
        if tail is not None and sent[:tail].strip():
            return [Clause(sent[:tail]), Clause(sent[tail:], kind=kind)]
    tail = _reason(sent, rules)
    if tail is not None and sent[:tail].strip():
        return [Clause(sent[:tail]), Clause(sent[tail:], kind="remark")]
    return [Clause(sent)]


def _reason(sent: str, rules: dict) -> int | None:
    """Where a reason closing the sentence starts: a reason word followed by a subject ('since it ...', 'because
    we ...') or, within four words, by a verb in the past tense ('since <event> <wrecked> ...'); never by a number
    ('since 2015')."""
    openers = "|".join(map(re.escape, rules.get("reason_openers", [])))
    subjects = set(rules.get("statement_openers", [])) | set(rules.get("reason_subjects", []))
    for m in re.finditer(rf"(?i)[\s,;(]+(?:{openers})\s+(?=(\S+(?:\s+\S+){{0,3}}))", sent) if openers else []:
        toks = normalize(m.group(1)).split()
        if not toks or toks[0][:1].isdigit():
            continue
        if toks[0] in subjects or any("VBD" in verb_forms(t) for t in toks[1:]):
            return m.start()
    return None


def _lead(sent: str, rules: dict) -> re.Match | None:
    """Where a leading clause ends: at the first comma, colon or dash; or, past a comma, at a colon or dash that
    closes a lead holding a word for what the message is ('<topic> screening, <place>: ...')."""
    m = _LEAD.search(sent)
    if m is None or m.group(0).strip()[:1] != ",":
        return m
    for later in _LEAD.finditer(sent, m.end()):
        if later.group(0).strip()[:1] != "," and _names_message(sent[:later.start()], rules):
            return later
    return m


def _request_in(lead: str, rules: dict) -> int | None:
    """Where, inside a purpose lead, the speaker starts asking ('<purpose> I need ...'), if they do."""
    speakers = "|".join(map(re.escape, rules.get("statement_openers", [])))
    verbs = "|".join(re.escape(v).replace(r"\ ", r"\s+") for v in rules.get("reporting_verbs", []))
    m = re.search(rf"(?i)\s(?:{speakers})\s+(?:{verbs})\b", lead)
    return m.start() + 1 if m else None


def _names_message(lead: str, rules: dict) -> bool:
    """Whether a lead holds a word for what the message is, closing it or a comma part of it, or followed by a
    purpose ('<topic> check', '<topic> screening, <place>', '<topic> angle for the report'); a head word that
    opens what is asked ('<value> crashes with ...') is no such word."""
    heads = [tuple(h.split()) for h in rules.get("purpose_heads", [])]
    tails = [tuple(normalize(t).split()) for t in rules.get("purpose_tails", [])]
    topics = {(t,) for t in rules.get("topic_words", [])}
    opening = normalize(lead).split()[:1]
    if opening and opening[0] in set(rules.get("question_openers", [])) | set(rules.get("question_words", [])):
        return False  # ('compare <A> and <B> for the audit -'): a lead that asks is no purpose, whatever it closes with
    for part in lead.split(","):
        toks = normalize(part).split()
        for i in range(len(toks)):
            # (closing the part, or followed by a purpose or by what the piece is about: 'a <piece> on <topic>')
            end = next((i + len(h) for h in heads if tuple(toks[i:i + len(h)]) == h), None)
            if end is not None and (end == len(toks) or any(tuple(toks[end:end + len(x)]) == x for x in tails) or
                                    any(tuple(toks[end:end + 1]) == x for x in topics)):
                return True
    return False


def _closer(sent: str, closers: list[str]) -> int | None:
    """Where a trailing purpose ('... so I can map them') starts in the sentence, if one does."""
    for c in closers:
        m = re.search(r"(?i)[\s,;]+" + r"\s+".join(map(re.escape, c.split())) + r"\b", sent)
        if m:
            return m.start()
    return None


def classify(clauses: list[Clause], cue_starts: dict[int, str], question_cues: set[str]) -> None:
    """Mark each clause question, statement or purpose: when some clause asks (a question word, a '?', a question
    cue), the others only state; a lone clause is always the question."""
    if len(clauses) == 1:
        clauses[0].kind = "question"
        return
    for c in clauses:
        # ('we <saw> <something> on the map.': a cue word in a sentence that tells, not asks)
        cued = not c.states and not c.reports and any(c.start <= i < c.end and name in question_cues for i, name in cue_starts.items())
        c.asks = c.asks or cued
    if not any(c.asks for c in clauses if c.kind not in _ASIDE):
        # (no clause asks outright: all of them ask, but the speaker telling about themselves beside another
        # clause, 'I am trying to <redo> the <chart>.')
        told = any(not c.states for c in clauses if c.kind not in _ASIDE)
        for c in clauses:
            c.kind = c.kind if c.kind in _ASIDE else "statement" if c.states and told else "question"
        return
    for c in clauses:
        if c.kind not in _ASIDE:
            c.kind = "question" if c.asks else "statement"


def clause_at(clauses: list[Clause], i: int) -> Clause | None:
    """The clause holding token position `i`, if any."""
    return next((c for c in clauses if c.start <= i < c.end), None)


def asked_positions(clauses: list[Clause]) -> set[int] | None:
    """Token positions of the clauses that ask; None when the message was not cut into clauses (all of it asks)."""
    return {i for c in clauses if c.kind == "question" for i in range(c.start, c.end)} if clauses else None
