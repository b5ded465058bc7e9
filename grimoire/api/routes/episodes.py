from __future__ import annotations

import contextlib
from typing import Annotated

from fastapi import APIRouter, Query

from grimoire.api.auth import Admin, Reader, Writer
from grimoire.api.deps import DbDep, RetrieverDep, ServicesDep
from grimoire.api.ownership import claim
from grimoire.api.presentation import for_viewer
from grimoire.api.schemas.episodes import EnrichmentRun, EpisodeOut, IngestOut, ReflectionOut
from grimoire.graph import episodes
from grimoire.graph.errors import NotFound
from grimoire.graph.learning import expel, reflexion
from grimoire.graph.model.common import Instant, to_ms
from grimoire.graph.model.crystal import lifecycle
from grimoire.graph.model.enums import EpisodeType, MarketRegime
from grimoire.graph.model.episode import EpisodeBatch, EpisodeIn
from grimoire.graph.retrieval import learn_from_decision, reward_of
from grimoire.graph.services import Services, drain_enrichment, enrichment_queued, lazy_enrichment
from grimoire.graph.stats import visible_counts
from grimoire.graph.visibility import Visibility

router = APIRouter(prefix="/episodes", tags=["episodes"])


@router.post("", response_model=IngestOut, status_code=201, summary="Record one episode (idempotent by id)")
def create_episode(episode: EpisodeIn, db: DbDep, who: Writer,
                   services: ServicesDep) -> IngestOut:
    items, owner, clade = claim(db, who, [episode])
    items = episodes.with_ids(items)  # the ids they are stored under: learning needs them too
    result = ingest(services, items, actor=who.key_id, clade=clade)
    _learn(services, items, owner, clade, result.created, who.key_id)
    return IngestOut(**vars(result))


@router.post("/batch", response_model=IngestOut, status_code=201,
             summary="Record up to 5,000 episodes; re-sending the same ids creates nothing new")
def create_episodes(batch: EpisodeBatch, db: DbDep, who: Writer,
                    services: ServicesDep) -> IngestOut:
    items, owner, clade = claim(db, who, batch.episodes)
    items = episodes.with_ids(items)  # the ids they are stored under: learning needs them too
    result = ingest(services, items, actor=who.key_id, clade=clade)
    _learn(services, items, owner, clade, result.created, who.key_id)
    return IngestOut(**vars(result))


def ingest(services: Services, items: list[EpisodeIn], *, actor: str, clade: str | None) -> episodes.IngestResult:
    """The ingest as the settings have it (GRIMOIRE_EPISODE_ENRICHMENT): lazy, the episodes are stored and
    searchable now and the enrichment job, triggered here, does their mentions and FOLLOWS moments later."""
    result = episodes.ingest(services.db, services.embedder, items, actor=actor, clade=clade,
                             memory_scope=services.settings.crystals.memory_scope, lazy=lazy_enrichment(services))
    enrichment_queued(services, result.created)
    return result


@router.post("/enrichment", response_model=EnrichmentRun,
             responses={503: {"description": "another replica runs the enrichment job now; retry when it ends"}},
             summary="Run the lazy enrichment of pending episodes now, to the end: their mentions and FOLLOWS "
                     "(admin; for tests and benches that need every episode enriched)")
def run_enrichment(services: ServicesDep, who: Admin) -> EnrichmentRun:
    report = drain_enrichment(services)
    left = visible_counts(services.db, who.visibility()).episodes_pending_enrichment
    return EnrichmentRun(enriched=report.enriched, batches=report.batches, audit_ids=report.audit_ids, pending=left)


