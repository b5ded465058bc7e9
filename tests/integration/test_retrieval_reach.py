"""Retrieval cost follows what the caller can see, not what everyone else stores: the visible set
is counted and gathered through the ownership and scope indexes, a small one is ranked exactly,
and a caller who sees nothing costs nothing. Checked by results (against a brute-force ranking)
and by the database's own work (PROFILE db hits), which must not grow with other agents' items."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest

from grimoire.graph.db import cypher
from grimoire.graph.retrieval import backends, reach
from grimoire.graph.retrieval.filters import RetrievalFilters
from grimoire.graph.visibility import Visibility

DIM = 384
rng = np.random.default_rng(11)


def _vectors(n: int) -> np.ndarray:
    v = rng.normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def _add(db, prefix: str, n: int, agent: str, clade: str, scope: str, label: str = "Episode") -> dict[str, np.ndarray]:
    vectors = _vectors(n)
    rows = []
    for i in range(n):
        props: dict[str, Any] = {"agent_id": agent, "clade": clade, "scope": scope, "valid_from": 1_000 + i,
                                 "recorded_at": 1_000 + i, "last_accessed_at": 1_000}
        if label == "Episode":
            props.update(text=f"{prefix} turn {i}", type="conversation")
        else:
            props.update(content=f"{prefix} note {i}", category="Insight", status="active", confidence=0.6)
        rows.append({"id": f"{prefix}-{i}", "props": props, "embedding": vectors[i].tolist()})
    for s in range(0, n, 1_000):
        db.run("testing/bulk_items", label=label, rows=rows[s:s + 1_000])
    return {r["id"]: vectors[i] for i, r in enumerate(rows)}


def _params(viewer: str, clade: str, admin: bool = False, **filters: Any) -> dict[str, Any]:
    return RetrievalFilters(**filters).params(Visibility(viewer, clade, admin))


def _db_hits(db, name: str, **params: Any) -> int:
    # Planned afresh on the data in front of it: a plan cached by an earlier test, made when the
    # database held a few items, places its property reads for that (before the sort, for every
    # visible item), and Neo4j replans only once its statistics drift far enough. The index
    # statistics are brought up to date first (sampling after a bulk load is otherwise left to
    # chance), so the plan is the one for the data as it is.
    with db.session() as s:
        s.run("CALL db.prepareForReplanning()").consume()
        summary = s.run("CYPHER replan=force PROFILE " + cypher.query(name), params).consume()

    def walk(plan: Any) -> int:
        return int(plan.get("dbHits", 0)) + sum(walk(c) for c in plan.get("children", []))

    return walk(summary.profile)


def _statements_counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every named statement the database runs from now on, counted by name (cleared by the caller between asks)."""
    from grimoire.graph.db.connection import Database

    ran: Counter[str] = Counter()
    rows = Database.rows

    def counted(self: Database, name: str, /, **params: Any) -> list[Any]:
        ran[name] += 1
        return rows(self, name, **params)

    monkeypatch.setattr(Database, "rows", counted)
    return ran


@pytest.fixture
def tenants(db):
    """`big` stores 3,000 private items; `small` owns 40 and sees 25 shared by `peer` in its clade and
    10 public ones; `stranger`, in another clade, sees only the public ones; `nobody` sees none
    (in another clade, with the public ones filtered out by agent)."""
    seen = {}
    seen.update(_add(db, "big", 3_000, "big", "clade-b", "private"))
    seen.update(_add(db, "small", 40, "small", "clade-s", "private"))
    seen.update(_add(db, "peer", 25, "peer", "clade-s", "shared"))
    seen.update(_add(db, "pub", 10, "big", "clade-b", "public"))
    seen.update(_add(db, "note", 5, "small", "clade-s", "private", label="Entry"))
    return seen


def test_reach_counts_what_each_caller_sees(db, tenants) -> None:
    assert reach.measure(db, _params("small", "clade-s"), 20_000) == reach.Reach(visible=80, total=3_080, capped=False)
    assert reach.measure(db, _params("stranger", "clade-x"), 20_000).visible == 10
    assert reach.measure(db, _params("nobody", "clade-x", agent_id="nobody"), 20_000).visible == 0
    assert reach.measure(db, _params("", "", admin=True), 20_000) == reach.Reach(3_080, 3_080, False)
    capped = reach.measure(db, _params("big", "clade-b"), 500)
    assert capped.capped and capped.visible >= 500
    assert reach.Reach(80, 3_080, False).candidates(20, 1, 10_000) == 1_155  # 1.5 x 20 / (80 / 3,080)
    assert reach.Reach(3_080, 3_080, False).candidates(20, 1, 10_000) == 20  # the admin: no margin
    # Counted to the cap in a million: 2% at least, maybe all. Asked for 100 first, widened up to 1,500 if need be.
    capped = reach.Reach(20_000, 1_000_000, True)
    assert (capped.candidates(20, 1, 10_000), capped.widest(20, 1, 10_000)) == (100, 1_500)


