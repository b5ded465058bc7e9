"""The design documents' numbers beside the code's (issue 39): every constant the documents give a value for, read from
the code where it lives (a config model's default, or a module's constant), with the document's value, file and line,
and, where the two differ or the document gives no number, why. Also the places where the project's behaviour (not
one number) differs from the documents, and why. README.md's tables are generated from here
(`grimoire spec table --write`, api/readme.py), and tests/unit/test_spec_values.py fails when a constant no longer
resolves, when one differs from its document without saying why, or when a document's line no longer states it."""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

from pydantic import BaseModel

from grimoire.graph.context.config import GovernorConfig
from grimoire.graph.crystals.config import CrystalsConfig
from grimoire.graph.knowledge.admission import AdmissionConfig
from grimoire.graph.knowledge.decay import DecayConfig
from grimoire.graph.learning.config import LearningConfig
from grimoire.graph.memory.reflection import ReflectionConfig
from grimoire.graph.retrieval import RetrievalConfig
from grimoire.graph.topology.freshness import FactConfig
from grimoire.graph.upkeep.config import UpkeepConfig

MODELS: dict[str, Any] = {m.__name__: m for m in (
    AdmissionConfig, CrystalsConfig, DecayConfig, FactConfig, GovernorConfig, LearningConfig, ReflectionConfig,
    RetrievalConfig, UpkeepConfig)}
DOCUMENTS = ("grimoire.md", "context-governor.md", "moltbot-memory.md", "knowledge-crystals.md")


@dataclass(frozen=True)
class Constant:
    """A value the code holds at `code` and the document states at `document`:`line`.

    `code` is `Model.field[.key...]` (a config model's default: a dict's key or a nested model's field after it)
    or `package.module:NAME[.key]` (a module's constant). `doc_value` is the document's value in the code's unit,
    None when the document names the thing without a number; `why` says why the code differs (required then)."""

    code: str
    document: str
    line: int
    doc_value: float | None
    doc_text: str
    why: str | None = None

    def value(self) -> Any:
        return code_value(self.code)

    @property
    def differs(self) -> bool:
        value = self.value()
        return self.doc_value is None or not math.isclose(float(value), self.doc_value, rel_tol=1e-9)


@dataclass(frozen=True)
class Difference:
    """A place where what the code does (not one number) is not what the document says, and why."""

    topic: str
    document: str
    line: int
    document_says: str
    code_does: str
    why: str


def _step(value: Any, name: str) -> Any:
    if isinstance(value, dict):
        return value[next(k for k in value if str(getattr(k, "value", k)) == name)]
    return getattr(value, name)


def code_value(path: str) -> Any:
    """The value the code holds at `path` (see Constant)."""
    if ":" in path:
        module, rest = path.split(":", 1)
        head, *keys = rest.split(".")
        value = getattr(importlib.import_module(module), head)
    else:
        head, *keys = path.split(".")
        value = MODELS[head]()
    for key in keys:
        value = _step(value, key)
    if isinstance(value, BaseModel) or is_dataclass(value):
        names = [f.name for f in fields(value)] if is_dataclass(value) else list(type(value).model_fields)
        raise ValueError(f"{path} is a group ({', '.join(names)}), not a value: name one of its fields")
    return value


