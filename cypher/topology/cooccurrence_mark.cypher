// The co-occurrence inference's watermark (graph/topology/cooccurrence_counts.py): the last episode it counted
// (recorded_at, id), and the window and protocol kinds its counts were made with.
MATCH (m:CoOccurrenceMark {id: 'topology.cooccurrence'})
RETURN m.through_at AS through_at, m.through_id AS through_id, m.window_blocks AS window_blocks, m.kinds AS kinds,
       m.since AS since