def test_a_large_reach_is_reused_a_small_one_briefly_and_none_never(db, tenants) -> None:
    """The retriever keeps a large count for a while (it only sizes the index search), a small one for a few
    seconds if asked (the exact ranking reads the set itself), and never a count of nothing (an agent's first
    items must be found at once)."""
    import time

    cache = reach.ReachCache(small=100, seconds=60)
    big = _params("big", "clade-b", agent_id="big")
    held = cache.measure(db, big, 20_000)
    assert held.visible == 3_010  # 3,000 private and 10 public
    new = _add(db, "later", 5, "big", "clade-b", "private")
    assert cache.measure(db, big, 20_000) == held  # reused: the five new ones are not counted yet
    assert reach.measure(db, big, 20_000).visible == 3_015
    # ...and the search it sizes still finds a new item first.
    q = new["later-0"]
    rows = backends.vector(db, q.tolist(), 5, 1, big, cache.measure(db, big, 20_000), exact_below=100)
    assert rows[0]["id"] == "later-0"
    small = _params("small", "clade-s")
    assert cache.measure(db, small, 20_000).visible == 80
    _add(db, "more", 2, "small", "clade-s", "private")
    assert cache.measure(db, small, 20_000).visible == 82  # counted again
    # Two seconds, not a fraction of one: the write between the two counts takes longer on a loaded machine.
    briefly = reach.ReachCache(small=100, seconds=60, small_seconds=2.0)
    assert briefly.measure(db, small, 20_000).visible == 82
    _add(db, "again", 1, "small", "clade-s", "private")
    assert briefly.measure(db, small, 20_000).visible == 82  # reused for a moment...
    time.sleep(2.1)
    assert briefly.measure(db, small, 20_000).visible == 83  # ...then counted again
    nobody = _params("nobody", "clade-x", agent_id="nobody")
    assert briefly.measure(db, nobody, 20_000).visible == 0
    _add(db, "first", 1, "nobody", "clade-x", "private")
    assert briefly.measure(db, nobody, 20_000).visible == 1  # nothing is never held
    brief = reach.ReachCache(small=100, seconds=0.05)
    assert brief.measure(db, big, 20_000).visible == 3_015
    _add(db, "last", 1, "big", "clade-b", "private")
    time.sleep(0.1)
    assert brief.measure(db, big, 20_000).visible == 3_016  # expired: counted again


def test_a_small_visible_set_is_ranked_exactly(db, tenants) -> None:
    q = _vectors(1)[0]
    params = _params("small", "clade-s")
    seen = reach.measure(db, params, 20_000)
    rows = backends.vector(db, q.tolist(), 10, 1, params, seen, exact_below=3_000)
    visible = [i for i in tenants if i.split("-")[0] in ("small", "peer", "pub", "note")]
    expected = sorted(visible, key=lambda i: -float(tenants[i] @ q))[:10]
    assert [r["id"] for r in rows] == expected
    # The admin sees every item: the _all variant ranks them all, the agent filter narrows to one agent.
    admin = _params("", "", admin=True)
    assert backends.exact_query(admin) == "retrieval/vector_exact_all"
    everything = sorted(tenants, key=lambda i: -float(tenants[i] @ q))[:10]
    assert [r["id"] for r in db.rows("retrieval/vector_exact_all", embedding=q.tolist(), top=10, **admin)] == everything
    one = _params("", "", admin=True, agent_id="small")
    assert backends.exact_query(one) == "retrieval/vector_exact"
    mine = sorted((i for i in tenants if i.startswith(("small-", "note-"))), key=lambda i: -float(tenants[i] @ q))[:10]
    assert [r["id"] for r in backends.vector(db, q.tolist(), 10, 1, one, reach.measure(db, one, 20_000), 3_000)] == mine
    nobody = _params("nobody", "clade-x", agent_id="nobody")
    assert backends.vector(db, q.tolist(), 10, 1, nobody, reach.measure(db, nobody, 20_000), 3_000) == []
    assert backends.bm25(db, "turn", 10, nobody, 1, reach.measure(db, nobody, 20_000)) == []


def test_a_large_share_searches_the_index_and_finds_the_top(db, tenants) -> None:
    q = tenants["big-100"] + 0.5 * _vectors(1)[0]
    q = (q / np.linalg.norm(q)).tolist()
    params = _params("big", "clade-b")
    seen = reach.measure(db, params, 20_000)
    assert not seen.exact(1_000)
    rows = backends.vector(db, q, 10, 1, params, seen, exact_below=1_000)
    exact = db.rows("retrieval/vector_exact", embedding=q, top=10, **params)
    # The approximate index on random 384-d vectors (its hardest case) finds the nearest and most of the rest.
    assert rows[0]["id"] == exact[0]["id"] == "big-100" and len(rows) == 10
    assert len({r["id"] for r in rows} & {r["id"] for r in exact}) >= 7
    assert all(r["id"].startswith(("big-", "pub-")) for r in rows)


