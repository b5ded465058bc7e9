"""Grimoire's knowledge model and its operations on Neo4j."""
