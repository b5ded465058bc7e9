// The embeddings of some episodes (for a cluster's coherence).
:param ids => ['ep-1'];
UNWIND $ids AS id
MATCH (ep:Episode {id: id})
RETURN ep.id AS id, ep.embedding AS embedding