def test_the_work_for_a_caller_does_not_grow_with_other_agents_items(db, tenants) -> None:
    q = _vectors(1)[0].tolist()
    small = _params("small", "clade-s")
    before = {name: _db_hits(db, name, **p) for name, p in [
        ("retrieval/vector_exact", {**small, "embedding": q, "top": 10}),
        ("retrieval/visible_count", {k: small[k] for k in reach.PARAMS} | {"cap": 20_000}),
        ("retrieval/contrarian", {"embedding": q, "pleasure": -0.5, "n": 2, "exclude": [], "viewer": "small",
                                  "clade": "clade-s", "admin": False}),
    ]}
    _add(db, "more", 3_000, "big", "clade-b", "private")
    _add(db, "more-notes", 1_000, "big", "clade-b", "shared", label="Entry")
    after = {name: _db_hits(db, name, **p) for name, p in [
        ("retrieval/vector_exact", {**small, "embedding": q, "top": 10}),
        ("retrieval/visible_count", {k: small[k] for k in reach.PARAMS} | {"cap": 20_000}),
        ("retrieval/contrarian", {"embedding": q, "pleasure": -0.5, "n": 2, "exclude": [], "viewer": "small",
                                  "clade": "clade-s", "admin": False}),
    ]}
    assert after == before, (before, after)
    assert before["retrieval/vector_exact"] < 20 * 80  # a few hits per visible item, not per stored one


def test_retrieve_for_a_caller_who_sees_nothing(api, db, tenants) -> None:
    h = api.headers("loner", "clade-z")
    r = api.client.post("/retrieve", headers=h, json={"text": "turn", "filters": {"agent_id": "loner"}})
    assert r.status_code == 200 and r.json()["results"] == []
    # Outside its own items it sees the ten public episodes, and only those, in every mode (the core
    # mental models every agent sees are entries).
    for mode in ("hybrid", "vector", "bm25", "fusion"):
        r = api.client.post("/retrieve", headers=h, json={"text": "pub turn", "k": 20, "no_budget": True,
                                                          "mode": mode, "filters": {"kinds": ["episodes"]}})
        assert r.status_code == 200, r.text
        assert {x["id"] for x in r.json()["results"]} == {f"pub-{i}" for i in range(10)}, mode


def _conversation(db, agent: str, clade: str, n: int, session: int = 6) -> dict[str, tuple[np.ndarray, str]]:
    """`n` turns of `agent`, in sessions of `session` turns linked by FOLLOWS; every other turn short (a reply
    the context ranking reads with the turn before), the others over 80 characters. Returns id -> (vector, text)."""
    vectors = _vectors(n)
    rows, pairs, out = [], [], {}
    for i in range(n):
        text = f"reply {i}" if i % 2 else f"turn {i}: " + "a longer message that says what it is about " * 2
        rows.append({"id": f"{agent}-{i}", "embedding": vectors[i].tolist(), "props": {
            "agent_id": agent, "clade": clade, "scope": "private", "text": text, "type": "conversation",
            "valid_from": 1_000 + i, "recorded_at": 1_000 + i, "last_accessed_at": 1_000}})
        if i % session:
            pairs.append([f"{agent}-{i}", f"{agent}-{i - 1}"])
        out[f"{agent}-{i}"] = (vectors[i], text)
    db.run("testing/bulk_items", label="Episode", rows=rows)
    db.run("testing/bulk_follows", pairs=pairs)
    return out


def _context_score(q: np.ndarray, a: np.ndarray, before: np.ndarray | None, weight: float = 1.0) -> float:
    """cos(q, a + w b) for unit vectors, as vector_context.cypher computes it (or cos(q, a) alone)."""
    if before is None:
        return float(q @ a)
    return float((q @ a + weight * (q @ before)) / np.sqrt(1 + weight ** 2 + 2 * weight * float(a @ before)))


def _plan_details(db, name: str, params: dict[str, Any]) -> str:
    with db.session() as s:
        summary = s.run("PROFILE " + cypher.query(name), params).consume()

    def walk(plan: Any) -> str:
        return str(plan.get("args", {}).get("Details", "")) + " ".join(walk(c) for c in plan.get("children", []))

    return walk(summary.profile)


def test_the_small_reach_context_ranking_is_exact_and_reads_each_vector_once(db, tenants) -> None:
    """The exact path of the full pipeline (short turns read with the turn before) ranks every visible item by the
    formula, over the caller's own items and the public ones only; and it reads each visible vector once (reading
    them is most of its work: the turn before's vector was read three times)."""
    turns = _conversation(db, "talker", "clade-t", 36)
    _conversation(db, "other", "clade-o", 36)  # another agent's conversation: never ranked for talker
    q = _vectors(1)[0]
    params = {**_params("talker", "clade-t"), "embedding": q.tolist(), "top": 20, "short_chars": 80, "weight": 1.0}
    seen = reach.measure(db, params, 20_000)
    assert seen.visible == 36 + 10 and seen.exact(3_000)  # its turns and the ten public episodes
    visible = {i: (turns[i][0], turns[i][1]) for i in turns} | {f"pub-{i}": (tenants[f"pub-{i}"], "")
                                                               for i in range(10)}
    expected = {}
    for i, (vector, text) in visible.items():
        before = turns.get(f"talker-{int(i.split('-')[1]) - 1}") if i.startswith("talker-") else None
        linked = before is not None and int(i.split("-")[1]) % 6 != 0 and len(text) <= 80
        expected[i] = _context_score(q, vector, before[0] if linked and before else None)
    rows = db.rows("retrieval/vector_context", **params)
    assert [r["id"] for r in rows] == sorted(expected, key=lambda i: (-expected[i], i))[:20]
    assert all(abs(r["score"] - expected[r["id"]]) < 1e-4 for r in rows)
    details = _plan_details(db, "retrieval/vector_context", params)
    assert details.count("n.embedding") == 1 and details.count("p.embedding") == 1, details


