"""Sensitivity tagging on write (knowledge-crystals.md, "Sensitivity Detection"): confidential for passwords, API
keys, tokens and secrets; personal for names, emails, opinions and feelings; normal otherwise. The patterns live
here and nowhere else; tests/unit/test_crystal_rules.py checks them on labelled examples, both ways."""

from __future__ import annotations

import re
from enum import StrEnum


class Sensitivity(StrEnum):
    normal = "normal"
    personal = "personal"
    confidential = "confidential"


CONFIDENTIAL: tuple[re.Pattern[str], ...] = tuple(re.compile(p, re.IGNORECASE) for p in (
    r"\b(?:password|passwd|passphrase|pwd)\b\s*(?:is|[:=])",
    r"api[\s_-]?key\b", r"\b(?:secret|client[\s_-]?secret)\b\s*(?:is|[:=])", r"secret[\s_-]?key\b",
    r"\b(?:access|auth|bearer|refresh|session)[\s_-]?token\b", r"\bbearer\s+[a-z0-9._~+/-]{16,}",
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----", r"\bprivate[\s_-]?key\b", r"\bseed phrase\b|\bmnemonic\b",
    r"\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}", r"\bAKIA[0-9A-Z]{16}\b", r"\bgh[pousr]_[A-Za-z0-9]{20,}",
    r"\bxox[abpr]-[A-Za-z0-9-]{10,}", r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.",
))
PERSONAL: tuple[re.Pattern[str], ...] = tuple(re.compile(p, re.IGNORECASE) for p in (
    r"\b[A-Z0-9._%+-]+@[A-Z0-9.-]+\.[A-Z]{2,}\b",                                   # an email
    r"\bmy name is\b|\bcall me [A-Z]", r"\b(?:my|his|her) (?:wife|husband|son|daughter|mother|father|partner)\b",
    r"\bI (?:think|believe|feel|prefer|hate|love|like|dislike)\b", r"\bin my (?:opinion|view)\b",
    r"\bI(?:'m| am) (?:sad|happy|angry|anxious|worried|scared|lonely|depressed|stressed|excited|upset)\b",
    r"\+?\b\d{1,3}[ .-]?\(?\d{3}\)?[ .-]?\d{3}[ .-]?\d{4}\b",                        # a phone number
    r"\b(?:born on|my birthday|my address|I live (?:in|at))\b",
))


def tag(text: str) -> Sensitivity:
    """The text's sensitivity: confidential over personal over normal."""
    if any(p.search(text) for p in CONFIDENTIAL):
        return Sensitivity.confidential
    if any(p.search(text) for p in PERSONAL):
        return Sensitivity.personal
    return Sensitivity.normal
