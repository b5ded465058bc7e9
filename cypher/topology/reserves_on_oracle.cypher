// Which reserves, across all markets, depend within three hops on a given oracle at a given
// block (every hop valid at that block, believed now), and through what.
:param oracle => '1:0xaeb897e1dc6bbdced3b9d551c71a8cf172f27ac4';
:param block => 21000000;
MATCH (o:Entity {id: $oracle})
MATCH p = ANY SHORTEST (o)(()-[r]-(:Entity)
    WHERE r.fact_id IS NOT NULL AND r.expired_at IS NULL
      AND r.valid_from <= $block AND (r.valid_to IS NULL OR r.valid_to > $block)
  ){1,3}(reserve:Reserve)
RETURN reserve.name AS reserve, length(p) AS hops,
       [x IN relationships(p) | coalesce(x.name, x.predicate)] AS through
ORDER BY hops, reserve