def test_the_query_is_embedded_while_the_reach_is_counted(db, tenants, embedder) -> None:
    """The full pipeline starts counting the caller's reach, then embeds the query, and only then waits for the
    count: the count's round trip is not added to the embedding's time. Here the count waits for the embedding to
    have begun (10 s at most): had the pipeline waited for the count first, it would have waited in vain."""
    import threading

    from grimoire.graph.retrieval.pipeline import build
    from grimoire.graph.retrieval.request import RetrievalRequest

    retriever = build(db, embedder)
    embedding = threading.Event()
    overlapped: list[bool] = []
    count = retriever.reaches.measure

    def measure(*args: Any) -> reach.Reach:
        overlapped.append(embedding.wait(timeout=10))
        return count(*args)

    def embed(text: str) -> list[float]:
        embedding.set()
        return embedder.embed_one(text)

    retriever.reaches.measure = measure  # type: ignore[method-assign]
    retriever.embed = embed
    result = retriever.retrieve(RetrievalRequest(text="small turn 3", k=5), Visibility("small", "clade-s"), "small")
    assert overlapped and all(overlapped), overlapped
    assert result.results and all(r.id.split("-")[0] in ("small", "peer", "pub", "note") or r.kind == "entry"
                                  for r in result.results)


# ------------------------------------------------------------------ the exact ranking from held vectors (exact.py)
def test_the_held_ranking_is_the_cypher_ranking(db, tenants) -> None:
    """graph/retrieval/exact.py ranks a small reach from the replica's vectors: the same items in the same order,
    with the same scores, as vector_context.cypher (short turns read with the turn before) and vector_exact.cypher
    (each item by its own cosine), over the caller's own items and what it may see of others, never the rest."""
    from grimoire.graph.retrieval import exact

    _conversation(db, "talker", "clade-t", 36)
    _conversation(db, "other", "clade-o", 36)  # another agent's conversation: never ranked for talker
    q = _vectors(1)[0]
    held = exact.HeldVectors()
    for viewer, clade in (("talker", "clade-t"), ("small", "clade-s"), ("stranger", "clade-x")):
        params = _params(viewer, clade)
        cypher_rows = db.rows("retrieval/vector_context", embedding=q.tolist(), top=20, short_chars=80, weight=1.0,
                              **params)
        rows, vectors = exact.rank(db, held, q.tolist(), params, 20, short_chars=80, weight=1.0)
        assert [r["id"] for r in rows] == [r["id"] for r in cypher_rows], viewer
        assert all(abs(a["score"] - b["score"]) < 1e-4 for a, b in zip(rows, cypher_rows, strict=True))
        assert not any(i.startswith(("other-", "big-")) for i in vectors), viewer
        plain = db.rows(backends.exact_query(params), embedding=q.tolist(), top=20, **params)
        rows, _ = exact.rank(db, held, q.tolist(), params, 20)
        assert [r["id"] for r in rows] == [r["id"] for r in sorted(plain, key=lambda r: (-r["score"], r["id"]))]
    # The filters apply in the query that reads: recorded by 1,010, the talker's first eleven turns and the
    # public episodes (recorded at 1,000 to 1,009).
    params = _params("talker", "clade-t", known_as_of=1_010)
    rows, vectors = exact.rank(db, held, q.tolist(), params, 100, short_chars=80, weight=1.0)
    assert set(vectors) == {f"talker-{i}" for i in range(11)} | {f"pub-{i}" for i in range(10)}


