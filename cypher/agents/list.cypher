// Agents, optionally of one clade.
:param clade => null;
MATCH (a:Agent)
WHERE $clade IS NULL OR a.clade = $clade
RETURN properties(a) AS agent
ORDER BY a.id
