"""Principals: agents (main, sub, golem) in clades and generations, and their API keys.

A key is shown once, when made: `gk_<key id>_<secret>`. Only the SHA-256 of the secret is
stored (the secret is 256 random bits, so a plain hash suffices); lookups go by key id and
compare hashes in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
from dataclasses import dataclass
from typing import Annotated, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from neomodel import ArrayProperty, IntegerProperty, RelationshipTo, StringProperty, StructuredNode
from neomodel.exceptions import UniqueProperty
from pydantic import BaseModel, Field, field_validator, model_validator

from grimoire.graph.audit import Audit, DeleteNodes, NodeLabel, Noop, RestoreKey, RevokeKey, SetProperties, versions
from grimoire.graph.audit.alerts import configuration_checksum
from grimoire.graph.audit.versions import Versioned
from grimoire.graph.db import cypher, ogm
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.errors import Conflict, Invalid, NotFound
from grimoire.graph.model.common import ID_PATTERN, StoredNode, StrictModel
from grimoire.graph.model.enums import AgentKind, KeyScope
from grimoire.graph.model.rows import Row
from grimoire.graph.visibility import Visibility

KEY_PREFIX = "gk"
# The service's own writers: no agent registers under them (graph/knowledge/mental_models.py SYSTEM_AGENT, the
# co-occurrence inference's shared facts in graph/topology/inference.py; background actors are system:<job>).
RESERVED_IDS = frozenset({"grimoire", "co-occurrence"})
log = logging.getLogger(__name__)


class AgentIn(StrictModel):
    id: Annotated[str, Field(pattern=ID_PATTERN)]
    name: Annotated[str, Field(min_length=1, max_length=200)]
    kind: AgentKind = AgentKind.main
    clade: Annotated[str, Field(pattern=ID_PATTERN)]
    generation: Annotated[int, Field(ge=0, le=1_000_000)] = 0
    parent_id: Annotated[str, Field(pattern=ID_PATTERN)] | None = Field(
        default=None, description="the main agent a sub-agent works for")
    timezone: Annotated[str, Field(min_length=1, max_length=64)] | None = Field(
        default=None, description="the agent's (its person's) IANA time zone, e.g. Europe/Berlin: the nightly "
                                  "reflection runs at its local hour (moltbot-memory.md 10.1); unset: UTC")

    @field_validator("id")
    @classmethod
    def _not_reserved(cls, value: str) -> str:
        if value in RESERVED_IDS or value.startswith("system:"):
            raise ValueError(f"{value!r} is reserved: the service writes under it (its own knowledge, inferred "
                             "facts, background jobs)")
        return value

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                ZoneInfo(value)
            except (ZoneInfoNotFoundError, ValueError) as exc:
                raise ValueError(f"not an IANA time zone: {value!r}") from exc
        return value


class KeyIn(StrictModel):
    scopes: Annotated[list[KeyScope], Field(min_length=1, max_length=5)] = Field(
        default_factory=lambda: [KeyScope.read, KeyScope.write])
    label: Annotated[str, Field(max_length=200)] | None = None

    @model_validator(mode="after")
    def _a_person_is_not_the_agent(self) -> KeyIn:
        if KeyScope.person in self.scopes and {KeyScope.write, KeyScope.propose, KeyScope.admin} & set(self.scopes):
            raise ValueError("a person's key (scope person) reads and approves; it cannot also write, propose or "
                             "administer: make the agent its own key")
        if KeyScope.person in self.scopes and KeyScope.read not in self.scopes:
            self.scopes.append(KeyScope.read)  # a person reads what they approve
        return self


class LimitsIn(StrictModel):
    """An agent's own limits per key on each replica (api/admission.py), set by the admin; a field left out or null
    takes the service's setting (GRIMOIRE_KEY_CONCURRENCY, GRIMOIRE_KEY_RATE, GRIMOIRE_KEY_BURST)."""

    concurrency: Annotated[int, Field(ge=1, le=10_000)] | None = Field(
        default=None, description="requests one key may have in flight or waiting on a replica (429 above)")
    rate_per_s: Annotated[float, Field(gt=0, le=100_000)] | None = Field(
        default=None, description="requests per second one key may make on a replica, a token bucket (429 above)")
    burst: Annotated[int, Field(ge=1, le=1_000_000)] | None = Field(
        default=None, description="the token bucket's size: requests at once before the rate applies")


@dataclass(frozen=True)
class Limits:
    """The limits an agent's keys carry (None: the service's setting), read with the key and cached with it."""

    concurrency: int | None = None
    rate_per_s: float | None = None
    burst: int | None = None