def test_held_vectors_are_read_once_and_dropped_when_a_stored_vector_changes(db, tenants) -> None:
    """A second ranking reads no vector from the graph; a write that changes a stored vector in place moves the
    graph's counter in its own transaction (graph/db/vector_epoch.py), and the next ranking drops what it held and
    ranks with the new vector."""
    from grimoire.graph.db.vector_epoch import vectors_changed
    from grimoire.graph.retrieval import exact

    q = _vectors(1)[0]
    params = _params("small", "clade-s")
    held = exact.HeldVectors()
    first, _ = exact.rank(db, held, q.tolist(), params, 10)
    read = held.fetched
    assert read == 40 + 25 + 10 + 5 and len(held) == read
    again, _ = exact.rank(db, held, q.tolist(), params, 10)
    assert again == first and held.fetched == read  # nothing read twice
    assert held.reused == 1  # the same members: scored from the block the first ranking built
    target = first[-1]["id"]

    def change(tx) -> None:
        tx.run("MATCH (n:Episode {id: $id}) CALL db.create.setNodeVectorProperty(n, 'embedding', $v)",
               id=target, v=q.tolist()).consume()
        vectors_changed(tx)

    db.write(change)
    after, _ = exact.rank(db, held, q.tolist(), params, 10)
    assert held.dropped == 1 and held.fetched == 2 * read and held.reused == 1  # the block went with the items
    assert after[0]["id"] == target and after[0]["score"] == pytest.approx(1.0, abs=1e-5)
    # Erased and written again under the same id (another recorded time): another key, read afresh.
    db.run("testing/bulk_items", label="Episode", rows=[])
    with db.session() as s:
        s.run("MATCH (n:Episode {id: $id}) DETACH DELETE n", id=target).consume()
        s.run("CREATE (n:Episode {id: $id, agent_id: 'small', clade: 'clade-s', scope: 'private', text: 'again', "
              "recorded_at: 5000, valid_from: 5000}) WITH n CALL db.create.setNodeVectorProperty(n, 'embedding', $v)",
              id=target, v=(-q).tolist()).consume()
    last, _ = exact.rank(db, held, q.tolist(), params, 100)
    assert held.fetched == 2 * read + 1 and last[-1]["id"] == target and held.reused == 1  # other members: built
    assert last[-1]["score"] == pytest.approx(-1.0, abs=1e-5)


def test_a_block_is_kept_only_when_built_whole_at_the_members_counter(db, tenants) -> None:
    """What exact.items() reads is settled only when every key came back at the members' counter: a read at another
    counter (a cluster member behind or ahead) or a key gone since is used for this ranking and not kept, so no
    block of it outlives the request."""
    from grimoire.graph.retrieval import exact

    params = _params("small", "clade-s")
    found = exact.members(db, params)
    held = exact.HeldVectors()
    held.check(found.epoch)
    got, settled = exact.items(db, held, found.keys, found.epoch)
    assert settled and len(got) == len(found.keys) == len(held)
    behind = exact.HeldVectors()
    behind.check(found.epoch - 1)
    got, settled = exact.items(db, behind, found.keys, found.epoch - 1)  # members read at an older counter
    assert not settled and len(got) == len(found.keys) and len(behind) == 0
    gone = exact.HeldVectors()
    gone.check(found.epoch)
    got, settled = exact.items(db, gone, [*found.keys[:3], ("small-erased", 1)], found.epoch)
    assert not settled and len(got) == 3
    q = _vectors(1)[0]
    rows, _ = exact.rank(db, held, q.tolist(), params, 10)
    assert rows and held.kept_blocks() == 1
    # Built from a read at another counter: ranked, not kept.
    late = exact.HeldVectors()
    late.check(found.epoch)
    original = exact.items

    def lagging(db_, held_, keys, epoch):
        got_, _ = original(db_, held_, keys, epoch)
        return got_, False

    exact.items = lagging  # type: ignore[assignment]
    try:
        again, _ = exact.rank(db, late, q.tolist(), params, 10)
    finally:
        exact.items = original  # type: ignore[assignment]
    assert again == rows and late.kept_blocks() == 0


def test_items_read_by_id_keep_to_what_the_caller_sees(db) -> None:
    """The second read of the exact path (its candidates by id) applies the rule again: an item whose scope
    narrowed after the visible set was read is not returned to the agent that no longer sees it."""
    from grimoire.graph.retrieval import items

    _add(db, "mine", 2, "golem-a", "clade-a", "shared")
    _add(db, "theirs", 2, "golem-b", "clade-a", "shared", label="Entry")
    ids = ["mine-0", "mine-1", "theirs-0", "theirs-1"]
    a, b = Visibility.of("golem-a", "clade-a"), Visibility.of("golem-b", "clade-a")
    assert set(items.fetch(db, ids, a)) == set(items.fetch(db, ids, b)) == set(ids)  # shared in the clade
    db.run("testing/set_scope", ids=["theirs-0"], scope="private")
    assert set(items.fetch(db, ids, a)) == {"mine-0", "mine-1", "theirs-1"}
    assert set(items.fetch(db, ids, b)) == set(ids)  # its owner still sees it
    assert set(items.fetch(db, ids, Visibility.of("golem-c", "clade-c"))) == set()
    assert set(items.fetch(db, ids, Visibility.everything())) == set(ids)


