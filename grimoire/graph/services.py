"""Wiring: from settings to a connected database and the services built on it, in one place.

The composition root of the graph layer: it may import every subsystem, and nothing below it
imports it (db/, model/, audit/ and the subsystems take what they need as arguments)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass

from grimoire.graph import enrichment, leases, metrics
from grimoire.graph.audit import retention
from grimoire.graph.background import CycleProcess, paced_curator
from grimoire.graph.context.governor import Governor
from grimoire.graph.context.replay import Replayer
from grimoire.graph.crystals import hormonal_state
from grimoire.graph.crystals.consolidation import PassReport, PassRunning
from grimoire.graph.crystals.service import Crystals
from grimoire.graph.db.connection import Database, DatabaseUnavailable, Target
from grimoire.graph.db.local_server import LocalNeo4j
from grimoire.graph.embeddings import Embedder
from grimoire.graph.errors import Unavailable
from grimoire.graph.foreground import Foreground
from grimoire.graph.ids import now_ms
from grimoire.graph.knowledge.entries import Knowledge
from grimoire.graph.knowledge.llm import ChatClient, LanguageModelReasoner
from grimoire.graph.knowledge.reasoner import Reasoner, RuleBasedReasoner
from grimoire.graph.knowledge.tiers import TieredReasoner
from grimoire.graph.learning import expel, sweep
from grimoire.graph.learning.cycle import Curator, CycleReport
from grimoire.graph.memory import decay_status
from grimoire.graph.memory.approval import Approvals
from grimoire.graph.memory.core import CoreMemory
from grimoire.graph.memory.forgetting import Forgetting
from grimoire.graph.memory.messages import AgentMemory
from grimoire.graph.memory.proposals import Proposals
from grimoire.graph.memory.recall import Recall
from grimoire.graph.memory.reflection import ReflectionConfig, Reflections
from grimoire.graph.memory.routing import LanguageModelRouter, Router, RuleRouter
from grimoire.graph.replica import replica_id
from grimoire.graph.retrieval import RetrievalFilters, RetrievalRequest, Retriever, build
from grimoire.graph.scheduler import Job, Scheduler, access_log_pruning
from grimoire.graph.settings import Settings
from grimoire.graph.topology import inference
from grimoire.graph.upkeep.vector_indexes import VectorUpkeep
from grimoire.graph.visibility import Visibility


def local_server(settings: Settings) -> LocalNeo4j:
    return LocalNeo4j(
        home=settings.neo4j_home,
        bolt_port=settings.neo4j_bolt_port,
        http_port=settings.neo4j_http_port,
        heap=settings.neo4j_heap,
        pagecache=settings.neo4j_pagecache,
        user=settings.neo4j_user,
    )


def resolve_target(settings: Settings) -> Target:
    """NEO4J_URI and friends when set; otherwise the project's local server and its password file."""
    if settings.neo4j_uri:
        if settings.neo4j_password is None:
            raise DatabaseUnavailable("NEO4J_URI is set but NEO4J_PASSWORD is not")
        return Target(settings.neo4j_uri, settings.neo4j_user, settings.neo4j_password, settings.neo4j_database)
    server = local_server(settings)
    password = settings.neo4j_password or server.password
    return Target(server.uri, settings.neo4j_user, password, settings.neo4j_database)


def connect(settings: Settings) -> Database:
    return Database(resolve_target(settings), slow_ms=settings.slow_query_ms)


def build_reasoner(settings: Settings) -> Reasoner:
    """The rule-based Reasoner, or the language-model one (rules behind it) when GRIMOIRE_REASONER_URL is set; with
    GRIMOIRE_ESCALATED_REASONER_URL too, two tiers: that model for anomalous outcomes, the other for the rest."""
    routine: Reasoner = RuleBasedReasoner()
    if settings.reasoner_url:
        key = settings.reasoner_api_key.get_secret_value() if settings.reasoner_api_key else None
        routine = LanguageModelReasoner(ChatClient(settings.reasoner_url, settings.reasoner_model, key,
                                                   settings.reasoner_timeout_seconds))
    if not settings.escalated_reasoner_url:
        return routine
    key = (settings.escalated_reasoner_api_key.get_secret_value() if settings.escalated_reasoner_api_key
           else None)
    return TieredReasoner(routine, LanguageModelReasoner(ChatClient(
        settings.escalated_reasoner_url, settings.escalated_reasoner_model, key, settings.reasoner_timeout_seconds)))


