// Resolve a name, symbol, alias, canonical id or address to entities: exact matches first, then
// full-text matches on names, symbols and aliases.
:param text => 'WETH';
:param lucene => 'WETH';
:param address => null;
:param limit => 10;
CALL () {
  MATCH (e:Entity) WHERE e.id = $text OR e.address = $address OR e.name = $text OR e.symbol = $text OR $text IN e.aliases
  RETURN e, 2.0 AS score
  UNION
  WITH $lucene AS q WHERE trim(q) <> ''
  CALL db.index.fulltext.queryNodes('entity_names', q) YIELD node AS e, score
  RETURN e, score / (1.0 + score) AS score
}
WITH e, max(score) AS score
RETURN e {.id, .kind, .name, .symbol, .aliases, .chain_id, .address} AS entity, score
ORDER BY score DESC, entity.id
LIMIT $limit
