"""The knowledge crystals' vocabulary every item carries (knowledge-crystals.md): the crystal fields, governance
(scope, sensitivity tagged on write, lifespan, priority), importance, the lifecycle's transitions and the hormones'
rules. Pure rules, no database: knowledge, memory and retrieval use them without depending on the crystals
subsystem (graph/crystals/), which sits above retrieval."""
