// An item's version as stores written before versions had one label kept it: an EntryVersion or CoreBlockVersion
// node without the Version label, linked from the item, its counter moved past it (tests only).
:param label => 'Agent';
:param id => 'golem-1';
:param n => 1;
:param version_id => 'golem-1:v1';
MATCH (item {id: $id}) WHERE $label IN labels(item)
SET item.version = $n + 1
CREATE (item)-[:PREVIOUS_VERSION]->(:CoreBlockVersion {id: $version_id, n: $n, version: $n})
