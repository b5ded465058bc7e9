// An agent's memories that are not archived, of the given stores, oldest first, as the workspace export
// renders them (graph/memory/workspace.py): what each says, its decay inputs and workspace properties, the
// entities it names, what a procedure was learned from, and for a semantic memory no import wrote (store
// $semantic, no workspace key) the subjects of the relations it asserts (its entity file).
:param agent_id => 'agent-a';
:param stores => ['episodic', 'semantic', 'procedural', 'vault'];
:param semantic => 'semantic';
MATCH (m:Memory {agent_id: $agent_id})
WHERE m:Episode AND m.store IN $stores
RETURN m {.id, .store, .memory_type, .confidence_level, .tags, .text, .valid_from, .last_accessed_at,
          .access_count, .base_relevance, .pinned, .trigger, .steps, .notes, .workspace_key, .workspace_label,
          .workspace_updated, .workspace_learned} AS memory,
       [(m)-[:MENTIONS]->(en:Entity) | en {.slug, .kind, .name}] AS entities,
       [(m)-[:LEARNED_FROM]->(s:Memory) | s {.valid_from, .text}] AS learned_from,
       CASE WHEN m.store = $semantic AND m.workspace_key IS NULL
            THEN [(m)-[:MENTIONS]->(s:Entity)-[f:CUSTOM]->(:Entity)
                  WHERE f.agent_id = $agent_id AND m.id IN f.sources | s.slug]
            ELSE [] END AS subjects
ORDER BY m.valid_from, m.id
