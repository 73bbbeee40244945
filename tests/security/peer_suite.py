"""Other projects' own SQL-checker test cases (tests/security/peers/*.yaml) through the guard, per origin.

Each YAML file holds one project's cases as written (short SQL strings with the repository, path and test they come
from) and each rewritten onto the pack's table (`onto`), with MapAsk's expected verdict: accept (one plain SELECT of
the pack's tables, columns and allow-listed functions that PostgreSQL runs), refuse (anything else), or invalid
(PostgreSQL itself refuses it: a refusal and a database error are both right). Every run prints, per origin:
refused as expected, accepted as expected, false accepts (each listed) and false refusals (each with its reason).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import yaml

PEERS_DIR = Path(__file__).resolve().parent / "peers"


@dataclass(frozen=True)
class PeerCase:
    repository: str
    path: str
    test: str
    peer: str      # what the project's own test expects of its own checker
    variant: str   # "as written" | "onto the pack"
    sql: str
    expect: str    # accept | refuse | invalid
    why: str = ""

    @property
    def origin(self) -> str:
        return f"{self.repository} {self.path}"


def load_peer_cases(folder: Path = PEERS_DIR) -> list[PeerCase]:
    out = []
    for f in sorted(folder.glob("*.yaml")):
        doc = yaml.safe_load(f.read_text(encoding="utf-8"))
        for c in doc["cases"]:
            out.append(PeerCase(doc["repository"], c["path"], c["test"], c.get("peer", ""), "as written", c["sql"],
                                c["expect"], c.get("why", "")))
            if "onto" in c:
                out.append(PeerCase(doc["repository"], c["path"], c["test"], c.get("peer", ""), "onto the pack",
                                    c["onto"], c["expect_onto"], c.get("why_onto", "")))
    return out


@dataclass
class PeerOutcome:
    case: PeerCase
    report: object        # GuardReport of the guard with its second opinion
    alone_ok: bool        # the verdict of the guard without PostgreSQL's parser

    @property
    def verdict(self) -> str:
        ok, want = self.report.ok, self.case.expect
        if want == "invalid":
            return "invalid, accepted" if ok else "invalid, refused"
        if want == "accept":
            return "accepted as expected" if ok else "false refusal"
        return "false accept" if ok else "refused as expected"


def run_peers(pack, cases: list[PeerCase] | None = None) -> list[PeerOutcome]:
    from plugin.core.guard import Guard
    guard, alone = Guard(pack), Guard(pack, second_opinion=False)
    return [PeerOutcome(c, guard.check(c.sql), alone.check(c.sql).ok) for c in (cases or load_peer_cases())]


def peer_lines(outcomes: list[PeerOutcome]) -> list[str]:
    by: dict[str, list[PeerOutcome]] = defaultdict(list)
    for o in outcomes:
        by[o.case.origin].append(o)
    head = (f"  {'origin (repository path)':78s} {'n':>5s} {'refused ok':>10s} {'accepted ok':>11s} "
            f"{'invalid':>8s} {'FALSE ACC':>9s} {'false ref':>9s}")
    lines = [f"Peer suites: {len(outcomes)} statements from {len(by)} origins (other projects' own tests, as written "
             f"and rewritten onto the pack):", head]
    for origin, os_ in sorted(by.items()):
        v = [o.verdict for o in os_]
        lines.append(f"  {origin[:78]:78s} {len(os_):5d} {v.count('refused as expected'):10d} "
                     f"{v.count('accepted as expected'):11d} {sum(x.startswith('invalid') for x in v):8d} "
                     f"{v.count('false accept'):9d} {v.count('false refusal'):9d}")
    v = [o.verdict for o in outcomes]
    lines.append(f"  {'TOTAL':78s} {len(v):5d} {v.count('refused as expected'):10d} {v.count('accepted as expected'):11d} "
                 f"{sum(x.startswith('invalid') for x in v):8d} {v.count('false accept'):9d} {v.count('false refusal'):9d}")
    for o in outcomes:
        if o.verdict == "false accept":
            lines.append(f"  FALSE ACCEPT {o.case.repository} {o.case.test} ({o.case.variant}): {o.case.sql[:160]!r}")
    for o in outcomes:
        if o.verdict == "false refusal":
            lines.append(f"  false refusal {o.case.repository} {o.case.test[:60]} ({o.case.variant}): "
                         f"{o.report.code}: {o.report.reason[:110]} | {o.case.sql.strip()[:90]!r}")
    return lines


def disagreement_lines(items: list[tuple[str, str, object, bool]]) -> list[str]:
    """items: (corpus, sql, report with the second opinion, verdict without it). The statements sqlglot's reading
    accepted and PostgreSQL's own parser refused (the reverse cannot happen: the second opinion only refuses)."""
    split = [(c, s, r) for c, s, r, alone in items if alone and not r.ok]
    lines = [f"Two parsers (sqlglot's reading, then PostgreSQL's own via {items[0][2].second_opinion if items else '-'}): "
             f"{len(items)} statements, {len(split)} accepted by sqlglot's reading and refused by PostgreSQL's parser"]
    lines += [f"  {c}: {r.code}: {r.reason[:120]} | {s.strip()[:100]!r}" for c, s, r in split]
    return lines