CONSTANTS: tuple[Constant, ...] = (
    Constant("DecayConfig.class_half_life_days.regime_conditional", "grimoire.md", 230, 21.0, "B 21 days",
             "Same as Demurrage's B; the first table (line 220) says ~14 days, which GRIMOIRE_DECAY can set. "
             "Half-lives are stored on each entry when written: entries written before keep theirs."),
    Constant("DecayConfig.class_half_life_days.cyclical", "grimoire.md", 231, 90.0, "C 90 days"),
    Constant("DecayConfig.class_half_life_days.tactical", "grimoire.md", 221, 7.0, "7 days"),
    Constant("DecayConfig.class_half_life_days.ephemeral", "grimoire.md", 222, 1.0, "24 hours"),
    Constant("DecayConfig.type_half_life_days.Episode", "grimoire.md", 243, 2.0, "48 hours"),
    Constant("DecayConfig.type_half_life_days.Insight", "grimoire.md", 244, 7.0, "Insights 7 days"),
    Constant("DecayConfig.type_half_life_days.Heuristic", "grimoire.md", 245, 14.0, "Heuristics 14 days"),
    Constant("DecayConfig.type_half_life_days.Warning", "grimoire.md", 246, 30.0, "30 days"),
    Constant("DecayConfig.dream_factor", "grimoire.md", 232, 2.0, "D 0.5x std (half the decay rate)"),
    Constant("DecayConfig.bloodstain_factor", "grimoire.md", 247, 3.0, "3x slower"),
    Constant("DecayConfig.floor", "grimoire.md", 262, 0.05, "effective_confidence at 0.05"),
    Constant("DecayConfig.upvote_step", "grimoire.md", 839, 0.1, "+0.1"),
    Constant("DecayConfig.downvote_step", "grimoire.md", 839, 0.15, "-0.15"),
    Constant("AdmissionConfig.weights.future_utility", "grimoire.md", 288, 0.25, "0.25"),
    Constant("AdmissionConfig.weights.factual_confidence", "grimoire.md", 289, 0.25, "0.25"),
    Constant("AdmissionConfig.weights.semantic_novelty", "grimoire.md", 290, 0.2, "0.20"),
    Constant("AdmissionConfig.weights.temporal_recency", "grimoire.md", 291, 0.15, "0.15"),
    Constant("AdmissionConfig.weights.content_type_prior", "grimoire.md", 292, 0.15, "0.15"),
    Constant("AdmissionConfig.reject_below", "grimoire.md", 304, 0.45, "below 0.45 -> rejected"),
    Constant("AdmissionConfig.standard_above", "grimoire.md", 304, 0.55, "above 0.55 -> standard confidence"),
    Constant("AdmissionConfig.merge_above", "grimoire.md", 290, 0.9, "cosine > 0.9 -> MERGE"),
    Constant("AdmissionConfig.skip_above", "grimoire.md", 290, 0.95, "> 0.95 -> SKIP"),
    Constant("AdmissionConfig.firewall_factual_below", "grimoire.md", 306, 0.3, "factual confidence < 0.3"),
    Constant("AdmissionConfig.low_band_confidence", "grimoire.md", 304, 0.3, "0.45-0.55 -> admitted at confidence 0.3"),
    Constant("AdmissionConfig.off_topic_below", "grimoire.md", 290, 0.5, "< 0.5 -> flag off-topic"),
    Constant("AdmissionConfig.type_priors.Warning", "grimoire.md", 297, 0.9, "Warning 0.9"),
    Constant("AdmissionConfig.type_priors.CausalLink", "grimoire.md", 298, 0.7, "Causal Link 0.7"),
    Constant("AdmissionConfig.type_priors.Heuristic", "grimoire.md", 299, 0.6, "Heuristic 0.6"),
    Constant("AdmissionConfig.type_priors.Insight", "grimoire.md", 300, 0.5, "Insight 0.5"),
    Constant("AdmissionConfig.type_priors.StrategyFragment", "grimoire.md", 301, 0.4, "Strategy Fragment 0.4"),
    Constant("AdmissionConfig.ephemeral_prior", "grimoire.md", 302, 0.2, "Observation (ephemeral) 0.2"),
    Constant("AdmissionConfig.factor_thresholds.future_utility", "grimoire.md", 288, 0.4, "> 0.4"),
    Constant("AdmissionConfig.factor_thresholds.factual_confidence", "grimoire.md", 289, 0.3, "> 0.3"),
    Constant("AdmissionConfig.factor_thresholds.temporal_recency", "grimoire.md", 291, 0.2, "> 0.2"),
    Constant("grimoire.graph.knowledge.quality:WEIGHTS.specificity", "grimoire.md", 315, 0.25, "0.25"),
    Constant("grimoire.graph.knowledge.quality:WEIGHTS.actionability", "grimoire.md", 316, 0.25, "0.25"),
    Constant("grimoire.graph.knowledge.quality:WEIGHTS.novelty", "grimoire.md", 317, 0.2, "0.20"),
    Constant("grimoire.graph.knowledge.quality:WEIGHTS.verifiability", "grimoire.md", 318, 0.15, "0.15"),
    Constant("grimoire.graph.knowledge.quality:WEIGHTS.consistency", "grimoire.md", 319, 0.15, "0.15"),
    Constant("RetrievalConfig.rerank.rrf", "grimoire.md", 1135, 0.3, "rrf * 0.30"),
    Constant("RetrievalConfig.rerank.effective_confidence", "grimoire.md", 1135, 0.25, "effective_confidence * 0.25"),
    Constant("RetrievalConfig.rerank.quality", "grimoire.md", 1136, 0.2, "quality_score * 0.20"),
    Constant("RetrievalConfig.rerank.recency", "grimoire.md", 1136, 0.15, "recency_boost * 0.15"),
    Constant("RetrievalConfig.rerank.regime_match", "grimoire.md", 1137, 0.1, "regime_match * 0.10"),
    Constant("RetrievalConfig.bloodstain_boost", "grimoire.md", 1290, 1.2, "1.2x retrieval score boost"),
    Constant("RetrievalConfig.rrf_k", "grimoire.md", 1133, 60, "SUM 1/(60 + rank_i)"),
    Constant("RetrievalConfig.contrarian_every", "grimoire.md", 1286, 100, "every 100 ticks",
             "Same number, other unit: the service counts an agent's retrievals ('every Nth retrieval of an "
             "agent', retrieval/config.py), since it does not see the agent's ticks when it retrieves."),
    Constant("RetrievalConfig.zeigarnik_boost", "grimoire.md", 55, None, "Zeigarnik effect, no number",
             "grimoire.md:55 describes the Zeigarnik effect only qualitatively; the 1.2 boost for interrupted "
             "episodes is the project's own and no measurement of it is in bench/results."),
    Constant("LearningConfig.every_ticks", "grimoire.md", 1400, 50, "every 50 ticks"),
    Constant("LearningConfig.promote_at.Insight", "grimoire.md", 1424, 0.6, "Insights at confidence >= 0.6"),
    Constant("LearningConfig.promote_at.Heuristic", "grimoire.md", 1425, 0.7, "Heuristics at confidence >= 0.7"),
    Constant("LearningConfig.demote_below", "grimoire.md", 1431, 0.4, "below 0.4 confidence -> demote"),
    Constant("LearningConfig.low_cycles", "grimoire.md", 1430, 3, "below 0.1 for 3+ cycles -> archive"),
    Constant("LearningConfig.prune_quality", "grimoire.md", 1440, 0.05, "quality_score < 0.05"),
    Constant("LearningConfig.prune_access", "grimoire.md", 1440, 2, "access_count < 2"),
    Constant("grimoire.graph.metrics.catalog:REFLECTION_HEALTHY", "grimoire.md", 1495, 0.7,
             "Reflection consistency healthy >0.7"),
    Constant("grimoire.graph.metrics.catalog:REFLECTION_ALARM", "grimoire.md", 1495, 0.5,
             "Reflection consistency alarm <0.5"),
    Constant("grimoire.graph.learning.consistency:RESTATEMENTS", "grimoire.md", 319, 3, "regenerate 3x"),
    Constant("LearningConfig.consistency_hold_below", "grimoire.md", 1495, 0.5, "Reflection consistency alarm <0.5",
             "The admission table (lines 286-292) gives consistency no threshold, and the quality table (line 319) "
             "only its weight: a promotion is held under the document's alarm line for the same measure, the cosine "
             "across regenerated reflections (GRIMOIRE_LEARNING can set another)."),
    Constant("grimoire.graph.metrics.catalog:CACHE_HEALTHY", "grimoire.md", 1496, 0.3, "DecisionCache >30% after 7d"),
    Constant("grimoire.graph.metrics.catalog:CACHE_MATURE_DAYS", "grimoire.md", 1496, 7, ">30% after 7d"),
    Constant("grimoire.graph.metrics.catalog:CACHE_ALARM", "grimoire.md", 1496, 0.1, "<10% after 14d"),
    Constant("grimoire.graph.metrics.catalog:CACHE_ALARM_DAYS", "grimoire.md", 1496, 14, "<10% after 14d"),
    Constant("grimoire.graph.metrics.catalog:THREATS_HEALTHY", "grimoire.md", 1498, 1.0,
             "Threat coverage 100%, alarm <100%"),
    Constant("LearningConfig.lesson_confidence", "grimoire.md", 839, 0.6, "new insights start at confidence 0.6",
             "grimoire.md says 0.6 at line 839 but 0.5 at lines 1380 (Reflexion step 5, Insight Extraction) and "
             "1391 (ExpeL ADD); the code follows line 1391."),
    Constant("grimoire.graph.learning.reflexion:INCIDENT_CONFIDENCE", "grimoire.md", 1374, 1.0,
             "safety_incident Episode at confidence 1.0"),
    Constant("grimoire.graph.knowledge.tiers:SIGMAS", "grimoire.md", 1382, 2.0,
             "outside the expected distribution by more than 2 sigma"),
    Constant("LearningConfig.expel_every", "grimoire.md", 1388, 10, "After every 10 episodes within a strategy"),
    Constant("LearningConfig.min_cluster", "grimoire.md", 1391, 3, "Novel pattern across 3+ episodes"),
    Constant("LearningConfig.lesson_confidence", "grimoire.md", 1391, 0.5, "Create new Insight at confidence 0.5"),
    Constant("grimoire.graph.learning.strategies:THRESHOLD", "grimoire.md", 1450, 0.9, "PSR exceeds 0.90"),
    Constant("AdmissionConfig.provenance_weight.Clade", "grimoire.md", 1505, 0.8,
             "Vault, Clade, and Lethe entries are weighted (1.0x, 0.8x, 0.5x)"),
    Constant("grimoire.graph.learning.strategies:MIN_DECIDED", "grimoire.md", 1450, None,
             "PSR named without a formula",
             "The document gives no PSR formula and no sample size; the project's PSR needs at least 20 decided "
             "episodes so that a lucky handful does not qualify (strategies.py docstring)."),
    Constant("GovernorConfig.soft_budget_tokens", "context-governor.md", 1163, 8000, "default: 8000"),
    Constant("GovernorConfig.max_allocation_delta", "context-governor.md", 1169, 0.02, "default: 0.02"),
    Constant("GovernorConfig.beta_filter", "context-governor.md", 297, 0.3, "Beta.value() < 0.3"),
    Constant("grimoire.graph.context.attention:WEIGHTED.relevance", "context-governor.md", 316, 0.5,
             "entry.relevance_score * 0.5 (the weighted ranking, a setting)"),
    Constant("grimoire.graph.context.attention:WEIGHTED.recency", "context-governor.md", 317, 0.3,
             "recency_decay(entry.timestamp) * 0.3"),
    Constant("grimoire.graph.context.attention:WEIGHTED.confidence", "context-governor.md", 318, 0.2,
             "entry.confidence * 0.2"),
    Constant("grimoire.graph.context.compaction:THRESHOLD", "context-governor.md", 355, 0.8, "context_pressure > 0.8"),
    Constant("grimoire.graph.context.categories:TURN_PHASE_MULTIPLIERS.decide.episodes", "context-governor.md", 1053,
             1.4, "(Episodes, 1.4)"),
    Constant("grimoire.graph.context.categories:TURN_PHASE_MULTIPLIERS.analyze.playbook", "context-governor.md", 1045,
             1.5, "(Playbook, 1.5)"),
    Constant("grimoire.graph.context.categories:TURN_PHASE_MULTIPLIERS.execute.tool_state", "context-governor.md",
             1061, 1.5, "(ToolState, 1.5)"),
    Constant("grimoire.graph.context.categories:TURN_PHASE_MULTIPLIERS.reflect.contrarian", "context-governor.md",
             1068, 1.2, "(Contrarian, 1.2)"),
    Constant("grimoire.graph.context.replay:GATE", "context-governor.md", 894, 0.15,
             "alt_quality > candidate.outcome_quality.unwrap_or(0.0) + 0.15"),
    Constant("GovernorConfig.dream_mutation_confidence", "context-governor.md", 901, 0.2, "confidence: 0.2"),
    Constant("grimoire.graph.context.mutations:WORST", "context-governor.md", 886, 3, "candidates.truncate(3)"),
    Constant("GovernorConfig.mental_models_max_share", "grimoire.md", 1481, None,
             "These 13 models are always loaded in the golem's context",
             "the document gives the block no budget; the project's 10 % holds the full block (390 tokens) from a "
             "3,900-token budget and the names (66) from 660, so the text still never exceeds the budget."),
    Constant("grimoire.graph.context.categories:DEFAULT_ALLOCATIONS.invariants", "context-governor.md", 201, 0.15,
             "(Invariants, 0.15)"),
    Constant("grimoire.graph.context.categories:DEFAULT_ALLOCATIONS.playbook", "context-governor.md", 203, 0.15,
             "(Playbook, 0.15)"),
    Constant("grimoire.graph.context.categories:DEFAULT_ALLOCATIONS.contrarian", "context-governor.md", 207, 0.04,
             "(Contrarian, 0.04)"),
    Constant("grimoire.graph.memory.relevance:LAMBDA", "moltbot-memory.md", 347, 0.03, "recommended: 0.03"),
    Constant("grimoire.graph.memory.relevance:BASE_RELEVANCE.explicit", "moltbot-memory.md", 346, 1.0,
             "1.0 for explicit"),
    Constant("grimoire.graph.memory.relevance:BASE_RELEVANCE.detected", "moltbot-memory.md", 346, 0.7,
             "0.7 for auto-detected"),
    Constant("grimoire.graph.memory.relevance:BASE_RELEVANCE.inferred", "moltbot-memory.md", 346, 0.5,
             "0.5 for inferred"),
    Constant("grimoire.graph.memory.relevance:TYPE_WEIGHT.core", "moltbot-memory.md", 351, 1.5, "Core: 1.5"),
    Constant("grimoire.graph.memory.relevance:TYPE_WEIGHT.episodic", "moltbot-memory.md", 352, 0.8, "Episodic: 0.8"),
    Constant("grimoire.graph.memory.relevance:TYPE_WEIGHT.semantic", "moltbot-memory.md", 353, 1.2, "Semantic: 1.2"),
    Constant("grimoire.graph.memory.relevance:TYPE_WEIGHT.procedural", "moltbot-memory.md", 354, 1.0,
             "Procedural: 1.0"),
    Constant("grimoire.graph.memory.relevance:ACTIVE_FROM", "moltbot-memory.md", 359, 0.5, "1.0 - 0.5 Active"),
    Constant("grimoire.graph.memory.relevance:FADING_FROM", "moltbot-memory.md", 360, 0.2, "0.5 - 0.2 Fading"),
    Constant("grimoire.graph.memory.relevance:DORMANT_FROM", "moltbot-memory.md", 361, 0.05, "0.2 - 0.05 Dormant"),
    Constant("grimoire.graph.memory.decay_status:EVERY_HOURS", "moltbot-memory.md", 662, None,
             "2026-02-03T03:01Z DECAY system:decay",
             "The document gives the decay system no period; its audit.log example records a DECAY run at 03:01, "
             "a minute after the nightly 3:00 reflection (line 405), so the project records transitions daily "
             "(GRIMOIRE_MEMORY_DECAY_INTERVAL_HOURS). Reads compute a memory's status when they read it, so the "
             "period only sets how soon a transition is recorded."),
    Constant("grimoire.graph.memory.recall:RESULTS", "moltbot-memory.md", 1009, 20, "Max search results 20"),
    Constant("grimoire.graph.memory.recall:MIN_SEARCH_SCORE", "moltbot-memory.md", 1010, 0.3,
             "Min search score 0.3",
             "Same value, read as the search score (a result's match, before relevance): a floor on match x "
             "relevance would hide the fading memories that line 360 keeps searchable."),
    Constant("grimoire.graph.memory.blocks:CAP_TOKENS", "moltbot-memory.md", 102, 3000, "Hard-capped at 3,000 tokens"),
    Constant("ReflectionConfig.threshold", "moltbot-memory.md", 408, None, "exceeds N unprocessed entries",
             "The document leaves N open; 20 unprocessed memories is the project's own "
             "(GRIMOIRE_REFLECTION_THRESHOLD)."),
    Constant("ReflectionConfig.hour", "moltbot-memory.md", 405, 3, "3:00 AM local time"),
    Constant("ReflectionConfig.budget", "moltbot-memory.md", 410, 8000, "8,000 tokens of processing output"),
    Constant("CrystalsConfig.decay_rate", "knowledge-crystals.md", 215, 5e-10, "Default: 5e-10 (~16-day half-life)"),
    Constant("CrystalsConfig.promote_threshold", "knowledge-crystals.md", 216, 0.7, "Default: 0.7"),
    Constant("CrystalsConfig.forget_threshold", "knowledge-crystals.md", 217, 0.02, "Default: 0.02"),
    Constant("CrystalsConfig.merge_overlap_threshold", "knowledge-crystals.md", 218, 0.92, "Default: 0.92"),
    Constant("CrystalsConfig.emotion_decay_resistance", "knowledge-crystals.md", 219, 0.5, "Default: 0.5"),
    Constant("CrystalsConfig.consolidation_interval_minutes", "knowledge-crystals.md", 197, 30.0, "every 30 minutes"),
    Constant("grimoire.graph.crystals.consolidation:PHASE_COUNT", "knowledge-crystals.md", 197, 4,
             "performs 4 phases"),
    Constant("grimoire.graph.model.crystal.hormones:HALF_LIFE_MS.dopamine", "knowledge-crystals.md", 155, 1800000,
             "30 min"),
    Constant("grimoire.graph.model.crystal.hormones:HALF_LIFE_MS.cortisol", "knowledge-crystals.md", 156, 3600000,
             "60 min"),
    Constant("RetrievalConfig.directive_boost", "knowledge-crystals.md", 64, None,
             "Directives (explicit user preferences) take priority over inferred knowledge",
             "The document gives no number; the project's own: a directive's final score x1.02, a tie-breaker that "
             "orders near-equal items without lifting a weak match (graph/retrieval/governance.py)."),
    Constant("RetrievalConfig.priority_boost", "knowledge-crystals.md", 118, None, "priority: number",
             "The document gives no scale or effect; the project's own: priority 0..100 multiplies the final score "
             "by 1 + 0.02 x priority / 100, a tie-breaker (graph/retrieval/governance.py)."),
    Constant("grimoire.graph.crystals.consolidation:MERGE_PRIORITY_LEAD", "knowledge-crystals.md", 118, None,
             "priority: number",
             "The document gives the consolidation engine no rule for it; the project's own: in a merge, the crystal "
             "whose priority (0..100) leads the other's by at least 1 point is the winner (consolidated, the other "
             "archived under it) whatever their importance; between equal priorities the more important wins "
             "(graph/crystals/consolidation.py first_wins)."),
    Constant("grimoire.graph.model.crystal.ripples:RIPPLE_MEAN", "knowledge-crystals.md", 62, None,
             "Poisson-sampled ripple count from last replay",
             "The document gives no rate; the project's own: a mean of 3 ripples a replay, sampled on the dream "
             "path seeded by the crystal and its dream count."),
    Constant("grimoire.graph.model.crystal.fields:NO_BOUNTY_BOOST", "knowledge-crystals.md", 70, None,
             "bountyPriorityBoost: reward multiplier from the matched bounty",
             "The document gives no value without a bounty; the project's own: 1.0, the neutral multiplier."),
    Constant("grimoire.graph.model.crystal.fields:MAX_BOUNTY_BOOST", "knowledge-crystals.md", 70, None,
             "bountyPriorityBoost: reward multiplier from the matched bounty",
             "The document gives no range; the project's own: a bounty's reward multiplier is 1 to 10 "
             "(graph/crystals/bounties.py), so no bounty lifts a skill without bound."),
    Constant("RetrievalConfig.bounty_boost", "knowledge-crystals.md", 70, None,
             "bountyPriorityBoost: reward multiplier from the matched bounty",
             "The document gives the multiplier no effect by number; the project's own: a skill that fulfilled a "
             "bounty has its retrieval score multiplied by 1 + 0.02 x (multiplier - 1), a tie-breaker like the "
             "priority's (graph/retrieval/governance.py); 0 turns it off."),
    Constant("FactConfig.co_occurrence.window_blocks", "grimoire.md", 759, 3.0, "within a 3-block window"),
    Constant("FactConfig.co_occurrence.min_count", "grimoire.md", 759, None, "consistently co-occur",
             "The document gives 'consistently' no number; the project's own: at least 3 co-occurring episode "
             "pairs, and (co_occurrence.min_share) half of the two protocols' episodes taking part, so one "
             "coincidence or a hub mentioned beside everything infers nothing (topology/cooccurrence.py)."),
    Constant("FactConfig.half_life_days", "grimoire.md", 246, None, "none for facts (Warnings: 30 days)",
             "The documents give facts no half-life; the project borrows the warnings' 30 days (the slowest "
             "non-structural class) because a fact nobody has seen again in months deserves less trust than a "
             "fresh one (topology/freshness.py docstring)."),
    Constant("grimoire.graph.context.verification:CONFIDENCE_FLOOR", "context-governor.md", 479, 0.01,
             "prediction_error / (prediction.confidence + 0.01)"),
    Constant("grimoire.graph.context.verification:ADVICE_ABOVE", "context-governor.md", 480, 0.2,
             "if prediction_error > 0.2"),
    Constant("grimoire.graph.context.recalibration:REGIME_RECORDS", "context-governor.md", 921, 20,
             "regime_records.len() < 20"),
    Constant("grimoire.graph.context.recalibration:GOOD_QUALITY", "context-governor.md", 923, 0.7, "q > 0.7"),
    Constant("grimoire.graph.context.recalibration:REGIME_GOOD", "context-governor.md", 925, 5,
             "good_records.len() < 5"),
)

