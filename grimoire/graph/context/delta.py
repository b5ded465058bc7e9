"""The delta between two consecutive workspaces of an agent (context-governor.md S2.2): which categories changed,
the entries added to each (whole), the ids removed from each, and the change in tokens. An entry whose
disclosure changed (full to one line, or back) counts as removed and added again: the agent sees other text."""

from __future__ import annotations

from dataclasses import dataclass, field

from grimoire.graph.context.categories import ContextCategory
from grimoire.graph.context.workspace import ContextEntry, Workspace


@dataclass
class WorkspaceDelta:
    changed_categories: list[ContextCategory] = field(default_factory=list)
    added: dict[ContextCategory, list[ContextEntry]] = field(default_factory=dict)
    removed: dict[ContextCategory, list[str]] = field(default_factory=dict)
    token_delta: int = 0


def _keys(entries: list[ContextEntry]) -> dict[tuple[str, str], ContextEntry]:
    return {(e.id, e.disclosure.value): e for e in entries}


def compute(previous: Workspace | None, current: Workspace) -> WorkspaceDelta:
    """What changed from `previous` (None: the first workspace, everything is new) to `current`."""
    before = previous or Workspace()
    out = WorkspaceDelta(token_delta=current.total_tokens - before.total_tokens)
    for category in ContextCategory:
        was, now = _keys(before.entries_for(category)), _keys(current.entries_for(category))
        new = [now[k] for k in now if k not in was]
        gone = [k[0] for k in was if k not in now]
        if new or gone:
            out.changed_categories.append(category)
            if new:
                out.added[category] = new
            if gone:
                out.removed[category] = gone
    return out
