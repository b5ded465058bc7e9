// A skill's version fulfils an open bounty: the bounty closes (its valid time ends; the open state is kept as a
// version), the skill counts one more bounty match (pricing's demand), names the bounty and takes its reward
// multiplier as its bounty priority boost (the larger, when it fulfilled one before).
:param bounty_id => 'b-1';
:param stable_id => 'skill-0192';
:param version => 1;
:param matcher => 'golem-2';
:param now => 1770000000000;
MATCH (b:Bounty {id: $bounty_id}) WHERE b.status = 'open'
MATCH (s:Skill {stable_skill_id: $stable_id}) WHERE s.skill_version = $version
SET b.status = 'closed', b.valid_until = $now, b.closed_at = $now, b.matched_crystal_id = s.id,
    b.matched_skill_id = $stable_id, b.matched_by = $matcher
SET s.bounty_match_id = b.id, s.bounty_matches = coalesce(s.bounty_matches, 0) + 1,
    s.bounty_priority_boost = CASE WHEN coalesce(s.bounty_priority_boost, 1.0) > b.reward_multiplier
                                   THEN s.bounty_priority_boost ELSE b.reward_multiplier END
RETURN properties(b) AS bounty, s.id AS crystal_id, s.bounty_matches AS bounty_matches,
       s.bounty_priority_boost AS bounty_priority_boost
