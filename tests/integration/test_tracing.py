"""Traces (issue 40, part 1), on the real service with the SDK's in-memory exporter: a /retrieve is one trace, its
request's span the root, the authentication, the retrieval and its stages, the embedder and every Cypher statement
beneath it, the stages as long as the response's `timings_ms` says; no span carries an item's text or a key; the
log records of the request carry its trace and span ids. Off, nothing is traced and the tracer is the no-op one."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import NoOpTracer, SpanKind

from grimoire.api.app import create_app
from grimoire.api.tracing import TraceRequests
from grimoire.graph import observe, tracing
from tests.conftest import ADMIN_KEY, Api
from tests.unit.test_tracing import exported  # noqa: F401  (the fixture: spans kept in memory)

AGENT, CLADE = "golem-trace", "clade-trace"
MARKER = "quokkamarker"  # in the items' text and the query: no span may carry it


def _app(neo4j_server: Any, db: Any, embedder: Any) -> Iterator[Api]:
    with TestClient(create_app(neo4j_server.settings(admin_key=ADMIN_KEY), db=db, embedder=embedder)) as c:
        yield Api(c, db)


@pytest.fixture
def traced(exported: InMemorySpanExporter, db: Any, neo4j_server: Any, embedder: Any) -> Iterator[Api]:  # noqa: F811
    """The API created with tracing on (the request span's middleware is installed when it is)."""
    yield from _app(neo4j_server, db, embedder)


@pytest.fixture
def untraced(db: Any, neo4j_server: Any, embedder: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Api]:
    for name in ("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    tracing.stop()
    yield from _app(neo4j_server, db, embedder)


def _ingest(api: Api, h: dict[str, str]) -> None:
    episodes = [{"type": "observation", "text": f"{MARKER}: the ETH oracle lagged the market by {i} blocks"}
                for i in range(4)]
    assert api.client.post("/episodes/batch", headers=h, json={"episodes": episodes}).status_code == 201


def _ancestors(span: ReadableSpan, by_id: dict[int, ReadableSpan]) -> list[str]:
    out = []
    while span.parent is not None and span.parent.span_id in by_id:
        span = by_id[span.parent.span_id]
        out.append(span.name)
    return out


def _values(span: ReadableSpan) -> list[str]:
    """Everything a span says: its name, attributes, events' and links' attributes, status, resource."""
    out = [span.name, str(span.status.description)]
    out += [f"{k}={v}" for k, v in (span.attributes or {}).items()]
    out += [f"{k}={v}" for e in span.events for k, v in (e.attributes or {}).items()] + [e.name for e in span.events]
    out += [f"{k}={v}" for link in span.links for k, v in (link.attributes or {}).items()]
    out += [f"{k}={v}" for k, v in span.resource.attributes.items()]
    return out


def test_a_retrieval_is_one_trace_of_its_stages_and_statements(traced: Api, exported: InMemorySpanExporter,  # noqa: F811
                                                               caplog: pytest.LogCaptureFixture) -> None:
    h = traced.headers(AGENT, CLADE)
    key = h["X-API-Key"]
    _ingest(traced, h)
    exported.clear()
    with caplog.at_level(logging.DEBUG, logger="grimoire"):
        caplog.clear()
        r = traced.client.post("/retrieve", headers=h, json={"text": f"{MARKER} oracle lag", "k": 3})
    assert r.status_code == 200, r.text
    assert any(MARKER in item["text"] for item in r.json()["results"])  # the items' text was there to leak
    everything = exported.get_finished_spans()
    roots = [s for s in everything if s.name == "POST /retrieve"]
    assert len(roots) == 1 and roots[0].parent is None, [(s.name, s.parent) for s in everything]
    root = roots[0]
    # the request's trace (a batch of access bookkeeping flushed off the request's path is a trace of its own)
    spans = [s for s in everything if s.context.trace_id == root.context.trace_id]
    assert root.kind == SpanKind.SERVER and root.attributes is not None
    assert root.attributes["http.route"] == "/retrieve" and root.attributes["http.response.status_code"] == 200
    assert root.attributes["grimoire.agent_id"] == AGENT
    assert [s.name for s in everything if s.parent is None] == [root.name] or all(
        s.name.startswith("cypher ") for s in everything if s.parent is None and s is not root)
    by_id = {s.context.span_id: s for s in spans}
    names = [s.name for s in spans]

    auth = [s for s in spans if s.name == "auth api_key"]
    assert len(auth) == 1 and _ancestors(auth[0], by_id) == ["POST /retrieve"]
    retrieve = [s for s in spans if s.name == "retrieve hybrid"]
    assert len(retrieve) == 1 and _ancestors(retrieve[0], by_id)[-1] == "POST /retrieve"
    assert "embedder embed" in names  # the query's embedding (a new text: not from the query cache)

    # The stages: each a child of the retrieval, as long as the response says (a stage lapped twice: its spans add).
    stages = [s for s in spans if (s.attributes or {}).get("grimoire.kind") == "retrieval"]
    timings = r.json()["timings_ms"]
    assert {"embed", "vector", "bm25", "graph", "rerank", "budget"} & set(timings)
    assert {s.name.removeprefix("retrieval ") for s in stages} == set(timings)
    assert all(s.parent is not None and s.parent.span_id == retrieve[0].context.span_id for s in stages)
    for stage, ms in timings.items():
        spent = sum((s.end_time or 0) - (s.start_time or 0) for s in stages if s.name == f"retrieval {stage}") / 1e6
        assert spent == pytest.approx(ms, abs=0.02), stage

    # Every Cypher statement, by its file's name, within the request's trace.
    cypher = {s.name.removeprefix("cypher ") for s in spans if (s.attributes or {}).get("grimoire.kind") == "cypher"}
    # the members and BM25, read in the pool: one statement (with the named entities once the caller's reach is held)
    assert {"retrieval/members_fulltext", "retrieval/members_fulltext_entities"} & cypher, cypher
    assert all(_ancestors(s, by_id)[-1] == "POST /retrieve" for s in spans if s is not root)

    # No span carries an item's text, the query or the key.
    said = [v for s in everything for v in _values(s)]
    assert not [v for v in said if MARKER in v or key in v or ADMIN_KEY in v]

    # The request's log records carry its trace id (and the span that was current when each was logged).
    mine = [rec for rec in caplog.records if getattr(rec, "request_id", "-") == r.headers["x-request-id"]]
    assert mine and {rec.trace_id for rec in mine} == {format(root.context.trace_id, "032x")}  # type: ignore[attr-defined]
    assert {rec.span_id for rec in mine} <= {format(s.context.span_id, "016x") for s in spans}  # type: ignore[attr-defined]


def test_a_context_assembly_traces_the_governor_s_stages(traced: Api, exported: InMemorySpanExporter) -> None:  # noqa: F811
    h = traced.headers(AGENT, CLADE)
    _ingest(traced, h)
    exported.clear()
    r = traced.client.post(f"/agents/{AGENT}/context/assemble", headers=h,
                           json={"query": "oracle lag", "preassembled": False})
    assert r.status_code == 200, r.text
    spans = exported.get_finished_spans()
    assemble = [s for s in spans if s.name == "assemble cold"]
    assert len(assemble) == 1
    route = [s for s in spans if s.name == "POST /agents/{agent_id}/context/assemble"]
    assert len(route) == 1 and route[0].context.trace_id == assemble[0].context.trace_id
    stages = {s.name.removeprefix("context ") for s in spans if s.parent and s.parent.span_id ==
              assemble[0].context.span_id and (s.attributes or {}).get("grimoire.kind") == "context"}
    assert {"state_and_embedding", "fetch", "compose", "record"} <= stages
    # the statements the Governor's pool runs belong to the request's trace too
    mine = [s.name for s in spans if s.context.trace_id == route[0].context.trace_id]
    assert "cypher context/agent_state" in mine, mine  # run on the Governor's pool


def test_off_nothing_is_traced_and_the_tracer_is_the_no_op(untraced: Api, caplog: pytest.LogCaptureFixture) -> None:
    exporter = InMemorySpanExporter()  # a provider that traced once, stopped before the requests
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.start(provider)()
    assert not tracing.enabled() and isinstance(tracing.tracer(), NoOpTracer)
    assert not any(isinstance(o, tracing.SpanObserver) for o in observe._observers)
    assert not any(m.cls is TraceRequests for m in untraced.client.app.user_middleware)  # type: ignore[attr-defined]
    h = untraced.headers(AGENT, CLADE)
    _ingest(untraced, h)
    with tracing.tracer().start_as_current_span("probe") as probe:  # the no-op tracer's span records nothing
        assert not probe.is_recording() and not probe.get_span_context().is_valid
    with caplog.at_level(logging.DEBUG, logger="grimoire"):
        caplog.clear()
        r = untraced.client.post("/retrieve", headers=h, json={"text": "oracle lag", "k": 3})
    assert r.status_code == 200
    mine = [rec for rec in caplog.records if getattr(rec, "request_id", "-") == r.headers["x-request-id"]]
    assert mine and {(rec.trace_id, rec.span_id) for rec in mine} == {("-", "-")}  # type: ignore[attr-defined]
    assert exporter.get_finished_spans() == ()
