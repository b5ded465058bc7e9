"""OpenTelemetry traces (issue 40, part 1): an observer of graph/observe.py that turns each span and lap into an
OpenTelemetry span. Off by default, and then nothing here runs: no observer is registered and `tracer()` is the
API's no-op tracer (graphiti's pattern: a thin wrapper that costs nothing when off).

On (`start`), with the SDK's own handling of the standard variables: OTEL_TRACES_EXPORTER (`otlp`, the default
once on, is OTLP over HTTP/protobuf; `console`; any exporter installed under the SDK's entry points),
OTEL_EXPORTER_OTLP_ENDPOINT / OTEL_EXPORTER_OTLP_TRACES_ENDPOINT and their headers, OTEL_TRACES_SAMPLER,
OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES, OTEL_BSP_* for the batching.

What a span carries is names and sizes, never values: a Cypher span is named for its statement's file, never its
parameters; a failed span names its error's type, never its message (a driver's message may quote a value)."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Link, NoOpTracer, Span, Status, StatusCode, Tracer

from grimoire.graph import observe
from grimoire.graph.observe import Observer, Timing

log = logging.getLogger(__name__)

NAME = "grimoire"
ROOTS = frozenset({"job", "learning"})
"""Kinds that begin traces of their own: a scheduled job, a Curator cycle (linked to the request that asked for it,
if one did)."""

_tracer: Tracer = NoOpTracer()
_stop: Callable[[], None] | None = None


def tracer() -> Tracer:
    """The service's tracer: the no-op one unless tracing was started."""
    return _tracer


def enabled() -> bool:
    return _stop is not None


def wanted(setting: bool | None, env: dict[str, str] | os._Environ[str] = os.environ) -> bool:
    """Whether to trace: the setting when given (GRIMOIRE_TRACING), else what the standard variables ask for (an
    exporter other than `none`, or an OTLP endpoint); OTEL_SDK_DISABLED=true is off whatever else is set."""
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if setting is not None:
        return setting
    exporter = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if exporter:
        return exporter != "none"
    return bool(env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def configure(setting: bool | None) -> bool:
    """Start tracing from the environment when it is wanted and not yet on (each process: the service's workers,
    the Curator's child); whether it is on."""
    if not enabled() and wanted(setting):
        try:
            start()
        except Exception:  # a missing exporter or a bad variable: the service runs, untraced, and says why
            log.exception("tracing was asked for but could not start")
    return enabled()


def start(provider: Any = None) -> Callable[[], None]:
    """Trace through `provider` (an SDK TracerProvider; built from the environment when None); returns `stop`."""
    global _tracer, _stop
    if _stop is not None:
        _stop()
    owned = provider is None
    provider = provider or _provider_from_env()
    _tracer = provider.get_tracer(NAME)
    unregister = observe.register(SpanObserver())

    def stop() -> None:
        global _tracer, _stop
        unregister()
        _tracer, _stop = NoOpTracer(), None
        if owned:
            provider.shutdown()  # exports what is still batched

    _stop = stop
    return stop


def stop() -> None:
    if _stop is not None:
        _stop()


def _provider_from_env() -> Any:
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    from grimoire.graph.replica import replica_id

    resource = Resource.create()  # OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
    own = {"service.instance.id": replica_id()}
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        own["service.name"] = NAME
    provider = TracerProvider(resource=resource.merge(Resource(own)))  # the sampler from OTEL_TRACES_SAMPLER
    for exporter in _exporters():
        provider.add_span_processor(BatchSpanProcessor(exporter))  # OTEL_BSP_*
    return provider


def _exporters() -> list[Any]:
    """The exporters OTEL_TRACES_EXPORTER names (default `otlp`), found as the SDK finds them: by entry point."""
    from opentelemetry.util._importlib_metadata import entry_points

    names = [n.strip() for n in os.environ.get("OTEL_TRACES_EXPORTER", "otlp").split(",") if n.strip()]
    out = []
    for name in names:
        if name == "none":
            continue
        if name == "otlp":  # the HTTP/protobuf exporter is the one installed (no gRPC stack in the service)
            protocol = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
                                      os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"))
            if protocol != "http/protobuf":
                log.warning("OTLP protocol %s is not installed: traces go over http/protobuf", protocol)
            name = "otlp_proto_http"
        found = list(entry_points(group="opentelemetry_traces_exporter", name=name))
        if not found:
            raise ValueError(f"no OpenTelemetry trace exporter named {name!r} is installed")
        out.append(found[0].load()())
    return out


def _epoch_ns(perf_seconds: float) -> int:
    """A reading of observe's clock (`observe.now()`) as the wall-clock nanoseconds spans are stamped with."""
    return time.time_ns() - int((observe.now() - perf_seconds) * 1e9)


def _attributes(kind: str, name: str) -> dict[str, str]:
    attributes = {"grimoire.kind": kind, "grimoire.name": name}
    if kind == "cypher":  # the statement's file (cypher/<name>.cypher) or the transaction's function
        attributes["db.system.name"] = "neo4j"
        attributes["db.query.summary"] = name
    return attributes


def _failed(span: Span, error: BaseException | None) -> None:
    if error is not None:
        kind = type(error).__qualname__
        span.set_attribute("error.type", kind)
        span.set_status(Status(StatusCode.ERROR, kind))


class SpanObserver(Observer):
    """Each observe.span as a live OpenTelemetry span, current while its block runs (so the statements a stage
    runs nest under it); each stopwatch lap as a span drawn after the fact."""

    def began(self, kind: str, name: str) -> object:
        parent = None
        links: list[Link] = []
        if kind in ROOTS:
            here = trace.get_current_span().get_span_context()
            links = [Link(here)] if here.is_valid else []
            parent = otel_context.Context()  # a trace of its own
        span = _tracer.start_span(f"{kind} {name}", context=parent, links=links,
                                  attributes=_attributes(kind, name))
        token = otel_context.attach(trace.set_span_in_context(span))
        return span, token

    def ended(self, timing: Timing, handle: object = None) -> None:
        if isinstance(handle, tuple):
            span, token = handle
            otel_context.detach(token)
            _failed(span, timing.error)
            span.end()
            return
        start = _epoch_ns(timing.started)
        span = _tracer.start_span(f"{timing.kind} {timing.name}", start_time=start,
                                  attributes={**_attributes(timing.kind, timing.name), "grimoire.stage": True})
        _failed(span, timing.error)
        span.end(end_time=start + int(timing.seconds * 1e9))