# ------------------------------------------------------------------ the overlapped reads of the exact path
@pytest.mark.parametrize("overlap", [True, False])
def test_bm25_and_the_members_are_read_while_the_query_is_embedded(db, tenants, embedder, monkeypatch,
                                                                   overlap: bool) -> None:
    """For a reach ranked exactly, the full pipeline starts BM25 and the read of who sees what (the members) in the
    pool, then embeds the query: neither round trip is added to the embedding's time. Here the embedding waits for
    both reads to have started: with the overlap they have (within 10 s); one after another (OVERLAP off) they
    cannot start until the embedding returns, so its wait (1 s) finds them not started. (Each read as its own
    statement, ONE_READ off: the one statement of both is the next test's.)"""
    import threading

    from grimoire.graph.retrieval import context, exact
    from grimoire.graph.retrieval.pipeline import build
    from grimoire.graph.retrieval.request import RetrievalRequest

    monkeypatch.setattr(context, "OVERLAP", overlap)
    monkeypatch.setattr(context, "ONE_READ", False)
    retriever = build(db, embedder)
    started = {"members": threading.Event(), "bm25": threading.Event()}
    seen: dict[str, bool] = {}
    members, bm25 = exact.members, backends.bm25

    def started_members(*args: Any) -> exact.Members:
        started["members"].set()
        return members(*args)

    def started_bm25(*args: Any, **kwargs: Any) -> list[Any]:
        started["bm25"].set()
        return bm25(*args, **kwargs)

    def embed(text: str) -> list[float]:
        for name, event in started.items():
            seen[name] = event.wait(timeout=10 if overlap else 1)
        return embedder.embed_one(text)

    monkeypatch.setattr(exact, "members", started_members)
    monkeypatch.setattr(backends, "bm25", started_bm25)
    retriever.embed = embed
    result = retriever.retrieve(RetrievalRequest(text="small turn 3", k=5), Visibility("small", "clade-s"), "small")
    assert seen == {"members": overlap, "bm25": overlap}, seen
    assert started["members"].is_set() and started["bm25"].is_set()  # read either way, before or after
    assert result.results and not any(r.id.startswith("big-") for r in result.results)


def test_overlapped_reads_answer_as_one_after_another(db, tenants, embedder, monkeypatch) -> None:
    """The overlap changes when the statements run, not what they answer: every mode, for callers of a small reach
    (ranked exactly) and of a large one (the index), returns the same items in the same order with the same scores
    one after another, overlapped, and with the members and BM25 read in one statement (ONE_READ)."""
    from grimoire.graph.retrieval import context
    from grimoire.graph.retrieval.pipeline import build
    from grimoire.graph.retrieval.request import RetrievalRequest

    _conversation(db, "talker", "clade-t", 36)
    retriever = build(db, embedder)
    callers = [("small", "clade-s"), ("talker", "clade-t"), ("big", "clade-b")]
    for viewer, clade in callers:
        for mode in ("hybrid", "vector", "fusion", "four_factor"):
            for text in ("small turn 3", "reply 7", "a longer message about turn 12"):
                req = RetrievalRequest(text=text, k=10, mode=mode, no_budget=True)
                answers = []
                for overlap, one_read in ((False, False), (True, False), (True, True)):
                    monkeypatch.setattr(context, "OVERLAP", overlap)
                    monkeypatch.setattr(context, "ONE_READ", one_read)
                    got = retriever.retrieve(req, Visibility(viewer, clade), viewer)
                    answers.append([(r.id, round(r.score or 0.0, 4)) for r in got.results])
                assert answers[0] == answers[1] == answers[2] and answers[0], (viewer, mode, text)


def test_the_next_retrieval_ranks_a_write_and_the_overlap_keeps_to_what_the_caller_sees(db, tenants,
                                                                                         embedder) -> None:
    """Nothing of the overlapped reads outlives its request: a turn written after a retrieval is found by the next
    one (its members and its properties read again), and a turn another agent keeps private, or narrows to private
    after a retrieval that returned it, is never returned to a caller that does not see it. (Each turn says
    something of its own: two turns alike, the diversity stage would cut one as the other's near-duplicate.)"""
    from grimoire.graph.retrieval.pipeline import build
    from grimoire.graph.retrieval.request import RetrievalRequest

    retriever = build(db, embedder)
    small = Visibility("small", "clade-s")
    said = {"small-new": "the lighthouse keeper paints the stairs blue",
            "peer-new": "the harbour master counts the gulls at dawn",
            "big-new": "the orchard keeper picks green apples in the rain"}

    def ids(item: str) -> list[str]:
        req = RetrievalRequest(text=said[item], k=10, no_budget=True)
        return [r.id for r in retriever.retrieve(req, small, "small").results]

    assert "small-new" not in ids("small-new")
    for item, agent, clade, scope in (("small-new", "small", "clade-s", "private"),
                                      ("peer-new", "peer", "clade-s", "shared"),
                                      ("big-new", "big", "clade-b", "private")):
        db.run("testing/bulk_items", label="Episode", rows=[{"id": item, "embedding": embedder.embed_one(said[item]),
                                                             "props": {
            "agent_id": agent, "clade": clade, "scope": scope, "text": said[item], "type": "conversation",
            "valid_from": 5_000, "recorded_at": 5_000, "last_accessed_at": 5_000}}])
    assert "small-new" in ids("small-new")[:3]
    assert "peer-new" in ids("peer-new")[:3]
    assert "big-new" not in ids("big-new")
    db.run("testing/set_scope", ids=["peer-new"], scope="private")
    assert "peer-new" not in ids("peer-new")
    assert "small-new" in ids("small-new")[:3]


