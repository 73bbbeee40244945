"""Which clauses of a message ask and which are context: what a purpose, a statement or a report keeps."""
from __future__ import annotations

from .anchors import PARTIAL_SCORE
from .clauses import Clause, asked_positions, classify, clause_at
from .pack import Pack
from .spelling import is_plural_word
from .text import phrase_key
from .tokens import Span, readings
from .value_words import fields_of


class ClauseRoles:
    """Sets aside the words of clauses that do not ask, keeping what each kind of clause contributes."""

    def __init__(self, pack: Pack, lang: dict, rules: dict, stop: set[str]):
        self.pack, self.lang, self.rules, self.stop = pack, lang, rules, stop

    def _purpose_tails(self, ann, rules: dict) -> None:
        """'<question> for the <words the pack does not know>': a purpose closing a clause ('... for the walk audit')
        is a clause of its own, set aside."""
        tails = [phrase_key(t) for t in rules.get("purpose_tails", [])]
        heads = set(rules.get("purpose_heads", []))
        read = {i for s in ann.spans if s.kind != "cue" for i in range(s.start, s.end)}
        for c in list(ann.clauses):
            for p in range(c.start + 1, c.end):
                w = next((w for w in tails if w and tuple(ann.tokens[p:p + len(w)]) == w), None)
                rest = range(p + len(w), c.end) if w else range(0)
                if w and rest and not read & set(rest) and any(ann.tokens[i] not in self.stop for i in rest):
                    ann.clauses.insert(ann.clauses.index(c) + 1, Clause(" ".join(ann.tokens[p:c.end]), p, c.end, "purpose"))
                    c.end = p
                    break
                # ('<trend> for the memo, <question>'): a purpose ending with a word for what the message is
                head = next((h for h in rest[:4] if ann.tokens[h] in heads), None) if w else None
                if head is not None and head + 1 < c.end and not read & set(range(p + len(w), head + 1)):
                    k = ann.clauses.index(c)
                    ann.clauses[k + 1:k + 1] = [Clause(" ".join(ann.tokens[p:head + 1]), p, head + 1, "purpose"),
                                                Clause(" ".join(ann.tokens[head + 1:c.end]), head + 1, c.end, c.kind)]
                    c.end = p
                    break

    def _only_part_of_a_name(self, s: Span, c: Clause, ann) -> bool:
        """An anchor outside the question that is no place to count in: a word only part of a few names, or, in a
        purpose, a feature rather than an area ('<square> check: ...') unless the question refers back to it ('the
        <feature>')."""
        if not s.value.get("others") and self._referred_to(s.value["entity"], ann):
            return False  # ('<planning> for <name>: ... of the <feature>?'): the one feature the question refers back to
        if s.value.get("score", 100) <= PARTIAL_SCORE:
            return True
        return c.kind in ("purpose", "deadline") and not self.pack.entities[s.value["entity"]].area

    def _yields(self, s: Span, asked: list[Span], ann) -> bool:
        """Whether a place named outside the question gives way to the places the question names: a name read
        only near a known one ('<region name> end of the corridor - <town>, <town> ...'), or a feature ('we walk
        <square> next week. ... near <intersection>?')."""
        if not asked:
            return False
        ent = s.value["entity"]
        if not any(a.value["entity"] == ent for a in asked) and self._referred_to(ent, ann):
            return False  # ('on behalf of the <school>. ... within <d> of the school, in <town>?'): referred back to
        return s.value.get("score", 100) < 100 and any(a.value.get("score", 100) >= 100 for a in asked) or \
            not self.pack.entities[ent].area

    def _claimed_count(self, s: Span, ann) -> bool:
        """Whether a number compared just before records counted ('over 900 <records>') is a count said of all of
        them: no groups are named anywhere for it to be a condition on."""
        counted = any(x.kind == "entity" and self.records(x) and 0 <= x.start - s.end <= 1 for x in ann.spans)
        groups = any(x.kind == "field" or x.kind == "cue" and x.value == "group" for x in ann.spans)
        return counted and not groups

    def _referred_to(self, entity: str, ann) -> bool:
        """Whether a clause that asks names one feature of this layer as one already named ('... of the <feature>')."""
        definite = set(self.lang.get("definite_words", []))
        asked = asked_positions(ann.clauses)
        return any(x.kind == "entity" and entity in readings(x, "entity") and (asked is None or x.start in asked) and
                   x.start and ann.tokens[x.start - 1] in definite and not is_plural_word(x.text.split()[-1])
                   for x in ann.spans)

    def _hearsay(self, ann, rules: dict) -> set[int]:
        """A statement of what someone said or wrote ('a resident wrote in about <topic>') is background when the
        question names the records itself: its topic is no condition. The positions of what was said, when the
        question asks of it."""
        # ('we are drafting a paper on <topic>'): what a piece of writing is about is its topic, no condition
        topic = [h.split() + [t] for h in rules.get("purpose_heads", []) for t in rules.get("topic_words", [])]
        asked = [c for c in ann.clauses if c.kind == "question"]
        if not any(x.kind == "entity" and not self._area(x) and c.start <= x.start < c.end for c in asked
                   for x in ann.spans):
            # ('<someone> said <records> went up. how many were there?'): what was said is asked of, its words too
            # (who said it is no part of what was said: 'the <official> complained about ...')
            return {i for c in ann.clauses if c.kind == "statement" and c.reports
                    for i in range(_reported(ann.tokens, c, rules.get("saying_verbs", [])), c.end)}
        for c in ann.clauses:
            if c.kind == "statement" and (c.reports or any(ann.tokens[i:i + len(w)] == w for w in topic
                                                           for i in range(c.start, c.end))):
                c.kind = "hearsay"
        return set()

    def _asks_of_before(self, ann) -> None:
        """A question naming nothing ('<records> farther than <d> from <features> - how many are there?') asks of
        the plain statements before it: they are the question."""
        named = ("entity", "label", "concept", "anchor", "field", "time", "distance", "numcmp", "blank")
        before: list[Clause] = []
        for c in ann.clauses:
            if c.kind == "question" and not any(s.kind in named and c.start <= s.start < c.end for s in ann.spans):
                for b in before:
                    b.kind = "question"
            before = [] if c.kind == "question" else before + [c] if (
                c.kind == "statement" and not c.reports and not c.states) else before

    def _names_a_document(self, s: Span, c: Clause, ann, heads: set[str]) -> bool:
        """Whether a value word modifies a word for a piece of writing a few words on, only values between ('our
        <day> <part of day> show')."""
        for j in range(s.end, min(s.end + 3, c.end)):
            if ann.tokens[j] in heads:
                return True
            if any(x.start <= j < x.end and x.kind not in ("cue", "time", "concept", "label") for x in ann.spans):
                return False
        return False

    def _time_pointed_at(self, ann, rules: dict) -> bool:
        """Whether a clause that asks points back at a time said elsewhere ('in those years', 'the same 3 months')."""
        pointers, periods = set(rules.get("pointing_words", [])), set(rules.get("period_words", []))
        asked = asked_positions(ann.clauses) or set()
        return any(ann.tokens[i] in pointers and periods & set(ann.tokens[i + 1:i + 3]) for i in sorted(asked))

    def _place_field(self, s: Span) -> bool:
        """Whether a field word names a kind of place ('county'), which a place name beside it is a value of."""
        return any(self.pack.entities[e].fields[f].place for e, f in fields_of(s)
                   if e in self.pack.entities and f in self.pack.entities[e].fields)

    def _names_records(self, c: Clause, spans: list[Span]) -> bool:
        """Whether a clause names records that happen (a source), as 'for the 2010 <records>' does; a word for what
        the message is ('the <season> table in the safety report') names no records."""
        heads = set(self.rules.get("context", {}).get("purpose_heads", []))
        return any(x.kind == "entity" and c.start <= x.start < c.end and self.records(x) and x.text.split()[-1]
                   not in heads for x in spans)

    def _area(self, s: Span) -> bool:
        """Whether an entity word names an area layer (a place records lie in, not a thing asked about)."""
        return all(self.pack.entities[v].area for k, v in (s.items or [(s.kind, s.value)]) if k == "entity")

    def records(self, s: Span) -> bool:
        """Whether an entity word names records that happen (with a time), as a source does."""
        return any(k == "entity" and self.pack.entities[v].time for k, v in (s.items or [(s.kind, s.value)]))

    def _classified(self, ann, rules: dict) -> dict[int, str]:
        """Mark each clause's kind; the cue words by position, but those of a clause telling what is included."""
        closing = _inclusion_closers(ann, rules, set(rules.get("question_cues", [])))
        cues = {s.start: str(s.value) for s in ann.spans if s.kind == "cue" and s.start not in closing}
        # ('<month by month> for <year>: ...'): a part of time said distributively groups, and so asks
        cues.update({s.start: "group" for s in ann.spans if s.kind == "timepart" and len(s.text.split()) > 2})
        for c in ann.clauses:
            c.states = c.states or any(c.start <= i < c.end for i in closing)  # (it tells what is included)
        self._purpose_tails(ann, rules)
        classify(ann.clauses, cues, set(rules.get("question_cues", [])))
        return cues

    def set_aside(self, ann) -> None:
        """A purpose or greeting contributes nothing; a statement only its conditions; their other words are
        context, never 'not understood'. Who asks ('<someone> wants ...') is a purpose of its own."""
        rules = self.rules.get("context", {})
        cues = self._classified(ann, rules)
        said = self._hearsay(ann, rules)
        self._asks_of_before(ann)
        _who_asks(ann, rules, cues)
        keeps = {k: set(v) for k, v in rules.get("keeps", {}).items()}
        heads = set(rules.get("purpose_heads", []))
        owners = set(rules.get("statement_openers", []))
        keep = []
        asked = asked_positions(ann.clauses)
        asked_anchors = [s for s in ann.spans if s.kind == "anchor" and (asked is None or s.start in asked)]
        asked_names = [set(s.text.split()) for s in asked_anchors]
        # ('<features> filed under <place> - which of those ...?'): a question naming nothing asks of what was stated
        back = self._time_pointed_at(ann, rules)
        asks_of = any(s.kind == "entity" and not self._area(s) and (asked is None or s.start in asked) for s in ann.spans)
        for s in ann.spans:
            c = clause_at(ann.clauses, s.start)
            if c is not None and c.kind != "question" and s.kind == "anchor" and (any(
                    set(s.text.split()) < n for n in asked_names) or self._only_part_of_a_name(s, c, ann) or
                    self._yields(s, asked_anchors, ann)):
                continue  # ('for the <name> walk audit: ... of the <name> school?'): the feature the question names
            if c is not None and c.kind == "purpose" and s.kind == "entity" and not self._area(s) and not asks_of:
                keep.append(s)  # ('for the <features> in <place>, how many are in each <field>?'): what is asked of
                continue
            if c is not None and c.kind != "question" and s.kind not in keeps.get(c.kind, set()) and not (
                    s.kind == "cue" and {v for k, v in (s.items or [(s.kind, s.value)]) if k == "cue"} &
                    set(rules.get("keep_cues", []))) and not _kind_of_place(s, c, keeps, ann.spans, self.pack) and not (
                    s.kind == "time" and (back or c.kind == "purpose" and self._names_records(c, ann.spans) and
                                          not _after_topic_word(ann.tokens, c, s, rules))):
                continue  # (but 'for the 2010 <records>, ...' dates the records it names)
            if c is not None and s.text in heads and (c.kind == "purpose" or c.kind != "question" and s.start and
                                                       ann.tokens[s.start - 1] in owners):
                continue  # ('<topic> angle -', '<place> is our angle.'): the word for what the message is, not a value
            if c is not None and c.kind != "question" and (s.kind in ("concept", "label", "time") and self._names_a_document(
                    s, c, ann, heads) or s.kind == "time" and _habitual(ann.tokens, s, rules)):
                continue  # ('our <value> safety grant application', '<we walk there> every <morning>'): no condition
            if c is not None and c.kind != "question" and s.kind == "entity" and not self.records(s) and asks_of:
                continue  # ('... a talk to <features>.'): a statement names the records, never a feature to be near
            if c is not None and c.kind != "question" and s.kind == "numcmp" and self._claimed_count(s, ann):
                continue  # ('the flyer says "over 900 <records> since <year>"'): a count claimed, no condition
            if c is not None and c.kind != "question" and s.kind == "field" and not any(
                    (v.kind in ("label", "concept", "blank", "numcmp") or v.kind == "anchor" and self._place_field(s))
                    and max(v.start - s.end, s.start - v.end) <= 3 for v in ann.spans if v is not s):
                continue  # ('All crash types.'): a field with no value said of it gives a statement nothing
            keep.append(s)
        used = {i for s in keep for i in range(s.start, s.end)}
        context = [ann.tokens[i] for c in ann.clauses if c.kind != "question" for i in range(c.start, c.end)
                   if i not in used]
        ann.aside = [s for s in ann.spans if s not in keep]
        ann.spans = keep
        ann.context = [w for w in context if w not in self.stop]
        if asked is not None and not any(s.start in asked and s.kind != "cue" for s in keep):
            # ('<value> <records> in <place> - list'): a question naming nothing asks of the clauses before it
            verbs = rules.get("saying_verbs", []) + rules.get("reporting_verbs", [])
            said |= {i for c in ann.clauses if c.kind == "statement" for i in range(_reported(ann.tokens, c, verbs), c.end)}
        ann.unknown = [u for j, u in enumerate(ann.tokens) if u in ann.unknown and j not in used and
                       (asked is None or j in asked or j in said)]


