// Resolve a name, symbol, alias, canonical id or address to the entities the viewer may see: exact
// matches first, then full-text matches on names, symbols and aliases.
:param text => 'WETH';
:param lucene => 'WETH';
:param address => null;
:param limit => 10;
:param admin => false;
:param viewer => 'golem-1';
:param clade => 'clade-a';
CALL () {
  MATCH (e:Entity) WHERE e.id = $text OR e.address = $address OR e.name = $text OR e.symbol = $text OR $text IN e.aliases
  RETURN e, 2.0 AS score
  UNION
  WITH $lucene AS q WHERE trim(q) <> ''
  CALL db.index.fulltext.queryNodes('entity_names', q) YIELD node AS e, score
  RETURN e, score / (1.0 + score) AS score
}
WITH e AS en, max(score) AS score
WHERE ($admin OR en.public OR ($viewer IN en.creators AND NOT EXISTS { (en)<-[:MENTIONS]-(m:Memory) WHERE m.agent_id = $viewer AND m.archived_at IS NOT NULL }) OR EXISTS { (en)<-[:MENTIONS]-(m) WHERE m.archived_at IS NULL AND coalesce(m.lifecycle, '') <> 'archived' AND (m.agent_id = $viewer OR m.scope = 'public' OR (m.scope = 'shared' AND m.clade = $clade)) } OR EXISTS { (en)-[f]-() WHERE f.fact_id IS NOT NULL AND f.archived_at IS NULL AND (f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade)) })
RETURN en {.id, .kind, .name, .symbol, .aliases, .chain_id, .address} AS entity, score
ORDER BY score DESC, entity.id
LIMIT $limit
