"""A crystal's payload (knowledge-crystals.md, lines 25-29), without a database: the content hash of the normalised
text, the file and line range a writer gives (validated), the fields every writer stamps, the Admission Gate's
decision for an exact twin, consolidation taking exact twins before cosine pairs, and the workspace import's
line ranges."""

from __future__ import annotations

import hashlib

import pytest
from pydantic import ValidationError

from grimoire.graph.crystals.consolidation import pick_merges
from grimoire.graph.knowledge.admission import HASH_DUPLICATE, hash_duplicate
from grimoire.graph.memory import workspace as w
from grimoire.graph.memory import workspace_files as wf
from grimoire.graph.model.crystal import fields
from grimoire.graph.model.crystal.payload import (
    MAX_LINE,
    MemorySource,
    SourceFile,
    content_hash,
    normalise,
    payload,
)
from grimoire.graph.model.entry import EntryIn
from grimoire.graph.model.enums import AdmissionOutcome


def test_the_hash_is_sha256_of_the_normalised_text() -> None:
    assert normalise("  Gas  spikes\n\tafter\r\nupgrades  ") == "Gas spikes after upgrades"
    assert content_hash("Gas spikes after upgrades") == hashlib.sha256(b"Gas spikes after upgrades").hexdigest()
    assert content_hash(" Gas spikes\nafter  upgrades ") == content_hash("Gas spikes after upgrades")
    # Unicode's composed and decomposed forms of one text are one text
    assert content_hash("caf\u00e9") == content_hash("cafe\u0301")
    # case and words are content: a different text is a different hash
    assert content_hash("US rates") != content_hash("us rates")
    assert content_hash("Gas spikes after upgrades") != content_hash("Gas spikes before upgrades")
    assert len(content_hash("x")) == 64


@pytest.mark.parametrize(("start", "end", "path", "problem"), [
    (5, 4, "a.md", "end_line 4 is before start_line 5"),
    (0, 4, "a.md", "greater than or equal to 1"),
    (1, MAX_LINE + 1, "a.md", "less than or equal to"),
    (1, 2, "/etc/passwd", "relative"),
    (1, 2, "memory/../x.md", "relative"),
    (1, 2, "", "at least 1 character"),
])
def test_a_line_range_is_validated(start: int, end: int, path: str, problem: str) -> None:
    with pytest.raises(ValidationError, match=problem):
        SourceFile(path=path, start_line=start, end_line=end)


def test_a_line_range_may_be_one_line_and_is_kept_flat() -> None:
    f = SourceFile(path="memory/vault/keys.md", start_line=3, end_line=3)
    assert payload("the text", MemorySource.memory, f).model_dump(mode="json", exclude_none=True) == {
        "memory_source": "memory", "content_hash": content_hash("the text"), "source_path": "memory/vault/keys.md",
        "start_line": 3, "end_line": 3}
    assert payload("the text", MemorySource.sessions).model_dump(mode="json", exclude_none=True) == {
        "memory_source": "sessions",
        "content_hash": content_hash("the text")}


def test_every_writer_stamps_the_source_and_hash() -> None:
    episode = fields.for_episode("conversation", "said this", 1)
    entry = fields.for_entry("Insight", "SelfLearned", "learned this", 1)
    memory = fields.for_memory("fact", "semantic", "remembered this", True, 1,
                               SourceFile(path="MEMORY.md", start_line=2, end_line=4))
    assert (episode["memory_source"], episode["content_hash"]) == ("sessions", content_hash("said this"))
    assert (entry["memory_source"], entry["content_hash"]) == ("memory", content_hash("learned this"))
    assert "source_path" not in entry
    assert (memory["source_path"], memory["start_line"], memory["end_line"]) == ("MEMORY.md", 2, 4)


def test_an_entry_names_its_file_lines_or_is_refused() -> None:
    ok = EntryIn.model_validate({"category": "Insight", "content": "x",
                                 "source_file": {"path": "notes/a.md", "start_line": 2, "end_line": 9}})
    assert ok.source_file == SourceFile(path="notes/a.md", start_line=2, end_line=9)
    with pytest.raises(ValidationError, match="before start_line"):
        EntryIn.model_validate({"category": "Insight", "content": "x",
                                "source_file": {"path": "notes/a.md", "start_line": 9, "end_line": 2}})


def test_an_exact_twin_is_a_duplicate_decided_without_cosine() -> None:
    r = hash_duplicate("en-1")
    assert r.outcome is AdmissionOutcome.skipped and r.target_id == "en-1" and not r.writes_entry
    assert r.flags == (HASH_DUPLICATE,) and r.factors == {} and "content hash" in r.explanation


def test_consolidation_takes_exact_twins_before_closer_cosine_pairs() -> None:
    pairs = [{"a": "x", "b": "y", "cosine": 0.99, "a_score": 0.9, "b_score": 0.8, "agent_id": "g"},
             {"a": "y", "b": "z", "cosine": None, "by_hash": True, "a_score": 0.8, "b_score": 0.85, "agent_id": "g"}]
    merges = pick_merges(pairs)
    assert merges == [{"winner": "z", "losers": ["y"], "agent_id": "g", "by_hash": True, "cosine": None}]


def test_a_workspace_item_knows_its_file_and_lines() -> None:
    text = ("# 2026-02-02 — Episode Log\n## 09:00 | event | confidence:low | tags:[]\nFirst line.\nSecond line.\n\n"
            "## 10:00 | emotion | confidence:high | tags:[mood]\nOnly.\n")
    first, second = wf.parse_episodes("e.md", "2026-02-02", text, wf.Problems())
    assert (first.line, first.end_line, second.line, second.end_line) == (2, 4, 6, 7)
    vault = wf.parse_vault("memory/vault/k.md", "k", "# k\n<!-- Type: vault -->\nline one\nline two\n\n",
                           wf.Problems())
    assert (vault.line, vault.end_line) == (2, 4)
    files = {"memory/episodes/2026-02-02.md": text, "memory/vault/k.md": "# k\n<!-- Type: vault -->\nsecret\n"}
    planned = w.plan(wf.parse_workspace(files), "golem-1", None, 1_770_000_000_000)
    spans = {p.key: p.memory.file for p in planned}
    assert spans["episode:2026-02-02:09:00"] == SourceFile(path="memory/episodes/2026-02-02.md", start_line=2,
                                                           end_line=4)
    assert spans["vault:k"] == SourceFile(path="memory/vault/k.md", start_line=2, end_line=3)


def test_an_edit_hashes_the_new_content_so_dedup_reads_what_it_says_now() -> None:
    from grimoire.graph.knowledge.versions import retag
    from grimoire.graph.model.crystal.payload import content_hash

    changes: dict = {"content": "Split swaps above 50 ETH across three blocks"}
    retag({"id": "e", "scope": "private"}, changes)
    assert changes["content_hash"] == content_hash("Split swaps above 50 ETH across three blocks")
    untouched: dict = {"market_regime": "bull"}
    retag({"id": "e", "scope": "private"}, untouched)
    assert "content_hash" not in untouched
