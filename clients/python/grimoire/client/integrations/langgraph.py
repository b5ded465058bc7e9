"""LangGraph's long-term memory store (`langgraph.store.base.BaseStore`) kept in Grimoire, over the typed client:
`pip install grimoire-client[langgraph]`.

    from grimoire.client import Grimoire
    from grimoire.client.integrations.langgraph import GrimoireStore
    store = GrimoireStore(Grimoire(url, api_key=key))                  # namespace[0] is the agent
    store.put(("golem-1", "prefs"), "food", {"likes": "ramen"})
    store.search(("golem-1",), query="what does the user like to eat")  # hybrid retrieval

Mapping. An item is an episode of its agent (type observation, the store's scope, private by default): the agent
is `namespace[0]` (a store made with `agent_id=` keeps every namespace, whole, under that one agent instead, as
LangMem's ("memories", user) namespaces need). The episode's text is a marker token for its (namespace, key)
and the item as JSON, so retrieval's BM25 and embeddings see the value. Episodes are never edited, so every
change is an ordinary audited write that Grimoire's rollback undoes: a put records the key's next revision (its
id says which), a delete records a tombstone revision, and the newest revision is the item. Rolling back a put
or a delete (POST /agents/{id}/rollback, by record, actor or time) removes that revision, and the one before is
the item again. A key keeps its last KEEP revisions; older ones are expired (POST /crystals/{id}/lifecycle,
audited), as are all earlier ones under a put with a TTL, so that the value before never comes back when it
lapses. What the key may not see (another agent's private items) the store cannot read either, and writing into
another agent's namespace is refused (Forbidden).

Operations: `get` finds the key's revisions by its token (POST /search, full text) and reads the newest;
`search` with a query goes through hybrid retrieval (POST /retrieve, the agent's episodes), keeps the hits that
are their key's newest revision (one full-text search for a few keys' tokens), under the prefix and passing
the filter, with retrieval's scores; without a query it pages the agent's episodes (GET /episodes), as
`list_namespaces` does. TTL: a put's `ttl` (minutes) becomes the episode's governance (lifespan ttl, `ttl_ms`),
expired by the service's scheduler; the service counts it from the write, so `refresh_ttl` changes nothing.
`index`: the service embeds every item whatever the put says. `abatch` runs on the async client when one is
given (`aclient=`), else the sync batch in a worker thread.

Each operation is written once, as a generator of client calls (`Call`): `batch` answers them with the sync
client, `abatch` awaits the async one."""

from __future__ import annotations

import asyncio
import hashlib
import json
import uuid
from collections.abc import Generator, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    TTLConfig,
)

from grimoire.client import AsyncGrimoire, Grimoire

TOKEN = "lgk"        # the text's first word: lgk + the (namespace, key) digest, found by full-text search
ID_PREFIX = "lg-"    # an item's episode id: lg-<digest>-<revision>-<nonce>
PAGE = 100           # the service's largest page and k
MINUTE_MS = 60_000
MIN_TTL_MS = 1_000   # the least lifespan the service takes (GovernanceIn.ttl_ms)
KEEP = 20            # revisions a key keeps for rollback: KEEP x TOKENS_PER_SEARCH hits fit one search's k
TOKENS_PER_SEARCH = 5


@dataclass(frozen=True)
class Call:
    """One client method call an operation needs answered."""
    method: str
    args: tuple[Any, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)


Steps = Generator[Call, Any, Any]


def digest(namespace: tuple[str, ...], key: str) -> str:
    return hashlib.sha256(json.dumps([list(namespace), key]).encode()).hexdigest()[:32]


