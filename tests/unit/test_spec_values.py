"""The documents' numbers beside the code's (issue 39, graph/spec_values.py): each constant resolves to the value
the code holds, one that differs from its document says why, the document's line states the number it is said to,
and README.md's table and list are what the registry generates."""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import pytest

from grimoire.api import readme
from grimoire.graph import spec_values as sv
from grimoire.graph.knowledge.decay import DecayConfig
from grimoire.graph.model.enums import DecayClass
from grimoire.graph.settings import PROJECT_ROOT

SPEC = Path(os.environ.get("GRIMOIRE_SPEC", PROJECT_ROOT.parent / "shared" / "spec")).resolve()
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?(?:e-?\d+)?")


def _line(document: str, line: int) -> str:
    lines = (SPEC / document).read_text().splitlines()
    assert 1 <= line <= len(lines), f"{document} has {len(lines)} lines, not {line}"
    return lines[line - 1]


def _numbers(text: str) -> set[float]:
    return {float(n.replace(",", "")) for n in _NUMBER.findall(text)}


# How a document's number becomes the code's unit: as is, a percentage, hours as days, seconds, minutes, hours or
# days as milliseconds; or its reciprocal (a rate x0.5 is a half-life x2).
UNITS = (1.0, 0.01, 1 / 24, 1_000.0, 60_000.0, 3_600_000.0, 86_400_000.0)


def _in_units(number: float, value: float) -> bool:
    return any(math.isclose(n * unit, value, rel_tol=1e-9) for n in (number, 1 / number if number else 0.0)
               for unit in UNITS)


@pytest.mark.parametrize("c", sv.CONSTANTS, ids=lambda c: c.code)
def test_each_constant_is_the_codes_value_and_its_documents_words(c: sv.Constant) -> None:
    value = c.value()
    assert isinstance(value, int | float) and not isinstance(value, bool), (c.code, value)
    assert c.document in sv.DOCUMENTS
    stated = _numbers(_line(c.document, c.line))
    assert _numbers(c.doc_text) <= stated, f"{c.document}:{c.line} does not state {c.doc_text!r}"
    if c.doc_value is not None:  # the value compared with the code is one the document's words give
        assert any(_in_units(n, c.doc_value) for n in _numbers(c.doc_text)), (c.doc_text, c.doc_value)


def test_a_constant_that_differs_says_why() -> None:
    assert sv.unexplained() == []
    silent = sv.Constant("DecayConfig.class_half_life_days.tactical", "grimoire.md", 221, 5.0, "5 days")
    assert sv.unexplained((silent,)) == ["DecayConfig.class_half_life_days.tactical"]
    assert sv.unexplained((sv.Constant("DecayConfig.floor", "grimoire.md", 262, None, "a floor"),)) != []
    assert _in_units(21, 21.0) and _in_units(30, 1_800_000) and _in_units(0.5, 2.0) and not _in_units(21, 14.0)


def test_the_code_value_is_read_not_written_down() -> None:
    c = next(c for c in sv.CONSTANTS if c.code == "DecayConfig.class_half_life_days.tactical")
    assert c.value() == DecayConfig().class_half_life_days[DecayClass.tactical]
    assert sv.code_value("grimoire.graph.learning.strategies:THRESHOLD") == 0.9
    with pytest.raises(ValueError, match="is a group"):
        sv.code_value("RetrievalConfig.rerank")


@pytest.mark.parametrize("d", sv.DIFFERENCES, ids=lambda d: d.topic)
def test_each_difference_names_a_line_of_its_document(d: sv.Difference) -> None:
    assert d.document in sv.DOCUMENTS and _line(d.document, d.line).strip()
    assert d.why and d.code_does and d.document_says


def test_the_readme_shows_the_registry() -> None:
    text = readme.README.read_text()
    assert readme.section(text, readme.SPEC_TABLE) == readme.spec_table(), "run `grimoire spec table --write`"
    body = readme.spec_table()
    assert body.count("\n| `") == len(sv.CONSTANTS)
    assert all(f"**{d.topic}**" in body for d in sv.DIFFERENCES)
    assert all(f"**`{c.code}`**" in body for c in sv.CONSTANTS if c.differs)
