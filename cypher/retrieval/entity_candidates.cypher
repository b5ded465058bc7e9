// Entities the viewer may see whose names match words of a query (full-text, best first; the
// index is read lazily, so filtering before the limit costs only what it skips);
// graph/retrieval/backends.py keeps those named in it as whole words.
:param query => 'Caroline';
:param limit => 25;
:param admin => false;
:param viewer => 'golem-1';
:param clade => 'clade-a';
CALL db.index.fulltext.queryNodes('entity_names', $query) YIELD node AS en, score
WITH en, score
WHERE ($admin OR en.public OR ($viewer IN en.creators AND NOT EXISTS { (en)<-[:MENTIONS]-(m:Memory) WHERE m.agent_id = $viewer AND m.archived_at IS NOT NULL }) OR EXISTS { (en)<-[:MENTIONS]-(m) WHERE m.archived_at IS NULL AND coalesce(m.lifecycle, '') <> 'archived' AND (m.agent_id = $viewer OR m.scope = 'public' OR (m.scope = 'shared' AND m.clade = $clade)) } OR EXISTS { (en)-[f]-() WHERE f.fact_id IS NOT NULL AND f.archived_at IS NULL AND (f.agent_id = $viewer OR f.scope = 'public' OR (f.scope = 'shared' AND f.clade = $clade)) })
RETURN en.id AS id, en.name AS name, en.symbol AS symbol, en.aliases AS aliases, score
LIMIT $limit
