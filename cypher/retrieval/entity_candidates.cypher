// Entities whose names match words of a query (full-text); graph/retrieval/backends.py keeps
// those named in it as whole words.
:param query => 'Caroline';
:param limit => 25;
CALL db.index.fulltext.queryNodes('entity_names', $query, {limit: $limit}) YIELD node AS e, score
RETURN e.id AS id, e.name AS name, e.symbol AS symbol, e.aliases AS aliases, score
