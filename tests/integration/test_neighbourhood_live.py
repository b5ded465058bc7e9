"""What lies around the candidates, in the served pipeline (graph/retrieval/neighbourhood.py; issue 41): the
hierarchical option lifts a turn of the best thread over an equally scored turn of another, and the expansion reaches
only what the caller may see."""

from __future__ import annotations

from datetime import UTC, datetime

from grimoire.graph.episodes import ingest
from grimoire.graph.model.crystal.privacy import MemoryScope
from grimoire.graph.model.enums import EpisodeType, Scope
from grimoire.graph.model.episode import EpisodeIn
from grimoire.graph.retrieval import neighbourhood
from grimoire.graph.retrieval.config import NeighbourhoodConfig, QueryUnderstandingConfig, RetrievalConfig
from grimoire.graph.retrieval.filters import RetrievalFilters
from grimoire.graph.retrieval.pipeline import RetrievalRequest, build
from grimoire.graph.visibility import Visibility

WHEN = datetime(2023, 5, 8, 15, tzinfo=UTC)
QUESTION = "Which pottery class did Caroline sign up for?"
# The same long turn in two threads: the same vector and BM25 scores, ranked apart only by id (the "t1" one first).
SAME = "Melanie: my sister keeps talking about pottery and says working the clay is relaxing after a long week."
FILLER = ["Caroline: the weather was lovely for a walk along the river this afternoon, warm and bright.",
          "Melanie: we had pancakes with blueberries for breakfast, the kids loved them a lot this time.",
          "Caroline: my car needed new tyres so I spent the morning at the garage waiting for a while.",
          "Melanie: the football match on the radio went into extra time and ended in a draw yesterday."]


def _thread(prefix: str, agent: str, texts: list[str], **extra: object) -> list[EpisodeIn]:
    out, previous = [], None
    for i, text in enumerate(texts):
        eid = f"{prefix}-{i}"
        out.append(EpisodeIn(id=eid, agent_id=agent, type=EpisodeType.conversation, text=text, valid_from=WHEN,
                             follows=previous, **extra))  # type: ignore[arg-type]
        previous = eid
    return out


def _ranked(db, embedder, config: RetrievalConfig, agent: str, clade: str) -> list[str]:
    res = build(db, embedder, config).retrieve(
        RetrievalRequest(text=QUESTION, mode="hybrid", no_budget=True, k=20, filters={"kinds": ["episodes"]}),
        Visibility(agent, clade), agent)
    return [x.id for x in res.results]


def test_the_hierarchical_option_lifts_a_turn_of_the_best_thread(db, embedder) -> None:
    # Thread t2: the answer, four turns about other things, then the shared turn (five steps from the answer: beyond
    # the graph backend's thread neighbours). Thread t1: a filler, then the same shared turn.
    best = _thread("t2", "nb-1", ["Caroline: I signed up for a pottery class at the community studio downtown.",
                                  *FILLER, SAME])
    other = _thread("t1", "nb-1", [FILLER[0].replace("river", "canal"), SAME])
    ingest(db, embedder, best + other, actor="test", clade="clade-n")
    # Only the fused lists and the rerank: no graph list, no query understanding, no MMR, no near-duplicate cut.
    plain = RetrievalConfig(backend_weights={"vector": 1.0, "bm25": 1.0, "graph": 0.0}, mmr_lambda=1.0,
                            duplicate_cosine=1.01,
                            query=QueryUnderstandingConfig(time_windows=False, time_telling=False,
                                                           short_context=False))
    off = _ranked(db, embedder, plain, "nb-1", "clade-n")
    assert off[0] == "t2-0"
    assert off.index("t1-1") < off.index("t2-5")  # equally scored: the tie goes by id
    on = plain.model_copy(update={"neighbourhood": NeighbourhoodConfig(threads=True)})
    ranked = _ranked(db, embedder, on, "nb-1", "clade-n")
    assert ranked[0] == "t2-0"
    assert ranked.index("t2-5") < ranked.index("t1-1")  # the answer's thread first


def test_the_expansion_reaches_only_what_the_caller_may_see(db, embedder) -> None:
    zorb = [{"kind": "Person", "name": "Zorblax"}]
    own = _thread("x-own", "nb-1", ["Caroline: Zorblax signed me up for a pottery class at the studio downtown.",
                                    FILLER[1]], mentions=zorb)
    shared = _thread("x-shared", "nb-2", [FILLER[2]], mentions=zorb, scope=Scope.shared)
    private = _thread("x-private", "nb-2", [FILLER[3]], mentions=zorb)
    ingest(db, embedder, own, actor="test", clade="clade-n")
    # As written: an episode is a memory crystal, private under the default rule.
    ingest(db, embedder, shared + private, actor="test", clade="clade-n", memory_scope=MemoryScope.as_written)
    config = RetrievalConfig(neighbourhood=NeighbourhoodConfig(expand=True, expand_from=1))  # around the answer
    filters = RetrievalFilters(kinds=["episodes"])

    def reached(visibility: Visibility) -> set[str]:
        rows = db.rows("retrieval/expansion", hits=["x-own-0"], hops=1, entities=True, max_mentions=100,
                       embedding=embedder.embed_one(QUESTION), top=20, **filters.params(visibility))
        return {r["id"] for r in rows}

    # The admin reaches all three around the hit (its next turn; the others through the entity); the peer of the
    # clade not the other agent's private turn.
    assert reached(Visibility.everything()) == {"x-own-1", "x-shared-0", "x-private-0"}
    assert reached(Visibility("nb-1", "clade-n")) == {"x-own-1", "x-shared-0"}
    assert reached(Visibility("nb-3", "clade-other")) == set()  # sees none of them (nor the hit)
    # In the pipeline: the expansion's list is fused, and its private neighbour is never a result.
    res = build(db, embedder, config).retrieve(
        RetrievalRequest(text=QUESTION, mode="hybrid", no_budget=True, k=20, explain=True,
                         filters={"kinds": ["episodes"]}), Visibility("nb-1", "clade-n"), "nb-1")
    via = {x.id: x.explain.backends.get(neighbourhood.EXPANSION) for x in res.results if x.explain}
    assert via["x-shared-0"] is not None and via["x-own-1"] is not None
    assert "x-private-0" not in via
