"""The trigger phrases of ../shared/spec/moltbot-memory.md, section 8.1, found in a user's message: remember
(write), forget (archive; "permanently delete" removes), reflect (consolidate), and recall questions,
which search instead of write ("what do you remember about …", "when did we …", "how do I usually …",
"what's the latest on …"). A message with no phrase may still carry something memorable (a stated
preference, decision or identity): that is an auto-detected memory, remembered with less base relevance.

A compound statement ("my wallet is X and I prefer low-risk pools") is split into its clauses (`clauses`), each
remembered on its own, so that forgetting one never silently takes the other.

A cheap check on every message: a few compiled patterns, no model."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class Intent(StrEnum):
    remember = "remember"
    auto = "auto"          # no phrase, but memorable content (base relevance 0.7)
    forget = "forget"
    delete = "delete"      # "permanently delete …": removed, not archived
    reflect = "reflect"
    recall = "recall"
    none = "none"


class QueryType(StrEnum):
    """Section 11.1's query types, each with its own recall strategy (graph/memory/recall.py)."""

    temporal = "temporal"        # "when did we …?": episodes, a temporal scan + keyword
    entity = "entity"            # "what do you know about X?": entity lookup, then 1-2 hops
    procedural = "procedural"    # "how do I usually …?": a pattern match on procedures' triggers
    latest = "latest"            # "what's the latest on …?": recent episodes + active context
    general = "general"          # anything else: the hybrid retrieval


@dataclass(frozen=True)
class Trigger:
    intent: Intent
    phrase: str | None = None        # the phrase that fired, as written in the spec
    content: str = ""                # what to remember, forget, reflect on or recall (the phrase taken out)
    query_type: QueryType | None = None
    explicit: bool = False           # a recall the user asked for by name: dormant memories come back too


REMEMBER = ("remember that", "don't forget", "do not forget", "keep in mind", "note that", "important:",
            "for future reference", "save this", "fyi for later", "remember")
FORGET = ("forget about", "never mind about", "disregard", "that's no longer relevant", "scratch that",
          "ignore what i said about", "remove from memory", "delete the memory about", "forget")
DELETE = ("permanently delete", "delete permanently", "permanently forget", "permanently remove",
          "erase all memory of", "erase")
REFLECT = ("reflect on", "consolidate your memories", "consolidate", "review your memories",
           "clean up your memory")
# Recall questions, most specific first: (pattern, query type, explicit).
RECALL: tuple[tuple[str, QueryType, bool], ...] = (
    (r"what do you (?:remember|recall) about", QueryType.entity, True),
    (r"what do you know about", QueryType.entity, True),
    (r"do you (?:remember|recall)", QueryType.general, True),
    (r"when did (?:we|i|you)", QueryType.temporal, False),
    (r"how do (?:i|we) usually", QueryType.procedural, False),
    (r"how do (?:i|we) normally", QueryType.procedural, False),
    (r"what(?:'s| is) the latest on", QueryType.latest, False),
    (r"what(?:'s| is) new with", QueryType.latest, False),
)
# Content worth keeping though no phrase asked (the agent "detects memorable content", section 5).
MEMORABLE = (r"\bmy name is\b", r"\bcall me\b", r"\bi (?:really )?prefer\b", r"\bi (?:always|never)\b",
             r"\b(?:we|i) (?:decided|chose|agreed)\b", r"\bi(?:'m| am) (?:currently )?working on\b",
             r"\bi (?:hate|love|avoid|dislike)\b", r"\bmy (?:favou?rite|priority|goal)\b")

# A phrase counts at the start of a clause: the message's start, after punctuation, or after a
# courtesy ("please", "also", "oh and"), so "I remember when…" is not an instruction.
_LEAD = r"(?:^|(?<=[.!?;:,\n])\s*|\b(?:please|also|and|oh|hey|btw|so|ok|okay)\s+)"


def _compile(phrase: str) -> re.Pattern[str]:
    body = re.escape(phrase).replace("'", "['’]")
    tail = "" if phrase.endswith(":") else r"\b"
    # a phrase about "your memory" asks the agent wherever it stands ("can you clean up your memory?")
    lead = r"\b" if "your memor" in phrase else _LEAD
    return re.compile(lead + "(" + body + ")" + tail, re.IGNORECASE)


_REMEMBER = [(p, _compile(p)) for p in REMEMBER]
_FORGET = [(p, _compile(p)) for p in FORGET]
_DELETE = [(p, _compile(p)) for p in DELETE]
_REFLECT = [(p, _compile(p)) for p in REFLECT]
_RECALL = [(re.compile(_LEAD + "(" + pattern + r")\b", re.IGNORECASE), kind, explicit)
           for pattern, kind, explicit in RECALL]
_MEMORABLE = [re.compile(p, re.IGNORECASE) for p in MEMORABLE]
_STRIP = re.compile(r"^[\s,:;\-–—]*(?:that\b|about\b|of\b|(?:(?:the|all|any|my)\s+)?memor(?:y|ies)\s+(?:about|of)\b)?"
                    r"[\s,:;\-–—]*", re.IGNORECASE)


def _rest(text: str, match: re.Match[str]) -> str:
    rest = _STRIP.sub("", text[match.end(1):], count=1)
    return rest.strip().rstrip("?.!").strip()


def _first(text: str, patterns: list[tuple[str, re.Pattern[str]]]) -> tuple[str, re.Match[str]] | None:
    """The earliest phrase in the text (the longest when two start together)."""
    found = [(m.start(1), -len(phrase), phrase, m) for phrase, rx in patterns if (m := rx.search(text))]
    if not found:
        return None
    _, _, phrase, match = min(found, key=lambda f: (f[0], f[1]))
    return phrase, match


def detect(text: str) -> Trigger:
    """The message's trigger. Recall questions first ("what do you remember about" is not a remember),
    then permanent deletion, remember ("don't forget" is not a forget), forget and reflect."""
    for rx, kind, explicit in _RECALL:
        if m := rx.search(text):
            return Trigger(Intent.recall, m.group(1).lower(), _rest(text, m), kind, explicit)
    for intent, patterns in ((Intent.delete, _DELETE), (Intent.remember, _REMEMBER), (Intent.forget, _FORGET),
                             (Intent.reflect, _REFLECT)):
        if hit := _first(text, patterns):
            phrase, match = hit
            return Trigger(intent, phrase, _rest(text, match))
    if any(rx.search(text) for rx in _MEMORABLE):
        return Trigger(Intent.auto, None, text.strip())
    return Trigger(Intent.none, None, text.strip())


# Where one statement ends and the next begins: "; ", or ", and" / "and" before a new subject the user speaks of
# ("and I prefer …", "and my backup wallet is …", "and we decided …"); the subject stays with its clause.
_CLAUSE = re.compile(r"\s*;\s+|,?\s+and\s+(?=(?:i|my|we|our)\s)", re.IGNORECASE)
_WORD = re.compile(r"[\w'’-]+")
STATEMENT_WORDS = 3  # a clause of fewer words ("Alice and I met …" splits into "Alice") is not a statement


def clauses(content: str) -> list[str]:
    """The statements `content` makes, each on its own; the whole when any part would not be a statement."""
    parts = [p.strip(" ,.") for p in _CLAUSE.split(content)]
    if len(parts) < 2 or any(len(_WORD.findall(p)) < STATEMENT_WORDS for p in parts):
        return [content]
    return parts
