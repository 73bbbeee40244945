"""One pipeline for the CLI and the dock: link, interpret, repair, plan, compile, guard, execute, verify, explain, record."""
from __future__ import annotations

import copy
import datetime as dt
import time
from dataclasses import asdict
from pathlib import Path
from typing import Callable

from sqlglot import exp

from .anchors import AnchorIndex
from .clauses import clause_at
from .answer import Answer, _jsonable, result_hash  # noqa: F401 (Answer and result_hash: imported from here too)
from .annotate import Annotator
from .compile_sql import Compiler
from .errors import CostLimitError, ExecutionError, MapAskError
from .execute import Executor
from .explain import explain
from .follow_up import follow_up
from .frame import Frame, Place, frame_from_dict
from .guard import Guard
from .coverage import coverage
from . import understanding
from .interpret_rules import interpret
from .layer_sql import value_column
from .pack import Pack, language_for, load_pack, pack_summary
from .plan import plan as make_plan
from .interpret_model import Backend, interpret_with_model
from .judge import judge_answer
from .recipes import match_recipe
from .user_examples import approved_example
from .spans import has
from .text import normalize
from .repair import Repairer
from .readback import readback
from .verify import Evidence, verify

MAX_QUESTION_CHARS = 1000
STAGES = ("link", "interpret", "model", "repair", "plan", "compile", "guard", "execute", "verify", "explain", "judge")