def test_the_members_and_bm25_are_one_statement_for_an_exact_reach(db, tenants, embedder, monkeypatch) -> None:
    """With ONE_READ (the default), a caller ranked exactly has its members and BM25's hits read in one statement
    (members_fulltext.cypher) in the pool, before the query is embedded, and no exact_members or fulltext statement
    beside it; its BM25 rows and members are those of the two statements. A caller of a large reach (the index), or a
    text with no word BM25 can match, reads as before."""
    from grimoire.graph.db.lucene import escape_lucene, scoped
    from grimoire.graph.retrieval import context, exact
    from grimoire.graph.retrieval.pipeline import build
    from grimoire.graph.retrieval.request import RetrievalRequest

    monkeypatch.setattr(context, "ONE_READ", True)
    retriever = build(db, embedder)
    ran = _statements_counted(monkeypatch)

    def statements(viewer: str, clade: str, text: str) -> Counter[str]:
        ran.clear()
        retriever.retrieve(RetrievalRequest(text=text, k=5), Visibility(viewer, clade), viewer)
        return Counter({n: c for n, c in ran.items() if n in ("retrieval/members_fulltext", "retrieval/exact_members",
                                                             "retrieval/fulltext")})

    assert statements("small", "clade-s", "small turn 3") == {"retrieval/members_fulltext": 1}
    assert statements("small", "clade-s", "the") == {"retrieval/exact_members": 1}  # stop words: BM25 asks nothing
    assert statements("big", "clade-b", "big turn 3") == {"retrieval/fulltext": 1}  # 3,010 seen: the index

    params = _params("small", "clade-s")
    query = scoped(escape_lucene("small turn 3"), backends.scope_of(params))
    both = db.rows("retrieval/members_fulltext", query=query, candidates=20, top=20, memories=False, **params)
    alone = db.rows("retrieval/fulltext", query=query, candidates=20, top=20, memories=False, **params)
    assert backends._best_first(list(both[0]["hits"])) == backends._best_first(alone) and alone
    assert exact.members_of(both) == exact.members(db, params)
    seen = {k[0] for k in exact.members_of(both).keys}
    assert {i for i in tenants if i.startswith(("small-", "peer-", "pub-", "note-"))} <= seen
    assert not any(i.startswith("big-") for i in seen)  # another clade's private items: never a member


def test_a_small_share_of_a_larger_store_is_ranked_exactly_past_exact_below(db, tenants, embedder,
                                                                             monkeypatch) -> None:
    """RetrievalConfig.exact_index_ratio (reach.ExactRule): `small` sees 80 of 3,080 items, so the index would be
    asked for 1,155 candidates (1.5 x 20 / share) to keep its 20: with the ratio it is ranked exactly (the members'
    statement, the exact ranking's ids), though 80 is past exact_below; without it, through the index. `big`, who
    sees nearly all, keeps the index either way."""

    from grimoire.graph.retrieval import context
    from grimoire.graph.retrieval.config import RetrievalConfig
    from grimoire.graph.retrieval.pipeline import build
    from grimoire.graph.retrieval.request import RetrievalRequest

    monkeypatch.setattr(context, "ONE_READ", True)
    ran = _statements_counted(monkeypatch)

    def path(ratio: float, viewer: str, clade: str) -> str:
        retriever = build(db, embedder, RetrievalConfig(exact_below=50, exact_index_ratio=ratio))
        ran.clear()
        retriever.retrieve(RetrievalRequest(text="small turn 3", k=5), Visibility(viewer, clade), viewer)
        members = ran["retrieval/members_fulltext"] + ran["retrieval/members_fulltext_entities"]
        return "exact" if members else "index" if ran["retrieval/vector"] else "?"

    assert path(1.0, "small", "clade-s") == "exact"
    assert path(0.0, "small", "clade-s") == "index"
    assert path(1.0, "big", "clade-b") == "index"
    seen = reach.measure(db, _params("small", "clade-s"), 20_000)
    assert reach.ExactRule(below=50, upto=20_000, ratio=1.0).limit(seen) == 1_155
    q = _vectors(1)[0].tolist()
    small = _params("small", "clade-s")
    by_rule = backends.vector(db, q, 10, 1, small, seen, reach.ExactRule(below=50, upto=20_000, ratio=1.0))
    assert [r["id"] for r in by_rule] == [r["id"] for r in db.rows("retrieval/vector_exact", embedding=q, top=10,
                                                                    **small)]


