"""Importers of real data into the graph (Aave topology, governance, LoCoMo conversations)."""
