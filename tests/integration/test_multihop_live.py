"""Multi-hop lists in the served pipeline (graph/retrieval/second_hop.py, graph/retrieval/decompose.py; issue 41): each
option, when on, fuses its list (its rank shows in the results' explanations) for a caller ranked exactly and for one
ranked through the index, adds nothing when off, and reaches only what the caller may see."""

from __future__ import annotations

from datetime import UTC, datetime

from grimoire.graph.episodes import ingest
from grimoire.graph.model.crystal.privacy import MemoryScope
from grimoire.graph.model.enums import EpisodeType
from grimoire.graph.model.episode import EpisodeIn
from grimoire.graph.retrieval.config import MultiHopConfig, QueryUnderstandingConfig, RetrievalConfig
from grimoire.graph.retrieval.decompose import DECOMPOSED
from grimoire.graph.retrieval.pipeline import RetrievalRequest, build
from grimoire.graph.retrieval.second_hop import SECOND_HOP
from grimoire.graph.visibility import Visibility

WHEN = datetime(2023, 5, 8, 15, tzinfo=UTC)
TURNS = {
    "mh-0": ("Caroline: I painted a sunset over the lake last weekend, all oranges and pinks.", "Caroline"),
    "mh-1": ("Melanie: my latest painting is of the horses at the farm near our house.", "Melanie"),
    "mh-2": ("Melanie: the kids and I made clay bowls at the pottery workshop on Saturday.", "Melanie"),
    "mh-3": ("Caroline: I went to a support group meeting and met some amazing people.", "Caroline"),
    "mh-4": ("Melanie: we went camping in the mountains and roasted marshmallows by the fire.", "Melanie"),
    "mh-5": ("Caroline: I have been reading a book about adoption agencies and the process.", "Caroline"),
}
BOTH = "What have Caroline and Melanie both painted?"


def _turns(agent: str, ids: dict[str, tuple[str, str]], prefix: str = "") -> list[EpisodeIn]:
    return [EpisodeIn(id=f"{prefix}{i}", agent_id=agent, type=EpisodeType.conversation, text=text, valid_from=WHEN,
                      mentions=[{"kind": "Person", "name": who}])  # type: ignore[arg-type]
            for i, (text, who) in ids.items()]


def _listed(db, embedder, config: RetrievalConfig, question: str, agent: str = "mh-a") -> dict[str, set[str]]:
    """Per result id: the lists that ranked it (its explanation's backends)."""
    res = build(db, embedder, config).retrieve(
        RetrievalRequest(text=question, mode="hybrid", no_budget=True, k=20, explain=True,
                         filters={"kinds": ["episodes"]}), Visibility(agent, "clade-mh"), agent)
    return {x.id: set(x.explain.backends) for x in res.results if x.explain}


def test_each_option_adds_its_list_when_on_and_nothing_when_off(db, embedder) -> None:
    ingest(db, embedder, _turns("mh-a", TURNS), actor="test", clade="clade-mh")
    off = RetrievalConfig()
    for reach in ({}, {"exact_below": 0}):  # ranked exactly from held vectors; ranked through the index
        shipped = _listed(db, embedder, off.model_copy(update=reach), BOTH)
        assert shipped and not any({SECOND_HOP, DECOMPOSED} & lists for lists in shipped.values())
        hop = off.model_copy(update={**reach, "multihop": MultiHopConfig(second_hop=True)})
        with_hop = _listed(db, embedder, hop, BOTH)
        assert sum(SECOND_HOP in lists for lists in with_hop.values()) >= 3
        assert not any(DECOMPOSED in lists for lists in with_hop.values())
        parts = off.model_copy(update={**reach, "multihop": MultiHopConfig(decompose=True)})
        with_parts = _listed(db, embedder, parts, BOTH)
        # The two painting turns, each found by its own part ("What have Caroline painted?", "... Melanie ...").
        assert {"mh-0", "mh-1"} <= {i for i, lists in with_parts.items() if DECOMPOSED in lists}
        assert not any(SECOND_HOP in lists for lists in with_parts.values())
        # A question of one part is not split: no list.
        single = _listed(db, embedder, parts, "What has Melanie painted?")
        assert single and not any(DECOMPOSED in lists for lists in single.values())


def test_the_lists_reach_only_what_the_caller_may_see(db, embedder) -> None:
    ingest(db, embedder, _turns("mh-a", TURNS), actor="test", clade="clade-mh")
    # Another agent's private turns, the same words as the caller's (as written: an episode is private by default).
    ingest(db, embedder, _turns("mh-b", TURNS, prefix="other-"), actor="test", clade="clade-mh",
           memory_scope=MemoryScope.as_written)
    both = RetrievalConfig(multihop=MultiHopConfig(second_hop=True, decompose=True))
    for reach in ({}, {"exact_below": 0}):
        listed = _listed(db, embedder, both.model_copy(update=reach), BOTH)
        assert any(SECOND_HOP in lists for lists in listed.values())
        assert any(DECOMPOSED in lists for lists in listed.values())
        assert all(i.startswith("mh-") for i in listed)


def test_the_parts_names_are_found_as_the_graph_backend_finds_them(db, embedder) -> None:
    """The decomposition looks its names up as the graph backend does (backends.entity_query, named_in's check), so
    with the possessive names on, "Caroline's and Melanie's" names both, and the question is split at them."""
    ingest(db, embedder, _turns("mh-a", TURNS), actor="test", clade="clade-mh")
    question = "What have Caroline's and Melanie's brushes painted?"
    parts = RetrievalConfig(multihop=MultiHopConfig(decompose=True))
    plain = _listed(db, embedder, parts, question)
    assert plain and not any(DECOMPOSED in lists for lists in plain.values())  # "caroline's" is a word of its own
    possessive = parts.model_copy(update={"query": QueryUnderstandingConfig(possessives=True)})
    split = _listed(db, embedder, possessive, question)
    assert any(DECOMPOSED in lists for lists in split.values())
