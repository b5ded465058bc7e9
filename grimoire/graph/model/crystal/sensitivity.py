"""Sensitivity tagging on write (knowledge-crystals.md, "Sensitivity Detection"): confidential for passwords, API
keys, tokens and secrets — and what DeFi agents hold: a raw 64-hex private key (bare or `0x`-prefixed), a BIP-39
style seed phrase, JWTs and bearer tokens; personal for names, emails, opinions and feelings; normal otherwise.
The patterns live here and nowhere else; tests/unit/test_crystal_rules.py checks them on labelled examples, both
ways.

A `0x` address (40 hex digits) is not a secret: wallet and contract addresses are everywhere in the data. A `0x`
64-hex string may be a private key or a transaction hash, which look the same: both are tagged confidential, since a
transaction hash kept private is the safe error and a private key shared is not."""

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
    r"(?<![0-9a-z])(?:0x)?[0-9a-f]{64}(?![0-9a-z])",   # a raw private key (or a tx hash: see the module's note)
    r"\b(?:recovery|secret|seed|backup)[\s_-]?(?:phrase|words)\b",
))
# A seed phrase: 12, 15, 18, 21 or 24 BIP-39 words in a row. The wordlist is not at hand, so its shape: lowercase
# alphabetic words of 3 to 8 letters separated by whitespace alone (no punctuation), 12 or more in a row, none of
# them an English function word that the BIP-39 list lacks (a sentence of twelve such words has one of these).
WORD_RUN = re.compile(r"(?<![\w.,;:'-])(?:[a-z]{3,8}[ \t\r\n]+){11,}[a-z]{3,8}(?![\w'-])")
NOT_BIP39 = frozenset(("the", "and", "for", "with", "from", "was", "are", "not", "but", "has", "had", "our", "you",
                       "your", "its", "his", "her", "were", "been", "onto", "than", "may", "should", "would", "could",
                       "does", "did", "because", "who", "why", "how", "she", "him", "them", "their", "these", "those",
                       "per", "via"))
SEED_WORDS = 12
PERSONAL: tuple[re.Pattern[str], ...] = tuple(re.compile(p, re.IGNORECASE) for p in (
    r"\b[A-Z0-9._%+-]+@[A-Z0-9.-]+\.[A-Z]{2,}\b",                                   # an email
    r"\bmy name is\b|\bcall me [A-Z]", r"\b(?:my|his|her) (?:wife|husband|son|daughter|mother|father|partner)\b",
    r"\bI (?:think|believe|feel|prefer|hate|love|like|dislike)\b", r"\bin my (?:opinion|view)\b",
    r"\bI(?:'m| am) (?:sad|happy|angry|anxious|worried|scared|lonely|depressed|stressed|excited|upset)\b",
    r"\+?\b\d{1,3}[ .-]?\(?\d{3}\)?[ .-]?\d{3}[ .-]?\d{4}\b",                        # a phone number
    r"\b(?:born on|my birthday|my address|I live (?:in|at))\b",
))


def seed_phrase(text: str) -> bool:
    """Twelve or more seed-phrase-shaped words in a row (WORD_RUN) with no English function word among them."""
    for m in WORD_RUN.finditer(text):
        run = 0
        for word in m.group(0).split():
            run = 0 if word in NOT_BIP39 else run + 1
            if run >= SEED_WORDS:
                return True
    return False


def tag(text: str) -> Sensitivity:
    """The text's sensitivity: confidential over personal over normal."""
    if any(p.search(text) for p in CONFIDENTIAL) or seed_phrase(text):
        return Sensitivity.confidential
    if any(p.search(text) for p in PERSONAL):
        return Sensitivity.personal
    return Sensitivity.normal
