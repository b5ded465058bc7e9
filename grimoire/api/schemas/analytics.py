"""What the analytics routes answer (api/routes/analytics.py): an analysis's run and ranked results,
written runs, and the failure cascade; declared beside the subsystem (graph/analytics/answers.py)."""

from __future__ import annotations

from grimoire.graph.analytics.answers import (
    Affected,
    Analysis,
    Cascade,
    Group,
    Node,
    Ranked,
    Run,
    Scores,
    WrittenResult,
    WrittenRun,
)

__all__ = ["Affected", "Analysis", "Cascade", "Group", "Node", "Ranked", "Run", "Scores", "WrittenResult", "WrittenRun"]