def _after_topic_word(toks: list[str], c: Clause, s: Span, rules: dict) -> bool:
    """Whether a topic word ('on', 'about') stands before `s` in its purpose clause: 'for my chapter on <season>
    <records> patterns' says what a document is about, it dates no records."""
    words = set(rules.get("topic_words", []))
    return any(toks[i] in words for i in range(max(c.start, s.start - 2), s.start))


def _inclusion_closers(ann, rules: dict, asking: set[str]) -> set[int]:
    """Positions of the cue words of the phrases ('any <value> counts') that close a clause of several, after
    something it is said of, in a sentence that is no question and asks nothing else: they tell what is included.
    (Not after the records' word: '<records> counts' names counts.)"""
    out: set[int] = set()
    if len(ann.clauses) < 2:
        return out
    for c in ann.clauses:
        for w in [p.split() for p in rules.get("inclusion_closers", [])]:
            k = c.end - len(w)
            if k <= c.start or ann.tokens[k:c.end] != w or c.raw.rstrip().endswith("?"):
                continue
            before = [s for s in ann.spans if c.start <= s.start < k]
            if any(s.kind != "cue" for s in before) and not any(s.kind == "entity" and s.end == k for s in before) \
                    and not any(s.kind == "cue" and str(s.value) in asking for s in before):
                out |= set(range(k, c.end))
    return out


