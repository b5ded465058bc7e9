// Lock a proposal before deciding it (graph/memory/proposals.py): one decision at a time, read as committed.
:param id => 'p1';
MATCH (p:MemoryProposal {id: $id})
SET p.id = p.id
RETURN p.status AS status
