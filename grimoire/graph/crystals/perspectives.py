"""A skill's multi-perspective views (knowledge-crystals.md, "Multi-Perspective Embeddings"): the procedural view
(its steps and actions), the causal view (its causes and effects) and the entity view (the tools, APIs and
technologies it names), each embedded and indexed (skill_procedural, skill_causal, skill_entity). Rule-based: the
sentences or names that carry the view, prefixed with what the view is, the whole text when none does."""

from __future__ import annotations

import re
from enum import StrEnum


class Perspective(StrEnum):
    procedural = "procedural"
    causal = "causal"
    entity = "entity"


PROPERTY = {p: f"embedding_{p.value}" for p in Perspective}
INDEX = {p: f"skill_{p.value}" for p in Perspective}

_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")
_STEP = re.compile(r"^\s*(?:\d+[.)]|[-*•]|step\b|first\b|then\b|next\b|finally\b|after that\b)", re.IGNORECASE)
_IMPERATIVE = re.compile(
    r"^\s*(?:run|call|check|open|set|use|send|read|write|add|remove|create|update|deploy|build|install|restart|"
    r"swap|approve|withdraw|deposit|borrow|repay|query|fetch|compute|verify|wait|retry|rebalance|close|sell|buy)\b",
    re.IGNORECASE)
_CAUSAL = re.compile(r"\b(?:because|cause[sd]?|leads? to|led to|results? in|due to|so that|therefore|if\b.*\bthen|"
                     r"when\b|unless|prevents?|triggers?|makes?)\b", re.IGNORECASE)
_ENTITY = re.compile(r"`[^`]+`|\b[A-Z][A-Za-z0-9]*(?:[A-Z][a-z0-9]+)+\b|\b[A-Z]{2,}[0-9]*\b|\b[a-z_]+\(\)|"
                     r"\b[a-z]+(?:[._/-][a-z0-9]+)+\b|\b0x[0-9a-fA-F]{6,}\b|\b[A-Z][a-z]+(?=\s+(?:API|SDK|CLI|v\d))")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCES.split(text) if s and s.strip()]


def view(text: str, perspective: Perspective) -> str:
    """The text as the perspective sees it."""
    parts = sentences(text)
    if perspective is Perspective.procedural:
        picked = [s for s in parts if _STEP.search(s) or _IMPERATIVE.search(s)]
        return "Steps: " + " ".join(picked or parts)
    if perspective is Perspective.causal:
        picked = [s for s in parts if _CAUSAL.search(s)]
        return "Cause and effect: " + " ".join(picked or parts)
    names = list(dict.fromkeys(m.group(0).strip("`") for m in _ENTITY.finditer(text)))
    return "Tools and technologies: " + (", ".join(names) if names else text)


def views(text: str) -> dict[Perspective, str]:
    return {p: view(text, p) for p in Perspective}
