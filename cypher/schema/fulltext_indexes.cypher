// Full-text (Lucene BM25) indexes over the text agents search.
CREATE FULLTEXT INDEX episode_text IF NOT EXISTS FOR (n:Episode) ON EACH [n.text];
CREATE FULLTEXT INDEX entry_text IF NOT EXISTS FOR (n:Entry) ON EACH [n.content];
CREATE FULLTEXT INDEX entity_names IF NOT EXISTS FOR (n:Entity) ON EACH [n.name, n.symbol, n.aliases_text];
