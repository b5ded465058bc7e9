/**
 * A minimal agent loop on Grimoire's TypeScript client (clients/typescript), as examples/agent_loop.py does it on the
 * Python one.
 *
 * Each tick the agent records what it saw, recalls what it knows, assembles a budgeted context for its decision,
 * acts, records the action, and feeds the outcome back into the entries it relied on.
 *
 *     make ts-client
 *     GRIMOIRE_URL=http://127.0.0.1:8000 GRIMOIRE_API_KEY=gk_... node clients/typescript/.build/examples/agent_loop.js
 *
 * (`make up` prints the admin key's file; the admin registers an agent and issues its key: README, Agents and keys.)
 */
import { Grimoire, ok, pages } from "@grimoire/client";

const OBSERVATIONS = [
  "Gas on Ethereum mainnet read 42 gwei at 14:00 UTC while the LP position drifted 3% out of range",
  "Gas on Ethereum mainnet read 7 gwei at 03:10 UTC; the LP position is 5% out of range",
  "Gas on Ethereum mainnet read 6 gwei at 03:40 UTC; the pool's fee tier earned 0.02% overnight",
];

/** The assembled context's size (read from whatever type the route declares for its answer). */
function totalTokens(context: unknown): number | undefined {
  return (context as { total_tokens?: number }).total_tokens;
}

function gwei(seen: string): number | undefined {
  const found = /(\d+) gwei/.exec(seen);
  return found ? Number(found[1]) : undefined;
}

export async function main(): Promise<number> {
  const g = new Grimoire(); // GRIMOIRE_URL and GRIMOIRE_API_KEY from the environment
  const me = await g.whoami();
  if (!me.agent) throw new Error("use an agent's key, not the admin's");
  const agent = me.agent.id;
  console.log(`agent ${agent} (key ${me.key_id}, scopes ${me.scopes.join(", ")})`);
  const heuristic = await g.learn("Rebalance LP positions when mainnet gas is under 10 gwei, usually 2-4 AM UTC",
    "Heuristic");
  console.log(`learned: ${heuristic.outcome} ${heuristic.entry_id}`);
  for (const [tick, seen] of OBSERVATIONS.entries()) {
    await g.remember(seen, { tick });
    const known = await g.recall("is gas cheap enough to rebalance the LP position now", 5);
    const context = await ok(g.api.POST("/agents/{agent_id}/context/assemble", {
      params: { path: { agent_id: agent } }, body: { query: "rebalance the LP position", budget: 600 } }));
    const cheap = (gwei(seen) ?? Infinity) < 10;
    const decision = cheap ? "rebalance" : "wait";
    const outcome = cheap ? "positive" : "neutral";
    await g.remember(`Decided to ${decision} the LP position at tick ${tick}`, { type: "action", tick, outcome });
    const used = known.results.filter((hit) => hit.kind === "entry").map((hit) => hit.id);
    for (const entry_id of used) {
      await ok(g.api.POST("/entries/{entry_id}/outcome", {
        params: { path: { entry_id } }, body: { used_in_decision: true, outcome } }));
    }
    console.log(`tick ${tick}: recalled ${known.results.length}, context ${totalTokens(context)} tokens, ` +
      `decided to ${decision}, fed back to ${used.length} entries`);
  }
  let episodes = 0;
  for await (const _ of pages((offset, limit) =>
    ok(g.api.GET("/episodes", { params: { query: { agent_id: agent, offset, limit } } })), 2)) {
    episodes += 1;
  }
  console.log(`episodes now: ${episodes}`);
  return 0;
}

process.exitCode = await main();
