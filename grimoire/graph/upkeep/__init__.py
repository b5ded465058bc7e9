"""Upkeep the service does on its own store, on its scheduler: today, keeping the vector indexes compact
after bulk writes (vector_indexes.py), so that latency as written is latency after a rebuild."""
