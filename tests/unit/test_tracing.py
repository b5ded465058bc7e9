"""The tracing wrapper (graph/tracing.py) and the JSON log lines (graph/logs.py), without a database: observe's spans
nest as OpenTelemetry spans, a job begins a trace of its own, a stopwatch's laps are drawn with their own start and
length, a failure names its error's type and never its message; the standard variables decide whether to trace."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import NoOpTracer, StatusCode

from grimoire.graph import logs, observe, tracing


@pytest.fixture
def exported() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    stop = tracing.start(provider)
    try:
        yield exporter
    finally:
        stop()
    assert isinstance(tracing.tracer(), NoOpTracer) and not tracing.enabled()


def test_spans_nest_and_laps_keep_their_lengths(exported: InMemorySpanExporter) -> None:
    with observe.span("retrieve", "hybrid"):
        watch = observe.Stopwatch("retrieval")
        with observe.span("cypher", "retrieval/fulltext"):
            pass
        watch.lap("bm25")
    spans = {s.name: s for s in exported.get_finished_spans()}
    parent = spans["retrieve hybrid"]
    assert parent.parent is None
    for name in ("cypher retrieval/fulltext", "retrieval bm25"):
        assert spans[name].parent is not None and spans[name].parent.span_id == parent.context.span_id
    assert spans["cypher retrieval/fulltext"].attributes == {
        "grimoire.kind": "cypher", "grimoire.name": "retrieval/fulltext", "db.system.name": "neo4j",
        "db.query.summary": "retrieval/fulltext"}
    lap = spans["retrieval bm25"]
    assert ((lap.end_time or 0) - (lap.start_time or 0)) / 1e6 == pytest.approx(watch.laps["bm25"], abs=0.01)
    assert (lap.start_time or 0) >= (parent.start_time or 0) and (lap.end_time or 0) <= (parent.end_time or 0)


def test_a_job_begins_its_own_trace_linked_to_the_one_it_was_asked_in(exported: InMemorySpanExporter) -> None:
    with observe.span("retrieve", "hybrid"), observe.span("job", "access_log.prune"), \
            observe.span("cypher", "audit/prune_access"):
        pass
    spans = {s.name: s for s in exported.get_finished_spans()}
    job, asker = spans["job access_log.prune"], spans["retrieve hybrid"]
    assert job.parent is None and job.context.trace_id != asker.context.trace_id
    assert [link.context.span_id for link in job.links] == [asker.context.span_id]
    assert spans["cypher audit/prune_access"].context.trace_id == job.context.trace_id


def test_a_failure_names_its_type_not_its_message(exported: InMemorySpanExporter) -> None:
    with pytest.raises(ValueError), observe.span("cypher", "memory/remember"):
        raise ValueError("secret item text")
    (span,) = exported.get_finished_spans()
    assert span.status.status_code == StatusCode.ERROR and span.status.description == "ValueError"
    assert span.attributes is not None and span.attributes["error.type"] == "ValueError"
    assert not span.events and "secret" not in str(dict(span.attributes))


def test_off_the_observer_is_gone_and_the_tracer_is_the_no_op() -> None:
    tracing.stop()
    assert isinstance(tracing.tracer(), NoOpTracer)
    assert not any(isinstance(o, tracing.SpanObserver) for o in observe._observers)


@pytest.mark.parametrize(("setting", "env", "on"), [
    (None, {}, False),
    (None, {"OTEL_TRACES_EXPORTER": "otlp"}, True),
    (None, {"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://x:4318"}, False),
    (None, {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://x:4318/v1/traces"}, True),
    (True, {}, True),
    (False, {"OTEL_TRACES_EXPORTER": "otlp"}, False),
    (True, {"OTEL_SDK_DISABLED": "true"}, False),
])
def test_the_standard_variables_turn_it_on(setting: bool | None, env: dict[str, str], on: bool) -> None:
    assert tracing.wanted(setting, env) is on


def test_the_otlp_exporter_is_built_from_the_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "otlp,console")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://collector:4318/v1/traces")
    built = tracing._exporters()
    assert [type(e).__name__ for e in built] == ["OTLPSpanExporter", "ConsoleSpanExporter"]
    assert built[0]._endpoint == "http://collector:4318/v1/traces"  # the SDK read the variable itself


def test_a_json_line_is_one_object_with_the_request_s_fields(exported: InMemorySpanExporter) -> None:
    logs.configure("INFO")
    about, token = logs.requested()
    rid = logs.request_id.set("req-1")
    try:
        about.agent_id, about.route = "golem-1", "/retrieve"
        with observe.span("retrieve", "hybrid"):
            record = logging.getLogger("grimoire.api.requests").makeRecord(
                "grimoire.api.requests", logging.INFO, __file__, 1, "POST %s", ("/retrieve",), None,
                extra={"status": 200, "duration_ms": 1.5, "method": "POST"})
    finally:
        logs.request_id.reset(rid)
        assert token is not None
        logs.request.reset(token)
    line = json.loads(logs.JsonLines().format(record))
    (span,) = exported.get_finished_spans()
    assert line["trace_id"] == format(span.context.trace_id, "032x")
    assert line["span_id"] == format(span.context.span_id, "016x")
    assert {k: line[k] for k in ("level", "logger", "message", "request_id", "agent_id", "route", "status",
                                 "duration_ms", "method")} == {
        "level": "INFO", "logger": "grimoire.api.requests", "message": "POST /retrieve", "request_id": "req-1",
        "agent_id": "golem-1", "route": "/retrieve", "status": 200, "duration_ms": 1.5, "method": "POST"}
