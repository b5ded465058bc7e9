"""What a rollback request names (graph/audit/rollback.py): exactly one of an item and the version to go back to,
a reflection, an actor, a session, one change, a rollback to undo, or a time."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from grimoire.graph.audit import rollback
from grimoire.graph.model.common import Instant, StrictModel, to_ms

Name = Annotated[str, Field(min_length=1, max_length=300)]


class RollbackIn(StrictModel):
    item: Name | None = Field(default=None, description="one item (memory, entry, core block, entity…) …")
    to_version: Name | None = Field(default=None, description="… back to this version of it (see its versions)")
    reflection: Name | None = Field(default=None, description="everything a reflection's approval applied, and the "
                                                              "decision: the reflection is pending again")
    actor: Name | None = Field(default=None, description="everything a key or an actor tag (subagent:NAME, "
                                                         "bot:trigger-remember) did…")
    since: Instant | None = Field(default=None, description="… from this time on (with actor)")
    session: Name | None = Field(default=None, description="everything one session's messages wrote (their "
                                                           "session_id)")
    record: Name | None = Field(default=None, description="one change: an audit record's id")
    undo: Name | None = Field(default=None, description="a whole rollback, undone: its rollback_id")
    at: Instant | None = Field(default=None, description="the agent's whole memory as it was at this time")
    force: bool = Field(default=False, description="roll over later changes by others instead of a 409")
    dry_run: bool = Field(default=False, description="what it would undo, the items and the conflicts; nothing "
                                                     "changes")

    @model_validator(mode="after")
    def _one(self) -> RollbackIn:
        named = [k for k in ("item", "reflection", "actor", "session", "record", "undo", "at")
                 if getattr(self, k) is not None]
        if len(named) != 1:
            raise ValueError("name exactly one of item (with to_version), reflection, actor, session, record, undo "
                             "or at")
        if (self.item is None) != (self.to_version is None):
            raise ValueError("item and to_version go together")
        if self.since is not None and self.actor is None:
            raise ValueError("since goes with actor")
        return self

    def target(self) -> rollback.Target:
        if self.item is not None and self.to_version is not None:
            return rollback.ItemTo(self.item, self.to_version)
        if self.reflection is not None:
            return rollback.Reflection(self.reflection)
        if self.actor is not None:
            return rollback.Actor(self.actor, to_ms(self.since))
        if self.session is not None:
            return rollback.Session(self.session)
        if self.record is not None:
            return rollback.Record(self.record)
        if self.undo is not None:
            return rollback.Undo(self.undo)
        assert self.at is not None
        return rollback.PointInTime(int(to_ms(self.at) or 0))