@dataclass(frozen=True)
class Stored:
    """An item as its episode holds it."""
    episode_id: str
    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any] | None  # None: a tombstone (deleted)
    revision: int
    created_at: datetime
    updated_at: datetime

    def item(self) -> Item:
        assert self.value is not None
        return Item(value=self.value, key=self.key, namespace=self.namespace, created_at=self.created_at,
                    updated_at=self.updated_at)

    def search_item(self, score: float | None) -> SearchItem:
        assert self.value is not None
        return SearchItem(namespace=self.namespace, key=self.key, value=self.value, created_at=self.created_at,
                          updated_at=self.updated_at, score=score)


def text_of(namespace: tuple[str, ...], key: str, value: Mapping[str, Any] | None, revision: int,
            created_at: datetime, updated_at: datetime) -> str:
    record = {"namespace": list(namespace), "key": key, "value": None if value is None else dict(value),
              "revision": revision, "created_at": created_at.isoformat(), "updated_at": updated_at.isoformat()}
    return f"{TOKEN}{digest(namespace, key)} {json.dumps(record, ensure_ascii=False, sort_keys=True)}"


def parse(episode_id: str, text: str | None) -> Stored | None:
    """The item an episode holds; None for an episode the store did not write."""
    if not episode_id.startswith(ID_PREFIX) or not text or not text.startswith(TOKEN):
        return None
    _, _, body = text.partition(" ")
    try:
        r = json.loads(body)
        found = Stored(episode_id, tuple(r["namespace"]), r["key"], r["value"], int(r["revision"]),
                       datetime.fromisoformat(r["created_at"]), datetime.fromisoformat(r["updated_at"]))
    except (ValueError, KeyError, TypeError):
        return None
    return found if text.startswith(f"{TOKEN}{digest(found.namespace, found.key)} ") else None


def revision_of(episode_id: str) -> int:
    return int(episode_id.split("-")[2])


def _path(value: Any, dotted: str) -> tuple[bool, Any]:
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return False, None
        value = value[part]
    return True, value


def _compare(found: Any, op: str, wanted: Any) -> bool:
    try:
        if op == "$eq":
            return bool(found == wanted)
        if op == "$ne":
            return bool(found != wanted)
        if op == "$gt":
            return bool(found > wanted)
        if op == "$gte":
            return bool(found >= wanted)
        if op == "$lt":
            return bool(found < wanted)
        if op == "$lte":
            return bool(found <= wanted)
    except TypeError:
        return False
    raise ValueError(f"unsupported filter operator {op!r}: $eq, $ne, $gt, $gte, $lt or $lte")


def matches(value: dict[str, Any], filter: dict[str, Any] | None) -> bool:
    """LangGraph's filter: exact values (a dotted key reaches into nested values) or {"$op": operand}."""
    for name, wanted in (filter or {}).items():
        present, found = _path(value, name)
        if isinstance(wanted, dict) and wanted and all(k.startswith("$") for k in wanted):
            if not all(_compare(found, op, operand) if present or op == "$ne" else False
                       for op, operand in wanted.items()):
                return False
        elif not present or found != wanted:
            return False
    return True


def _fits(namespace: tuple[str, ...], path: tuple[str, ...], suffix: bool) -> bool:
    if len(path) > len(namespace):
        return False
    part = namespace[-len(path):] if suffix and path else namespace[:len(path)]
    return all(p == "*" or p == n for p, n in zip(path, part, strict=True))


def list_namespaces_of(namespaces: Iterable[tuple[str, ...]], op: ListNamespacesOp) -> list[tuple[str, ...]]:
    conditions: tuple[MatchCondition, ...] = op.match_conditions or ()
    kept = {ns[:op.max_depth] if op.max_depth is not None else ns for ns in namespaces
            if all(_fits(ns, c.path, c.match_type == "suffix") for c in conditions)}
    return sorted(kept)[op.offset:op.offset + op.limit]


