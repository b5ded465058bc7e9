// One page of the co-occurrence inference's counting (graph/topology/cooccurrence_counts.py), in one transaction:
// what the page's episodes add to each protocol's mentions and each protocol pair's counts, and the watermark
// moved past them, so a page is counted once or not at all. $mentions: {id, scope, agent_id, clade, chain,
// protocol, n}; $pairs: {id, scope, agent_id, clade, chain, a, b, count, participants, both, first_block}.
:param mentions => [{id: 'm-1', scope: 'public', agent_id: '', clade: '', chain: '1', protocol: 'pool:a', n: 1}];
:param pairs => [{id: 'p-1', scope: 'public', agent_id: '', clade: '', chain: '1', a: 'pool:a', b: 'pool:b', count: 1, participants: 2, both: 0, first_block: 1000}];
:param mark => {through_at: 1770000000000, through_id: 'ep-1', window_blocks: 3, kinds: ['Pool'], since: 1770000000000, recorded_at: 1770000000000};
CALL (*) {
  UNWIND $mentions AS row
  MERGE (m:CoOccurrenceMentions {id: row.id})
    ON CREATE SET m.partition_scope = row.scope, m.partition_agent = row.agent_id,
                  m.partition_clade = row.clade, m.chain = row.chain,
                  m.protocol = row.protocol, m.episodes = 0,
                  m.valid_from = $mark.recorded_at, m.recorded_at = $mark.recorded_at
  SET m.episodes = m.episodes + row.n, m.updated_at = $mark.recorded_at
  RETURN count(*) AS mentions
}
CALL (*) {
  UNWIND $pairs AS row
  MERGE (p:CoOccurrencePair {id: row.id})
    ON CREATE SET p.partition_scope = row.scope, p.partition_agent = row.agent_id,
                  p.partition_clade = row.clade, p.chain = row.chain,
                  p.a = row.a, p.b = row.b, p.count = 0, p.participants = 0, p.both = 0,
                  p.valid_from = $mark.recorded_at, p.recorded_at = $mark.recorded_at
  SET p.updated_at = $mark.recorded_at, p.count = p.count + row.count, p.participants = p.participants + row.participants, p.both = p.both + row.both,
      p.first_block = CASE WHEN p.first_block IS NULL OR row.first_block < p.first_block THEN row.first_block
                           ELSE p.first_block END
  RETURN count(*) AS pairs
}
MERGE (k:CoOccurrenceMark {id: 'topology.cooccurrence'})
  ON CREATE SET k.valid_from = $mark.recorded_at
SET k += $mark
RETURN mentions, pairs
