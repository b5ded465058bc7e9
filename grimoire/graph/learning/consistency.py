"""The consistency dimension of artifact quality by regenerating (grimoire.md, "Artifact Quality Scoring":
"Regeneration produces similar content ... For high-stakes: regenerate 3x, measure embedding similarity"; line 323:
"Consistency check only for Curator-cycle promotions").

With a language model configured (GRIMOIRE_REASONER_URL, the cheap tier), PROMOTE asks it RESTATEMENTS times to
restate the claim in its own words, embeds the claim and the restatements with the service's embedder, and takes
the mean pairwise cosine of the four as the entry's consistency: a claim a model restates the same way each time
is specific; one it restates three different ways is vague. Restatements are sampled at TEMPERATURE (at 0, a
deterministic model would answer the same three times, and the check would measure nothing).

The measure is kept on the entry with a digest of the content it measured, so an entry held for it is not asked
about again until its content changes (an EDIT). Without a model, consistency stays the evidence signal of
graph/knowledge/quality.py. The model is asked through its Breaker (graph/knowledge/llm.py), shared with the Reasoner
and Loop 3's replay: while it is known to be down, no claim waits out a timeout, in this cycle or the next."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from grimoire.graph.knowledge import quality
from grimoire.graph.knowledge.llm import MAX_TEXT, ChatClient, ReasonerUnavailable, ask

log = logging.getLogger(__name__)

RESTATEMENTS = 3    # grimoire.md:319 "regenerate 3x"
TEMPERATURE = 0.7   # the project's own: sampled, so that three answers can differ


class _Restated(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")
    restatement: str = Field(min_length=1, max_length=MAX_TEXT)


def digest(content: str) -> str:
    """What the stored measure was taken of (an EDIT changes it: measured again)."""
    return hashlib.sha256(content.encode()).hexdigest()[:16]


def mean_pairwise_cosine(vectors: np.ndarray) -> float:
    """The mean cosine over every pair of rows (normalised here: an embedder's rows usually are already)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit = vectors / np.where(norms == 0, 1.0, norms)
    sims = unit @ unit.T
    n = len(unit)
    pairs = [float(sims[i, j]) for i in range(n) for j in range(i + 1, n)]
    return float(np.clip(sum(pairs) / len(pairs), 0.0, 1.0)) if pairs else 1.0


def restate(client: ChatClient, claim: str, category: str | None) -> str:
    prompt = ("Restate this knowledge entry of an autonomous DeFi agent in your own words, keeping every condition, "
              "number and action it states and adding nothing. "
              'Answer {"restatement": <the entry restated, one or two sentences>}.\n'
              f"category: {category or 'unspecified'}\nentry: {claim}")
    return " ".join(ask(client, prompt, _Restated, temperature=TEMPERATURE).restatement.split())


@dataclass(frozen=True)
class Measured:
    """An entry's consistency (None: the model gave no usable answer, `failure` says why)."""

    consistency: float | None
    failure: str | None = None
    unreachable: bool = False  # the model did not answer at all (down, timed out, refused; its breaker open)


def measure(client: ChatClient, embed: Callable[[Sequence[str]], np.ndarray], claim: str,
            category: str | None) -> Measured:
    """The claim restated RESTATEMENTS times and the mean pairwise cosine of the four texts' embeddings. Asked and
    embedded outside any transaction: PROMOTE writes after."""
    try:
        answers = [restate(client, claim, category) for _ in range(RESTATEMENTS)]
    except ReasonerUnavailable as e:
        log.warning("consistency check of %r: no restatement (%s); the promotion waits for the next cycle",
                    claim[:60], e.reason)
        return Measured(None, e.reason, unreachable=not e.junk)
    try:
        vectors = np.asarray(embed([claim, *answers]), dtype=np.float64)
    except Exception as e:  # noqa: BLE001 - no measure, not a failed cycle: the promotion waits
        log.warning("consistency check of %r: the embedder failed (%s); the promotion waits", claim[:60], e)
        return Measured(None, f"embedder: {type(e).__name__}")
    return Measured(mean_pairwise_cosine(vectors))


def rescored(score: float | None, old_consistency: float | None, new_consistency: float) -> float | None:
    """The entry's quality score with its consistency dimension replaced (the other dimensions as scored when it was
    admitted; the red-flag penalty and the clamp as then, so a score clamped at 0 or 1 moves from there)."""
    if score is None:
        return None
    weight = quality.WEIGHTS["consistency"]
    old = 1.0 if old_consistency is None else old_consistency
    return max(0.0, min(1.0, score + weight * (new_consistency - old)))
