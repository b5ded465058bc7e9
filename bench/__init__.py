"""Benchmarks. `make bench` runs every module listed in BENCHMARKS; each writes bench/results/<name>.json."""

BENCHMARKS = ["neo4j_startup", "ingest", "topology", "locomo", "retrieval", "tenants", "gds", "memory", "audit",
              "context", "consolidation", "mcp", "console", "scale", "embedding", "embedders", "reranker", "profile",
              "exact_path", "load", "backup", "reach"]
# Run on their own, not by `make bench`: graphiti (`make graphiti-venv` first: graphiti-core in a venv of its own).