def build_chat(settings: Settings) -> ChatClient | None:
    """The cheap-tier model (GRIMOIRE_REASONER_URL) for the questions outside the Reasoner protocol — Loop 3's
    replay, the Curator's consistency check — or None when none is configured."""
    if not settings.reasoner_url:
        return None
    key = settings.reasoner_api_key.get_secret_value() if settings.reasoner_api_key else None
    return ChatClient(settings.reasoner_url, settings.reasoner_model, key, settings.reasoner_timeout_seconds)


def build_replayer(settings: Settings) -> Replayer | None:
    chat = build_chat(settings)
    return Replayer(chat) if chat is not None else None


def build_knowledge(settings: Settings, db: Database, embedder: Embedder) -> Knowledge:
    """The entry lifecycle (admission, the Reasoner, decay) on `db`: the service's, and its Curator
    process's (graph/background.py builds its own with this)."""
    return Knowledge(db=db, embedder=embedder, reasoner=build_reasoner(settings), model=build_chat(settings),
                     admission=settings.admission,
                     decay=settings.decay, memory_scope=settings.crystals.memory_scope)


def build_router(settings: Settings) -> Router:
    """The memory router (section 8.2): rules, or the language model (rules behind it) when configured."""
    if not settings.reasoner_url:
        return RuleRouter()
    key = settings.reasoner_api_key.get_secret_value() if settings.reasoner_api_key else None
    return LanguageModelRouter(ChatClient(settings.reasoner_url, settings.reasoner_model, key,
                                          settings.reasoner_timeout_seconds), settings.reasoner_model)


def build_retriever(settings: Settings, db: Database, embedder: Embedder) -> Retriever:
    """The retriever, every retrieval under its caller's hormonal modulation (knowledge crystals'
    getRetrievalModulation: crystals sit above retrieval, so the modulation is given to it here)."""
    def modulation(agent_id: str | None) -> tuple[float, float] | None:
        return hormonal_state.retrieval_modulation(db, agent_id)

    return build(db, embedder, settings.retrieval, settings.decay, modulation)


def build_memory(settings: Settings, db: Database, embedder: Embedder, core: CoreMemory,
                 retriever: Retriever) -> AgentMemory:
    """Agent memory, its recall falling back to the service's hybrid retrieval over the agent's memories."""
    def hybrid(agent_id: str, query: str, k: int) -> list[str]:
        request = RetrievalRequest(text=query, mode="fusion", k=min(k, 100), no_budget=True,
                                   filters=RetrievalFilters(kinds=["episodes"], agent_id=agent_id))
        return [r.id for r in retriever.retrieve(request, Visibility.of(agent_id, None), agent_id).results]

    def keyword(agent_id: str, words: str, k: int) -> list[tuple[str, float]]:
        hits = retriever.lexical(words, k, Visibility.of(agent_id, None),
                                 RetrievalFilters(kinds=["episodes"], agent_id=agent_id), memories=True)
        return [(h.id, h.score) for h in hits]

    def context(agent_id: str) -> str:
        rows = db.fetch("memory/block_content", id=f"{agent_id}:core:context")
        return str(rows[0]["content"] or "") if rows else ""

    router = build_router(settings)
    proposals = Proposals(db, embedder, router)
    reflections = Reflections(db, core, router, ReflectionConfig(threshold=settings.reflection_threshold,
                                                                 hour=settings.reflection_hour))
    return AgentMemory(db=db, embedder=embedder, core=core, router=router, recall=Recall(db, hybrid, keyword, context),
                       forgetting=Forgetting(db, core), reflections=reflections,
                       approvals=Approvals(db, embedder, core, proposals), proposals=proposals)