def _who_asks(ann, rules: dict, cues: dict[int, str]) -> None:
    """'<someone> wants ...': who asks is a purpose of its own; a clause reporting another's question, when a direct
    question follows, is only reported."""
    leads = {id(c): _reported(ann.tokens, c, rules.get("reporting_verbs", [])) if c.kind == "question" else c.start
             for c in ann.clauses}
    # (a direct question naming nothing, 'can you do that for each?', asks what was reported before it)
    direct = any(c.kind == "question" and leads[id(c)] == c.start and any(c.start <= x.start < c.end and x.kind in (
        "entity", "label", "concept", "anchor", "field", "time", "per", "distance", "area_shape") for x in ann.spans)
        for c in ann.clauses)
    for c in list(ann.clauses):
        lead = leads[id(c)]
        if direct and lead > c.start and not _speaker_asks(ann.tokens, c, lead, rules.get("reporting_verbs", [])):
            c.kind = "reported"  # ('<someone> asked how many ... . What share ...?'): the question asked next says it
            continue
        asked_before = any(c.start <= i < lead and str(v) in set(rules.get("question_cues", [])) for i, v in
                           cues.items()) or any(t in rules.get("question_words", []) for t in ann.tokens[c.start:lead])
        if lead > c.start and not asked_before:
            ann.clauses.insert(ann.clauses.index(c), Clause(" ".join(ann.tokens[c.start:lead]), c.start, lead,
                                                            "purpose"))
            c.start = lead


