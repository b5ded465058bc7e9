"""A statement's lines as the folding tests compare them (tests/unit/test_members_fulltext.py,
test_items_neighbours.py): stripped, without comments or Browser parameters, and a row's item map."""

from __future__ import annotations

import re

from grimoire.graph.db import cypher


def lines(name: str) -> list[str]:
    return [line.strip() for line in cypher.query(name).splitlines()
            if line.strip() and not line.lstrip().startswith(("//", ":param"))]


def projection(line: str) -> str:
    """The item map a row carries, as the statement writes it."""
    found = re.search(r"n \{[^}]*\}", line)
    assert found, line
    return found.group(0)
