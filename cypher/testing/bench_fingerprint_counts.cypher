// Nodes per label and relationships per type (bench/curator.py checks a reset restored its input).
CALL () {
  MATCH (n) UNWIND labels(n) AS name
  RETURN 'label' AS kind, name, count(*) AS n
  UNION ALL
  MATCH ()-[r]->()
  RETURN 'type' AS kind, type(r) AS name, count(*) AS n
}
RETURN kind, name, n
ORDER BY kind, name