@dataclass(frozen=True)
class Services:
    """Everything a request may use, built once when the service starts (and by the CLI and the
    benchmarks). Subsystems that land later (the learning loop, the governor, core memory,
    crystals) become fields here."""

    settings: Settings
    db: Database
    embedder: Embedder
    knowledge: Knowledge
    retriever: Retriever
    scheduler: Scheduler  # the periodic jobs (schedule below); the API's lifespan starts it
    curator: Curator      # the learning loop: Reflexion and the Curator cycle (graph/learning/)
    foreground: Foreground  # the requests being served: the Curator's statements wait for them
    core_memory: CoreMemory  # agent memory: the four core blocks under their cap (graph/memory/)
    memory: AgentMemory      # agent memory: messages, stores, recall, relevance, forgetting (graph/memory/)
    context: Governor        # the Context Governor: workspaces, feedback, pre-assembly (graph/context/)
    crystals: Crystals       # knowledge crystals: consolidation, lifespans, the purge, pipelines (graph/crystals/)

    @classmethod
    def build(cls, settings: Settings, db: Database, embedder: Embedder) -> Services:
        knowledge = build_knowledge(settings, db, embedder)
        foreground = Foreground()
        elsewhere = (CycleProcess(settings, db.target, foreground.counters, build_knowledge)
                     if settings.curator_process else None)  # the cycles in a child process (graph/background.py)
        core = CoreMemory(db, embedder.count_tokens)
        retriever = build_retriever(settings, db, embedder)
        services = cls(
            settings=settings, db=db, embedder=embedder, knowledge=knowledge,
            scheduler=Scheduler(leases=leases.Leases(db, replica_id(), settings.lease_seconds)),
            curator=paced_curator(knowledge, foreground, settings.learning, elsewhere), foreground=foreground,
            retriever=retriever,
            core_memory=core, memory=build_memory(settings, db, embedder, core, retriever),
            context=Governor(db, embedder, retriever, settings.context, build_replayer(settings)),
            crystals=Crystals(db, retriever, settings.crystals),
        )
        schedule(services)
        return services


class CycleElsewhere(Unavailable):
    """Another replica runs this agent's Curator cycle now (it holds `curator:<agent>`): a 503, retry after it."""


def manual_cycle(services: Services, agent_id: str, clade: str | None, actor: str) -> CycleReport:
    """A Curator cycle asked for by hand (REST, the CLI), under the agent's lease like the scheduler's: never beside
    another replica's cycle of the same agent, which would apply the open cycle's operations a second time."""
    held = services.scheduler.leases or leases.Leases(services.db, replica_id(), services.settings.lease_seconds)
    with held.hold(sweep.lease_name(agent_id)) as seen:
        if not seen.held:
            raise CycleElsewhere(f"replica {seen.holder} is running agent {agent_id!r}'s Curator cycle now; "
                                 "retry when it ends")
        return services.curator.run(agent_id, clade=clade, actor=actor, trigger="manual")


def lazy_enrichment(services: Services) -> bool:
    """Whether the API's ingests leave episodes' derived work to the enrichment job (GRIMOIRE_EPISODE_ENRICHMENT)."""
    return services.settings.episode_enrichment == "lazy"


def enrichment_queued(services: Services, created: list[str]) -> None:
    """After a lazy ingest that created episodes: the enrichment job runs as soon as the scheduler is free."""
    if created and lazy_enrichment(services):
        services.scheduler.trigger(enrichment.JOB)


class EnrichmentElsewhere(Unavailable):
    """Another replica runs the enrichment job now (it holds `episodes.enrich`): a 503, retry after it."""


def drain_enrichment(services: Services) -> enrichment.EnrichReport:
    """The enrichment job run now to the end (REST, for tests and benches), under the job's lease like the
    scheduler's run: never beside another replica's run."""
    held = services.scheduler.leases or leases.Leases(services.db, replica_id(), services.settings.lease_seconds)
    with held.hold(enrichment.JOB) as seen:
        if not seen.held:
            raise EnrichmentElsewhere(f"replica {seen.holder} is running {enrichment.JOB} now; retry when it ends")
        return enrichment.enrich(services.db)