class Pipeline:
    def __init__(self, pack: Pack | str | Path, dsn: str, executor: Executor | None = None,
                 audit: Callable[[dict], None] | None = None, model: Backend | None = None,
                 model_min_confidence: float = 0.5, judge: bool = True, judge_model: Backend | None = None,
                 max_cost: float | None = None, ask_below: float | None | str = "pack"):
        self.pack = pack if isinstance(pack, Pack) else load_pack(pack)
        # below this confidence MapAsk asks back with its reading instead of answering ("pack": the threshold the
        # pack's verifier conventions hold, chosen on the development splits; None: never)
        self.ask_below = self.pack.convention("verifier", "threshold", default=None) if ask_below == "pack" \
            else ask_below
        self.model = model
        self.model_min_confidence = model_min_confidence
        # the judge reads result data, so it only runs when a model is configured (or one is given for it)
        self.judge_model = (judge_model or model) if judge else None
        # the optional EXPLAIN cost gate on the answer's query (None: off); see Executor.run
        self.max_cost = max_cost
        self.executor = executor or Executor(dsn)
        self.guard = Guard(self.pack)
        self.compiler = Compiler(self.pack)
        self.repairer = Repairer(self.pack)
        self.audit = audit
        self._annotator: Annotator | None = None
        self.lang = language_for(self.pack)  # the language's grammar words and the pack's stopwords

    # anchors come from the database once, through the same guard and read-only executor
    def annotator(self) -> Annotator:
        if self._annotator is None:
            def fetch(table: str, columns: list[str], entity: str) -> list[tuple]:
                cols = [exp.column(c, quoted=True) for c in columns]
                q = (exp.select(*cols).distinct().from_(exp.table_(table, db=self.pack.schema, quoted=True))
                     .where(exp.or_(*[c.copy().is_(exp.null()).not_() for c in cols])))
                rep = self.guard.check(q.sql("postgres"))
                if not rep.ok:
                    raise MapAskError(f"anchor query refused: {rep.reason}")
                return [tuple(r) for r in self.executor.run(rep.sql, cap=50000).rows]
            self._annotator = Annotator(self.pack, AnchorIndex.build(self.pack, fetch))
        return self._annotator

    def _measure_sizes(self, f: Frame) -> None:
        """Row counts of the tables a spatial relation joins, once per pipeline, through the guard: the compiler
        starts such a relation from the smaller side. An unfiltered support larger than the target is the case
        that needs them."""
        if not (f.near and not f.near.filters and not f.near.scope and not (f.near.anchor and f.near.anchor.name)):
            return
        for name in (f.target, f.near.entity):
            table = self.pack.entity(name).table
            if table in self.compiler.sizes:
                continue
            q = exp.select(exp.Count(this=exp.Star())).from_(exp.table_(table, db=self.pack.schema, quoted=True))
            rep = self.guard.check(q.sql("postgres"))
            if rep.ok:
                self.compiler.sizes[table] = int(self.executor.run(rep.sql).rows[0][0])

    def ask(self, question: str, previous: Frame | None = None, frame: Frame | None = None,
            progress: Callable[[str], None] | None = None, choose: int | None = None) -> Answer:
        """Answer one question; `progress(stage)` is called before each stage (the dock's progress bar,
        and its cancel check: raising ExecutionError('cancelled', ...) there stops the question). `choose` is the
        reading (1-based) a user picked after an ask-back: it is answered whatever its confidence."""
        a = Answer(question=question, choice=choose)
        try:
            self._ask(a, question, previous, frame, progress or (lambda stage: None))
        except ExecutionError as e:
            a.status, a.error = "error", f"{e.kind}: {e}"
            a.answer = f"The database could not answer: {e}"
        except MapAskError as e:
            a.status, a.error, a.answer = "error", str(e), f"MapAsk could not answer: {e}"
        except Exception as e:  # never lose the audit entry, whatever failed
            a.status, a.error = "error", f"{type(e).__name__}: {e}"
            a.answer = "MapAsk hit an internal error; the details are in the audit entry."
        if a.status == "answered" and self.judge_model is not None:
            self._judge(a, progress or (lambda stage: None))
        if self.audit:
            self.audit(self.audit_entry(a))
        return a

    def _ask(self, a: Answer, question: str, previous: Frame | None, given: Frame | None,
             step: Callable[[str], None]) -> None:
        t = a.timings_ms
        clock = time.perf_counter
        q = (question or "").strip()
        if given is None:
            if not q:
                a.status = "clarify"
                a.answer = "Please type a question. " + pack_summary(self.pack)
                return
            if len(q) > MAX_QUESTION_CHARS:
                a.status = "refused"
                a.answer = (f"The question is {len(q):,} characters long; MapAsk takes one question of at most "
                            f"{MAX_QUESTION_CHARS:,} characters at a time.")
                return
            step("link")
            t0 = clock()
            ann = self.annotator().annotate(q)
            t["link"] = (clock() - t0) * 1000
            a.understood = understanding.summary(self.lang, ann)
            # (a change named in a purpose, 'before we set the baseline, ...', asks for none)
            if any(s.kind == "cue" and s.value == "write" and getattr(clause_at(ann.clauses, s.start), "kind", "")
                   not in ("purpose", "deadline") for s in ann.spans):
                a.status = "refused"
                a.answer = ("MapAsk only reads the database: it cannot delete, change or add records. "
                            "Ask a question about the data instead.")
                return
            step("interpret")
            t0 = clock()
            frame, reviewed = self._reviewed_reading(a, ann, interpret(ann, self.pack, q), q)
            if previous is not None:
                comparing = any(has(s, "cue", "compare") and s.text != "or" for s in ann.spans)
                frame = follow_up(self.pack, previous, frame, comparing)
            t["interpret"] = (clock() - t0) * 1000
            a.understood.update(coverage(ann, frame, set(self.lang["stopwords"]), self.pack))
            a.unknown = list(ann.unknown)
            if not reviewed and self._stopped(a, ann, frame):
                return
            refusal = None if reviewed else understanding.too_little(self.pack, self.lang, ann, frame) or \
                understanding.left_over(frame)
            model_frame = None
            if self.model is not None and not reviewed:
                step("model")
                t0 = clock()
                model_frame, mlog = interpret_with_model(self.model, self.pack, q, self._resolve_place)
                t["model"] = (clock() - t0) * 1000
                a.model = {"id": self.model.id, "log": mlog}
                if model_frame is not None:
                    a.candidates.append(model_frame.to_dict())
            if model_frame is not None:
                self._choose(a, frame, model_frame, refusal, step)
                return
            if refusal:
                a.status, a.answer = "clarify", refusal
                a.frame = frame.to_dict()
                return
        else:
            frame = given
        # a frame given (a replay, a reading the user chose) is answered as it is, never asked back again
        self._answer_frame(a, frame, step, gate=given is None)

    def _reviewed_reading(self, a: Answer, ann, frame: Frame, q: str) -> tuple[Frame, bool]:
        """A reviewed analysis (recipe) or an approved example of the same question beats a fresh reading; every
        candidate stays in the audit. Returns the frame to answer and whether it was reviewed."""
        recipe = match_recipe(self.pack, ann, frame)
        a.candidates = [frame.to_dict()]
        approved = None if recipe else approved_example(self.pack, q)
        if approved:
            a.candidates.append(approved["frame"])
            a.recipe = {"id": "approved_example", "title": approved["question"],
                        "params": {"audit_entry": (approved.get("source") or {}).get("audit_entry")}}
            ann.unknown = []
            return frame_from_dict(approved["frame"]), True
        if recipe:
            a.candidates.append(recipe.frame.to_dict())
            a.recipe = {"id": recipe.id, "title": recipe.title, "params": recipe.params}
            trig = {t for r in self.pack.recipes if r["id"] == recipe.id for p in r["triggers"] for t in p.split()}
            ann.unknown = [u for u in ann.unknown if u not in trig]
            return recipe.frame, True
        return frame, False

    def _stopped(self, a: Answer, ann, frame: Frame) -> bool:
        """Refused when the question asks for what the data does not hold; asked back when a judgement names no
        measure or the question is in another language. True when the answer stops here."""
        other = understanding.other_language(self.lang, ann) if self.model is None else None  # a model may read it: checked after
        if other:
            a.status, a.frame = "clarify", frame.to_dict()
            example = next((e["question"] for e in self.pack.examples if e.get("question")), "")
            a.answer = (f"MapAsk reads English, and this question looks like {other}. Ask it in English"
                        + (f", for example: {example}" if example else "") + ".")
            return True
        outside = understanding.outside_data(self.pack, frame)
        if outside:
            a.status, a.answer, a.frame = "refused", outside, frame.to_dict()
            return True
        judged = understanding.judgement(self.pack, self.lang, ann, frame)
        if judged:
            a.status, a.clarify, a.frame = "clarify", [judged], frame.to_dict()
            a.answer = f"'{judged['text']}' names no measure: choose one, or say it in the question."
            return True
        return False

    def _answer_frame(self, a: Answer, frame: Frame, step: Callable[[str], None], gate: bool = True) -> None:
        """Repair, plan, compile, guard, execute, verify and explain one frame into `a`."""
        step("repair")
        t0 = time.perf_counter()
        readings = [asked for asked, _ in self._readings(frame)] if gate and (a.choice or 1) > 1 else [frame]
        frame = readings[min(len(readings), a.choice or 1) - 1]  # '--choose 2': the second reading offered
        rep = self.repairer.run(frame)
        a.timings_ms["repair"] = (time.perf_counter() - t0) * 1000
        f = rep.frame
        a.frame, a.repairs, a.notes = f.to_dict(), [asdict(r) for r in rep.repairs], rep.notes
        if self._repair_stops(a, rep):
            return
        compiled = self._run(a, f, step)
        if compiled is None:
            return
        self._verify_and_explain(a, f, rep, step)
        a.order_matters = compiled.order_matters
        a.status = "answered"
        if gate and self.ask_below is not None and a.choice is None and (a.confidence or 0) < self.ask_below:
            self._ask_back_unsure(a, f, frame)

    def _repair_stops(self, a: Answer, rep) -> bool:
        """A place to choose, a question the data does not hold, or a frame that cannot be answered: said, and
        True."""
        if rep.clarify:
            a.status, a.clarify = "clarify", rep.clarify
            c = rep.clarify[0]
            a.answer = (f"Did you mean {c['choices'][0]} by '{c['text']}'?" if len(c["choices"]) == 1 else
                        f"'{c['text']}' could mean: " + ", ".join(c["choices"][:5]) + ". Which one?")
            return True
        if rep.outside:
            a.status = "refused"
            a.answer = "The data does not hold this: " + "; ".join(rep.outside) + "."
            return True
        if rep.problems:
            a.status = "clarify"
            a.answer = "MapAsk cannot answer this as asked: " + "; ".join(rep.problems) + ". " + pack_summary(self.pack)
            return True
        return False

    def _run(self, a: Answer, f: Frame, step: Callable[[str], None]):
        """Plan, compile, guard and execute; the compiled statement, or None when the guard or the cost gate
        refused it (said in `a`)."""
        t, clock = a.timings_ms, time.perf_counter
        step("plan")
        t0 = clock()
        self._measure_sizes(f)
        p = make_plan(f, self.pack, self.compiler.sizes)
        a.plan = p.to_dict()  # the very plan compiled below: what the dock and the audit entry show
        t["plan"] = (clock() - t0) * 1000
        step("compile")
        t0 = clock()
        compiled = self.compiler.compile(p)
        t["compile"] = (clock() - t0) * 1000
        step("guard")
        t0 = clock()
        g = self.guard.check(compiled.sql)
        t["guard"] = (clock() - t0) * 1000
        a.guard = g.to_dict()
        a.sql = g.sql or compiled.sql
        if not g.ok:
            a.status, a.answer = "refused", f"The query was refused by the guard ({g.code}): {g.reason}"
            return None
        step("execute")
        t0 = clock()
        try:
            # the gate's argument only when it is on, so executors written against the plain run(sql, cap) still fit
            res = self.executor.run(g.sql) if self.max_cost is None else self.executor.run(g.sql, max_cost=self.max_cost)
        except CostLimitError as e:
            a.cost = {"estimate": e.cost, "limit": e.limit}
            a.status, a.error = "refused", f"{e.kind}: {e}"
            a.answer = (f"MapAsk did not run this query ({e.kind}): {e}. Narrow the question (a place, a period, "
                        "a distance) or raise the cost limit (MapAsk's settings, or --max-cost).")
            return None
        finally:
            t["execute"] = (clock() - t0) * 1000
        if res.cost is not None:
            a.cost = {"estimate": res.cost, "limit": self.max_cost}
        # '<group>_order' columns only put groups in calendar order (the SQL sorts by them): not shown
        keep = [i for i, c in enumerate(res.columns) if not (c.endswith("_order") and c[:-6] in res.columns)]
        a.columns = [res.columns[i] for i in keep]
        a.rows = [[_jsonable(r[i]) for i in keep] for r in res.rows]
        a.truncated = res.truncated
        a.geometry_column = "geom" if "geom" in res.columns else None
        return compiled

    def _verify_and_explain(self, a: Answer, f: Frame, rep, step: Callable[[str], None]) -> None:
        """Confidence with its reasons, the read-back, the answer sentence and the result hash."""
        t, clock = a.timings_ms, time.perf_counter
        step("verify")
        t0 = clock()
        value_col = _value_col(a.columns, f)
        spatial = bool(f.near or any(not self.pack.entity(f.target).places.get(pl.entity) for pl in f.scope)
                       or any(g.kind in ("area", "support") for g in f.group_by))
        missing = self._missing_geometry(f.target) if spatial else None
        if missing and missing[0]:
            rep.notes.append(f"{missing[0]:,} of all {missing[1]:,} {self.pack.entity(f.target).plural} in the data "
                             f"have no location and cannot be placed")
        v = verify(self.pack, Evidence(f, rep.repairs, rep.notes, rep.clarify, a.rows, a.truncated, value_col, missing,
                                       a.understood))
        a.confidence, a.features, a.reasons = v.confidence, [x.__dict__ for x in v.features], v.reasons()[:6]
        a.readback = readback(self.pack, f, {**a.understood, "repairs": a.repairs})
        t["verify"] = (clock() - t0) * 1000
        step("explain")
        t0 = clock()
        a.answer = explain(self.pack, f, a.columns, a.rows, value_col, rep.notes, a.truncated)
        if a.unknown:
            a.answer += f" (Words not understood: {', '.join(a.unknown)}.)"
        t["explain"] = (clock() - t0) * 1000
        a.result_hash = result_hash(a.columns, a.rows)

    def _readings(self, frame: Frame, repaired: Frame | None = None) -> list[tuple[Frame, Frame]]:
        """(asked, repaired) for the reading itself, then up to two others that read the records from another
        source that can answer every part of the question (the runner-up sources of the repair's choice)."""
        first = repaired or self.repairer.run(frame).frame
        out, seen = [(frame, first)], {first.target}
        for name, ent in sorted(self.pack.entities.items(), key=lambda kv: self.pack.priority(kv[0])):
            if len(out) >= 3 or not ent.time or name in seen:
                continue
            alt = copy.deepcopy(frame)
            alt.target = name
            rep = self.repairer.run(alt)
            if rep.frame.target == name and not (rep.clarify or rep.problems or rep.outside):
                out.append((alt, rep.frame))
                seen.add(name)
        return out

    def _ask_back_unsure(self, a: Answer, f: Frame, asked: Frame) -> None:
        """Below the threshold: the reading, and the other readings there are, are offered as choices instead of a
        number (the result stays in the audit entry by its hash; choosing a reading answers it)."""
        a.status = "clarify"
        frames = [done for _, done in self._readings(asked, f)]
        texts = [a.readback.get("text", "")] + [readback(self.pack, r, {**a.understood})["text"] for r in frames[1:]]
        a.clarify = [{"text": "reading", "choices": texts, "frames": [r.to_dict() for r in frames]}]
        a.answer = (f"MapAsk is not sure it read this question right (confidence {a.confidence:.2f}). "
                    f"{a.readback.get('text', '')} Is this what you meant? Choose it to get the answer, or rephrase.")
        a.columns, a.rows = [], []

    def _judge(self, a: Answer, step: Callable[[str], None]) -> None:
        """The optional model judge after an answer: it may only add a doubt that lowers the confidence; the
        frame, SQL, rows and status stay as they are whatever it replies (or raises)."""
        try:
            step("judge")
        except ExecutionError as e:  # cancelled after the answer was complete: keep the answer, skip the judge
            a.judge = {"backend": getattr(self.judge_model, "id", "?"), "error": f"skipped: {e}"}
            return
        t0 = time.perf_counter()
        try:
            r = judge_answer(self.judge_model, self.pack, a.question, a.answer, a.columns, a.rows, a.confidence,
                             a.truncated, skip=(a.geometry_column,) if a.geometry_column else ())
            a.judge = r.to_dict()
            if r.feature is not None and r.confidence_after is not None and a.confidence is not None:
                a.features.append(r.feature)
                a.confidence = min(a.confidence, r.confidence_after)
        except Exception as e:  # a broken judge is recorded, never fatal
            a.judge = {"backend": getattr(self.judge_model, "id", "?"), "error": f"{type(e).__name__}: {e}"}
        a.timings_ms["judge"] = (time.perf_counter() - t0) * 1000

    def _missing_geometry(self, entity: str) -> tuple[int, int]:
        """(records without geometry, records) of one entity, read once through the guard."""
        cache = self.__dict__.setdefault("_nulls", {})
        if entity not in cache:
            ent = self.pack.entity(entity)
            geom = exp.column("geom", quoted=True)
            q = exp.select(exp.Filter(this=exp.Count(this=exp.Star()), expression=exp.Where(this=geom.is_(exp.null()))),
                           exp.Count(this=exp.Star())).from_(exp.table_(ent.table, db=self.pack.schema, quoted=True))
            rep = self.guard.check(q.sql("postgres"))
            row = self.executor.run(rep.sql).rows[0] if rep.ok else (0, 0)
            cache[entity] = (int(row[0]), int(row[1]))
        return cache[entity]

    def _choose(self, a: Answer, rules: Frame, model: Frame, refusal: str | None,
                step: Callable[[str], None]) -> None:
        """Evaluate the rules and the model candidates; keep the rules answer unless only the model's is usable.
        Agreement (same result hash) is recorded: it is evidence for the answer."""
        b = Answer(question=a.question, unknown=list(a.unknown), understood=a.understood, choice=a.choice)
        try:
            self._answer_frame(b, model, step)
        except MapAskError as e:
            b.status, b.error = "error", str(e)
        share = float(a.understood.get("read_share", 1.0))
        if b.confidence is not None and share < 1.0:
            # words only the model read cannot be checked against the pack: trust no more than what the rules read
            b.confidence = min(b.confidence, share)
            b.reasons.insert(0, f"only {share:.0%} of the question's words are known to the pack; the model read the rest")
        if refusal is None:
            self._answer_frame(a, rules, step)
            if a.status == "answered" and b.status == "answered" and b.result_hash == a.result_hash:
                a.selection = "rules and model agree"
            elif a.status != "answered" and b.status == "answered" and (b.confidence or 0) >= self.model_min_confidence:
                self._adopt(a, b, "the rules could not answer; the model's frame could")
            else:
                a.selection = "rules (the model's frame " + ("gave another result" if b.status == "answered"
                                                            else f"was not usable: {b.status}") + ")"
            return
        if b.status == "answered" and (b.confidence or 0) >= self.model_min_confidence:
            self._adopt(a, b, "the rules did not understand the question; the model's frame was checked and run")
        else:
            a.status, a.answer, a.frame = "clarify", refusal, rules.to_dict()
            a.selection = "clarify (the model's frame was not trustworthy enough)"

    @staticmethod
    def _adopt(a: Answer, b: Answer, why: str) -> None:
        keep = {"question", "timings_ms", "candidates", "model", "recipe", "unknown"}
        for k, v in b.__dict__.items():
            if k not in keep:
                setattr(a, k, v)
        a.timings_ms.update({k: v for k, v in b.timings_ms.items() if k not in a.timings_ms})
        a.selection = "model: " + why

    def _resolve_place(self, text: str) -> Place | None:
        """A place name said to the model, resolved like the rules interpreter resolves it."""
        ann = self.annotator()
        toks = normalize(text).split()
        hits = ann.anchors.match(toks, set(), self.pack, ann.stop, ann.known_words) if ann.anchors else []
        if not hits:
            return None
        m = max(hits, key=lambda h: (h.end - h.start, h.score))
        return Place(text=text, entity=m.entity, name=m.name, score=m.score, candidates=m.others)

    def audit_entry(self, a: Answer) -> dict:
        return {"time": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "question": a.question,
                "pack": {"id": self.pack.id, "version": self.pack.version, "hash": self.pack.content_hash},
                "model": a.model, "selection": a.selection, "status": a.status, "answer": a.answer, "candidates": a.candidates,
                "recipe": a.recipe, "frame": a.frame, "repairs": a.repairs,
                "plan": a.plan, "sql": a.sql, "guard": a.guard, "timings_ms": a.timings_ms,
                "row_count": len(a.rows), "truncated": a.truncated, "result_hash": a.result_hash,
                "confidence": a.confidence, "features": a.features, "error": a.error, "notes": a.notes,
                "judge": a.judge, "cost": a.cost, "readback": a.readback, "reasons": a.reasons,
                "understood": a.understood, "choice": a.choice}

    def replay(self, entry: dict, progress: Callable[[str], None] | None = None) -> Answer:
        """Re-run a recorded final frame without any interpreter; compare result hashes."""
        return self.ask(entry.get("question", ""), frame=frame_from_dict(entry["frame"]), progress=progress)


def _value_col(columns: list[str], f: Frame) -> int | None:
    name = value_column(columns)
    return columns.index(name) if name else None
