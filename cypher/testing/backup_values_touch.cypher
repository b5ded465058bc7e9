// One property changed and the probe's relationship turned round: a digest must see both.
MATCH (a:BackupProbe {id: 'values'})-[r:PROBE]->(b:BackupProbe {id: 'other'})
SET a.d = date('2024-02-04')
CREATE (b)-[:PROBE {w: 0.5, at: r.at, tags: r.tags}]->(a)
DELETE r