class GrimoireStore(BaseStore):
    """A LangGraph BaseStore whose items are Grimoire episodes (the module's docstring says how)."""

    supports_ttl = True

    def __init__(self, client: Grimoire, *, aclient: AsyncGrimoire | None = None, agent_id: str | None = None,
                 scope: str = "private", ttl: TTLConfig | None = None) -> None:
        self.client, self.aclient, self.agent_id, self.scope = client, aclient, agent_id, scope
        self.ttl_config = ttl

    # ---------------------------------------------------------------- drivers

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return list(self._drive(self._run(list(ops))))

    def revisions(self, namespace: tuple[str, ...], key: str) -> list[str]:
        """The episode ids of a key's revisions, newest first (a tombstone among them): what the audit trail
        (GET /agents/{id}/audit/items/{episode}) and a rollback (POST /agents/{id}/rollback) name."""
        return list(self._drive(self._live(namespace, key)))

    def _drive(self, steps: Steps) -> Any:
        answer: Any = None
        try:
            while True:
                call = steps.send(answer)
                answer = getattr(self.client, call.method)(*call.args, **call.kwargs)
        except StopIteration as done:
            return done.value

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        listed = list(ops)
        if self.aclient is None:
            return await asyncio.to_thread(self.batch, listed)
        steps = self._run(listed)
        answer: Any = None
        try:
            while True:
                call = steps.send(answer)
                answer = await getattr(self.aclient, call.method)(*call.args, **call.kwargs)
        except StopIteration as done:
            return list(done.value)

    # ---------------------------------------------------------------- operations

    def _run(self, ops: list[Op]) -> Steps:
        results: list[Result] = [None] * len(ops)
        # As LangGraph's own stores: of several puts to one key in a batch, the last one is written.
        last_put = {(op.namespace, op.key): i for i, op in enumerate(ops) if isinstance(op, PutOp)}
        for i, op in enumerate(ops):
            if isinstance(op, GetOp):
                results[i] = yield from self._get(op)
            elif isinstance(op, PutOp):
                if last_put[(op.namespace, op.key)] == i:
                    yield from self._put(op)
            elif isinstance(op, SearchOp):
                results[i] = yield from self._search(op)
            elif isinstance(op, ListNamespacesOp):
                results[i] = list_namespaces_of((yield from self._namespaces(op)), op)
            else:
                raise ValueError(f"unknown operation {type(op).__name__}")
        return results

    def _agent(self, namespace: tuple[str, ...]) -> str | None:
        if self.agent_id is not None:
            return self.agent_id
        return namespace[0] if namespace and namespace[0] != "*" else None

    def _revisions(self, keys: list[tuple[tuple[str, ...], str]]) -> Steps:
        """Each key's revisions the key sees, newest first, by digest: one full-text search per few keys."""
        found: dict[str, list[str]] = {}
        digests = list(dict.fromkeys(digest(ns, key) for ns, key in keys))
        for start in range(0, len(digests), TOKENS_PER_SEARCH):
            chunk = digests[start:start + TOKENS_PER_SEARCH]
            hits = yield Call("search_memory", ({"text": " ".join(f"{TOKEN}{d}" for d in chunk), "mode": "fulltext",
                                                  "kind": "episodes", "k": PAGE},))
            for hit in hits:
                parts = hit.id.split("-")
                if hit.id.startswith(ID_PREFIX) and len(parts) == 4 and parts[1] in chunk:
                    found.setdefault(parts[1], []).append(hit.id)
        return {d: sorted(ids, key=revision_of, reverse=True) for d, ids in found.items()}

    def _live(self, namespace: tuple[str, ...], key: str) -> Steps:
        """The key's revisions, newest first."""
        return (yield from self._revisions([(namespace, key)])).get(digest(namespace, key), [])

    def _get(self, op: GetOp) -> Steps:
        agent = self._agent(op.namespace)
        for episode_id in (yield from self._live(op.namespace, op.key)):
            episode = yield Call("get_episode", (episode_id,))
            if agent is not None and episode.agent_id != agent:
                continue  # another agent's episode under a store id (a clade mate's, a public one): not this key's
            found = parse(episode.id, episode.text)
            if found is not None and found.namespace == op.namespace and found.key == op.key:
                return found.item() if found.value is not None else None  # the newest is the item
        return None

    def _put(self, op: PutOp) -> Steps:
        live = yield from self._live(op.namespace, op.key)
        before: Stored | None = None
        if live:
            episode = yield Call("get_episode", (live[0],))
            before = parse(episode.id, episode.text)
        if op.value is None and (before is None or before.value is None):
            return  # nothing to delete
        revision = revision_of(live[0]) + 1 if live else 1
        now = datetime.now(UTC)
        created = before.created_at if before is not None and before.value is not None else now
        written: dict[str, Any] = {
            "id": f"{ID_PREFIX}{digest(op.namespace, op.key)}-{revision}-{uuid.uuid4().hex[:8]}",
            "type": "observation", "scope": self.scope,
            "text": text_of(op.namespace, op.key, op.value, revision, created, now)}
        agent = self._agent(op.namespace)
        if agent is not None:
            written["agent_id"] = agent
        if op.ttl is not None and op.value is not None:
            written["governance"] = {"lifespan": "ttl", "ttl_ms": max(MIN_TTL_MS, round(op.ttl * MINUTE_MS))}
        yield Call("record_episodes", ({"episodes": [written]},))
        # what lapses with a TTL must not uncover the value before it; else the last KEEP stay for rollback
        dropped = live if "governance" in written else live[KEEP - 1:]
        for episode_id in dropped:
            yield Call("crystal_lifecycle", (episode_id, {"to": "expired", "reason": "langgraph store: superseded"}))

    def _all(self, agent: str | None) -> Steps:
        """Every live item the key sees (of one agent when given), one per key: its newest revision."""
        newest: dict[tuple[tuple[str, ...], str], Stored] = {}
        offset = 0
        while True:
            page = yield Call("list_episodes", (), {"agent_id": agent, "type": "observation", "offset": offset,
                                                    "limit": PAGE})
            for episode in page:
                found = parse(episode.id, episode.text)
                if found is not None:
                    was = newest.get((found.namespace, found.key))
                    if was is None or was.revision < found.revision:
                        newest[(found.namespace, found.key)] = found
            if len(page) < PAGE:
                return [s for s in newest.values() if s.value is not None]
            offset += len(page)

    def _search(self, op: SearchOp) -> Steps:
        prefix = op.namespace_prefix
        agent = self._agent(prefix)
        scored: list[tuple[Stored, float | None]] = []
        if op.query:
            filters: dict[str, Any] = {"kinds": ["episodes"], **({"agent_id": agent} if agent else {})}
            found = yield Call("retrieve_memory", ({"text": op.query, "k": PAGE, "no_budget": True,
                                                    "filters": filters},))
            hits = [(stored, hit.score) for hit in found.results
                    if (stored := parse(hit.id, hit.text)) is not None and stored.namespace[:len(prefix)] == prefix
                    and stored.value is not None and matches(stored.value, op.filter)]
            keys = list(dict.fromkeys((s.namespace, s.key) for s, _ in hits))[:op.offset + op.limit]
            newest = yield from self._revisions(keys)
            current = {ids[0] for ids in newest.values() if ids}
            scored = [(s, score) for s, score in hits if s.episode_id in current]
        else:
            items = yield from self._all(agent)
            scored = [(s, None) for s in sorted(items, key=lambda s: s.updated_at, reverse=True)]
        kept = [(s, score) for s, score in scored
                if s.namespace[:len(prefix)] == prefix and matches(s.value or {}, op.filter)]
        return [s.search_item(score) for s, score in kept[op.offset:op.offset + op.limit]]

    def _namespaces(self, op: ListNamespacesOp) -> Steps:
        prefixes = [c.path for c in op.match_conditions or () if c.match_type == "prefix"]
        agent = self.agent_id or next((p[0] for p in prefixes if p and p[0] != "*"), None)
        return [s.namespace for s in (yield from self._all(agent))]
