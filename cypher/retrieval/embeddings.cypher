// The embeddings of a few retrieval candidates, fetched only for the items that need them (MMR's
// head, the four-factor and Generative Agents relevance): the backends do not ship vectors.
:param ids => ['ep-1'];
UNWIND $ids AS id
CALL (id) {
  MATCH (n:Episode {id: id}) RETURN n
  UNION
  MATCH (n:Entry {id: id}) RETURN n
}
RETURN n.id AS id, n.embedding AS embedding
