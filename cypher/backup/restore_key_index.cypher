// While a restore runs, each node carries its number in the backup file under a label of its own, so the
// relationships find their endpoints by an index (never by Neo4j's internal ids, which a restore cannot keep).
CREATE INDEX grimoire_restore_key IF NOT EXISTS FOR (n:_GrimoireRestore) ON (n._grimoire_restore_key)
