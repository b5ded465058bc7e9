"""The trail's words (graph/audit/vocabulary.py): every action the code writes is filed under one of the spec's
verbs (so an action added later without one fails here), actor tags and approvals follow 12.3, and a record
renders as the one-line format of 12.4."""

from __future__ import annotations

import re
from pathlib import Path

from grimoire.graph.audit.vocabulary import (
    VERBS,
    Approval,
    Verb,
    actions_of,
    log_line,
    read_approval,
    read_tag,
    verb_of,
)
from grimoire.graph.model.enums import VoteDirection

ROOT = Path(__file__).resolve().parents[2]
DOTTED = r'"([a-z_]+(?:\.[a-z_]+)+)"'


def written_actions() -> set[str]:
    """The action names the code gives audit records: literals on a line that makes an Audit, `action=` keywords
    (the Curator's writes), ACTION constants and the entry read-modify-writes; votes are named by direction."""
    found: set[str] = set()
    for path in [*(ROOT / "grimoire/graph").rglob("*.py"), *(ROOT / "grimoire/api").rglob("*.py")]:
        if path.name == "vocabulary.py":
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if "Audit(" in line:
                found |= set(re.findall(DOTTED, line))
            if "Access(" not in line:  # an access record (a read that touched counters) is not a change
                found |= set(re.findall(r'\baction=' + DOTTED, line))
            found |= set(re.findall(r'^ACTION = ' + DOTTED, line))
            found |= set(re.findall(r'_read_modify_write\(k, \w+, ' + DOTTED, line))
    found |= {f"entry.{d.value}vote" for d in VoteDirection}
    return found


def test_every_action_the_code_writes_has_a_verb() -> None:
    actions = written_actions()
    assert len(actions) >= 40  # the scan itself finds them
    assert not {a for a in actions if a.startswith(("memory.reinforce", "retrieval.for_decision"))}
    assert not sorted(actions - set(VERBS)), "actions without a verb in graph/audit/vocabulary.py"
    assert {"memory.remember", "memory.archive", "memory.reflection.propose", "curator.decay"} <= actions


def test_the_verbs_are_the_spec_vocabulary() -> None:
    assert [v.value for v in Verb] == ["CREATE", "EDIT", "APPEND", "DELETE", "ARCHIVE", "MERGE", "REVERT", "DECAY",
                                       "RENAME", "PROPOSE", "COMMIT", "REJECT", "ALERT"]
    assert verb_of("memory.archive") is Verb.ARCHIVE and verb_of("curator.decay") is Verb.DECAY
    assert verb_of("something.new") is Verb.EDIT  # filed, with a warning, rather than refused
    assert actions_of([Verb.DELETE]) == ["console.sweep", "crystal.purge", "memory.delete"]


def test_actor_tags_and_approval_follow_who_acted() -> None:
    assert read_tag("bot:trigger-remember", "k1", "memory.remember", "a", ["write"]) == "bot:trigger-remember"
    assert read_tag(None, "scheduler", "curator.decay", None, []) == "system:decay"
    assert read_tag(None, "scheduler", "memory.reflection.propose", None, []) == "system:memory"
    assert read_tag(None, "k2", "memory.core.edit", "alex-bot", ["read", "person"]) == "manual"
    assert read_tag(None, "admin", "memory.core.edit", None, []) == "manual"
    assert read_tag(None, "cli", "agent.register", None, []) == "manual"
    assert read_tag(None, "k3", "episode.ingest", "alex-bot", ["read", "write"]) == "bot:alex-bot"
    assert read_approval(None, Verb.PROPOSE, "reflection:r1") is Approval.pending
    assert read_approval(None, Verb.ARCHIVE, "reflection:r1") is Approval.approved
    assert read_approval(None, Verb.EDIT, "manual") is Approval.none
    assert read_approval(None, Verb.CREATE, "bot:auto-detect") is Approval.auto
    assert read_approval(None, Verb.CREATE, "subagent:researcher") is Approval.pending
    assert read_approval("rejected", Verb.REJECT, "manual") is Approval.rejected


def test_a_record_is_one_line_of_audit_log() -> None:
    record = {"at": 1_770_046_200_000, "verb": "EDIT", "target_ids": ["alex:core:context"],
              "tag": "bot:trigger-remember", "approval": "auto",
              "summary": "core memory context block v2:\n remembered from a message"}
    assert log_line(record) == ("2026-02-02T15:30Z | EDIT | alex:core:context | bot:trigger-remember | auto | "
                                "core memory context block v2: remembered from a message")
    many = {**record, "verb": "ARCHIVE", "target_ids": ["m1", "m2", "m3"], "critical": False}
    assert " | m1 (+2) | " in log_line(many)
    flagged = {**record, "tag": "manual", "approval": "—", "critical": True, "summary": "identity edited"}
    assert log_line(flagged).endswith("| manual | — | ⚠️ CRITICAL: identity edited")
