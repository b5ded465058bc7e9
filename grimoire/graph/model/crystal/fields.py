"""A crystal's fields on the episodes, entries and memories that are Grimoire's crystals (knowledge-crystals.md,
"Crystal Anatomy"), set when each is written.

What Grimoire already kept is not repeated: the crystal's `accessCount` and `lastAccessedAt` are the
`access_count` and `last_accessed_at` retrieval touches, its access scope is the item's `scope` (the visibility
rule), its confidence and decay class stay the entry's, its provenance chain starts from the entry's `provenance`
(the origin below is derived from it). The hormonal influence is three flat properties (Neo4j keeps no maps)."""

from __future__ import annotations

from enum import StrEnum

from grimoire.graph.model.crystal import hormones
from grimoire.graph.model.crystal.importance import frequency
from grimoire.graph.model.crystal.lifecycle import INITIAL
from grimoire.graph.model.crystal.payload import MemorySource, SourceFile, payload
from grimoire.graph.model.rows import Properties


class SemanticType(StrEnum):
    fact = "fact"
    preference = "preference"
    task_pattern = "task_pattern"
    skill = "skill"
    episode = "episode"
    insight = "insight"
    relationship = "relationship"
    goal = "goal"
    general = "general"


class Origin(StrEnum):
    indexed = "indexed"
    session = "session"
    skill = "skill"
    dream = "dream"
    user_input = "user_input"
    inferred = "inferred"
    peer = "peer"


class EpistemicLayer(StrEnum):
    experience = "experience"
    directive = "directive"
    world_fact = "world_fact"
    mental_model = "mental_model"


# An entry's category as a crystal: its semantic type and epistemic layer.
ENTRY_TYPES: dict[str, tuple[SemanticType, EpistemicLayer]] = {
    "Insight": (SemanticType.insight, EpistemicLayer.world_fact),
    "Heuristic": (SemanticType.task_pattern, EpistemicLayer.directive),
    "Warning": (SemanticType.fact, EpistemicLayer.world_fact),
    "CausalLink": (SemanticType.fact, EpistemicLayer.world_fact),
    "StrategyFragment": (SemanticType.task_pattern, EpistemicLayer.directive),
    "DreamJournal": (SemanticType.insight, EpistemicLayer.experience),
}
# An entry's provenance (grimoire.md) as the crystal's origin: what came from another agent is a peer's.
ORIGIN_OF_PROVENANCE: dict[str, Origin] = {
    "SelfLearned": Origin.inferred, "Dream": Origin.dream, "DeathReflection": Origin.inferred,
    "Clade": Origin.peer, "Predecessor": Origin.peer, "StyxQuery": Origin.peer, "Lethe": Origin.peer,
    "Marketplace": Origin.peer, "Replicant": Origin.peer,
}
# A memory's type (moltbot-memory.md, section 5) as the crystal's semantic type; procedures are task patterns.
MEMORY_TYPES: dict[str, SemanticType] = {
    "decision": SemanticType.fact, "fact": SemanticType.fact, "preference": SemanticType.preference,
    "task": SemanticType.goal, "event": SemanticType.episode, "emotion": SemanticType.episode,
    "correction": SemanticType.fact,
}


# A crystal's bounty priority boost before any bounty matched it: the neutral multiplier (the project's own).
NO_BOUNTY_BOOST = 1.0
# The largest reward multiplier a bounty offers (graph/crystals/bounties.py), the project's own bound: retrieval's
# bounty boost is at most x(1 + 0.02 x 9) (graph/retrieval/governance.py).
MAX_BOUNTY_BOOST = 10.0


def behavioural(text: str, *, session: bool, now: int, access_count: int = 0) -> Properties:
    """The behavioural fields every crystal starts with: generated, its importance f(n) (no time has passed), its
    hormonal influence detected in the text and the emotional valence derived from it, no steering reward yet,
    unverified, no bounty (a neutral boost), never dreamed (no ripple count yet), no curiosity boost (an entry's is
    its novelty, set when the Admission Gate has measured it: graph/knowledge/entries.py)."""
    influence = hormones.influence(text, session=session)
    return {
        "lifecycle": INITIAL.value, "lifecycle_at": now, "importance_score": round(frequency(access_count), 6),
        "access_count": access_count, "emotional_valence": round(influence["valence"], 6),
        "hormone_dopamine": influence["dopamine"], "hormone_cortisol": influence["cortisol"],
        "hormone_oxytocin": influence["oxytocin"], "steering_reward": 0.0, "is_verified": False,
        "dream_count": 0, "curiosity_boost": 0.0, "bounty_priority_boost": NO_BOUNTY_BOOST,
    }


def for_episode(episode_type: str, text: str, now: int) -> Properties:
    conversation = episode_type == "conversation"
    return {**payload(text, MemorySource.sessions).model_dump(mode="json", exclude_none=True),
            "semantic_type": SemanticType.episode.value,
            "origin": (Origin.session if conversation else Origin.indexed).value,
            "epistemic_layer": EpistemicLayer.experience.value,
            **behavioural(text, session=conversation, now=now)}


def for_entry(category: str, provenance: str, content: str, now: int, *, mental_model: bool = False,
              file: SourceFile | None = None) -> Properties:
    semantic, layer = ENTRY_TYPES.get(category, (SemanticType.general, EpistemicLayer.world_fact))
    return {**payload(content, MemorySource.memory, file).model_dump(mode="json", exclude_none=True),
            "semantic_type": semantic.value, "origin": ORIGIN_OF_PROVENANCE.get(provenance, Origin.inferred).value,
            "epistemic_layer": (EpistemicLayer.mental_model if mental_model else layer).value,
            **behavioural(content, session=False, now=now)}


def for_memory(memory_type: str, store: str, text: str, explicit: bool, now: int,
               file: SourceFile | None = None) -> Properties:
    """A memory said in a session: its oxytocin baseline; what the user asked to remember is a directive, user
    input; what was inferred is the LLM's (or the rules')."""
    semantic = SemanticType.task_pattern if store == "procedural" else MEMORY_TYPES.get(memory_type,
                                                                                       SemanticType.general)
    layer = (EpistemicLayer.experience if store == "episodic" else
             EpistemicLayer.directive if memory_type == "preference" or explicit else EpistemicLayer.world_fact)
    return {**payload(text, MemorySource.memory, file).model_dump(mode="json", exclude_none=True),
            "semantic_type": semantic.value, "origin": (Origin.user_input if explicit else Origin.session).value,
            "epistemic_layer": layer.value, **behavioural(text, session=True, now=now, access_count=1)}