LIMIT_PROPERTIES = {"concurrency": "limit_concurrency", "rate_per_s": "limit_rate_per_s", "burst": "limit_burst"}
"""Where each limit is kept on the Agent node."""


def limits_of(agent: dict[str, Any]) -> Limits:
    return Limits(**{name: agent.get(prop) for name, prop in LIMIT_PROPERTIES.items()})


@dataclass(frozen=True)
class Principal:
    """Who a request acts as. The environment's admin key has no agent."""

    key_id: str
    agent_id: str | None
    clade: str | None
    kind: str | None
    scopes: frozenset[KeyScope]
    trust_level: str | None = None  # set by the admin (graph/crystals/hormonal_state.py); unset: by kind
    limits: Limits = Limits()  # the agent's own, set by the admin (set_limits); unset: the service's

    @property
    def is_admin(self) -> bool:
        return KeyScope.admin in self.scopes

    def may(self, scope: KeyScope) -> bool:
        return self.is_admin or scope in self.scopes

    def visibility(self) -> Visibility:
        """What this caller may see: every read filters on it."""
        return Visibility.of(self.agent_id, self.clade, self.is_admin)

    @property
    def authority(self) -> int:
        return authority(self.scopes)

    @property
    def is_person(self) -> bool:
        """A person's key (or the admin's): what decides for an agent — its sub-agents' proposals, its
        reflections, its alerts — as opposed to the agent's own keys."""
        return self.is_admin or KeyScope.person in self.scopes


AUTHORITY = {KeyScope.read: 0, KeyScope.propose: 0, KeyScope.write: 1, KeyScope.person: 2, KeyScope.admin: 3}
"""How much a key may do, by its strongest scope: reading or proposing, writing, deciding for the agent as its
person, everything. A key revokes only keys of no more authority than its own (api/routes/agents.py)."""


def authority(scopes: frozenset[KeyScope] | list[str]) -> int:
    return max((AUTHORITY[KeyScope(s)] for s in scopes), default=0)


class AgentExists(Conflict):
    """An agent with this id is registered already (409)."""


class UnknownAgent(NotFound):
    """No agent with this id (404)."""


class InvalidAgent(Invalid):
    """An agent that cannot be registered as asked: a sub-agent without its parent, an unknown parent (422)."""


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def split_key(raw: str) -> tuple[str, str] | None:
    parts = raw.strip().split("_", 2)
    if len(parts) != 3 or parts[0] != KEY_PREFIX or not parts[1] or not parts[2]:
        return None
    return parts[1], parts[2]


class AgentNode(StructuredNode):  # type: ignore[misc]
    """An agent, as neomodel stores it (the label Agent; `uid` is the property `id`)."""

    __label__ = "Agent"
    uid = StringProperty(unique_index=True, required=True, db_property="id")
    name = StringProperty(required=True)
    kind = StringProperty(required=True)
    clade = StringProperty(required=True)
    generation = IntegerProperty(default=0)
    parent_id = StringProperty()
    created_at = IntegerProperty()
    audit_id = StringProperty()
    checksum = StringProperty()  # of its configuration: a critical item, verified at start-up (graph/audit/alerts.py)
    timezone = StringProperty()  # IANA; unset: UTC
    review_mode = StringProperty()  # auto | batch | manual (graph/memory/proposals.py); unset: batch


class ApiKeyNode(StructuredNode):  # type: ignore[misc]
    """An API key: its id, the SHA-256 of its secret, its scopes; KEY_OF its agent."""

    __label__ = "ApiKey"
    uid = StringProperty(unique_index=True, required=True, db_property="id")
    agent_id = StringProperty(required=True)
    hash = StringProperty(required=True)
    scopes = ArrayProperty(StringProperty(), required=True)
    label = StringProperty()
    created_at = IntegerProperty(required=True)
    revoked_at = IntegerProperty()
    agent = RelationshipTo(AgentNode, "KEY_OF")


MODELS: tuple[type[StructuredNode], ...] = (AgentNode, ApiKeyNode)


# ---------------------------------------------------------------- as answered

class AgentOut(StoredNode):
    """An agent as stored. Open: an import (POST /agents/import) restores an agent's properties as
    exported, which may be more than these."""

    id: str
    name: str | None = None
    kind: AgentKind | None = None
    clade: str | None = None
    generation: int | None = None
    parent_id: str | None = None
    created_at: int | None = None
    audit_id: str | None = None
    retrievals: int | None = None  # retrievals for a decision so far (contrarian injection counts them)
    trust_level: str | None = None  # set by the admin (graph/crystals/hormonal_state.py); unset: by kind
    auto_commit_at: str | None = None  # a sub-agent's: its main agent commits its proposals from this confidence
    timezone: str | None = None  # IANA: the nightly reflection runs at its local hour; unset: UTC
    review_mode: str | None = None  # a main agent's: how its sub-agents' proposals are reviewed; unset: batch


