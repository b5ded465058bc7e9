"""The closed vocabularies of the knowledge model (from ../shared/spec/grimoire.md).

Labels, relationship types and property names in Cypher come only from these enums,
never from request text.
"""

from __future__ import annotations

from enum import StrEnum


class EpisodeType(StrEnum):
    observation = "observation"
    action = "action"
    regime_shift = "regime_shift"
    clade_alert = "clade_alert"
    replicant_report = "replicant_report"
    coordination_intent = "coordination_intent"
    conversation = "conversation"  # chat agents
    safety_incident = "safety_incident"  # Reflexion's: an invariant an episode declared did not hold


class Outcome(StrEnum):
    positive = "positive"
    negative = "negative"
    neutral = "neutral"
    descriptive = "descriptive"  # the detail is in outcome_detail


class Importance(StrEnum):
    routine = "routine"
    notable = "notable"
    critical = "critical"
    emergency = "emergency"


class MarketRegime(StrEnum):
    bull = "bull"
    bear = "bear"
    sideways = "sideways"
    high_vol = "high_vol"
    low_vol = "low_vol"
    crisis = "crisis"


class EntryCategory(StrEnum):
    """The GrimoireEntry union's discriminator; each value is also a node label."""

    Insight = "Insight"
    Heuristic = "Heuristic"
    Warning = "Warning"
    CausalLink = "CausalLink"
    StrategyFragment = "StrategyFragment"
    DreamJournal = "DreamJournal"


class DecayClass(StrEnum):
    structural = "structural"                  # never decays (grimoire.md "Four Decay Classes")
    cyclical = "cyclical"                      # C: 90 days (grimoire.md "Demurrage Decay Classes")
    regime_conditional = "regime_conditional"  # B: 21 days
    tactical = "tactical"                      # A: 7 days
    ephemeral = "ephemeral"                    # 24 hours


class Provenance(StrEnum):
    SelfLearned = "SelfLearned"
    Clade = "Clade"
    Predecessor = "Predecessor"
    StyxQuery = "StyxQuery"
    Lethe = "Lethe"
    Marketplace = "Marketplace"
    Replicant = "Replicant"
    DeathReflection = "DeathReflection"
    Dream = "Dream"


class EntryStatus(StrEnum):
    candidate = "candidate"
    active = "active"
    archived = "archived"
    quarantined = "quarantined"


class Scope(StrEnum):
    """Who may see an item: its owner only, its owner's clade, or everyone."""

    private = "private"
    shared = "shared"
    public = "public"


class PlutchikEmotion(StrEnum):
    joy = "joy"
    trust = "trust"
    fear = "fear"
    surprise = "surprise"
    sadness = "sadness"
    disgust = "disgust"
    anger = "anger"
    anticipation = "anticipation"


class BehavioralPhase(StrEnum):
    thriving = "thriving"
    stable = "stable"
    conservation = "conservation"
    declining = "declining"
    terminal = "terminal"


class EntityKind(StrEnum):
    """On-chain kinds from the spec, and the kinds a chat agent's semantic graph needs."""

    Contract = "Contract"
    Token = "Token"
    Pool = "Pool"
    Oracle = "Oracle"
    Vault = "Vault"
    Governance = "Governance"
    AddressCluster = "AddressCluster"
    Bridge = "Bridge"
    # An asset's listing in a lending market (an Aave reserve): its oracle, aToken and debt token
    # change over time while the token and the pool stay the same, so it is an entity of its own.
    Reserve = "Reserve"
    Person = "Person"
    Project = "Project"
    Concept = "Concept"
    Tool = "Tool"
    Place = "Place"


class AdmissionOutcome(StrEnum):
    admitted = "admitted"          # above 0.55: standard confidence
    admitted_low = "admitted_low"  # 0.45 to 0.55: confidence 0.3
    rejected = "rejected"          # below 0.45, or a factor not above its threshold
    merged = "merged"              # cosine > 0.9 to an existing entry
    skipped = "skipped"            # cosine > 0.95: a duplicate
    quarantined = "quarantined"    # hallucination firewall


class VoteDirection(StrEnum):
    up = "up"
    down = "down"


class AgentKind(StrEnum):
    main = "main"
    sub = "sub"
    golem = "golem"


class KeyScope(StrEnum):
    """read: see what the agent may see; write: write to the stores; propose: only propose
    writes for a main agent to commit (the proposal workflow comes later); admin: everything."""

    read = "read"
    write = "write"
    propose = "propose"
    admin = "admin"
    # The person who runs the agent (its owner): reads its memory and approves or rejects its reflections
    # (../shared/spec/moltbot-memory.md, 10.6). Never combined with write, propose or admin: an agent's own
    # key cannot approve what the agent proposed.
    person = "person"


class Predicate(StrEnum):
    """The spec's fact predicates; each is a relationship type (see REL_TYPES)."""

    DeployedBy = "DeployedBy"
    TokenFlow = "TokenFlow"
    OracleDependency = "OracleDependency"
    PriceCorrelation = "PriceCorrelation"
    GovernanceControl = "GovernanceControl"
    CollateralBacking = "CollateralBacking"
    HasPosition = "HasPosition"
    IsRouterFor = "IsRouterFor"
    Custom = "Custom"  # with a name


REL_TYPES: dict[Predicate, str] = {
    Predicate.DeployedBy: "DEPLOYED_BY",
    Predicate.TokenFlow: "TOKEN_FLOW",
    Predicate.OracleDependency: "ORACLE_DEPENDENCY",
    Predicate.PriceCorrelation: "PRICE_CORRELATION",
    Predicate.GovernanceControl: "GOVERNANCE_CONTROL",
    Predicate.CollateralBacking: "COLLATERAL_BACKING",
    Predicate.HasPosition: "HAS_POSITION",
    Predicate.IsRouterFor: "IS_ROUTER_FOR",
    Predicate.Custom: "CUSTOM",
}

# Predicates whose subject holds many objects at once (grimoire.md's assert_fact closes the active fact of any
# (subject, predicate) asserted with another object; these are the sets where another object is no conflict): a
# pool's token flows and collateral, an owner's positions, correlated reserves, the contracts one governance module
# controls (the Aave data has 30 such), the protocols one router routes through. The default of the
# GRIMOIRE_FACTS setting `multi_valued`; a fact may say otherwise with `exclusive`.
MULTI_VALUED_BY_DEFAULT: tuple[Predicate, ...] = (
    Predicate.TokenFlow, Predicate.CollateralBacking, Predicate.HasPosition, Predicate.PriceCorrelation,
    Predicate.GovernanceControl, Predicate.IsRouterFor)


class Direction(StrEnum):
    out = "out"    # subject to object
    in_ = "in"     # object to subject
    both = "both"


class ValueType(StrEnum):
    string = "string"
    number = "number"
    boolean = "boolean"
    block = "block"


class MemoryRelation(StrEnum):
    """The relation vocabulary of a chat agent's semantic graph (../shared/spec/moltbot-memory.md, 6.3).
    Each relation is a CUSTOM fact between two entities, named by its value."""

    # structural
    develops = "develops"
    uses = "uses"
    used_by = "used-by"
    part_of = "part-of"
    contains = "contains"
    depends_on = "depends-on"
    # temporal
    decided_on = "decided-on"
    supersedes = "supersedes"
    preceded_by = "preceded-by"
    followed_by = "followed-by"
    # qualitative
    prefers = "prefers"
    avoids = "avoids"
    confident_about = "confident-about"
    uncertain_about = "uncertain-about"
    relates_to = "relates-to"
