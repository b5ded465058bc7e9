// A workspace's record as stored (a test reads the situation it kept).
:param id => 'ctx-1';
MATCH (a:ContextAssembly {id: $id})
RETURN a.turn_phase AS turn_phase, a.route AS route
