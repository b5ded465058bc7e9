"""Backups of the whole store: online (graph/backup/online.py, a file any Neo4j can be restored from) and offline
(graph/backup/offline.py, the local server's dump while it is stopped), and the digest that shows a restore gave
back the same store (graph/backup/digest.py)."""
