"""Grimoire's Python client lives in grimoire.client."""
