"""Graph analytics with GDS: projections (projections.py), the algorithms (algorithms.py), runs and
their results written back over time (runs.py), the failure cascade (cascade.py) and the topology
signals retrieval and curiosity read (signals.py)."""
