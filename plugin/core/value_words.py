"""How values are said beyond their own labels: the kinds of a value listed after it, a word of another label of
its field, a value said after its field's name, and a field left blank."""
from __future__ import annotations

from dataclasses import replace

from .pack import Pack, norm_label
from .spelling import lemmas
from .text import normalize
from .tokens import Span


class ValueWords:
    """The passes that read values from the words around them, over one question's spans (built once per pack)."""

    def __init__(self, pack: Pack, lang: dict, rules: dict, stop: set[str]):
        self.pack, self.lang, self.rules, self.stop = pack, lang, rules, stop

    def read(self, spans: list[Span], toks: list[str], locked: set[int]) -> list[Span]:
        """Every pass, in order: a value said after its field is known before its siblings are looked for."""
        spans = self._kinds_listed(spans, toks, locked)
        spans = self._blank_fields(spans, toks, locked)
        spans = self._value_of_named_field(spans, toks)
        return self._sibling_labels(spans, toks, locked)

    def _kinds_listed(self, spans: list[Span], toks: list[str], locked: set[int]) -> list[Span]:
        """'<value>, <kind> or <kind>' where each kind is said in words of the value's own labels (or is a value
        within it) lists the value's kinds: it restates the whole value, it does not narrow it. The list may
        follow the records the value qualifies ('<value> crashes (<kind> or <kind>)')."""
        joins = set(self.lang.get("either_words", [])) | set(self.lang.get("list_joins", []))
        # (an item is a word of a kind, not a word that leaves one out: '<value> or not' is no list)
        cues = set(self.rules.get("exclusion", {}).get("before", []))
        for s in [s for s in spans if s.kind in ("concept", "label")]:
            if s not in spans:
                continue  # (taken into an earlier list)
            labels = label_sets(self.pack, s)
            words = {w for ls in labels.values() for v in ls for w in normalize(str(v)).split()}
            words |= {lem for w in words for lem in lemmas(w)}
            start, run, items, j = self._kinds_run(s, spans, toks, labels, words, joins)
            while j > start and (toks[j - 1] in joins or toks[j - 1] in self.stop and toks[j - 1] not in words):
                j -= 1  # (the run ends on a word of a kind)
            named = bool(run) and run[0].kind == "field"  # (after the field's own name one label restates)
            if len([i for i in items if any(k < j and toks[k] not in cues for k in i)]) < 2 - named:
                continue
            spans[:] = [x for x in spans if x not in run or x.end > j]
            if start == s.end:
                spans[spans.index(s)] = replace(s, end=j, text=" ".join(toks[s.start:j]))
            else:  # (the records said between stay read as such: the list is the value said again)
                spans.append(replace(s, start=start, end=j, text=" ".join(toks[start:j])))
                spans.sort(key=lambda x: x.start)
            locked.update(range(start, j))
        return spans

    def _kinds_run(self, s: Span, spans: list[Span], toks: list[str], labels: dict, words: set[str],
                   joins: set[str]) -> tuple[int, list[Span], list[list[int]], int]:
        """From the end of value `s` (past the records after it and their other values): where a run of its kinds starts, the spans
        it takes in, its items (token positions) and where it ends."""
        j = s.end
        while (rec := next((x for x in spans if x.start == j and x.kind in ("entity", "concept", "label")
                            and not within(label_sets(self.pack, x), labels)), None)) is not None:
            j = rec.end
        start, run, items = j, [], [[]]
        while j < len(toks):
            inner = next((x for x in spans if x.start == j and x is not s), None)
            if inner is not None and inner.kind == "field" and set(fields_of(inner)) & set(labels) and not run:
                run.append(inner)  # ('<value> (<its field> = <label>)'): the field named again, then its label
                items.append([])
                j = inner.end
                continue
            if inner is not None and inner.kind in ("concept", "label") and within(label_sets(self.pack, inner), labels):
                items += [list(range(j, inner.end)), []]  # (a value said within is a kind of its own)
                run.append(inner)
                j = inner.end
                continue
            if inner is not None and ("cue", "compare") in (inner.items or [(inner.kind, inner.value)]) and toks[j] not in joins:
                break  # ('<value> on <kind> vs <kind>'): kinds set against each other are sides, not a list
            if inner is not None and inner.kind == "cue" and all(x in self.stop for x in toks[inner.start:inner.end]):
                if any(x in joins for x in toks[inner.start:inner.end]):
                    items.append([])  # ('<kind> or <kind>'): a list word read as a cue still starts the next kind
                j = inner.end  # ('<value> of any kind (<kind>, <kind> ...)'): grammar words read as a cue
                continue
            if inner is not None and (inner.end - inner.start > 1 or inner.kind not in ("field", "cue", "label", "concept")):
                break  # (a word of a kind may have been read as a field or a value of its own: 'lighting')
            if inner is not None and inner.kind == "label" and inner.end < len(toks) and toks[inner.end] in words:
                items[-1] += list(range(j, inner.end))  # ('or any other <kind word>'): a label word said of a kind
                run.append(inner)
                j = inner.end
                continue
            if toks[j] in joins:
                items.append([])
            elif toks[j] in words or lemmas(toks[j]) & words:
                items[-1].append(j)
            elif toks[j] not in self.stop and toks[j] not in self.lang.get("kind_words", []):
                break
            run += [inner] if inner is not None else []
            j += 1
        return start, run, items, j

    def _sibling_labels(self, spans: list[Span], toks: list[str], locked: set[int]) -> list[Span]:
        """'<value>, regular or flashing': a word just after a value that is a word of one other label of the same
        field, a label sharing the value's words ('flashing ... signal'), names that label."""
        for v in [s for s in spans if s.kind in ("concept", "label")]:
            for (ent, fld), labels in label_sets(self.pack, v).items():
                field_ = self.pack.entities[ent].fields.get(fld) if ent in self.pack.entities else None
                own = {w for lb in labels for w in normalize(str(lb)).split()} - self.stop
                reach = v.end + 6  # (each kind named on the way lets the list run one word further)
                for j in range(v.end, len(toks)):
                    t = toks[j]
                    if j >= reach:
                        break
                    if j in locked or t in self.stop or not t.isalpha() or field_ is None:
                        reach += j in locked
                        continue
                    kin = [c for c in field_.codes if c not in labels and t in normalize(str(c)).split()
                           and own & set(normalize(str(c)).split())]
                    if len({norm_label(c) for c in kin}) == 1:
                        spans.append(Span(j, j + 1, "label", (ent, fld, norm_label(kin[0])), t,
                                          [("label", (ent, fld, norm_label(kin[0])))]))
                        locked.add(j)
                        reach += 1
        spans.sort(key=lambda s: s.start)
        return spans

    def _value_of_named_field(self, spans: list[Span], toks: list[str]) -> list[Span]:
        """'where the <field> was a <words>': words read otherwise (a layer's name) that are words of one label of
        the field just named are that label."""
        for f in [s for s in spans if s.kind == "field"]:
            x = next((x for x in spans if f.end < x.start <= f.end + 3 and x.kind in ("entity", "field")
                      and all(t in self.stop for t in toks[f.end:x.start])), None)
            said = set(toks[x.start:x.end]) - self.stop if x is not None else set()
            for ent, fld in fields_of(f) if said else []:
                codes = self.pack.entities[ent].fields[fld].codes
                kin = {norm_label(c) for c in codes if said <= set(normalize(str(c)).split())}
                if len(kin) == 1:
                    spans[spans.index(x)] = Span(x.start, x.end, "label", (ent, fld, kin.pop()), x.text)
                    break
        return spans

    def _blank_fields(self, spans: list[Span], toks: list[str], locked: set[int]) -> list[Span]:
        """'<field> left blank', 'a blank <field>', 'no <field> filled in': a condition that the field holds no value;
        '<field> filled in' with nothing negating it, that it holds one. A blank word beside no field is not read."""
        none = set(self.lang.get("none_words", []))
        for f in [f for f in spans if f.kind == "field" and f.start > 0 and toks[f.start - 1] in none]:
            # ('<records> with no <field>'; not 'no <field> filled in', read below, nor 'no <field> <value>')
            after = next((x for x in spans if x.start == f.end), None)
            if after is None or not (after.kind in ("label", "concept") or after.value in ("blank", "filled")):
                said = [("blank", (e, fl, True)) for e, fl in fields_of(f)]
                lead = next((c for c in spans if c.kind == "cue" and c.end == f.start), None)  # ('that have no')
                lo = lead.start if lead is not None else f.start - 1
                if lead is not None:
                    spans.remove(lead)
                spans[spans.index(f)] = Span(lo, f.end, "blank", said[0][1], " ".join(toks[lo:f.end]), said)
                locked.add(f.start - 1)
        for c in [s for s in spans if s.kind == "cue" and s.value in ("blank", "filled")]:
            fld, joined = self._field_beside(c, spans, toks)
            if fld is None:
                spans.remove(c)
                locked.difference_update(range(c.start, c.end))
                continue
            negated = fld.start > 0 and toks[fld.start - 1] in none  # ('no <field> filled in')
            # ('<field> wasnt filled in'): a negated verb before the word says the field holds none
            denied = c.value == "filled" and c.start > 0 and toks[c.start - 1] in set(self.lang.get("verb_negators", []))
            blank = c.value == "blank" or negated or denied
            lo, hi = (min(c.start, fld.start - negated), max(c.end, fld.end)) if joined else (c.start, c.end)
            if joined:
                spans.remove(fld)
            said = [("blank", (e, f, blank)) for e, f in fields_of(fld)]
            spans[spans.index(c)] = Span(lo, hi, "blank", said[0][1], " ".join(toks[lo:hi]), said)
        spans.sort(key=lambda s: s.start)
        return spans

    def _field_beside(self, c: Span, spans: list[Span], toks: list[str]) -> tuple[Span | None, bool]:
        """The field a blank word qualifies, and whether only grammar words stand between: the field just after
        ('a blank <field>'), else the nearest before it, across values said of it ('<field> is unknown or blank')."""
        fields = [s for s in spans if fields_of(s)]
        plain = lambda a, b: all(t in self.stop for t in toks[a:b])
        after = next((f for f in fields if c.end <= f.start <= c.end + 1 and plain(c.end, f.start)), None)
        if after is not None and c.value == "blank":
            return after, True
        # (not across a cue that keeps what follows it: '<field>, keeping those where it was blank')
        qualifies = lambda v: v.kind == "cue" and str(v.value).startswith("either_way")
        said_of = lambda i: not any(v.start <= i < v.end and qualifies(v) for v in spans) and (
            toks[i] in self.stop or any(v.start <= i < v.end and v.kind in ("label", "concept", "cue") for v in spans))
        before = [f for f in fields if f.end <= c.start and c.start - f.end <= 5 and all(map(said_of, range(f.end, c.start)))]
        if not before:
            # ('<field> ..., including those where it is left blank'): a pronoun just before stands for the
            # last field said
            said = [f for f in fields if f.end <= c.start]
            near = set(toks[max(0, c.start - 3):c.start]) & set(self.lang.get("pronouns", []))
            return (said[-1], False) if said and near else (None, False)
        return before[-1], plain(before[-1].end, c.start)


def fields_of(s: Span) -> list[tuple[str, str]]:
    """(entity, field) of each field reading of a span."""
    return [v for k, v in (s.items or [(s.kind, s.value)]) if k == "field"]


def label_sets(pack: Pack, s: Span) -> dict[tuple[str, str], set]:
    """(entity, field) -> the labels a value span stands for there, over all its readings."""
    out: dict[tuple[str, str], set] = {}
    for kind, v in (s.items or [(s.kind, s.value)]):
        if kind == "label":
            out.setdefault((v[0], v[1]), set()).add(v[2])
        concept = pack.concepts.get(str(v)) if kind == "concept" else None
        for ent, where in (concept.where.items() if concept else []):
            for w in (where.get("any", [where]) if isinstance(where, dict) else []):  # (labels in any of several fields)
                if isinstance(w, dict) and "field" in w and "in" in w:
                    out.setdefault((ent, w["field"]), set()).update(w["in"])
    return out


def within(inner: dict, outer: dict) -> bool:
    """Whether a value stands, on some field, for labels all among another's there."""
    return any(inner[k] <= outer[k] for k in inner.keys() & outer.keys())
