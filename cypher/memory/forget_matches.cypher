// What "forget about X" would take (section 8.3): the agent's memories whose text has every key term
// (BM25; $query an escaped Lucene AND of the terms over the text, scoped to the agent: graph/db/lucene.py
// `scoped`; null when the text index holds none of them), those naming an entity whose name has them
// ($names: the same AND over the name index's fields), and (for a permanent deletion) archived memories
// whose text contains every term; how each was found.
:param agent_id => 'agent-a';
:param query => '+(text:(css AND bug) content:(css AND bug)) +(agent_id:"agent-a")^0';
:param names => 'css AND bug';
:param terms => ['css', 'bug'];
:param include_archived => false;
:param limit => 200;
CALL () {
  WITH 1 AS one WHERE $query IS NOT NULL  // null: no term the text index holds (only the entity names search)
  CALL db.index.fulltext.queryNodes('episode_search', $query, {limit: 5000}) YIELD node AS m
  WHERE m:Memory AND m.agent_id = $agent_id
  RETURN m, 'keyword' AS via
  UNION
  CALL db.index.fulltext.queryNodes('entity_names', $names, {limit: 200}) YIELD node AS en
  WHERE $agent_id IN en.creators
  MATCH (en)<-[:MENTIONS]-(m:Memory {agent_id: $agent_id})
  WHERE m:Episode OR $include_archived
  RETURN m, 'entity' AS via
  UNION
  WITH 1 AS one WHERE $include_archived  // only for a permanent deletion: no scan otherwise
  MATCH (m:Memory {agent_id: $agent_id})
  WHERE m.archived_at IS NOT NULL AND all(t IN $terms WHERE toLower(m.text) CONTAINS t)
  RETURN m, 'archived' AS via
}
WITH m, collect(via) AS via
ORDER BY m.valid_from DESC, m.id DESC
LIMIT $limit
RETURN m {.*, embedding: null} AS memory, via
