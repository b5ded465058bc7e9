"""Connecting to Neo4j, running the project's Cypher, the schema, and the local server."""
