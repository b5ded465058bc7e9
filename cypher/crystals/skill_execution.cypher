// One execution of a skill's version: its record (executions, successes, the reward sum) and its steering
// reward, the mean execution reward (−1..1).
:param stable_id => 'skill-0192';
:param version => 1;
:param success => true;
:param reward => 0.5;
:param now => 1770000000000;
MATCH (s:Skill {stable_skill_id: $stable_id}) WHERE s.skill_version = $version
SET s.execution_count = coalesce(s.execution_count, 0) + 1,
    s.success_count = coalesce(s.success_count, 0) + CASE WHEN $success THEN 1 ELSE 0 END,
    s.reward_sum = coalesce(s.reward_sum, 0.0) + $reward, s.last_executed_at = $now
SET s.steering_reward = s.reward_sum / s.execution_count
RETURN s.execution_count AS executions
