// Two proposals that contradict each other (section 13.6), linked both ways by one relationship.
:param a => 'p2';
:param b => 'p1';
MATCH (a:MemoryProposal {id: $a}), (b:MemoryProposal {id: $b})
MERGE (a)-[:CONFLICTS_WITH]->(b)
