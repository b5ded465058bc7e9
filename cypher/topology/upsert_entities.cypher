// Create or complete entities by canonical id; the kind is also a label. Names and symbols are
// kept once known; aliases accumulate. Visibility: `public` when the admin or a loader sends it
// (once public, public for good); otherwise the sending agent joins `creators`, who see it.
:param audit_id => 'audit-1';
:param now => 1700000000000;
:param public => false;
:param creator => 'golem-1';
:param rows => [{id: '1:0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2', kind: 'Token', name: 'Wrapped Ether', symbol: 'WETH', aliases: ['WETH'], chain_id: 1, address: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2'}];
UNWIND $rows AS row
MERGE (e:Entity {id: row.id})
  ON CREATE SET e.kind = row.kind, e.recorded_at = $now, e.audit_id = $audit_id,
                e.chain_id = row.chain_id, e.address = row.address, e.public = false, e.creators = []
WITH e, row, coalesce(e.public, false) AS was_public, coalesce(e.creators, []) AS creators
SET e:$(row.kind),
    e.name = coalesce(e.name, row.name),
    e.symbol = coalesce(e.symbol, row.symbol),
    e.aliases = reduce(acc = coalesce(e.aliases, []), a IN row.aliases | CASE WHEN a IN acc THEN acc ELSE acc + a END),
    e.public = was_public OR $public,
    e.creators = CASE WHEN $creator IS NULL OR $creator IN creators THEN creators ELSE creators + $creator END
SET e.aliases_text = reduce(s = '', a IN e.aliases | s + ' ' + a)
RETURN e.id AS id, $public AND NOT was_public AS made_public,
       $creator IS NOT NULL AND NOT $creator IN creators AS creator_added
