// Full-text (Lucene BM25) indexes over the text agents search. Episodes and entries use the
// English analyzer (stop words out, stemming), so questions match statements; names keep the
// standard one, so symbols and aliases match as written.
// Episodes and entries are "scoped": beside the text they hold the owner's fields the visibility rule reads
// (agent_id, scope, clade), so that a query can require a hit to be one the caller may see (graph/db/lucene.py
// `scope_clauses`, `scoped`): an agent that sees 1% of the store gets its own best matches
// instead of the store's best thousand, 99% of them filtered out after. Queries name the text field; the rule in
// the Cypher still decides. (They replace episode_text and entry_text, which held the text alone: retired.cypher.)
CREATE FULLTEXT INDEX episode_search IF NOT EXISTS FOR (n:Episode) ON EACH [n.text, n.agent_id, n.scope, n.clade]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE FULLTEXT INDEX entry_search IF NOT EXISTS FOR (n:Entry) ON EACH [n.content, n.agent_id, n.scope, n.clade]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE FULLTEXT INDEX entity_names IF NOT EXISTS FOR (n:Entity) ON EACH [n.name, n.symbol, n.aliases_text];
// A procedure's trigger ("When user asks to deploy …"): recall's pattern match (cypher/memory/triggers.cypher).
CREATE FULLTEXT INDEX memory_trigger IF NOT EXISTS FOR (n:Memory) ON EACH [n.trigger]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
