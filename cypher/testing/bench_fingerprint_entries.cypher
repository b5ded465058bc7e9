// Every entry's properties but its embedding, and every causal link's (bench/curator.py's reset check).
CALL () {
  MATCH (e:Entry)
  RETURN e.id AS id, [k IN keys(e) WHERE k <> 'embedding' | [k, e[k]]] AS props
  UNION ALL
  MATCH ()-[c:CAUSES]->()
  RETURN c.id AS id, [k IN keys(c) | [k, c[k]]] AS props
}
RETURN id, props
ORDER BY id