class AgentRow(Row):
    query = "agents/get"
    agent: AgentOut


class AgentListRow(AgentRow):
    query = "agents/list"


class KeyOut(BaseModel):
    key: str | None = None  # present once, when the key is made
    id: str
    agent_id: str
    scopes: list[str]
    created_at: int
    revoked_at: int | None = None
    label: str | None = None


class RevokedKey(BaseModel):
    id: str
    agent_id: str
    revoked_at: int


def register(db: Database, agent: AgentIn, *, actor: str) -> AgentOut:
    if agent.kind == AgentKind.sub and agent.parent_id is None:
        raise InvalidAgent("a sub-agent needs the parent_id of its main agent")
    if agent.parent_id is not None and get(db, agent.parent_id) is None:
        raise InvalidAgent(f"no agent {agent.parent_id!r} to be the parent")
    audit = Audit(action="agent.register", actor=actor, agent_id=agent.id)

    def work(tx: Tx) -> AgentNode:
        if AgentNode.nodes.get_or_none(uid=agent.id) is not None:
            raise AgentExists(f"agent {agent.id!r} exists already")
        configuration = {"name": agent.name, "kind": agent.kind.value, "clade": agent.clade,
                         "generation": agent.generation, "parent_id": agent.parent_id, "timezone": agent.timezone}
        node: AgentNode = AgentNode(uid=agent.id, **configuration, created_at=audit.at, audit_id=audit.id,
                                    checksum=configuration_checksum(configuration)).save()
        audit.write(tx, [agent.id], f"registered agent {agent.id}",
                    [DeleteNodes(label=NodeLabel.Agent, ids=[agent.id])], versions.created(Versioned.Agent, [agent.id]))
        return node

    try:
        node = ogm.write(db, work)
    except UniqueProperty as exc:  # registered by a concurrent request between the look-up and the write
        raise AgentExists(f"agent {agent.id!r} exists already") from exc
    log.info("agent %s registered (clade %s, kind %s) by %s", agent.id, agent.clade, agent.kind.value, actor)
    return AgentOut.model_validate(ogm.properties(node))


def get(db: Database, agent_id: str) -> AgentOut | None:
    """Every property the agent has, the model's and those others keep on it (counters, limits, an import's): a
    read in Cypher, not through neomodel, which keeps only what the model declares."""
    rows = db.typed(AgentRow, id=agent_id)
    return rows[0].agent if rows else None


def require(db: Database, agent_id: str) -> str:
    """The id of an agent that exists; UnknownAgent (404) otherwise."""
    if get(db, agent_id) is None:
        raise UnknownAgent(f"no agent {agent_id!r}")
    return agent_id


def list_agents(db: Database, clade: str | None = None) -> list[AgentOut]:
    return [r.agent for r in db.typed(AgentListRow, clade=clade)]


def create_key(db: Database, agent_id: str, key: KeyIn, *, actor: str) -> tuple[str, KeyOut]:
    """The key itself (shown this once) and its stored description."""
    key_id, secret = secrets.token_hex(8), secrets.token_urlsafe(32)
    audit = Audit(action="key.create", actor=actor, agent_id=agent_id)

    def work(tx: Tx) -> ApiKeyNode:
        agent = AgentNode.nodes.get_or_none(uid=agent_id)
        if agent is None:
            raise UnknownAgent(f"no agent {agent_id!r}")
        node: ApiKeyNode = ApiKeyNode(uid=key_id, agent_id=agent_id, hash=_hash(secret),
                                      scopes=sorted(s.value for s in key.scopes), label=key.label,
                                      created_at=audit.at).save()
        node.agent.connect(agent)
        audit.write(tx, [key_id], f"key {key_id} for {agent_id}", [RevokeKey(key_id=key_id)],
                    versions.created(Versioned.ApiKey, [key_id]))
        return node

    node = ogm.write(db, work)
    log.info("key %s made for agent %s (scopes %s) by %s", key_id, agent_id, ",".join(key.scopes), actor)
    return f"{KEY_PREFIX}_{key_id}_{secret}", _description(node)


def _description(key: ApiKeyNode) -> KeyOut:
    """A key as answered: never its hash (KeyOut does not declare it)."""
    return KeyOut.model_validate(ogm.properties(key))