def _learn(services: Services, items: list[EpisodeIn], owner: str | None, clade: str | None, created: list[str],
           actor: str) -> None:
    """What a new episode teaches at once (`items` with the ids they were stored under): Reflexion on its
    verified prediction and its state snapshots and invariants (per episode), the retrieval weights' Hedge step
    from the outcome of the decision it records (its decision_id), and a Curator cycle on the scheduler when the
    agent's ticks call for one."""
    if not owner or not created:
        return
    new = set(created)
    view = Visibility.of(owner, clade)
    for ep in items:
        reward = reward_of(None, ep.outcome.value)
        if ep.id in new and ep.decision_id and reward is not None:
            # NotFound: a decision the access log no longer keeps (or never had): nothing to learn from.
            with contextlib.suppress(NotFound):
                learn_from_decision(services.db, ep.decision_id, reward, visibility=view, actor=actor,
                                    config=services.settings.retrieval)
    fresh = [ep for ep in items if ep.id in new]
    # Reflexion judges a verified prediction, and a state snapshot after the action (its invariants)
    judged = [str(ep.id) for ep in fresh
              if (ep.prediction is not None and ep.prediction.actual is not None) or ep.post_state is not None]
    if services.curator.after_ingest(owner, judged, ticked=any(ep.tick is not None for ep in fresh), actor=actor):
        services.scheduler.trigger("curator.ticks")
    # ExpeL: a strategy whose count (raised in the ingest's transaction) reached `expel_every` is distilled on the
    # scheduler, not here: the caller does not wait for the Reasoner and the Admission Gate.
    if any(ep.strategy for ep in fresh) and expel.due(services.db, services.settings.learning.expel_every, owner):
        services.scheduler.trigger("curator.expel")


@router.get("/{episode_id}", response_model=EpisodeOut, response_model_exclude_unset=True,
            summary="One episode with the entities it mentions; an archived one only with include_archived=true")
def get_episode(episode_id: str, db: DbDep, who: Reader, retriever: RetrieverDep,
                include_archived: Annotated[bool, Query(description="answer for an archived episode too")] = False,
                ) -> EpisodeOut:
    found = episodes.get(db, episode_id, who.visibility())
    if found is None or (lifecycle.archived(found.model_dump()) and not include_archived):
        raise NotFound(f"no episode {episode_id!r}")
    retriever.reads.note([episode_id])  # a read by id is access for relevance (written in batches)
    return for_viewer(found, None)


@router.get("/{episode_id}/reflection", response_model=ReflectionOut,
            summary="Reflexion's verdict on the episode: its prediction's (correct, miscalibrated, wrong) and "
                    "deviation, its state snapshots compared, the invariants that did not hold (and the "
                    "safety_incident episode they recorded), and the operations it queued on the entries that "
                    "informed the decision")
def episode_reflection(episode_id: str, db: DbDep, who: Reader,
                       include_archived: Annotated[bool, Query(description="for an archived episode too")] = False,
                       ) -> ReflectionOut:
    found = reflexion.of_episode(db, episode_id, who.visibility(), include_archived=include_archived)
    if found is None:
        raise NotFound(f"no reflection on episode {episode_id!r} (no such episode this key may see, an archived one "
                       "without include_archived, or neither a verified outcome of its prediction nor a post_state)")
    return found


@router.get("", response_model=list[EpisodeOut], response_model_exclude_unset=True,
            summary="Episodes by agent, type, regime and time (valid or recorded)")
def list_episodes(
    db: DbDep,
    who: Reader,
    retriever: RetrieverDep,
    agent_id: str | None = None,
    type: EpisodeType | None = None,  # noqa: A002
    regime: MarketRegime | None = None,
    valid_from: Instant | None = None,
    valid_to: Instant | None = None,
    recorded_from: Instant | None = None,
    recorded_to: Instant | None = None,
    offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0,
    limit: Annotated[int, Query(ge=1, le=1_000)] = 50,
) -> list[EpisodeOut]:
    rows = episodes.list_episodes(
        db, who.visibility(), agent_id=agent_id, type=type.value if type else None,
        regime=regime.value if regime else None,
        valid_from=to_ms(valid_from), valid_to=to_ms(valid_to), recorded_from=to_ms(recorded_from),
        recorded_to=to_ms(recorded_to), offset=offset, limit=limit,
    )
    retriever.reads.note([r.id for r in rows])  # a list read is access for relevance too (written in batches)
    return [for_viewer(r, None) for r in rows]
