"""Settings from environment variables (and an optional .env file).

Each field's description is its documentation: README.md's configuration table is generated from
them (`grimoire config table --write`), and a test fails when the two differ.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from grimoire.graph.context.config import GovernorConfig
from grimoire.graph.crystals.config import CrystalsConfig
from grimoire.graph.embeddings import DEFAULT_MODEL, EmbeddingOptions
from grimoire.graph.knowledge.admission import AdmissionConfig
from grimoire.graph.knowledge.decay import DecayConfig
from grimoire.graph.learning.config import LearningConfig
from grimoire.graph.memory.decay_status import EVERY_HOURS as MEMORY_DECAY_EVERY_HOURS
from grimoire.graph.retrieval import RetrievalConfig
from grimoire.graph.topology.freshness import FactConfig
from grimoire.graph.upkeep.config import UpkeepConfig

PROJECT_ROOT = Path(__file__).resolve().parents[2]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)

    neo4j_uri: str | None = Field(
        default=None, alias="NEO4J_URI",
        description="A Neo4j to use (bolt://, neo4j://, neo4j+s:// for Aura). Unset: the project's own local server.")
    neo4j_user: str = Field(default="neo4j", alias="NEO4J_USER", description="The Neo4j user.")
    neo4j_password: str | None = Field(
        default=None, alias="NEO4J_PASSWORD",
        description="The Neo4j password; required with NEO4J_URI. Unset with the local server: the one it generated "
                    "(kept in `.neo4j/home/password`).")
    neo4j_database: str = Field(default="neo4j", alias="NEO4J_DATABASE", description="The database.")

    neo4j_home: Path = Field(
        default=PROJECT_ROOT / ".neo4j" / "home", alias="GRIMOIRE_NEO4J_HOME",
        description="The local server's conf, data and logs (local server only).")
    neo4j_bolt_port: int = Field(
        default=7687, alias="NEO4J_BOLT_PORT", description="The local server's Bolt port (loopback only).")
    neo4j_http_port: int = Field(
        default=7474, alias="NEO4J_HTTP_PORT",
        description="The local server's HTTP port, for Neo4j Browser (loopback only).")
    neo4j_browser_url: str | None = Field(
        default=None, alias="NEO4J_BROWSER_URL",
        description="Where the console's graph page opens its query in Neo4j Browser. Unset: the local server's "
                    "(`http://127.0.0.1:<NEO4J_HTTP_PORT>/browser/`).")
    console_session_hours: float = Field(
        default=8.0, alias="GRIMOIRE_CONSOLE_SESSION_HOURS", gt=0, le=24 * 30,
        description="A console sign-in lasts this long without use (sessions are kept in the database, the "
                    "cookie's secret hashed: every replica honours them and a restart signs no one out; the expiry "
                    "moves forward once a tenth of this has passed since it last moved).")
    neo4j_heap: str | None = Field(
        default=None, alias="NEO4J_HEAP",
        description="The local server's heap, e.g. `2g`. Unset: an eighth of RAM, 0.5 to 4 GB.")
    neo4j_pagecache: str | None = Field(
        default=None, alias="NEO4J_PAGECACHE",
        description="The local server's page cache, e.g. `1g`. Unset: a sixteenth of RAM, 0.25 to 2 GB.")

    embedding_model: str = Field(
        default=DEFAULT_MODEL, alias="GRIMOIRE_EMBEDDING_MODEL",
        description="Any sentence-transformers model name or path. The default is all-MiniLM-L6-v2 (384 dimensions), "
                    "installed as a package: nothing is downloaded.")
    embedding_batch_size: int = Field(
        default=64, alias="GRIMOIRE_EMBEDDING_BATCH", description="How many texts are embedded at once.")
    embed_batch_wait_ms: float = Field(
        default=2.0, ge=0, le=100, alias="GRIMOIRE_EMBED_BATCH_WAIT_MS",
        description="Concurrent requests' texts share one model call: while another call runs, a new one waits at "
                    "most this long for company (a lone request never waits). 0: every call on its own.")
    embed_max_batch: int = Field(
        default=8, ge=1, le=256, alias="GRIMOIRE_EMBED_MAX_BATCH",
        description="The most texts one shared model call takes (a call with more runs on its own).")
    embed_cache_size: int = Field(
        default=4096, ge=0, le=1_000_000, alias="GRIMOIRE_EMBED_CACHE_SIZE",
        description="Query embeddings kept per process, by model and text (never stale: a model's vector for a text "
                    "does not change; 1.5 KB each). 0: none.")
    embed_threads: int = Field(
        default=0, ge=0, le=256, alias="GRIMOIRE_EMBED_THREADS",
        description="onnxruntime threads for a bulk embedding (a query runs on one). 0: the cores divided by the "
                    "API processes (GRIMOIRE_WORKERS), at least 1.")
    embedding_quantized: bool = Field(
        default=False, alias="GRIMOIRE_EMBEDDING_QUANTIZED",
        description="Embed with the int8-quantized model (onnxruntime dynamic quantization of the ONNX export, "
                    "written once beside it): faster, its recall measured in bench/results/embedding.json.")
    vector_quantization: bool = Field(
        default=False, alias="GRIMOIRE_VECTOR_QUANTIZATION",
        description="int8-quantized vector indexes when they are created (Neo4j's default since 5.23). Off: the "
                    "index's scores are exact, so retrieval need not read every candidate's vector again; the search "
                    "itself measured no slower.")

    api_host: str = Field(default="127.0.0.1", alias="GRIMOIRE_API_HOST", description="Where the API listens.")
    api_port: int = Field(default=8000, alias="GRIMOIRE_API_PORT", description="The API's port.")
    mcp_enabled: bool = Field(
        default=True, alias="GRIMOIRE_MCP",
        description="Serve MCP (streamable HTTP) at /mcp and /mcp/full in the API's process. Off: those answer 503.")
    mcp_profile: Literal["default", "full"] = Field(
        default="default", alias="GRIMOIRE_MCP_PROFILE",
        description="The tools /mcp offers: `default` (the ten an agent needs every session) or `full` (every "
                    "capability; /mcp/full always offers it).")

    admin_key: str | None = Field(
        default=None, alias="GRIMOIRE_ADMIN_KEY",
        description="The key that registers the first agents. Unset: `grimoire serve`/`up` generates one into "
                    "`.neo4j/admin_key`.")
    key_cache_seconds: float = Field(
        default=5.0, alias="GRIMOIRE_KEY_CACHE_SECONDS",
        description="How long a verified key is trusted before it is looked up again.")
    max_body_bytes: int = Field(
        default=32 * 1024 * 1024, alias="GRIMOIRE_MAX_BODY_BYTES", description="The largest request body (413 above).")
    max_in_flight: int | None = Field(
        default=None, ge=1, le=10_000, alias="GRIMOIRE_MAX_IN_FLIGHT",
        description="Requests this replica works on at once (api/admission.py); more wait at most the queue deadline, "
                    "then get 503 with Retry-After. Unset: 4 per core, shared by this machine's replicas "
                    "(GRIMOIRE_WORKERS), 4 to 40 (40 is the worker threads' pool).")
    queue_deadline_ms: float = Field(
        default=25.0, ge=0, le=60_000, alias="GRIMOIRE_QUEUE_DEADLINE_MS",
        description="How long a request may wait for one of those places before it is answered 503 (0: never waits).")
    key_concurrency: int = Field(
        default=16, ge=0, le=10_000, alias="GRIMOIRE_KEY_CONCURRENCY",
        description="Requests one key may have in flight or waiting on this replica (429 above; 0: no limit). "
                    "An agent's own: PUT /agents/{id}/limits.")
    key_rate_per_s: float = Field(
        default=0.0, ge=0, le=100_000, alias="GRIMOIRE_KEY_RATE",
        description="Requests per second one key may make on this replica, a token bucket (429 with the seconds until "
                    "a token; 0: no limit). An agent's own: PUT /agents/{id}/limits.")
    key_burst: int = Field(
        default=0, ge=0, le=1_000_000, alias="GRIMOIRE_KEY_BURST",
        description="The token bucket's size: requests a key may make at once before the rate applies (0: one "
                    "second's worth of the rate, at least 1).")

    startup_wait_seconds: float = Field(
        default=30.0, alias="GRIMOIRE_STARTUP_WAIT",
        description="How long start-up waits for Neo4j to answer before giving up.")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field(
        default="INFO", alias="GRIMOIRE_LOG_LEVEL",
        description="The service's log level (the `graph`, `api` and `loaders` loggers); every record carries "
                    "the request id, returned in each response's `X-Request-ID`.")
    log_format: Literal["text", "json"] = Field(
        default="text", alias="GRIMOIRE_LOG_FORMAT",
        description="`text`: a line a person reads. `json`: one JSON object a line (time, level, logger, message, "
                    "request_id, trace_id, span_id, agent_id, route; a request's own line adds method, status and "
                    "duration_ms), on standard error, uvicorn's lines among them (its access line, which shows the "
                    "query string, gives way to the request line, which shows the route template).")
    tracing_enabled: bool | None = Field(
        default=None, alias="GRIMOIRE_TRACING",
        description="OpenTelemetry traces (README, Traces and logs). Unset: on when the standard variables ask for "
                    "an exporter (OTEL_TRACES_EXPORTER other than `none`, or OTEL_EXPORTER_OTLP_ENDPOINT / "
                    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), off otherwise, and then free (the no-op tracer). "
                    "`true`: on (OTLP over HTTP to the variables' endpoint, by default localhost:4318); `false`: "
                    "off. OTEL_SDK_DISABLED=true is off either way.")
    slow_query_ms: float = Field(
        default=100.0, ge=0, alias="GRIMOIRE_SLOW_QUERY_MS",
        description="A Cypher statement or transaction slower than this is logged (a warning with its name and "
                    "duration).")
    prometheus_enabled: bool = Field(
        default=True, alias="GRIMOIRE_PROMETHEUS",
        description="Serve the Prometheus metrics at `GET /metrics/prometheus` on the API's port, for the admin's key "
                    "(README, Metrics). Off: that route answers 404 (the separate port below still serves them).")
    prometheus_port: int = Field(
        default=0, ge=0, le=65_535, alias="GRIMOIRE_PROMETHEUS_PORT",
        description="Also serve the Prometheus metrics without a key on this port (`/metrics`, prometheus_client's "
                    "own server), for a scraper on a private network. 0: no separate port.")
    prometheus_host: str = Field(
        default="127.0.0.1", alias="GRIMOIRE_PROMETHEUS_HOST",
        description="Where the separate metrics port listens (GRIMOIRE_PROMETHEUS_PORT): this machine only by "
                    "default, since it asks for no key; `0.0.0.0` in a container a scraper reaches.")

    reasoner_url: str | None = Field(
        default=None, alias="GRIMOIRE_REASONER_URL", pattern=r"^https?://",
        description="The base URL of an OpenAI-compatible chat completions API (`/chat/completions` is appended; "
                    "e.g. `http://localhost:11434/v1`) that the Admission Gate's future utility, ExpeL distillation "
                    "and Reflexion's interpretation ask, and that Loop 3's replay gate and the Curator's consistency "
                    "check of a promotion use. Unset: the rule-based Reasoner only (every Loop 3 alternative staged, "
                    "consistency the evidence signal). When the model times out, is unreachable or answers junk, the "
                    "rule-based Reasoner answers and the decision says why; a replay or consistency check stages or "
                    "promotes nothing.")
    reasoner_model: str = Field(
        default="gpt-4o-mini", alias="GRIMOIRE_REASONER_MODEL",
        description="The model the language-model Reasoner names in its requests (with GRIMOIRE_REASONER_URL).")
    reasoner_api_key: SecretStr | None = Field(
        default=None, alias="GRIMOIRE_REASONER_API_KEY",
        description="Sent as `Authorization: Bearer` to the Reasoner's API. Unset: no Authorization header.")
    reasoner_timeout_seconds: float = Field(
        default=10.0, gt=0, alias="GRIMOIRE_REASONER_TIMEOUT_SECONDS",
        description="How long the language-model Reasoner waits for an answer before the rule-based one answers.")
    escalated_reasoner_url: str | None = Field(
        default=None, alias="GRIMOIRE_ESCALATED_REASONER_URL", pattern=r"^https?://",
        description="The expensive tier of the two-tier model (grimoire.md, Reflexion): an OpenAI-compatible API "
                    "asked to interpret only anomalous outcomes (a deviation beyond 2 sigma of its series' earlier "
                    "ones); GRIMOIRE_REASONER_URL (or the rules) answers the rest. Unset: one tier.")
    escalated_reasoner_model: str = Field(
        default="gpt-4o", alias="GRIMOIRE_ESCALATED_REASONER_MODEL",
        description="The model the expensive tier names in its requests (with GRIMOIRE_ESCALATED_REASONER_URL).")
    escalated_reasoner_api_key: SecretStr | None = Field(
        default=None, alias="GRIMOIRE_ESCALATED_REASONER_API_KEY",
        description="Sent as `Authorization: Bearer` to the expensive tier's API. Unset: no Authorization header.")

    workers: int = Field(
        default=0, ge=0, le=256, alias="GRIMOIRE_WORKERS",
        description="API processes (replicas) `grimoire up` runs on this machine, each the whole service sharing only "
                    "Neo4j. 0: one per core as memory allows (README, Sizing).")
    scheduler_enabled: bool = Field(
        default=True, alias="GRIMOIRE_SCHEDULER",
        description="Run the periodic jobs (`GET /scheduler/jobs`) on a thread inside the API's process. Off: "
                    "nothing runs by itself.")
    lease_seconds: float = Field(
        default=30.0, gt=0, le=3_600, alias="GRIMOIRE_LEASE_SECONDS",
        description="How long a replica's lease on a job or an agent's work lasts without renewal (renewed every "
                    "third of it while the work runs): a replica killed mid-job leaves it to another within this.")
    episode_enrichment: Literal["lazy", "sync"] = Field(
        default="lazy", alias="GRIMOIRE_EPISODE_ENRICHMENT",
        description="When an episode's derived work (its MENTIONS of entities, created as needed, and its FOLLOWS) is "
                    "done (grimoire.md, iRAG's lazy extraction). lazy: the ingest stores the episode, its embedding "
                    "and full-text at once, marked `enrichment: pending`, and the `episodes.enrich` job does the rest "
                    "moments later (triggered by the ingest; `POST /episodes/enrichment` drains it now). sync: all of "
                    "it in the ingest's transaction.")
    curator_process: bool = Field(
        default=True, alias="GRIMOIRE_CURATOR_PROCESS",
        description="Run the Curator's cycles (REST, CLI through the API, the scheduler) in a child process of the "
                    "service at the lowest CPU priority, so requests served beside a cycle keep their latency. Off: "
                    "on a thread of the service's process.")
    reflection_threshold: int = Field(
        default=20, ge=1, le=100_000, alias="GRIMOIRE_REFLECTION_THRESHOLD",
        description="Memories recorded since an agent's last reflection that start a new one (the scheduler checks "
                    "hourly; the reflection waits for the person's approval).")
    reflection_hour: int = Field(
        default=3, ge=0, le=23, alias="GRIMOIRE_REFLECTION_HOUR",
        description="The hour of the nightly reflection, in each agent's time zone (its `timezone`; UTC when it has "
                    "none), for agents with memories since their last one.")
    memory_decay_interval_hours: float = Field(
        default=MEMORY_DECAY_EVERY_HOURS, gt=0, le=24 * 30, alias="GRIMOIRE_MEMORY_DECAY_INTERVAL_HOURS",
        description="How often the decay system records memories' status transitions (active, fading, dormant, "
                    "archived: each move a DECAY audit record by `system:decay`, once per period across replicas). "
                    "Reads compute a memory's status when they read it either way.")
    access_log_retention_days: float = Field(
        default=30, gt=0, alias="GRIMOIRE_ACCESS_LOG_RETENTION_DAYS",
        description="How long access records are kept; a daily job deletes older ones.")
    audit_log_retention_days: float = Field(
        default=90, gt=0, alias="GRIMOIRE_AUDIT_LOG_RETENTION_DAYS",
        description="The audit log's rolling window (12.6): a daily job folds every whole month older than it into "
                    "a monthly digest and prunes its records; the version chain keeps every state.")

    admission: AdmissionConfig = Field(
        default_factory=AdmissionConfig, alias="GRIMOIRE_ADMISSION",
        description="JSON overriding any of the Admission Gate's weights and thresholds (spec defaults); "
                    "`per_factor`: `reject` (default: a factor not above its threshold, future utility 0.4, factual "
                    "confidence 0.3, temporal recency 0.2, rejects the candidate and the decision names it) or "
                    "`flag` (it only flags, low_*, and the composite bands decide).")
    decay: DecayConfig = Field(
        default_factory=DecayConfig, alias="GRIMOIRE_DECAY",
        description="JSON overriding any of the decay's half-lives and vote steps (spec defaults).")
    retrieval: RetrievalConfig = Field(
        default_factory=RetrievalConfig, alias="GRIMOIRE_RETRIEVAL",
        description="JSON overriding any of retrieval's weights and constants (spec defaults).")
    learning: LearningConfig = Field(
        default_factory=LearningConfig, alias="GRIMOIRE_LEARNING",
        description="JSON overriding any of the learning loop's thresholds: the Curator's cycle every 50 ticks of an "
                    "agent and a sweep every 600 s, ExpeL after every 10 episodes of a strategy (`expel_every`) "
                    "ADDing an Insight (`expel_add`: `insight`, or `lesson` for a Heuristic or Warning), clusters of "
                    "3, coherence 0.7, promotion at 0.6/0.7, demotion under 0.4, archiving under 0.1 for 3 cycles "
                    "(spec defaults).")
    context: GovernorConfig = Field(
        default_factory=GovernorConfig, alias="GRIMOIRE_CONTEXT",
        description="JSON overriding any of the Context Governor's settings (S7): the soft budget (8,000 tokens), "
                    "Loop 2 every 24 h and on a regime change, at most 0.02 per category per cycle, Loop 3's "
                    "mutations at confidence 0.2, masking 3/7, pre-assembly checked every 5 s (spec defaults); "
                    "attention_ranking: efe (default: the document's pragmatic + epistemic + affective + "
                    "mortality-urgency score, the dominant part on each entry) or weighted (S3.2's relevance x 0.5 "
                    "+ recency x 0.3 + confidence x 0.2).")
    crystals: CrystalsConfig = Field(
        default_factory=CrystalsConfig, alias="GRIMOIRE_CRYSTALS",
        description="JSON overriding any of the knowledge crystals' settings: the consolidation engine's decay rate "
                    "(5e-10 per ms), promote (0.7), forget (0.02) and merge (0.92) thresholds and emotional decay "
                    "resistance (0.5), a pass every 30 min, TTL expiry every 60 s, the purge 30 days after expiry "
                    "(spec defaults); memory_scope: private (the spec's: memory crystals never leave the node) or "
                    "as_written.")
    facts: FactConfig = Field(
        default_factory=FactConfig, alias="GRIMOIRE_FACTS",
        description="JSON overriding how world facts age and close: the confidence half-life in days (30), its "
                    "floor (0.05), how long after an assertion a re-assertion reinforces (60 min), the information-lag "
                    "term of curiosity (cap 0.5, scale 15 min); `multi_valued`, the predicates whose facts are sets "
                    "(TokenFlow, CollateralBacking, HasPosition, PriceCorrelation, GovernanceControl, IsRouterFor: "
                    "another object closes nothing; any other predicate's new object closes the active fact); and "
                    "`co_occurrence`, the inference of TokenFlow facts from episodes (every 30 min; a window of 3 "
                    "blocks, the document's; 'consistently' is the project's own: at least 3 co-occurring episode "
                    "pairs and half the episodes of the two protocols; confidence 0.3; protocols are entities of kind "
                    "Contract, Pool, Oracle, Vault, Governance, Bridge or Reserve; each run counts the episodes "
                    "recorded since its watermark, those of the last `settle_seconds` (300) left to the next run, "
                    "everything counted again every `recount_hours` (24); "
                    "`enabled: false` turns it off).")
    vector_upkeep: UpkeepConfig = Field(
        default_factory=UpkeepConfig, alias="GRIMOIRE_VECTOR_UPKEEP",
        description="JSON overriding when the service rebuilds a vector index on its own (graph/upkeep/): looked at "
                    "every 60 s, rebuilt once 25% of its vectors (5,000 at least) were written since its last build "
                    "and nothing was written for 60 s; `enabled: false` turns the job off.")
    seed_mental_models: bool = Field(
        default=True, alias="GRIMOIRE_MENTAL_MODELS",
        description="Seed the 13 core mental models (public structural insights every agent retrieves) at start-up "
                    "and on `grimoire schema` when any is missing.")

    @property
    def uses_local_server(self) -> bool:
        return not self.neo4j_uri

    def embedding_options(self) -> EmbeddingOptions:
        return EmbeddingOptions(batch_wait_ms=self.embed_batch_wait_ms, max_batch=self.embed_max_batch,
                                cache_size=self.embed_cache_size, threads=self.embed_threads,
                                workers=max(1, self.workers), quantized=self.embedding_quantized)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