CONSOLIDATION_JOB = "crystals.consolidation"


def consolidate_now(services: Services) -> PassReport:
    """A consolidation pass now (POST /crystals/consolidate), under the scheduled job's lease: never beside another
    replica's pass (this process's own lock keeps two here apart)."""
    held = services.scheduler.leases or leases.Leases(services.db, replica_id(), services.settings.lease_seconds)
    with held.hold(CONSOLIDATION_JOB) as seen:
        if not seen.held:
            raise PassRunning(f"replica {seen.holder} is running a consolidation pass now; try again when it is done")
        return services.crystals.consolidate()


def schedule(services: Services) -> None:
    """Every periodic job the service runs, one line each (graph/scheduler.py): they run on the
    scheduler's one thread, one at a time, when the API starts it (GRIMOIRE_SCHEDULER).

    Across replicas (graph/leases.py): a job runs once per period under its lease (`once`, the default); the
    Curator sweep and reflections on every replica, each agent under its own lease (`per_agent`: the agents
    split between the replicas running them); the reads' flush, pre-assembly and the ticks' cycles on every
    replica, on what that replica holds in memory (`local`; a tick's cycle still under the agent's lease)."""
    scheduler, settings = services.scheduler, services.settings

    def stopping() -> bool:  # long jobs return early between their bounded transactions on shutdown, or lease lost
        return scheduler.stopping or scheduler.lease_lost()

    def curator_claim(agent_id: str) -> AbstractContextManager[bool]:
        return leases.unit(sweep.lease_name(agent_id))

    def reflection_claim(agent_id: str) -> AbstractContextManager[bool]:
        return leases.unit(f"reflection:{agent_id}")

    # First: a job triggered with others runs before them, so what reads mentions (the Curator's cycles, the
    # co-occurrence inference) sees the episodes of a lazy ingest enriched.
    scheduler.add(Job(enrichment.JOB, enrichment.EVERY_SECONDS,
                      lambda: str(enrichment.enrich(services.db, cancelled=stopping)),
                      f"the derived work of lazily ingested episodes (GRIMOIRE_EPISODE_ENRICHMENT=lazy): their "
                      f"mentions and FOLLOWS, {enrichment.BATCH} episodes per transaction, each then marked done "
                      "(triggered by every lazy ingest)", first_after_seconds=1.0))
    scheduler.add(access_log_pruning(services.db, settings.access_log_retention_days, cancelled=stopping))
    scheduler.add(Job("audit.retention", 86_400.0,
                      lambda: str(retention.fold(services.db, settings.audit_log_retention_days, cancelled=stopping)),
                      f"fold every whole month of the audit log older than {settings.audit_log_retention_days:g} days "
                      f"into a monthly digest (audit-archive.md) and prune its records",
                      first_after_seconds=120.0))
    scheduler.add(Job("curator.sweep", settings.learning.interval_seconds,
                      lambda: sweep.sweep(services.curator, cancelled=stopping, claim=curator_claim,
                                          order=leases.holder_order),
                      "a Curator cycle for every agent with episodes since its last one", lease="per_agent"))
    scheduler.add(Job("curator.expel", settings.learning.expel_interval_seconds,
                      lambda: expel.run_due(services.curator.learning, cancelled=stopping, claim=leases.unit,
                                            order=leases.holder_order),
                      f"ExpeL: distil an agent's strategy after every {settings.learning.expel_every} episodes of it "
                      "(an Insight at 0.5 from a pattern across 3 or more; triggered by ingest)", lease="per_agent"))
    scheduler.add(Job("memory.reflection", 3_600.0,
                      lambda: services.memory.reflections.run_due(cancelled=stopping, claim=reflection_claim),
                      f"a pending reflection for every agent with {settings.reflection_threshold} memories or more "
                      f"since its last one, and nightly at {settings.reflection_hour}:00 (each agent's time zone, "
                      "UTC when it has none) for those with any",
                      lease="per_agent"))
    scheduler.add(Job("memory.decay", settings.memory_decay_interval_hours * 3_600.0,
                      lambda: str(decay_status.record(services.db, cancelled=stopping)),
                      "record every memory's decay status transition (active, fading, dormant, archived) since the "
                      "last run: its new status on the memory and a DECAY audit record by system:decay",
                      first_after_seconds=180.0))
    scheduler.add(Job("metrics.daily", 86_400.0, lambda: f"{metrics.record_all(services.db, now_ms())} samples",
                      "today's cognitive quality metrics of every agent, kept as a daily series",
                      first_after_seconds=300.0))
    scheduler.add(Job("context.preassembly", settings.context.preassembly_interval_seconds,
                      lambda: f"{services.context.refresh(stopping)} rebuilt",
                      "rebuild the kept context workspaces that went stale (new entries, a change, their age)",
                      lease="local"))
    scheduler.add(Job("context.loops", settings.context.loop2_interval_hours * 3_600.0,
                      lambda: services.context.loops(stopping, settings.access_log_retention_days),
                      "Loop 2 (recalibrate each agent's context policy from its decisions since the last) and "
                      "Loop 3 (stage policy mutations from the worst of them); prune the workspace records kept "
                      "as long as the access log"))
    crystals = settings.crystals
    scheduler.add(Job("access.reads", crystals.reads_flush_seconds,
                      lambda: f"{services.retriever.reads.flush()} crystals read",
                      "write the reads noted since the last flush (searches, retrievals, reads by id): each "
                      "crystal's read count and last read, access for its relevance", first_after_seconds=5.0,
                      lease="local"))
    scheduler.add(Job(CONSOLIDATION_JOB, crystals.consolidation_interval_minutes * 60.0,
                      lambda: f"{services.retriever.reads.flush()} reads; {services.crystals.consolidate(stopping)}",
                      "a consolidation run over every crystal (a ConsolidationRun its audit records name): "
                      "importance recalculated, the forgotten expired or archived, near-duplicate promoted crystals "
                      "merged", first_after_seconds=600.0))
    scheduler.add(Job("crystals.lifespan", crystals.lifespan_interval_seconds,
                      lambda: str(services.crystals.lifespan(stopping)),
                      "crystals whose time to live ran out: the generated expired, the activated archived"))
    scheduler.add(Job("crystals.purge", 86_400.0, lambda: str(services.crystals.purge(stopping)),
                      f"delete expired and archived crystals {crystals.purge_retention_days:g} days after, with "
                      f"their versions", first_after_seconds=900.0))
    cooc = settings.facts.co_occurrence
    if cooc.enabled:
        scheduler.add(Job("topology.cooccurrence", cooc.interval_minutes * 60.0,
                          lambda: str(inference.infer(services.db, settings.facts, cancelled=stopping)),
                          f"protocols whose episodes consistently co-occur within {cooc.window_blocks} blocks (at "
                          f"least {cooc.min_count} episode pairs, {cooc.min_share:.0%} of their episodes) get an "
                          "inferred TokenFlow fact, within each visibility partition; each run counts the episodes "
                          "recorded since its watermark", first_after_seconds=660.0))
    if settings.vector_upkeep.enabled:
        upkeep = VectorUpkeep(services.db, services.embedder.dimension, settings.vector_upkeep,
                              settings.vector_quantization)
        scheduler.add(Job("vectors.upkeep", settings.vector_upkeep.interval_seconds, upkeep.run,
                          "rebuild a vector index in the background once a bulk write left it fragmented (a quarter "
                          "of it written since its last build); exact search answers meanwhile",
                          first_after_seconds=min(10.0, settings.vector_upkeep.interval_seconds)))
    scheduler.add(Job("curator.ticks", 3_600.0,
                      lambda: sweep.run_due(services.curator, cancelled=stopping, claim=curator_claim),
                      f"a Curator cycle for the agents whose ticks called for one (every "
                      f"{settings.learning.every_ticks} ticks; triggered by ingest)", lease="local"))