def list_keys(db: Database, agent_id: str) -> list[KeyOut]:
    def work(tx: Tx) -> list[KeyOut]:
        return [_description(n) for n in ApiKeyNode.nodes.filter(agent_id=agent_id).order_by("created_at")]

    return ogm.read(db, work)


def revoke_key(db: Database, key_id: str, *, actor: str) -> RevokedKey | None:
    audit = Audit(action="key.revoke", actor=actor, agent_id=None)

    def work(tx: Tx) -> RevokedKey | None:
        # One statement (coalesce): of two revocations at once, only the first sets revoked_at.
        row = tx.run(cypher.query("agents/revoke_key"), id=key_id, now=audit.at).single()
        if row is None:
            return None
        audit.agent_id = row["agent_id"]
        # A key revoked before stays revoked when this is undone, and keeps its version.
        fresh = row["revoked_at"] == audit.at
        steps = versions.keep(tx, Versioned.ApiKey, [key_id], now=audit.at, actor=actor, reason="revoked",
                              audit_id=audit.id, states={key_id: {**row["key"], "revoked_at": None}}) if fresh else []
        # Its console sessions end with it, for every replica at once (graph/console_sessions.py); restoring
        # the key does not reopen them.
        ended = [r["id"] for r in tx.run(cypher.query("console/end_of_key"), key_id=key_id, now=audit.at)]
        also = f" and ended its {len(ended)} console session{'s' * (len(ended) != 1)}" if ended else ""
        audit.write(tx, [key_id], f"revoked key {key_id}{also}", [RestoreKey(key_id=key_id)] if fresh
                    else [Noop(reason=f"key {key_id} was revoked already")], steps)
        return RevokedKey(id=row["id"], agent_id=row["agent_id"], revoked_at=row["revoked_at"])

    revoked = db.write(work)
    if revoked is None:
        return None
    log.info("key %s revoked by %s", key_id, actor)
    return revoked


def authenticate(db: Database, raw_key: str) -> Principal | None:
    parts = split_key(raw_key)
    if parts is None:
        return None
    key_id, secret = parts
    rows = db.fetch("agents/find_key", id=key_id)
    if not rows:
        return None
    key, agent = rows[0]["key"], rows[0]["agent"]
    if key.get("revoked_at") is not None or not hmac.compare_digest(key["hash"], _hash(secret)):
        return None
    return principal_of(key, agent)


def principal_of(key: dict[str, Any], agent: dict[str, Any]) -> Principal:
    """Who a stored key (not revoked: the caller checks) acts as, from its properties and its agent's."""
    return Principal(key_id=key["id"], agent_id=agent["id"], clade=agent.get("clade"), kind=agent.get("kind"),
                     scopes=frozenset(KeyScope(s) for s in key["scopes"]), trust_level=agent.get("trust_level"),
                     limits=limits_of(agent))


def set_limits(db: Database, agent_id: str, limits: LimitsIn, *, actor: str) -> None:
    """The admin sets an agent's limits per key (all three: a null one goes back to the setting), audited with the
    agent's version kept; the earlier values are what undoing it restores."""
    audit = Audit(action="agent.limits", actor=actor, agent_id=agent_id)
    values = {LIMIT_PROPERTIES[name]: value for name, value in limits.model_dump().items()}

    def work(tx: Tx) -> None:
        steps = versions.keep(tx, Versioned.Agent, [agent_id], now=audit.at, actor=actor, reason="limits",
                              audit_id=audit.id)
        row = tx.run(cypher.query("agents/limits_set"), id=agent_id, values=values).single()
        if row is None:
            raise UnknownAgent(f"no agent {agent_id!r}")
        before: dict[str, Any] = row["before"]
        audit.write(tx, [agent_id], f"limits {before} → {values}",
                    [SetProperties(label=NodeLabel.Agent, id=agent_id, before=before)], steps)

    db.write(work)
    log.info("agent %s limits set to %s by %s", agent_id, values, actor)


def key_holds(db: Database, key_id: str) -> bool:
    """Whether the key is still valid (not revoked, not deleted), read from the database, not a cache: what a
    long request (an event stream) asks while it runs. The environment's admin key always holds."""
    if key_id == admin_principal().key_id:
        return True
    rows = db.fetch("agents/find_key", id=key_id)
    return bool(rows) and rows[0]["key"].get("revoked_at") is None


def admin_principal() -> Principal:
    return Principal(key_id="environment", agent_id=None, clade=None, kind=None, scopes=frozenset({KeyScope.admin}))