DIFFERENCES: tuple[Difference, ...] = (
    Difference("structural entries never decay", "grimoire.md", 236,
               "A = Tactical, B = RegimeConditional, C = Structural (C: 90 days, line 231)",
               "structural entries get no half-life and never decay; C's 90 days is the class cyclical",
               "grimoire.md itself says 'Structural: No decay' at line 219 and 'structural-class entries which "
               "never decay' at line 1408; the 13 mental models are structural and must stay always available "
               "(line 1481). An entry whose structural fact an upgrade can change is written cyclical."),
    Difference("final retrieval score", "grimoire.md", 325,
               "final_score = effective_confidence * quality_score * relevance_similarity",
               "an additive rerank by default: rrf 0.30 + confidence 0.25 + quality 0.20 + recency 0.15 + regime "
               "0.10, x1.2 bloodstain; GRIMOIRE_RETRIEVAL rerank_form product gives the document's product "
               "(relevance: the fused score over its ceiling), x1.2 bloodstain",
               "grimoire.md contradicts itself: the Hybrid Retrieval Pipeline (line 1135) gives the weighted sum. "
               "Measured by leave-one-conversation-out on LoCoMo (bench/results/locomo_feedback.json), the product "
               "scores exactly what the sum does (held-out recall@10 gain +0.000 +- 0.000, 0 on each of the five "
               "folds; recall@5 and @20 equal too): a conversation's turns share confidence, quality and recency, "
               "so both order by relevance. No measured gain, so the sum stays: it keeps the "
               "recency and regime factors line 1135 names, and one factor at 0 does not zero an item's score."),
    Difference("admission novelty range", "grimoire.md", 290,
               "Threshold 0.5-0.9 range for semantic novelty (cosine > 0.9 -> MERGE, > 0.95 -> SKIP, < 0.5 -> flag "
               "off-topic)",
               "the other factors' thresholds reject (GRIMOIRE_ADMISSION per_factor reject, the default; flag keeps "
               "them to low_* flags); novelty's range is the merge and skip above cosine 0.9 and an off_topic flag "
               "below 0.5, never a rejection",
               "the document's How computed column says to flag below 0.5, and an agent's first entry (nothing "
               "stored: cosine 0, novelty 1.0) would otherwise always be rejected. The hallucination firewall "
               "(line 306) is judged before the factual threshold, so a contradiction of a high-confidence entry "
               "is quarantined for review rather than rejected."),
    Difference("pruning quality", "grimoire.md", 1444,
               "quality used for pruning: confidence x (validated / (validated + contradicted + 1))",
               "the document's quality by default (GRIMOIRE_LEARNING prune_rule document), for an entry an "
               "outcome has tested (validated + contradicted >= 1); an untested one is not pruned on quality but "
               "decays (archived under 0.1 for 3 cycles); prune_rule artifact prunes on the stored quality_score",
               "a lesson is written before any prediction can validate it: the formula gives it 0 at birth, and "
               "with fewer than 2 accesses the cycle that wrote it would prune every lesson it writes."),
    Difference("Performance-Safety Ratio", "grimoire.md", 1450,
               "PSR exceeds 0.90 (no formula)",
               "PSR = performance x safety over the strategy's decided episodes, at least 20 of them",
               "the document names PSR without a formula; the formula is the project's own (strategies.py "
               "docstring)."),
    Difference("ExpeL ADD writes an Insight", "grimoire.md", 1391,
               "ADD: create new Insight at confidence 0.5",
               "ExpeL's distillation (every 10 episodes of a strategy) ADDs an Insight at 0.5 (GRIMOIRE_LEARNING "
               "expel_add: lesson writes a Heuristic or Warning instead); the 50-tick Curator cycle's DISTILL still "
               "ADDs a Heuristic ('Use ...') or a Warning ('Avoid ...') at 0.5, and compression writes Insights",
               "the document's Curator Cycle Pipeline (line 1420) has DISTILL do heuristic extraction and PLAYBOOK.md "
               "is compiled from heuristics, which an Insight-only ADD would never feed; ExpeL leaves the episodes "
               "unconsolidated for that cycle (graph/learning/expel.py)."),
    Difference("access counted on search hits", "knowledge-crystals.md", 55,
               "accessCount: times retrieved in search results",
               "access_count / last_accessed_at move only on a retrieval for a decision; every other read (a "
               "search, a retrieval, a read by id, a list, a workspace given) goes to read_count / last_read_at, "
               "flushed every 30 s, and importance uses both",
               "grimoire.md:256 makes lastAccessed the last retrieval for a DECIDING context and the decay clock "
               "restarts only then (audit/access.py docstring)."),
    Difference("consolidation transaction", "knowledge-crystals.md", 212,
               "all score updates, transitions and merges in a single SQLite transaction",
               "a run (a ConsolidationRun: id, start, finish, each phase's count, status) whose audit records all "
               "name it (tag consolidation:<run id>), the four phases in order; up to 5,000 crystals "
               "(GRIMOIRE_CRYSTALS single_transaction_below) in one transaction, a larger store one transaction "
               "per page of 1,000 and per batch of merges, each moving the run's cursor, so a run that dies midway "
               "is marked (interrupted, or running and untouched for 10 minutes) and the next completes it under "
               "its id, each phase change audited with the move; one that failed 3 times "
               "(GRIMOIRE_CRYSTALS consolidation_max_attempts) is marked failed and the next starts fresh",
               "one Neo4j transaction over a large store would hold its write locks and heap for seconds and block "
               "requests; paging keeps each transaction bounded (README: 110,000 crystals in 19.5 s) and the run "
               "keeps the pass one audited unit."),
    Difference("injection route", "context-governor.md", 359,
               "DECIDE and REFLECT phases benefit from full episodic context: return Hybrid",
               "the turn phase does not change the route; it shapes the categories' shares by S5.2's multipliers",
               "the spec's own branch returns Hybrid, the same as its default on the next line, so following it "
               "gives the same route for every phase."),
    Difference("context item ranking: the parts' sources", "context-governor.md", 1239,
               "pragmatic value from the risk engine's delta-CVaR and the oracle's prediction improvement; epistemic "
               "value from the oracle's prediction error, Bayesian surprise and ChainScope's Hebbian interest",
               "score = pragmatic + epistemic + |cos(PAD now, PAD of the item)| + (1 - vitality) x relevance, the "
               "dominant part on each entry; pragmatic is relevance x confidence, epistemic relevance x recency x "
               "(1 - confidence) (context/attention.py); S3.2's relevance x 0.5 + recency x 0.3 + confidence x 0.2 "
               "is GRIMOIRE_CONTEXT attention_ranking=weighted",
               "a memory service has no risk engine, oracle or ChainScope: the Grimoire's own signals stand in for "
               "them (how far an item bears on the decision and has held, and what the agent is unsure of). No "
               "benchmark in bench/ measures the ranking's quality (bench/context.py measures latency, which the "
               "score's arithmetic does not move), so nothing measured argues against the document's score as "
               "the default."),
    Difference("Beta filter always on", "context-governor.md", 297,
               "Filter: remove items below Beta.value() < 0.3",
               "one second in ten (EXPLORE_EVERY 10) the filter leaves nothing out",
               "the project's own exploration: a category left out for good could never show that it helps again "
               "(context/governor.py left_out)."),
    Difference("three cognitive metrics from the service's records", "grimoire.md", 1495,
               "reflection consistency: cosine across regenerated reflections; DecisionCache hit rate: % "
               "T2-eligible ticks from cache (line 1496); threat coverage: % Tier 1 threats rehearsed in the last "
               "7 dream cycles (line 1498)",
               "reflection consistency is the mean pairwise cosine of the one-hot verdicts of the week's "
               "Reflexion comparisons of one series in one regime; the hit rate the share of the week's context "
               "decisions on a workspace served from the governor's kept one; threat coverage the share of the "
               "agent's warnings read or retrieved in the last 7 days",
               "the service stores one deterministic reflection per episode (a recurring prediction is what is "
               "regenerated), its decision cache is the kept workspace and its tiers only T0 (never recorded), "
               "and it has no dream cycles or threat registry: its warnings are the threats it knows, and a "
               "read is a rehearsal."),
    Difference("fact invalidation", "grimoire.md", 472,
               "an active triple with the same (subject, predicate) and a conflicting object is invalidated",
               "every predicate closes the active fact with another object (valid_to set to the new valid_from, "
               "the old version kept), except the multi-valued ones (GRIMOIRE_FACTS multi_valued: TokenFlow, "
               "CollateralBacking, HasPosition, PriceCorrelation, GovernanceControl, IsRouterFor by default), and a "
               "fact's own `exclusive` says otherwise",
               "for a predicate whose facts are sets another object is no conflict: a pool has many collateral "
               "reserves, and the Aave data has governance modules controlling several contracts each."),
    Difference("memory crystals private", "knowledge-crystals.md", 6,
               "memory crystals (episode, preference, relationship, fact, goal) are private and never leave the "
               "node",
               "by default (GRIMOIRE_CRYSTALS memory_scope=private) a memory crystal written with a wider scope is "
               "stored private, the scope asked for kept as requested_scope; an explicit share of one (POST "
               "/entries/{id}/scope, a fork into a shared or public scope) is a 422, a strategy package leaves "
               "it out, an agent import narrows it, and only knowledge crystals are listed for the marketplace; "
               "memory_scope=as_written keeps the scope its writer gave; under the private rule the Curator "
               "offers no warning to the clade (its owner's share would be refused)",
               "the two documents disagree: grimoire.md propagates warnings (and causal links, both 'fact' "
               "crystals) to the clade (line 1426) and shares episodes by their scope; the code follows "
               "knowledge-crystals.md, the stricter, by default, and a deployment that wants the clade's warnings "
               "sets as_written."),
    Difference("decay transitions: one record per memory", "moltbot-memory.md", 662,
               "one audit.log line per decay run: '2 entries transitioned: fading→dormant'",
               "the decay system (memory.decay, daily) records one DECAY record by system:decay per memory whose "
               "status moved, its owner's, summary 'fading→dormant'; reads still compute the status when they read",
               "an audit record belongs to one owner (each agent's trail shows its own memories only), and one "
               "naming its memory is what 'why did you forget X' (line 710) finds."),
    Difference("strategy package: JSON, shared in the clade", "grimoire.md", 1450,
               "a strategy past PSR 0.90 packaged as a tradeable artifact (ONNX model + JSON config + EAS "
               "attestation), shared free within the clade",
               "GET /strategies/{strategy}/package builds a JSON artifact named by its sha-256 digest; another agent "
               "of the owner's clade imports it (POST /agents/{agent_id}/strategies/import), each entry through the "
               "Admission Gate at 0.8x its confidence; the package's causal links are not recreated between the "
               "copies",
               "the ONNX model and the EAS attestation belong to the marketplace ([HARDENED], not built); the "
               "importer's copies are candidates its own cycles validate (line 823), and links between them are "
               "its own to make (POST /causal/links)."),
    Difference("co-occurrence inference's reading", "grimoire.md", 759,
               "episodes involving protocol A consistently co-occur with episodes involving protocol B within a "
               "3-block window: a TokenFlow or OracleDependency relationship",
               "pairs of episodes at most 3 blocks apart, in one visibility partition and chain; 'consistently' is "
               "at least 3 such pairs and at least half of the episodes mentioning either protocol; the relation is "
               "always TokenFlow, undirected (its subject the smaller entity id), at confidence 0.3",
               "the document gives no count, share, confidence or direction, and co-occurrence alone cannot tell a "
               "token flow from an oracle dependency or which way it runs; the numbers are GRIMOIRE_FACTS "
               "co_occurrence settings."),
    Difference("critical files", "moltbot-memory.md", 1012,
               "alert on SOUL.md, IDENTITY.md and config changes",
               "checksums and alerts cover the agent's configuration, the identity and critical-facts core blocks "
               "and the workspace files SOUL.md, IDENTITY.md, USER.md and TOOLS.md, which a workspace import "
               "stores (a WorkspaceFile node each, versioned); USER.md and TOOLS.md, 🟡 High in 12.1, are "
               "critical items too",
               "USER.md (human context) and TOOLS.md (capability definitions) changed behind the service's back "
               "are as much an integrity issue as SOUL.md, and the four files have no place in core memory's "
               "blocks (MEMORY.md's Identity is the user's, IDENTITY.md the agent's)."),
    Difference("Reflexion's invariant templates", "grimoire.md", 1374,
               "all invariants hold after execution: token amount bounds, balance change limits, no unexpected "
               "contract interactions (Trace2Inv's 23 templates across 8 categories); the verifier snapshots the "
               "chain's state itself before and after (line 1326)",
               "an episode carries the snapshots (pre_state, post_state: named numbers) and declares its "
               "invariants as bounds on them: token amount bounds (min, max) and balance change limits "
               "(max_change, max_change_bps); Reflexion compares the snapshots and checks the bounds, and a "
               "violation records a safety_incident episode at importance emergency and confidence 1.0",
               "the service reads no chain: the agent's verifier takes the snapshots and sends them with the "
               "episode; contract interactions need the transaction's logs, which an episode does not carry, and "
               "the other template categories need traces."),
    Difference("who reviews in batch mode", "moltbot-memory.md", 805,
               "Batch review: main agent reviews all pending at session start or end",
               "the review modes auto, batch (the default) and manual are the main agent's setting; session start "
               "and end list the open proposals (none in manual mode), and the decision takes a person's key or the"
               " admin's in every mode",
               "one rule for every channel (issue 36): an agent's own key deciding its sub-agents' proposals "
               "would let a compromised agent launder them into its memory; the person acts for the main agent."),
    # Issue 39's items: where the code still differs from the document, and why.
    Difference("two-tier language model", "grimoire.md", 1382,
               "Haiku for routine observations, Opus for anomalous outcomes and regime transitions; Conservation "
               "uses Haiku only; a Thriving golem escalates beyond 2 sigma",
               "two optional tiers (GRIMOIRE_REASONER_URL, GRIMOIRE_ESCALATED_REASONER_URL), the rules without "
               "them: the expensive one interprets an outcome beyond 2 sigma of its series' earlier deviations "
               "(at least 3) or observed in another regime than the series' previous outcome, unless the "
               "episode's emotional tag says conservation; the cheap one everything else (graph/knowledge/tiers.py)",
               "the document names the escalation of a Thriving golem and the Haiku-only rule of Conservation and "
               "says nothing of the phases between; they escalate as Thriving does, since an anomaly or a new "
               "regime is what the expensive reflection is for and only Conservation is said to save on it."),
    Difference("lazy enrichment at ingestion", "grimoire.md", 1100,
               "episodes searchable at once; their full extraction deferred to Delta consolidation or to when an "
               "episode is retrieved and needs detailed context (iRAG: most are never extracted)",
               "an episode is stored with its embedding and text at once (vector and full-text search find it), "
               "marked enrichment: pending; the episodes.enrich job (triggered by the ingest, every 10 s "
               "otherwise, 1,000 per transaction) writes its mentions and FOLLOWS moments later, retrieved or not, "
               "and marks it done (GET /stats counts the pending; POST /episodes/enrichment drains them)",
               "the extraction here is the client's mentions (no model extracts entities), cheap for every "
               "episode, and doing it on retrieval would make reads write; the embedding stays in the ingest "
               "(computed before the transaction), so the vector index finds the episode at once. "
               "GRIMOIRE_EPISODE_ENRICHMENT=sync does it all in the ingest's transaction."),
    Difference("per-task context strategy map", "context-governor.md", 275,
               "a ContextStrategyMap: task strategies, and phase and regime modifiers of them",
               "a policy's task_strategies (collections, per-collection maxima, relevance threshold, causal "
               "traversal, ranking weights; context/strategy.py) per task; phases and regimes modify the "
               "allocations (their overrides), not the strategies; no task has a strategy by default",
               "the document gives the map's shape but no per-task values, nor any PhaseModifier or RegimeModifier "
               "fields; a task without a strategy draws by the policy's retrieval settings, as before."),
    Difference("Loop 3 replay gate", "context-governor.md", 894,
               "each of the 3 worst decisions is replayed under each alternative policy (Haiku) and the mutation "
               "staged when the replay's quality is over the decision's + 0.15",
               "with GRIMOIRE_REASONER_URL set, as the document says (context/replay.py): the cheap-tier model is "
               "shown the decision's record (task, phase, regime, tokens per category, what it missed, its "
               "reasoning chain, its quality) and what the alternative would include or leave out, and scores the "
               "decision's quality under it; a malformed answer or a model that is down is no score, not staged. "
               "Without a model every alternative is staged and waking decisions judge it",
               "the service holds neither the agent's model nor its prompt, so a replay is the model's judgement of "
               "the recorded decision under the other context, not a re-run of the agent's inference; without a "
               "model there is no replay, and the waking trials are the only judge."),
    Difference("ReasoningChain", "context-governor.md", 1216,
               "the visible reasoning chain is stored in the Grimoire as a dream-replayable episode; reasoning "
               "depth and dream reasoning budgets scale with mortality pressure",
               "the chain (provider, model, visibility, content, tokens, typed phases, raw blocks, hash; "
               "context/reasoning.py) is kept on the decision's record, read with GET …/context/decisions and listed "
               "for replay by GET …/context/reasoning beside each decision's quality and prediction error",
               "the record already joins the chain to its outcome, which replay reads it beside; an episode would "
               "copy it away from that. The service makes no model calls of its own, so there is no reasoning "
               "depth to budget."),

    Difference("crystal fields: how they are set and read", "knowledge-crystals.md", 59,
               "curiosity boost, last ripple count (for spaced repetition), verification and bounty fields, "
               "priority read by retrieval and consolidation (lines 59-70, 118-121)",
               "every field is kept on the node and shown by GET /crystals/{id}: the curiosity boost set at "
               "indexing (an entry's Admission Gate novelty, 0 for episodes and memories), the ripple count "
               "sampled by the dream path, the provenance chain and peer origin (a fork from a peer grows them); "
               "retrieval reads the epistemic layer, priority and bounty priority boost; the verification fields "
               "are set by a management node's Ed25519 signature over a knowledge crystal's content hash (POST "
               "/crystals/{id}/verify, keys the admin registers at /management-nodes) and the bounty fields by a "
               "skill fulfilling a bounty (POST /bounties/{id}/match: the bounty closes, the skill's bounty "
               "matches raise its price's demand; a skill its poster may not see fulfils none); a replay (POST "
               "/retrieve, mode replay) counts a dream on each episode it returns to an agent and samples its "
               "ripple count, and puts never-replayed crystals first, then fewer ripples at the last replay "
               "before more, ahead of its Mattar-Daw score; a consolidation merge keeps the crystal of higher "
               "priority as its winner, importance deciding between equal priorities",
               "verification shows in the marketplace listing (`verified`) and changes no price or score: the "
               "document gives it no effect; a bounty's poster does not fulfil its own (demand is other agents'); "
               "the document gives priority no rule, so the merge's is the project's own (MERGE_PRIORITY_LEAD); an "
               "episode or memory is written before any novelty is measured."),
    Difference("consistency by regenerating", "grimoire.md", 319,
               "consistency: for high-stakes claims, regenerate 3x and compare embeddings; only for Curator-cycle "
               "promotions (line 323)",
               "with GRIMOIRE_REASONER_URL set, a Curator promotion (a warning's excepted) asks the cheap-tier model "
               "for 3 restatements of the claim (sampled at temperature 0.7), embeds them with the claim, and the "
               "mean pairwise cosine of the four is the entry's consistency (its quality score follows); under 0.5 "
               "the promotion is held (a HOLD operation, the entry flagged promotion_held) and with no usable "
               "answer it waits for the next cycle. Without a model consistency is the evidence signal "
               "1 - contradicted / (validated + contradicted + 1) (line 112)",
               "'high-stakes' is read as a promotion: what changes what the agent acts on. A warning is active at "
               "any confidence (line 1426), safety first, so its promotion is not held. The measure is kept with a "
               "digest of the content, so a held entry is not asked about again until an EDIT changes it."),
)


def unexplained(constants: tuple[Constant, ...] = CONSTANTS) -> list[str]:
    """Constants whose code differs from their document (or whose document gives no number) without saying why."""
    return [c.code for c in constants if c.differs and not c.why]
