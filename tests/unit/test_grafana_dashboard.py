"""The Grafana dashboard (deploy/grafana/grimoire.json) is built on exactly the metric families the service exports
(graph/meters.py `families()`): every expression names only exported families, with the suffixes their types have,
and every family is on the dashboard. The families declared are the ones registered, so a meter renamed in one place
fails here; tests/integration/test_prometheus.py checks a scrape exports them all."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from prometheus_client import REGISTRY

from grimoire.graph import meters

DASHBOARD = Path(__file__).resolve().parents[2] / "deploy" / "grafana" / "grimoire.json"
NAME = re.compile(r"\bgrimoire_[a-z0-9_]+\b")
SUFFIXES = {"_bucket": "histogram", "_count": "histogram", "_sum": "histogram", "_total": "counter"}


def exprs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "expr" and isinstance(value, str):
                yield value
            else:
                yield from exprs(value)
    elif isinstance(node, list):
        for item in node:
            yield from exprs(item)


def family(name: str, known: dict[str, str]) -> tuple[str, str | None]:
    """The family a sample name belongs to, and the type its suffix requires (None: the bare name)."""
    if name in known:
        return name, None
    for suffix, kind in SUFFIXES.items():
        if name.endswith(suffix) and name.removesuffix(suffix) in known:
            return name.removesuffix(suffix), kind
    return name, None


def test_every_expression_names_an_exported_family_and_every_family_is_shown() -> None:
    known = meters.families()
    dashboard = json.loads(DASHBOARD.read_text())
    found = list(exprs(dashboard))
    assert len(found) >= 20
    shown: set[str] = set()
    problems: list[str] = []
    for expr in found:
        names = NAME.findall(expr)
        assert names, f"an expression on no Grimoire metric: {expr}"
        for name in names:
            base, kind = family(name, known)
            if base not in known:
                problems.append(f"{expr}: {name} is no family the service exports")
            elif kind == "histogram" and known[base] != "histogram" or kind == "counter" and known[base] != "counter":
                problems.append(f"{expr}: {name} suffixes a {known[base]}")
            elif kind is None and known[base] in ("histogram", "counter"):
                problems.append(f"{expr}: {name} is a {known[base]}, read through its samples' suffixes")
            shown.add(base)
    assert not problems, "\n".join(problems)
    assert not sorted(set(known) - shown), "families the dashboard does not show"


def test_the_declared_families_are_the_registered_ones() -> None:
    registered = {name for name in REGISTRY._names_to_collectors if name.startswith(meters.PREFIX)}
    declared = set(meters.families()) - set(meters.STATE_FAMILIES)
    # The registry knows each family by its name and its samples' names (a counter's _total, a histogram's _bucket).
    assert declared <= registered
    assert {n for n in registered if not any(n == d or n.startswith(d + "_") for d in declared)} == set()
