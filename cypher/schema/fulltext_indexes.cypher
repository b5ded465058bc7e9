// Full-text (Lucene BM25) indexes over the text agents search. Episodes and entries use the
// English analyzer (stop words out, stemming), so questions match statements; names keep the
// standard one, so symbols and aliases match as written.
CREATE FULLTEXT INDEX episode_text IF NOT EXISTS FOR (n:Episode) ON EACH [n.text]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE FULLTEXT INDEX entry_text IF NOT EXISTS FOR (n:Entry) ON EACH [n.content]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
CREATE FULLTEXT INDEX entity_names IF NOT EXISTS FOR (n:Entity) ON EACH [n.name, n.symbol, n.aliases_text];
// A procedure's trigger ("When user asks to deploy …"): recall's pattern match (cypher/memory/triggers.cypher).
CREATE FULLTEXT INDEX memory_trigger IF NOT EXISTS FOR (n:Memory) ON EACH [n.trigger]
  OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}};