def _kind_of_place(s: Span, c: Clause, keeps: dict, spans: list[Span], pack: Pack) -> bool:
    """A field word just after a place the clause keeps says what kind of place it is ('<name> county'); the
    place may be a label of that place field ('for the <county name> county map')."""
    if "anchor" not in keeps.get(c.kind, set()):
        return False
    if s.kind == "field":
        return any(a.kind in ("anchor", "label") and a.end == s.start for a in spans)
    kind = next((f for f in spans if f.kind == "field" and f.start == s.end), None)
    return s.kind == "label" and kind is not None and tuple(s.value[:2]) in fields_of(kind) and \
        pack.entities[s.value[0]].fields[s.value[1]].place

def _reported(toks: list[str], c: Clause, verbs: list[str]) -> int:
    """Where the question proper starts in a clause: after the first reporting verb ('... wants to know'), or at
    its start."""
    for i in range(c.start, c.end):
        for v in sorted(verbs, key=len, reverse=True):
            w = v.split()
            if toks[i:i + len(w)] == w:
                return i + len(w)
    return c.start



def _speaker_asks(toks: list[str], c: Clause, lead: int, verbs: list[str]) -> bool:
    """Whether a clause opens with its reporting verb, no one named before it ('need the list of ...'): the speaker's
    own request, not what someone else asked."""
    return any(toks[c.start:lead] == v.split() for v in verbs)


def _habitual(toks: list[str], s: Span, rules: dict) -> bool:
    """Whether a time is said of a habit ('every morning'): in a statement, the speaker's routine, not a condition."""
    words = set(rules.get("habitual", []))
    return s.text.split()[0] in words or (s.start > 0 and toks[s.start - 1] in words)
