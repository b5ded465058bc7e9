// A bounty posted: open from now (valid_until null) until a skill fulfils it.
:param props => {id: 'b-1', agent_id: 'golem-1', clade: 'clade-a', scope: 'private', text: 'a swap router',
                 reward_multiplier: 2.0, status: 'open'};
CREATE (b:Bounty)
SET b = $props
RETURN properties(b) AS bounty
