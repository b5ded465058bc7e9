"""Loop 3's replay (context-governor.md S4, run_counterfactuals): a poor decision replayed under an alternative
context policy by the cheap-tier language model ("Replay the tick with alternative context (Haiku, ~$0.001)").

The model is shown the decision as its record keeps it — the task, phase and regime, the tokens its workspace
gave each category, what it said it missed, its reasoning chain (graph/context/reasoning.py) and the quality it
came to — beside what the alternative would have included or left out (each category's share of the budget under
the current policy and under the alternative), and asked for the decision's quality under the alternative, a
number in [0, 1]. The mutation is staged only when that quality beats the decision's by more than GATE (the
document's `alt_quality > outcome_quality + 0.15`).

A malformed answer, a timeout, a refused connection or an HTTP error is no score: the alternative is not staged and
the miss is logged. After a transport failure the model is not asked again for a while (the model's Breaker in
graph/knowledge/llm.py, shared with the Reasoner and the consistency check), so a run of Loop 3 over many agents does
not wait out one timeout per alternative while the model is down."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, RootModel

from grimoire.graph.context.categories import ContextCategory
from grimoire.graph.context.reasoning import stored
from grimoire.graph.knowledge.llm import Breaker, ChatClient, ReasonerUnavailable, Unit, ask
from grimoire.graph.model.rows import Row

log = logging.getLogger(__name__)

GATE = 0.15                 # context-governor.md: staged when alt_quality > outcome_quality + 0.15
MAX_REASONING_CHARS = 4_000  # the reasoning shown to the model: a replay costs ~$0.001, not a long prompt


class ReplayDecision(Row):
    """A poor decision as replay reads it (cypher/context/replay_decisions.cypher)."""

    query = "context/replay_decisions"
    id: str
    task: str | None
    phase: str | None
    regime: str | None
    injected: str | None                 # tokens per category (JSON)
    missing: list[str] | None
    outcome_quality: float | None
    reasoning: str | None                # a ReasoningChain (JSON)


class _QualityObject(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    quality: Unit


class _QualityAnswer(RootModel[_QualityObject | Unit]):
    """{"quality": 0.7}, or a bare 0.7."""

    model_config = ConfigDict(strict=True)

    @property
    def value(self) -> float:
        return float(self.root.quality if isinstance(self.root, _QualityObject) else self.root)


class Replayed(BaseModel):
    """One alternative's replay: the quality the model gave the decision under it (None: no usable answer, and
    why), against the decision's own."""

    decision_id: str
    kind: str
    before: float
    quality: float | None
    failure: str | None = None

    @property
    def passes(self) -> bool:
        return self.quality is not None and self.quality > self.before + GATE

    def line(self) -> str:
        if self.quality is None:
            return f"{self.decision_id} {self.kind}: no score ({self.failure})"
        sign = ">" if self.passes else "<="
        return f"{self.decision_id} {self.kind}: {self.quality:.3f} {sign} {self.before:.3f} + {GATE}"


def _shares(allocations: Mapping[ContextCategory, float]) -> dict[str, float]:
    return {c.value: float(v) for c, v in allocations.items()}


def prompt(decision: ReplayDecision, kind: str, original: Mapping[ContextCategory, float],
           proposed: Mapping[ContextCategory, float]) -> str:
    """The replay question: the decision as recorded, and what the alternative would have included or left out."""
    before, after = _shares(original), _shares(proposed)
    changes = []
    for category in sorted(set(before) | set(after)):
        a, b = before.get(category, 0.0), after.get(category, 0.0)
        if abs(b - a) >= 1e-6:
            more = "more" if b > a else "less"
            changes.append(f"- {category}: {a:.1%} -> {b:.1%} of the budget ({more})")
    chain = stored(decision.reasoning) if decision.reasoning else None
    reasoning = (chain.content or "") if chain else ""
    if len(reasoning) > MAX_REASONING_CHARS:
        reasoning = reasoning[:MAX_REASONING_CHARS] + " [...]"
    return (
        "Replay an agent's decision with a different context. The agent's workspace was assembled under one context "
        "policy and the decision went poorly; under the alternative policy below, its workspace would have given "
        "each category the share shown. Judge how well the decision would have gone with that context. "
        'Answer {"quality": <a number from 0 to 1>}: the outcome quality under the alternative, on the same scale '
        "as the recorded quality.\n"
        f"alternative: {kind}\n"
        f"task: {decision.task or 'unspecified'}\nphase: {decision.phase or 'unspecified'}\n"
        f"market regime: {decision.regime or 'unspecified'}\n"
        f"tokens its workspace gave each category: {decision.injected or '{}'}\n"
        f"what the agent said it missed: {', '.join(decision.missing or []) or 'nothing'}\n"
        f"recorded outcome quality: {float(decision.outcome_quality or 0.0):.3f}\n"
        "what the alternative changes:\n" + ("\n".join(changes) or "- nothing") + "\n"
        f"the agent's reasoning: {reasoning or '(not kept)'}"
    )


class Replayer:
    """Scores a decision under an alternative policy with the cheap-tier model (GRIMOIRE_REASONER_URL)."""

    def __init__(self, client: ChatClient, *, breaker: Breaker | None = None) -> None:
        self.client = client
        self.breaker = breaker if breaker is not None else Breaker.of(client)   # the model's, shared

    def replay(self, decision: ReplayDecision, kind: str, original: Mapping[ContextCategory, float],
               proposed: Mapping[ContextCategory, float]) -> Replayed:
        before = float(decision.outcome_quality or 0.0)
        quality, failure = self._score(prompt(decision, kind, original, proposed))
        if failure is not None:
            log.warning("loop 3 replay of decision %s under %s: no score (%s); not staged", decision.id, kind,
                        failure)
        return Replayed(decision_id=decision.id, kind=kind, before=before, quality=quality, failure=failure)

    def _score(self, question: str) -> tuple[float | None, str | None]:
        try:
            return ask(self.client, question, _QualityAnswer, breaker=self.breaker).value, None
        except ReasonerUnavailable as e:
            return None, e.reason  # already cut to its length by ReasonerUnavailable
