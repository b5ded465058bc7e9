// A node and a relationship holding every kind of value Neo4j stores (tests/integration/test_backup.py).
CREATE (a:BackupProbe {id: 'values',
  t: datetime('2024-01-01T10:00:00.123456789[Europe/Berlin]'), tz: datetime('2024-01-01T10:00:00+05:30'),
  d: date('2024-02-03'), lt: localtime('12:00:01.5'), ldt: localdatetime('2024-01-01T01:02:03'),
  tt: time('10:00+02:00'), du: duration('P1Y2M3DT4H5.5S'), p: point({x: 1.5, y: 2}),
  g: point({latitude: 50, longitude: 8, height: 3}), nan: 0.0 / 0.0, inf: 1.0 / 0.0, ninf: -1.0 / 0.0,
  ls: ['x', 'y'], li: [1, 2], lf: [0.1, 0.2], lb: [true, false], ld: [date('2024-01-01')], n: 7, f: 2.0,
  s: 'text', yes: true})
CREATE (b:BackupProbe:Second {id: 'other'})
CREATE (a)-[:PROBE {w: 0.5, at: datetime('2024-03-01T00:00:00Z'), tags: ['a']}]->(b)
WITH a
CALL db.create.setNodeVectorProperty(a, 'embedding', [0.5, 0.25, -1.0])
