"""Providers' reasoning normalised into one ReasoningChain (graph/context/reasoning.py)."""

from __future__ import annotations

from grimoire.graph.context.reasoning import ChainVisibility, PhaseType, Provider, normalize


def words(text: str) -> int:
    return len(text.split())


def test_anthropic_thinking_blocks() -> None:
    blocks = [{"type": "thinking", "thinking": "Gas is 90 gwei.\n\nFirst, check the pool; then swap.",
               "signature": "s"},
              {"type": "tool_use", "name": "quote"},
              {"type": "thinking", "thinking": "I will swap in two tranches."},
              {"type": "text", "text": "Done."}]
    c = normalize(Provider.anthropic, model="m", blocks=blocks, count=words)
    assert c.visibility == ChainVisibility.summarized and c.interleaved   # thinking after a tool call
    assert c.content == "Gas is 90 gwei.\n\nFirst, check the pool; then swap.\n\nI will swap in two tranches."
    assert [p.type for p in c.phases] == [PhaseType.analysis, PhaseType.planning, PhaseType.decision]
    assert c.reasoning_tokens == words(c.content) and [b.type for b in c.raw_blocks] == ["thinking", "thinking"]
    assert c.raw_blocks[0].signature == "s"


def test_a_redacted_block_alone_is_opaque() -> None:
    c = normalize(Provider.anthropic, blocks=[{"type": "redacted_thinking", "data": "xx"}], reasoning_tokens=40)
    assert c.visibility == ChainVisibility.opaque and c.content is None and c.reasoning_tokens == 40
    assert c.raw_blocks[0].data == "xx" and not c.phases


def test_openai_reasoning_summaries() -> None:
    items = [{"type": "reasoning", "summary": [{"type": "summary_text", "text": "Compare the two pools' fees."},
                                               {"type": "summary_text", "text": "Go with the deeper pool."}]},
             {"type": "message", "content": []}]
    c = normalize(Provider.openai, model="o-x", blocks=items, reasoning_tokens=120)
    assert c.visibility == ChainVisibility.summarized and not c.interleaved and c.reasoning_tokens == 120
    assert [p.type for p in c.phases] == [PhaseType.evaluation, PhaseType.decision]
    encrypted = normalize(Provider.openai, blocks=[{"type": "reasoning", "summary": [], "encrypted_content": "e"}])
    assert encrypted.visibility == ChainVisibility.opaque


def test_think_tags_and_plain_text() -> None:
    c = normalize(Provider.text, text="<think>Perhaps the oracle lags.\n\nLast time it did.</think>Hold.", count=words)
    assert c.visibility == ChainVisibility.visible and c.content == "Perhaps the oracle lags.\n\nLast time it did."
    assert [p.type for p in c.phases] == [PhaseType.uncertainty, PhaseType.reflection]
    plain = normalize(Provider.text, text="The pool is thin.")
    assert plain.content == "The pool is thin." and plain.raw_blocks[0].type == "text"
    assert normalize(Provider.text, text=None).visibility == ChainVisibility.none


def test_the_hash_is_of_the_chain() -> None:
    a = normalize(Provider.text, text="x", model="m")
    assert a.hash == normalize(Provider.text, text="x", model="m").hash
    assert a.hash != normalize(Provider.text, text="y", model="m").hash
    assert a.hash != normalize(Provider.text, text="x", model="n").hash


def test_a_summary_that_is_not_a_list_is_no_reasoning_not_an_error() -> None:
    for summary in (5, True, "text", {"text": "x"}):
        chain = normalize(Provider.openai, blocks=[{"type": "reasoning", "summary": summary}])
        assert chain.content is None and chain.visibility == ChainVisibility.none


def test_an_erasure_leaves_no_copy_in_a_chain_not_even_folded_or_hashed() -> None:
    from grimoire.graph.audit.erasure import Erasure, redacted_props, rehashed

    erased = "my PIN is 4321\nand my bank is Acme"
    chain = normalize(Provider.text, text=f"Checking the account.\n\nThe user said {erased}, so pay from it.")
    assert "my PIN is 4321 and my bank is Acme" in chain.phases[-1].content  # the phases fold white space
    e = Erasure(id="er-1", agent_id="a", actor="key-1", at=1_770_000_000_000, ids=["mem-1"], texts=[erased])
    props = redacted_props("ContextDecision", {"reasoning": chain.model_dump_json()}, e)
    text, digest = rehashed(props["reasoning"])
    assert "4321" not in text and "Acme" not in text
    again = normalize(Provider.text, text=f"Checking the account.\n\nThe user said {e.mark}, so pay from it.")
    assert digest == again.hash != chain.hash  # the hash is the redacted chain's, as normalize computes it
