"""Core memory's pure rules (graph/memory/blocks.py, graph/memory/memory_md.py): what each edit makes of a
block, pinned facts kept, the cap's arithmetic, and MEMORY.md written and read back in the spec's layout."""

from __future__ import annotations

import pytest

from grimoire.graph.errors import Invalid, NotFound
from grimoire.graph.memory import memory_md
from grimoire.graph.memory.blocks import (
    Append,
    Block,
    EditLine,
    OverCap,
    PinnedLine,
    Replace,
    Unchanged,
    apply,
    fits,
    keep_pinned,
)

TEXT = "- Name: Alex\n- Role: engineer\n- Timezone: CET\n"


def test_replace_and_append_keep_lines_without_blanks() -> None:
    assert apply("", Replace("- Name: Alex  \n\n- Role: engineer\n")) == "- Name: Alex\n- Role: engineer\n"
    assert apply("", Replace("- Task\n  - its nested step\n")) == "- Task\n  - its nested step\n"  # indents stay
    assert apply(TEXT, Append("- Prefers Vim")) == TEXT + "- Prefers Vim\n"
    assert apply(TEXT, Unchanged()) == TEXT
    assert apply("", Replace("")) == ""
    with pytest.raises(Invalid):
        apply(TEXT, Append("   "))


def test_one_line_is_edited_by_number_or_by_its_text_and_an_empty_text_deletes_it() -> None:
    assert apply(TEXT, EditLine("- Role: staff engineer", line=2)) == (
        "- Name: Alex\n- Role: staff engineer\n- Timezone: CET\n")
    assert apply(TEXT, EditLine("- Timezone: PST", old="- Timezone: CET")) == (
        "- Name: Alex\n- Role: engineer\n- Timezone: PST\n")
    assert apply(TEXT, EditLine("", line=1)) == "- Role: engineer\n- Timezone: CET\n"
    with pytest.raises(NotFound, match="no line 4"):
        apply(TEXT, EditLine("x", line=4))
    with pytest.raises(NotFound):
        apply(TEXT, EditLine("x", old="- Name: Sam"))
    with pytest.raises(Invalid):
        apply(TEXT, EditLine("x"))
    with pytest.raises(Invalid):
        apply(TEXT, EditLine("x", line=1, old="- Name: Alex"))
    with pytest.raises(Invalid):
        apply(TEXT, EditLine("two\nlines", line=1))


def test_an_edit_may_not_drop_a_pinned_fact() -> None:
    keep_pinned("- Never deploy on Fridays\n- Other\n", ["- Never deploy on Fridays"])
    with pytest.raises(PinnedLine, match="unpin"):
        keep_pinned("- Other\n", ["- Never deploy on Fridays"])


def test_the_cap_is_on_the_four_blocks_together_and_says_by_how_much() -> None:
    tokens = {Block.identity: 400, Block.context: 1_500, Block.persona: 300, Block.critical: 800}
    assert fits(Block.context, tokens) == 3_000
    tokens[Block.context] = 1_512
    with pytest.raises(OverCap) as err:
        fits(Block.context, tokens)
    assert err.value.over == 12 and err.value.total == 3_012
    assert "12 over its cap of 3000" in str(err.value)


SPEC_MEMORY = """# MEMORY.md — Core Memory
<!-- TOKEN BUDGET: ~3,000 tokens. Rewritten during reflection. -->
## Identity
<!-- ~500 tokens — Who is the user? What matters most about them? -->
- Name: Alex
- Role: Staff engineer
- Communication style: Direct
- Key preferences: Dark mode, Vim, TypeScript
- Timezone: CET
## Active Context
<!-- ~1,000 tokens — What's happening RIGHT NOW? Current projects, open decisions. -->
- Currently working on: Project X — building memory architecture for moltbot
- Open decisions: Graph structure for semantic store, decay function parameters
## Persona
<!-- ~500 tokens — How should I behave with this user? -->
- Relationship tenure: Since 2025-06-01
- Things I've learned about working with them: Appreciates brainstorming, wants options before decisions
## Critical Facts
<!-- ~1,000 tokens — Things I must NEVER forget, even if they haven't come up recently. -->
- Allergic to penicillin (pinned)
- Production deploys need two approvals
"""


def test_memory_md_is_read_and_written_back_unchanged() -> None:
    contents, pinned = memory_md.parse(SPEC_MEMORY)
    assert pinned == ["- Allergic to penicillin"]
    assert contents[Block.identity].splitlines()[0] == "- Name: Alex"
    assert contents[Block.critical] == "- Allergic to penicillin\n- Production deploys need two approvals\n"
    assert memory_md.render(contents, pinned) == SPEC_MEMORY


def test_memory_md_refuses_lines_it_cannot_place() -> None:
    with pytest.raises(Invalid, match="unknown section"):
        memory_md.parse("## Hobbies\n- chess\n")
    with pytest.raises(Invalid, match="before any section"):
        memory_md.parse("- stray line\n## Identity\n")
