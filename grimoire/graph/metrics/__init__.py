"""Cognitive quality metrics per agent (../shared/spec/grimoire.md, "Cognitive Quality Metrics"):
the catalog of definitions and alarm rules (catalog.py), computing them in Cypher for one agent at one
time (compute.py), and their daily series (series.py; `record_all` is the scheduler's daily job)."""

from grimoire.graph.metrics.catalog import CATALOG, NAMES, Metric, Reading, Verdict
from grimoire.graph.metrics.compute import MetricsNotFound, MetricValue, compute_agent, day_of, metrics_for
from grimoire.graph.metrics.series import Sample, UnknownMetric, agent_ids, read_series, record, record_all

__all__ = ["CATALOG", "NAMES", "Metric", "MetricValue", "MetricsNotFound", "Reading", "Sample", "UnknownMetric",
           "Verdict", "agent_ids", "compute_agent", "day_of", "metrics_for", "read_series", "record",
           "record_all"]
