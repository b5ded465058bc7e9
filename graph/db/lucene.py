"""Full-text queries are data: Lucene syntax in a query is searched for, not interpreted. Every
full-text index query escapes its text here first (retrieval's BM25 backend and /search, entity
resolution)."""

from __future__ import annotations

import re

_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
_LUCENE_OPERATORS = re.compile(r"\b(AND|OR|NOT|TO)\b")


def escape_lucene(text: str) -> str:
    """Every Lucene operator becomes a plain character, and AND/OR/NOT/TO plain words."""
    escaped = _LUCENE_SPECIAL.sub(r"\\\1", text)
    return _LUCENE_OPERATORS.sub(lambda m: m.group(1).lower(), escaped)
