// Entries as they were recorded at $known_as_of (a retrieval's filters.known_as_of, after ranking): each one's
// text, confidence, scope and conditions from its kept version valid then — the earliest version replaced after
// that time (cypher/audit/keep_versions.cypher closes a version's valid time when the next change begins) —
// or its own when nothing changed since. An entry recorded after that time is left out, and so is one whose
// state then is not visible to the viewer (it must be visible now as well: the backends filtered by that).
:param ids => ['entry-1'];
:param known_as_of => 1770000000000;
:param viewer => 'golem-1';
:param clade => 'clade-a';
:param admin => false;
UNWIND $ids AS id
MATCH (e:Entry {id: id})
WHERE e.recorded_at <= $known_as_of
WITH e, reduce(found = null, x IN [(e)-[:PREVIOUS_VERSION]->(v:EntryVersion) WHERE v.valid_until > $known_as_of | v] |
                CASE WHEN found IS NULL OR x.revision < found.revision THEN x ELSE found END) AS v
WITH e, CASE WHEN v IS NULL THEN e {.content, .confidence, .scope, .clade, .agent_id, .market_regime, .revision}
             ELSE {content: v.content, confidence: v.confidence, scope: v.scope, clade: v.clade, agent_id: e.agent_id,
                   market_regime: v.market_regime, revision: v.revision} END AS s
WHERE $admin OR s.agent_id = $viewer OR s.scope = 'public' OR (s.scope = 'shared' AND s.clade = $clade)
RETURN e.id AS id, s AS state
