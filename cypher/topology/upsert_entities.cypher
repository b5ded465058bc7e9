// Create or complete entities by canonical id; the kind is also a label. Names and symbols are
// kept once known; aliases accumulate.
:param audit_id => 'audit-1';
:param now => 1700000000000;
:param rows => [{id: '1:0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2', kind: 'Token', name: 'Wrapped Ether', symbol: 'WETH', aliases: ['WETH'], chain_id: 1, address: '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2'}];
UNWIND $rows AS row
MERGE (e:Entity {id: row.id})
  ON CREATE SET e.kind = row.kind, e.recorded_at = $now, e.audit_id = $audit_id,
                e.chain_id = row.chain_id, e.address = row.address
SET e:$(row.kind),
    e.name = coalesce(e.name, row.name),
    e.symbol = coalesce(e.symbol, row.symbol),
    e.aliases = reduce(acc = coalesce(e.aliases, []), a IN row.aliases | CASE WHEN a IN acc THEN acc ELSE acc + a END)
SET e.aliases_text = reduce(s = '', a IN e.aliases | s + ' ' + a)
RETURN count(e) AS entities
