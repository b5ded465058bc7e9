// Entries back to the properties the benchmark seeded them with (bench/curator.py): seeded values
// set again, properties a cycle added removed; the embedding is left alone.
:param rows => [{id: 'bench-entry-1', props: {status: 'active', confidence: 0.6}}];
UNWIND $rows AS row
MATCH (e:Entry {id: row.id})
SET e += row.props
WITH e, row, [k IN keys(e) WHERE NOT k IN keys(row.props) AND NOT k IN ['id', 'embedding', 'bench_seed']] AS added
FOREACH (k IN added | SET e[k] = null)
RETURN count(e) AS restored
