// The state and population progress of the named indexes.
:param names => ['episode_embedding', 'entry_embedding'];
SHOW INDEXES YIELD name, state, populationPercent
WHERE name IN $names
RETURN name, state, populationPercent AS percent
ORDER BY name
