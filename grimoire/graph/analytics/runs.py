"""One analysis, start to finish: project, run the algorithm, drop the projection, map GDS node ids
back to Grimoire ids, rank, and (when asked) write the run and its results to the graph, so runs
can be queried and compared over time. A written run is an AnalysisRun node with the algorithm,
its parameters, the graph, the block and the time; each result is a SCORED relationship from it."""

from __future__ import annotations

import json
import logging
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, TypedDict

from graphdatascience import GraphDataScience

from grimoire.graph.analytics import answers
from grimoire.graph.analytics.algorithms import SPECS, Algorithm, AlgorithmParams, NodeResult
from grimoire.graph.analytics.client import gds_for
from grimoire.graph.analytics.projections import WEIGHT, Orientation, ProjectionSpec, projected
from grimoire.graph.audit import Audit, DeleteNodes, DeleteRelationships, Endpoints, NodeLabel, RelationshipType
from grimoire.graph.db import cypher
from grimoire.graph.db.connection import Database
from grimoire.graph.db.tx import Tx
from grimoire.graph.ids import now_ms, uuid7
from grimoire.graph.model.rows import FreeForm
from grimoire.graph.observe import Stopwatch
from grimoire.graph.visibility import EVERYONE, Visibility

log = logging.getLogger(__name__)
BATCH = 1_000
COMMUNITY_MEMBERS_SHOWN = 10


@dataclass
class Analysis:
    algorithm: Algorithm
    projection: ProjectionSpec
    params: AlgorithmParams = field(default_factory=AlgorithmParams)
    orientation: Orientation | None = None  # the algorithm's own when None
    write: bool = False
    limit: int = 100

    @property
    def used_params(self) -> FreeForm:  # the run's `parameters`: a free-form map of knob -> value
        used = {k: getattr(self.params, k) for k in SPECS[self.algorithm].used}
        return {**used, "orientation": (self.orientation or SPECS[self.algorithm].orientation).value}


class GdsNode(TypedDict):
    """A projected node's GDS id and what it is (cypher/analytics/node_ids.cypher)."""

    node_id: int
    id: str
    kind: str | None
    name: str | None


def _node_ids(db: Database, node_ids: list[int]) -> dict[int, GdsNode]:
    out: dict[int, GdsNode] = {}
    for start in range(0, len(node_ids), 10_000):
        for r in db.rows("analytics/node_ids", node_ids=node_ids[start:start + 10_000]):
            out[r["node_id"]] = GdsNode(node_id=r["node_id"], id=r["id"], kind=r["kind"], name=r["name"])
    return out


def _group_of(r: answers.Ranked, key: str) -> int:
    return int(getattr(r, key))


def _rank(algorithm: Algorithm, rows: list[answers.Ranked]) -> list[answers.Ranked]:
    result = SPECS[algorithm].result
    if algorithm == Algorithm.shortest_path:
        rows.sort(key=lambda r: r.step or 0)
    elif result in ("community", "component"):
        sizes = Counter(_group_of(r, result) for r in rows)
        for r in rows:
            r.size = sizes[_group_of(r, result)]
        rows.sort(key=lambda r: (-(r.size or 0), _group_of(r, result), r.id))
    elif result == "score":
        rows.sort(key=lambda r: (-(r.score or 0.0), r.id))
    else:
        rows.sort(key=lambda r: r.id)
    for i, r in enumerate(rows, start=1):
        r.rank = i
    return rows


def _groups(rows: list[answers.Ranked], key: str) -> list[answers.Group]:
    groups: dict[int, list[str]] = {}
    for r in rows:
        groups.setdefault(_group_of(r, key), []).append(r.id)
    ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return [answers.Group.model_validate({key: k, "size": len(ids), "members": sorted(ids)[:COMMUNITY_MEMBERS_SHOWN]})
            for k, ids in ordered]


def _ranked(raw: list[NodeResult], ids: dict[int, GdsNode]) -> list[answers.Ranked]:
    """GDS's rows by Grimoire's ids (a node deleted since the projection left out); only the algorithm's fields set,
    so that an answer leaves out what the algorithm does not give."""
    out = []
    for r in raw:
        node = ids.get(r["node_id"])
        if node is None:
            continue
        fields: dict[str, Any] = {k: v for k, v in r.items() if k not in ("node_id", "similar_node_ids")}
        if "similar_node_ids" in r:
            fields["similar_to"] = [ids[n]["id"] for n in r["similar_node_ids"] if n in ids]
        out.append(answers.Ranked.model_validate({"id": node["id"], "kind": node["kind"], "name": node["name"],
                                                  **fields}))
    return out


