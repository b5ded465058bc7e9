"""The hormonal system (knowledge-crystals.md, "Hormonal System"): per agent, dopamine (reward, half-life 30 min),
cortisol (stress, 60 min) and oxytocin (social, 45 min). Each decays toward its homeostasis, not zero:

    h(t) = homeostasis + (h(t₀) − homeostasis) · 0.5^((t − t₀) / half-life)

with levels under 0.001 clamped to 0. Events spike them (added, clamped to [0, 1]); the events are detected in text
by the spec's trigger words. A network cortisol override (an admin's "hormonal weather") raises the effective
cortisol to its level until it expires and halts ingestion from agents below the trusted level meanwhile.

The modulations: consolidation — decay resistance = min(0.5, cortisol·0.3 + dopamine·0.2 + oxytocin·0.2), merge
threshold = 0.92 + cortisol·0.03; retrieval — importance boost = 1 + dopamine·0.2, recency bias = 1 + cortisol·0.3
(cortisol: the effective one). A crystal's influence at ingestion: the spikes of the events its text shows, +0.1
oxytocin for what came from a session; its emotional valence (dopamine + oxytocin − cortisol) / 2."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import StrEnum

MINUTE_MS = 60_000
FLOOR = 0.001


class Hormone(StrEnum):
    dopamine = "dopamine"
    cortisol = "cortisol"
    oxytocin = "oxytocin"


class HormonalEvent(StrEnum):
    reward = "reward"
    error = "error"
    social = "social"
    achievement = "achievement"
    urgency = "urgency"


H = Hormone
HALF_LIFE_MS: dict[Hormone, float] = {H.dopamine: 30 * MINUTE_MS, H.cortisol: 60 * MINUTE_MS,
                                      H.oxytocin: 45 * MINUTE_MS}
HOMEOSTASIS: dict[Hormone, float] = {H.dopamine: 0.15, H.cortisol: 0.02, H.oxytocin: 0.10}
SPIKES: dict[HormonalEvent, dict[Hormone, float]] = {
    HormonalEvent.reward: {H.dopamine: 0.3},
    HormonalEvent.error: {H.cortisol: 0.3},
    HormonalEvent.social: {H.oxytocin: 0.3},
    HormonalEvent.achievement: {H.dopamine: 0.4, H.oxytocin: 0.2},
    HormonalEvent.urgency: {H.cortisol: 0.4},
}
# The spec's trigger words per channel, each read as the event it signals (a word matches its inflections).
TRIGGERS: dict[HormonalEvent, tuple[str, ...]] = {
    HormonalEvent.reward: ("success", "fixed"),
    HormonalEvent.achievement: ("shipped", "deployed", "milestone"),
    HormonalEvent.error: ("fail", "error", "bug", "crash"),
    HormonalEvent.urgency: ("urgent", "deadline"),
    HormonalEvent.social: ("thank", "help", "appreciate", "team", "collaborat"),
}
_PATTERNS = {e: re.compile(r"\b(?:" + "|".join(words) + r")\w*", re.IGNORECASE) for e, words in TRIGGERS.items()}
SESSION_OXYTOCIN = 0.1


def _clamp(x: float) -> float:
    x = min(1.0, max(0.0, x))
    return 0.0 if x < FLOOR else x


@dataclass(frozen=True)
class Override:
    level: float
    until: int          # ms
    reason: str


@dataclass(frozen=True)
class HormonalState:
    dopamine: float = HOMEOSTASIS[H.dopamine]
    cortisol: float = HOMEOSTASIS[H.cortisol]
    oxytocin: float = HOMEOSTASIS[H.oxytocin]
    at: int = 0                      # ms: when these levels held
    override: Override | None = None

    def level(self, h: Hormone) -> float:
        return float(getattr(self, h.value))

    def at_time(self, now: int) -> HormonalState:
        """The levels decayed toward homeostasis from `at` to `now` (an expired override dropped)."""
        dt = max(0, now - self.at)
        d, c, o = (_clamp(HOMEOSTASIS[h] + (self.level(h) - HOMEOSTASIS[h]) * 0.5 ** (dt / HALF_LIFE_MS[h]))
                   for h in (H.dopamine, H.cortisol, H.oxytocin))
        override = self.override if self.override is not None and now < self.override.until else None
        return HormonalState(dopamine=d, cortisol=c, oxytocin=o, at=max(now, self.at), override=override)

    def spike(self, event: HormonalEvent, now: int) -> HormonalState:
        s = self.at_time(now)
        add = SPIKES[event]
        return replace(s, dopamine=_clamp(s.dopamine + add.get(H.dopamine, 0.0)),
                       cortisol=_clamp(s.cortisol + add.get(H.cortisol, 0.0)),
                       oxytocin=_clamp(s.oxytocin + add.get(H.oxytocin, 0.0)))

    def with_override(self, level: float, duration_ms: int, reason: str, now: int) -> HormonalState:
        return replace(self.at_time(now), override=Override(min(1.0, max(0.0, level)), now + duration_ms, reason))

    @property
    def effective_cortisol(self) -> float:
        return max(self.cortisol, self.override.level) if self.override is not None else self.cortisol

    def consolidation(self) -> dict[str, float | bool]:
        c = self.effective_cortisol
        return {"decay_resistance": min(0.5, c * 0.3 + self.dopamine * 0.2 + self.oxytocin * 0.2),
                "merge_threshold": 0.92 + c * 0.03, "halt_untrusted_ingestion": self.override is not None}

    def retrieval(self) -> dict[str, float]:
        return {"importance_boost": 1.0 + self.dopamine * 0.2, "recency_bias": 1.0 + self.effective_cortisol * 0.3}


def events_in(text: str) -> list[HormonalEvent]:
    """The events a text shows, each once, in the order of HormonalEvent."""
    return [e for e in HormonalEvent if _PATTERNS[e].search(text)]


def influence(text: str, *, session: bool = False) -> dict[str, float]:
    """A crystal's hormonal influence at ingestion: its events' spikes added up (clamped), +0.1 oxytocin from a
    session; and its emotional valence."""
    out = dict.fromkeys((h.value for h in Hormone), 0.0)
    for event in events_in(text):
        for h, v in SPIKES[event].items():
            out[h.value] += v
    if session:
        out[H.oxytocin.value] += SESSION_OXYTOCIN
    out = {k: _clamp(v) for k, v in out.items()}
    out["valence"] = (out["dopamine"] + out["oxytocin"] - out["cortisol"]) / 2
    return out
