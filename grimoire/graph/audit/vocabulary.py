"""The trail's words (../shared/spec/moltbot-memory.md, sections 12.3, 12.4 and 13.7): the action of each
record in the spec's vocabulary, the actor tag, the approval status, and the one-line log format.

The service names its mutations by what they do in its own terms (`memory.remember`, `entry.admit`,
`curator.decay`); each is filed under one verb of the spec here, once, so a record carries both. The actor
tag says in what role the actor acted: a record may name it when it is written (`bot:trigger-remember`,
`reflection:ID`); otherwise it follows from who the actor is (read_tag)."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

log = logging.getLogger(__name__)


class Verb(StrEnum):
    CREATE = "CREATE"    # a new item
    EDIT = "EDIT"        # an item changed
    APPEND = "APPEND"    # added without changing what was there (episode logs, a core line)
    DELETE = "DELETE"    # removed for good
    ARCHIVE = "ARCHIVE"  # soft-deleted: out of every search, kept
    MERGE = "MERGE"      # several items consolidated into one
    REVERT = "REVERT"    # an item restored to an earlier state
    DECAY = "DECAY"      # the decay system moved an item's status
    RENAME = "RENAME"
    PROPOSE = "PROPOSE"  # staged, waiting for a decision
    COMMIT = "COMMIT"    # a proposal written to the stores
    REJECT = "REJECT"    # a proposal (or reflection) turned down
    ALERT = "ALERT"      # a critical item changed


class Approval(StrEnum):
    auto = "auto"          # written by the system or an agent on its own authority
    approved = "approved"  # a person approved it (a reflection's changes)
    pending = "pending"    # proposed, not decided
    rejected = "rejected"
    none = "—"             # a person's own change: nobody approves it


# Every action the service writes, under its verb. An action missing here is filed as EDIT with a warning,
# and tests/unit/test_audit_vocabulary.py fails on any Audit(action=...) in the code that is not listed.
VERBS: dict[str, Verb] = {
    "alert.raise": Verb.ALERT,
    "audit.rollback": Verb.REVERT,
    "audit.fold": Verb.MERGE,                     # records past the window folded into a monthly digest (12.6)
    "console.sign_in": Verb.CREATE,               # a console session opened (graph/console_sessions.py)
    "console.sign_out": Verb.ARCHIVE,             # a console session ended: signed out, or refused by a route
    "console.sweep": Verb.DELETE,                 # expired and ended console sessions deleted
    "context.policy.revise": Verb.EDIT,
    "context.feedback": Verb.CREATE,              # a decision's outcome record (Loop 1) and the Beta beliefs it moves
    "context.mutation.stage": Verb.CREATE,        # Loop 3: a policy mutation staged at low confidence
    "context.mutation.judge": Verb.EDIT,          # Loop 3: a staged mutation validated (promoted) or refuted
    "crystal.transition": Verb.EDIT,              # a crystal's lifecycle move (knowledge crystals)
    "crystal.expire": Verb.DECAY,                 # a crystal expired by hand: out of every read path
    "crystal.lifespan": Verb.DECAY,               # time to live ran out (the scheduler)
    "crystal.lifecycle": Verb.DECAY,              # the consolidation engine's importance moved crystals
    "crystal.consolidate": Verb.EDIT,             # a consolidation pass rescored importance
    "crystal.consolidation_open": Verb.CREATE,    # a consolidation run opened (or an interrupted one resumed)
    "crystal.consolidation_done": Verb.EDIT,      # a consolidation run's four phases done (or it was interrupted)
    "crystal.consolidation_phase": Verb.EDIT,     # a paged consolidation run moved to its next phase
    "crystal.consolidation_failed": Verb.EDIT,    # a consolidation run given up after its max_attempts failures
    "crystal.merge": Verb.MERGE,                  # the winner consolidated, the losers archived under it
    "crystal.purge": Verb.DELETE,                 # expired and archived crystals past the retention deleted
    "crystal.fork": Verb.CREATE,
    "crystal.version": Verb.CREATE,               # a frozen crystal's change: a new crystal, its next version
    "crystal.pipeline_store": Verb.EDIT,          # a MemoryPipeline's store step
    "skill.crystallize": Verb.EDIT,
    "skill.execution": Verb.EDIT,
    "skill.deprecate": Verb.EDIT,
    "crystal.verify": Verb.EDIT,                  # a management node's Ed25519 endorsement of a knowledge crystal
    "management_node.register": Verb.CREATE,      # the admin registered a management node's public key
    "management_node.revoke": Verb.ARCHIVE,       # ... and revoked it: no new endorsements by it
    "bounty.post": Verb.CREATE,
    "bounty.match": Verb.EDIT,                    # a skill fulfilled a bounty: the bounty closed, the skill boosted
    "hormones.event": Verb.EDIT,
    "hormones.network_override": Verb.EDIT,
    "agent.trust_level": Verb.EDIT,
    "agent.limits": Verb.EDIT,                    # an agent's limits per key on each replica (api/admission.py)
    "alert.acknowledge": Verb.EDIT,
    "agent.register": Verb.CREATE,
    "agent.import": Verb.CREATE,
    "analytics.run": Verb.CREATE,
    "analytics.scores": Verb.EDIT,
    "causal.link": Verb.CREATE,
    "causal.inherit": Verb.CREATE,
    "causal.outcome": Verb.EDIT,
    "curator.open": Verb.CREATE,
    "curator.complete": Verb.EDIT,
    "curator.validate": Verb.EDIT,
    "curator.causal": Verb.EDIT,
    "curator.decay": Verb.DECAY,
    "curator.distill": Verb.CREATE,
    "curator.expel": Verb.CREATE,            # ExpeL's distillation of one strategy (graph/learning/expel.py)
    "curator.expel_open": Verb.CREATE,
    "curator.expel_complete": Verb.EDIT,
    "curator.edit": Verb.EDIT,
    "curator.net": Verb.MERGE,
    "curator.promote": Verb.EDIT,
    "curator.release": Verb.EDIT,
    "entity.upsert": Verb.CREATE,
    "entity.backfill_visibility": Verb.EDIT,
    "crystal.backfill_payload": Verb.EDIT,   # content hashes of crystals written before they were kept
    "entry.admit": Verb.CREATE,
    "entry.edit": Verb.EDIT,
    "entry.scope": Verb.EDIT,
    "entry.upvote": Verb.EDIT,
    "entry.downvote": Verb.EDIT,
    "entry.outcome": Verb.EDIT,
    "episode.ingest": Verb.APPEND,
    "episode.enrich": Verb.EDIT,                  # the lazy enrichment job did pending episodes' derived work
    "fact.assert": Verb.CREATE,
    "fact.invalidate": Verb.ARCHIVE,
    "key.create": Verb.CREATE,
    "key.revoke": Verb.ARCHIVE,
    "learning.reflexion": Verb.CREATE,
    "memory.remember": Verb.CREATE,
    "memory.core.edit": Verb.EDIT,
    "memory.core.append": Verb.APPEND,
    "memory.archive": Verb.ARCHIVE,
    "memory.delete": Verb.DELETE,
    "memory.restore": Verb.REVERT,
    "memory.decay": Verb.DECAY,                   # the decay system recorded a memory's status transition (9.2)
    "memory.reflection.propose": Verb.PROPOSE,
    "memory.reflection.apply": Verb.CREATE,
    "memory.reflection.decide": Verb.COMMIT,
    "memory.reflection.reject": Verb.REJECT,
    "memory.workspace.import": Verb.CREATE,
    "memory.file.create": Verb.CREATE,            # a critical workspace file (SOUL.md, ...) first imported
    "memory.file.edit": Verb.EDIT,                # and imported again with other text
    "memory.proposal.propose": Verb.PROPOSE,
    "memory.proposal.conflict": Verb.EDIT,
    "memory.proposal.commit": Verb.COMMIT,
    "memory.proposal.decide": Verb.EDIT,
    "memory.proposal.defer": Verb.EDIT,
    "memory.proposal.reject": Verb.REJECT,
    "agent.trust": Verb.EDIT,
    "agent.review_mode": Verb.EDIT,
    "mental_models.seed": Verb.CREATE,
    "metrics.record": Verb.CREATE,
    "retrieval.weights.feedback": Verb.EDIT,
    "schema.rebuild_vector_indexes": Verb.EDIT,
}


def verb_of(action: str) -> Verb:
    verb = VERBS.get(action)
    if verb is None:
        log.warning("audit action %r has no verb in graph/audit/vocabulary.py: filed as EDIT", action)
        return Verb.EDIT
    return verb


def actions_of(verbs: Iterable[Verb]) -> list[str]:
    """The actions filed under these verbs (records written before verbs were stored are found by these)."""
    wanted = set(verbs)
    return sorted(a for a, v in VERBS.items() if v in wanted)


# Who acted, when a record does not say in what role: the service's own jobs, the command line, a person.
SYSTEM_ACTORS = frozenset({"scheduler", "curator", "system"})
MANUAL_ACTORS = frozenset({"cli", "admin", "environment", "manual"})  # "environment": the admin key


def read_tag(tag: str | None, actor: str, action: str, key_agent: str | None, key_scopes: Iterable[str]) -> str:
    """The actor tag of 12.3: the record's own; else `system:<what>` for the service's jobs (the Curator's decay
    is `system:decay`), `manual` for a person (a person's key, the admin, the command line), and
    `bot:<agent>` for an agent's own key."""
    if tag:
        return tag
    if actor in SYSTEM_ACTORS or actor.startswith("system:"):
        what = action.split(".")[-1] if action.startswith("curator.") else action.split(".")[0]
        return f"system:{what}"
    if actor in MANUAL_ACTORS or "person" in set(key_scopes):
        return "manual"
    if key_agent:
        return f"bot:{key_agent}"
    return actor


def read_approval(approval: str | None, verb: Verb, tag: str) -> Approval:
    """The record's approval status, else what its verb and tag imply."""
    if approval:
        return Approval(approval)
    if verb is Verb.PROPOSE or tag.startswith("subagent:"):
        return Approval.pending
    if tag.startswith("reflection:"):
        return Approval.approved
    if tag == "manual":
        return Approval.none
    return Approval.auto


def item_of(target_ids: list[str]) -> str:
    """The item column of a log line: the one target, or the first and how many more."""
    if not target_ids:
        return "—"
    return target_ids[0] if len(target_ids) == 1 else f"{target_ids[0]} (+{len(target_ids) - 1})"


def iso_minute(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%dT%H:%MZ")


def one_line(text: str, n: int = 80) -> str:
    """A text as the trail quotes it (a trigger, a summary): one line, at most n characters."""
    one = " ".join(text.split())
    return one if len(one) <= n else one[: n - 1] + "…"


def log_line(record: Mapping[str, Any]) -> str:
    """12.4: TIMESTAMP | ACTION | ITEM | ACTOR | APPROVAL | SUMMARY (one line; a critical change flagged)."""
    summary = " ".join(str(record.get("summary") or "").split())
    if record.get("critical") and record.get("verb") != Verb.ALERT:
        summary = f"⚠️ CRITICAL: {summary}"
    return " | ".join([iso_minute(int(record["at"])), str(record["verb"]), item_of(list(record["target_ids"] or [])),
                       str(record["tag"]), str(record["approval"]), summary])
