// Tests: every node and relationship property, list properties item by item, whose text contains $marker
// (an erasure leaves none): the node's labels or the relationship's type, its id and the property's name.
:param marker => '0xabc';
CALL () {
  MATCH (n) UNWIND keys(n) AS k
  WITH n, k, n[k] AS v
  WHERE CASE WHEN valueType(v) STARTS WITH 'LIST'
             THEN any(x IN v WHERE toString(x) CONTAINS $marker)
             ELSE toString(v) CONTAINS $marker END
  RETURN collect({kind: 'node', labels: labels(n), id: n.id, key: k}) AS nodes
}
CALL () {
  MATCH ()-[r]->() UNWIND keys(r) AS k
  WITH r, k, r[k] AS v
  WHERE CASE WHEN valueType(v) STARTS WITH 'LIST'
             THEN any(x IN v WHERE toString(x) CONTAINS $marker)
             ELSE toString(v) CONTAINS $marker END
  RETURN collect({kind: 'relationship', labels: [type(r)], id: r.id, key: k}) AS relationships
}
RETURN nodes + relationships AS found
