"""graphiti-core's side of `python -m bench graphiti`, run by bench/graphiti.py in graphiti's own venv (`make
graphiti-venv`): it imports nothing of Grimoire's. It speaks JSON lines on stdin/stdout:

- {"op": "load", "uri", "user", "password", "conversations": [...]}: graphiti's own `build_indices_and_constraints`,
  then each conversation's turns written through graphiti's own bulk save (`add_nodes_and_edges_bulk`) as
  EntityEdges (fact = the turn's text, fact_embedding = its MiniLM vector, between the EntityNodes of its speaker
  and the other speaker, group_id = the conversation). Answers {"edges": n, "seconds": s}.
- {"op": "search", "group_id", "query", "vector"}: graphiti's `search_` with EDGE_HYBRID_SEARCH_RRF (BM25 and cosine
  over the edges, RRF; no cross-encoder), group_ids [group_id], limit 10, the query's vector given (no embedding
  call). Answers {"ms": the search's time in this process, "turns": the turn ids of the edges found, best first}.
- {"op": "close"}.

No LLM and no model service exist offline: graphiti's LLM client and cross-encoder here refuse every call (none is
made on these paths), and its embedder answers only the vectors the workload brought (the same MiniLM vectors
Grimoire stores), so nothing reaches the network. Telemetry is off."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import time
import uuid
from datetime import UTC, datetime
from typing import Any

os.environ["GRAPHITI_TELEMETRY_ENABLED"] = "false"  # graphiti would post an event to its telemetry service
# Neo4j's notifications (a property key no edge has yet) would be logged on every search, inside the timed call.
logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)

from graphiti_core import Graphiti  # noqa: E402
from graphiti_core.cross_encoder.client import CrossEncoderClient  # noqa: E402
from graphiti_core.driver.neo4j_driver import Neo4jDriver  # noqa: E402
from graphiti_core.edges import EntityEdge  # noqa: E402
from graphiti_core.embedder.client import EmbedderClient  # noqa: E402
from graphiti_core.llm_client import LLMClient  # noqa: E402
from graphiti_core.nodes import EntityNode  # noqa: E402
from graphiti_core.search.search_config_recipes import EDGE_HYBRID_SEARCH_RRF  # noqa: E402
from graphiti_core.utils.bulk_utils import add_nodes_and_edges_bulk  # noqa: E402

LIMIT = 10
NAMESPACE = uuid.UUID("5f1c1f3e-6a34-4c4e-9d0c-6b1f4f1f0b41")  # turn ids -> stable edge uuids


class Offline(Exception):
    pass


class NoLLM(LLMClient):
    async def _generate_response(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        raise Offline("no LLM offline: the benchmark writes graphiti's edges itself")


class NoCrossEncoder(CrossEncoderClient):
    async def rank(self, query: str, passages: list[str]) -> list[tuple[str, float]]:
        raise Offline("no cross-encoder offline: only cross-encoder-free search configs are measured")


class KnownVectors(EmbedderClient):
    """The workload's vectors by text; any other text is an error (no hidden embedding on graphiti's side)."""

    def __init__(self) -> None:
        self.vectors: dict[str, list[float]] = {}

    async def create(self, input_data: Any) -> list[float]:
        return self.vectors[input_data]

    async def create_batch(self, input_data_list: list[str]) -> list[list[float]]:
        return [self.vectors[t] for t in input_data_list]


class Side:
    def __init__(self) -> None:
        self.graphiti: Graphiti | None = None
        self.embedder = KnownVectors()
        self.turn_of: dict[str, str] = {}
        self.config = EDGE_HYBRID_SEARCH_RRF.model_copy(update={"limit": LIMIT})

    async def load(self, msg: dict[str, Any]) -> dict[str, Any]:
        driver = Neo4jDriver(msg["uri"], msg["user"], msg["password"])
        self.graphiti = g = Graphiti(graph_driver=driver, llm_client=NoLLM(None), embedder=self.embedder,
                                     cross_encoder=NoCrossEncoder())
        started = time.perf_counter()
        # graphiti creates its indexes concurrently and ignores Neo4j's "equivalent index already exists" races,
        # but its driver logs each at ERROR first: quiet while it builds.
        quiet = logging.getLogger("graphiti_core.driver.neo4j_driver")
        level = quiet.level
        quiet.setLevel(logging.CRITICAL)
        try:
            await g.build_indices_and_constraints()
        finally:
            quiet.setLevel(level)
        await driver.execute_query("CALL db.awaitIndexes(600)")
        edges = 0
        now = datetime.now(UTC)
        for conv in msg["conversations"]:
            group = conv["group_id"]
            nodes = {}
            for name, vector in conv["speakers"].items():
                nodes[name] = EntityNode(uuid=str(uuid.uuid5(NAMESPACE, f"{group}/{name}")), name=name,
                                         group_id=group, labels=["Entity"], name_embedding=vector, created_at=now)
            names = list(nodes)
            batch = []
            for turn in conv["turns"]:
                other = next((n for n in names if n != turn["speaker"]), turn["speaker"])
                edge_uuid = str(uuid.uuid5(NAMESPACE, turn["id"]))
                when = datetime.fromisoformat(turn["valid_at"]) if turn["valid_at"] else None
                self.turn_of[edge_uuid] = turn["id"]
                batch.append(EntityEdge(uuid=edge_uuid, group_id=group, source_node_uuid=nodes[turn["speaker"]].uuid,
                                        target_node_uuid=nodes[other].uuid, created_at=now, name="SAID",
                                        fact=turn["text"], fact_embedding=turn["vector"], episodes=[], valid_at=when,
                                        reference_time=when))
            await add_nodes_and_edges_bulk(driver, [], [], list(nodes.values()), batch, self.embedder)
            edges += len(batch)
        await driver.execute_query("CALL db.awaitIndexes(600)")
        return {"edges": edges, "seconds": round(time.perf_counter() - started, 1)}

    async def search(self, msg: dict[str, Any]) -> dict[str, Any]:
        assert self.graphiti is not None, "load first"
        t0 = time.perf_counter()
        found = await self.graphiti.search_(msg["query"], config=self.config, group_ids=[msg["group_id"]],
                                            query_vector=msg["vector"])
        ms = (time.perf_counter() - t0) * 1000
        return {"ms": ms, "turns": [self.turn_of.get(e.uuid, e.uuid) for e in found.edges]}


async def main() -> None:
    side = Side()
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            break
        msg = json.loads(line)
        if msg["op"] == "close":
            break
        out = await (side.load(msg) if msg["op"] == "load" else side.search(msg))
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
    if side.graphiti is not None:
        await side.graphiti.close()


if __name__ == "__main__":
    asyncio.run(main())
