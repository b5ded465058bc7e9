"""PLAYBOOK.md, rendered from the graph (../shared/spec/grimoire.md, "PLAYBOOK.md as Living Strategy
Document"): a Global section and one per strategy, each heuristic the Curator promoted into the
playbook with its confidence, validations and provenance, then the active warnings to heed. Stable:
the same graph renders the same bytes (ordered by confidence then id, no clock in the text)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from grimoire.graph.db.connection import Database
from grimoire.graph.model.crystal.privacy import category_type, is_memory
from grimoire.graph.visibility import Visibility

CONFIDENTIAL = "confidential"  # graph/model/crystal/sensitivity.py's tag: never shared, not even in a package
HEADER = ("Procedural memory compiled by the Curator from the graph: heuristics promoted at confidence 0.7 or "
          "more after local validation, and the active warnings. Rewritten from the graph; edit the entries, "
          "not this file.")


def _line(entry: dict[str, Any], episodes: int) -> str:
    facts = [f"confidence {entry['confidence']:.2f}", f"validated {entry.get('validated_count') or 0}",
             f"contradicted {entry.get('contradicted_count') or 0}", f"provenance {entry.get('provenance') or '?'}"]
    if entry.get("source_golem_id") and entry.get("provenance") not in (None, "SelfLearned"):
        facts.append(f"from {entry['source_golem_id']}")
    if episodes:
        facts.append(f"{episodes} source episode{'s' if episodes != 1 else ''}")
    if entry.get("market_regime"):
        facts.append(f"regime {entry['market_regime']}")
    if (entry.get("revision") or 1) > 1:
        facts.append(f"revision {entry['revision']}")
    return f"- {entry['content']}\n  <!-- {' · '.join(facts)} · id {entry['id']} -->"


def _order(item: tuple[dict[str, Any], int]) -> tuple[float, str]:
    return (-round(float(item[0]["confidence"]), 6), item[0]["id"])


def render(db: Database, agent_id: str, visibility: Visibility, *, shareable: bool = False,
           memory_private: bool = False) -> str:
    """`shareable`: the playbook as it may leave its owner (a strategy package), without confidential entries;
    `memory_private` leaves out its memory crystals too (its warnings: facts, graph/model/crystal/privacy.py)."""
    sections: dict[str | None, dict[str, list[tuple[dict[str, Any], int]]]] = defaultdict(lambda: defaultdict(list))
    for r in db.fetch("learning/playbook", agent_id=agent_id, **visibility.params()):
        e = r["entry"]
        if shareable and (e.get("sensitivity") == CONFIDENTIAL
                          or (memory_private and is_memory(category_type(e["category"])))):
            continue
        sections[e.get("strategy")][e["category"]].append((e, r["episodes"]))
    out = [f"# PLAYBOOK.md — {agent_id}", "", HEADER, ""]
    names: list[str | None] = [None, *sorted(s for s in sections if s is not None)]
    for name in names:
        out += ["## Global" if name is None else f"## Strategy: {name}", ""]
        out.append("<!-- Cross-strategy heuristics -->" if name is None else f"<!-- Heuristics specific to {name} -->")
        out.append("")
        part = sections.get(name, {})
        heuristics = sorted(part.get("Heuristic", []), key=_order)
        out += [_line(e, n) for e, n in heuristics] or ["_No heuristic has earned its place yet._"]
        out.append("")
        warnings = sorted(part.get("Warning", []), key=_order)
        if warnings:
            out += ["### Warnings", ""] + [_line(e, n) for e, n in warnings] + [""]
    return "\n".join(out).rstrip("\n") + "\n"