def test_the_candidates_and_the_graphs_neighbours_are_one_statement_for_an_exact_reach(db, tenants, embedder,
                                                                                      monkeypatch) -> None:
    """With ONE_GRAPH_READ (the default), a caller ranked exactly has the exact ranking's candidates and the graph
    backend's neighbours of its strongest hits read in one statement (items_neighbours.cypher), and no items or
    graph_neighbours statement beside it; the results are those of the two statements, in order, explanation and all.
    A caller of a large reach (the index: its candidates come with their properties) reads the neighbours alone."""
    from grimoire.graph.retrieval import context
    from grimoire.graph.retrieval.pipeline import build
    from grimoire.graph.retrieval.request import RetrievalRequest

    # A thread: each of small's turns follows the one before, so that the neighbours are there to find.
    db.run("testing/bulk_follows", pairs=[[f"small-{i}", f"small-{i - 1}"] for i in range(1, 40)])
    retriever = build(db, embedder)
    ran = _statements_counted(monkeypatch)
    watched = ("retrieval/items_neighbours", "retrieval/items", "retrieval/graph_neighbours")

    def retrieve(viewer: str, clade: str, text: str, one: bool) -> tuple[Counter[str], list[Any]]:
        monkeypatch.setattr(context, "ONE_GRAPH_READ", one)
        ran.clear()
        found = retriever.retrieve(RetrievalRequest(text=text, k=10, explain=True), Visibility(viewer, clade), viewer)
        return Counter({n: c for n, c in ran.items() if n in watched}), [
            (r.id, r.explain.backends if r.explain else None) for r in found.results]

    through_graph = 0
    for text in ("small turn 3", "small turn 17", "peer turn 4"):
        one, together = retrieve("small", "clade-s", text, True)
        two, apart = retrieve("small", "clade-s", text, False)
        assert one == {"retrieval/items_neighbours": 1}, one
        assert two == {"retrieval/items": 1, "retrieval/graph_neighbours": 1}, two
        assert together == apart and together  # the same ids in the same order, each found the same ways
        through_graph += sum("graph" in (backends_ or {}) for _, backends_ in together)
    assert through_graph  # the thread's neighbours were found and returned
    big, _ = retrieve("big", "clade-b", "big turn 3", True)
    assert big == {"retrieval/graph_neighbours": 1}  # 3,010 seen: the index, whose rows carry their properties


def test_the_named_entities_are_read_with_the_members_once_the_reach_is_held(db, tenants, embedder,
                                                                            monkeypatch) -> None:
    """With ONE_ENTITY_READ (the default), once this replica holds a caller's reach and ranks it exactly, the entities
    its text names are read in the members and BM25's statement (members_fulltext_entities.cypher), with no
    entity_candidates statement beside it; the entities are the ones that statement finds (the viewer's only), and so
    the results are the same. A reach not held yet, or one searched through the index, looks them up on their own."""
    from grimoire.graph.db.connection import Database
    from grimoire.graph.retrieval import context
    from grimoire.graph.retrieval.pipeline import build
    from grimoire.graph.retrieval.request import RetrievalRequest
    from grimoire.graph.topology import entities
    from grimoire.graph.topology.model import EntityIn

    entities.upsert(db, [EntityIn(kind="Person", name="Small Turn")], actor="test", public=True)
    entities.upsert(db, [EntityIn(kind="Person", name="Hidden Turn")], actor="test", public=False, creator="big")
    # The small reach held for as long as the test runs (5 s by default: a slow machine's first retrieval outlasts it).
    from grimoire.graph.retrieval.config import RetrievalConfig

    retriever = build(db, embedder, RetrievalConfig(small_reach_reuse_seconds=600))
    ran: Counter[str] = Counter()
    rows = Database.rows
    named: list[Any] = []  # each retrieval's future of its named entities
    named_entities = context.Context.named_entities

    def counted(self: Database, name: str, /, **params: Any) -> list[Any]:
        ran[name] += 1
        return rows(self, name, **params)

    def noted(self: context.Context, limit: int, possessives: bool) -> Any:
        found = named_entities(self, limit, possessives)
        named.append(found)
        return found

    monkeypatch.setattr(Database, "rows", counted)
    monkeypatch.setattr(context.Context, "named_entities", noted)
    watched = ("retrieval/members_fulltext_entities", "retrieval/members_fulltext", "retrieval/entity_candidates")

    def retrieve(viewer: str, clade: str, text: str, one: bool) -> tuple[Counter[str], list[str], list[str]]:
        monkeypatch.setattr(context, "ONE_ENTITY_READ", one)
        ran.clear()
        named.clear()
        found = retriever.retrieve(RetrievalRequest(text=text, k=10), Visibility(viewer, clade), viewer)
        return Counter({n: c for n, c in ran.items() if n in watched}), named[0].result(), [r.id for r in found.results]

    first, _, _ = retrieve("small", "clade-s", "small turn 3 hidden turn", True)
    assert first == {"retrieval/members_fulltext": 1, "retrieval/entity_candidates": 1}  # the reach not held yet
    together = retrieve("small", "clade-s", "small turn 3 hidden turn", True)
    apart = retrieve("small", "clade-s", "small turn 3 hidden turn", False)
    assert together[0] == {"retrieval/members_fulltext_entities": 1}
    assert apart[0] == {"retrieval/members_fulltext": 1, "retrieval/entity_candidates": 1}
    assert together[1] == apart[1] == ["person:small turn"]  # big's own entity is not small's to see
    assert together[2] == apart[2] and together[2]
    big, names, _ = retrieve("big", "clade-b", "big turn 3 hidden turn", True)
    assert big == {"retrieval/entity_candidates": 1} and "person:hidden turn" in names  # the index: on its own