def run(db: Database, analysis: Analysis, *, actor: str, owner: str | None = None,
        gds: GraphDataScience | None = None) -> answers.Analysis:
    """`owner`: the agent whose view the projection took (None: the admin's, which every reader may
    see written)."""
    gds = gds or gds_for(db)
    spec = SPECS[analysis.algorithm]
    orientation = analysis.orientation or spec.orientation
    watch = Stopwatch("analytics")
    internal: dict[str, int] = {}
    if analysis.algorithm == Algorithm.shortest_path:
        wanted = [x for x in (analysis.params.source, analysis.params.target) if x]
        internal = _visible_nodes(db, wanted, analysis.projection.visibility)
    with projected(gds, analysis.projection, orientation) as g:
        nodes, relationships = g.node_count(), g.relationship_count()
        watch.lap("projection")
        raw = spec.run(gds, g, analysis.params, WEIGHT[analysis.projection.kind], internal)
        algorithm_ms = watch.lap(analysis.algorithm.value)
    ids = _node_ids(db, sorted({r["node_id"] for r in raw} | {n for r in raw for n in r.get("similar_node_ids", [])}))
    rows = _rank(analysis.algorithm, _ranked(raw, ids))
    run_info = answers.Run.model_validate({
        "id": uuid7(), "algorithm": analysis.algorithm.value, **analysis.projection.describe(),
        "parameters": analysis.used_params, "ran_at": now_ms(), "node_count": nodes,
        "relationship_count": relationships, "result_count": len(rows), "algorithm_ms": round(algorithm_ms, 2),
        "duration_ms": watch.total_ms(), "written": analysis.write,
        "owner": owner,
    })
    if analysis.write:
        write(db, run_info, rows, actor=actor)
    log.info("%s on %s: %d nodes, %d relationships, %d results in %.0f ms (algorithm %.0f ms)%s",
             run_info.algorithm, analysis.projection.describe(), nodes, relationships, len(rows),
             run_info.duration_ms, algorithm_ms, ", written" if analysis.write else "")
    out = answers.Analysis(run=run_info, results=rows[:analysis.limit])
    if spec.result in ("community", "component"):
        groups = _groups(rows, spec.result)
        out.groups = groups[:analysis.limit]
        out.group_count = len(groups)
    if analysis.algorithm == Algorithm.shortest_path:
        out.path = [r.id for r in rows]
        out.total_cost = rows[-1].score if rows else None
    return out


SCORED_KEYS = ("score", "rank", "community", "component", "size", "embedding", "similar_to", "similarities", "step")


def write(db: Database, run_info: answers.Run, rows: list[answers.Ranked], *, actor: str) -> None:
    """The run node, then its results in batches of BATCH, each transaction with its audit record."""
    record = {**run_info.model_dump(mode="json"), "parameters": json.dumps(run_info.parameters, sort_keys=True),
              "actor": actor}
    record = {k: v for k, v in record.items() if v is not None}
    run_id = run_info.id

    def create(tx: Tx) -> None:
        audit = Audit(action="analytics.run", actor=actor, agent_id=run_info.agent_id)
        tx.run(cypher.query("analytics/create_run"), run=record).consume()
        audit.write(tx, [run_id], f"{run_info.algorithm} on the {record.get('graph')} graph "
                    f"({len(rows)} results)", [DeleteNodes(label=NodeLabel.AnalysisRun, ids=[run_id])])

    db.write(create)
    for start in range(0, len(rows), BATCH):
        batch = [{"id": r.id, "props": {k: v for k in SCORED_KEYS if (v := getattr(r, k)) is not None}}
                 for r in rows[start:start + BATCH]]

        def scores(tx: Tx, batch: list[dict[str, Any]] = batch) -> None:
            audit = Audit(action="analytics.scores", actor=actor, agent_id=run_info.agent_id)
            tx.run(cypher.query("analytics/write_scores"), run_id=run_id, rows=batch).consume()
            audit.write(tx, [run_id], f"{len(batch)} results of run {run_id}",
                        [DeleteRelationships(type=RelationshipType.SCORED, keys=[
                            Endpoints(start_label=NodeLabel.AnalysisRun, start_id=run_id,
                                      end_ids=[r["id"] for r in batch])])])

        db.write(scores)


def _visible_nodes(db: Database, ids: list[str], visibility: Visibility) -> dict[str, int]:
    """GDS node ids of the entities and entries among `ids` the viewer may see."""
    if not ids:
        return {}
    return {r["id"]: r["node_id"] for r in db.rows("analytics/internal_ids", ids=ids, **visibility.params())}


def _about_visible(db: Database, runs: list[answers.Run], visibility: Visibility) -> list[answers.Run]:
    """The runs whose path ends (source, target) the viewer may see: a run from an entity it may
    not see is about that entity."""
    ends = {str(end) for run in runs for k in ("source", "target") if (end := run.parameters.get(k)) is not None}
    seen = _visible_nodes(db, sorted(ends), visibility)
    return [run for run in runs if all(run.parameters.get(k) in (None, *seen) for k in ("source", "target"))]


def _trim_similar(db: Database, results: list[answers.WrittenResult], visibility: Visibility) -> None:
    """node_similarity results name other nodes: keep those the viewer may see (and their scores)."""
    named = sorted({i for r in results for i in r.result.similar_to or []})
    seen = _visible_nodes(db, named, visibility)
    for r in results:
        result = r.result
        if result.similar_to:
            kept = [(i, s) for i, s in zip(result.similar_to, result.similarities or [], strict=True) if i in seen]
            result.similar_to, result.similarities = [i for i, _ in kept], [s for _, s in kept]


def runs(db: Database, algorithm: Algorithm | None = None, graph: str | None = None, limit: int = 50,
         visibility: Visibility = EVERYONE) -> list[answers.Run]:
    found = [_decode(r["run"]) for r in db.rows("analytics/runs", algorithm=algorithm and algorithm.value,
                                                 graph=graph, limit=limit, **visibility.params())]
    return _about_visible(db, found, visibility)


def get_run(db: Database, run_id: str, limit: int = 100,
            visibility: Visibility = EVERYONE) -> answers.WrittenRun | None:
    """Only the results the viewer may see; None (as for an unknown run) for a run about an entity
    it may not see."""
    rows = db.rows("analytics/run_scores", run_id=run_id, limit=limit, **visibility.params())
    if not rows:
        return None
    run = _decode(rows[0]["run"])
    if not _about_visible(db, [run], visibility):
        return None
    results = [answers.WrittenResult.model_validate(r) for r in rows[0]["results"]]
    _trim_similar(db, results, visibility)
    return answers.WrittenRun(run=run, results=results)


def _decode(run: dict[str, Any]) -> answers.Run:
    """A stored run: its parameters are kept as JSON text on the node."""
    return answers.Run.model_validate({**run, "parameters": json.loads(run.get("parameters") or "{}")})
