"""A minimal agent loop on Grimoire's Python client (grimoire.client).

Each tick the agent records what it saw, recalls what it knows, assembles a budgeted context for its decision,
acts, records the action, and feeds the outcome back into the entries it relied on.

    GRIMOIRE_URL=http://127.0.0.1:8000 GRIMOIRE_API_KEY=gk_... python examples/agent_loop.py

(`make up` prints the admin key's file; the admin registers an agent and issues its key: README, Agents and keys.)
"""

from __future__ import annotations

from grimoire.client import Grimoire

OBSERVATIONS = [
    "Gas on Ethereum mainnet read 42 gwei at 14:00 UTC while the LP position drifted 3% out of range",
    "Gas on Ethereum mainnet read 7 gwei at 03:10 UTC; the LP position is 5% out of range",
    "Gas on Ethereum mainnet read 6 gwei at 03:40 UTC; the pool's fee tier earned 0.02% overnight",
]


def main() -> int:
    with Grimoire() as g:  # GRIMOIRE_URL and GRIMOIRE_API_KEY from the environment
        me = g.whoami()
        assert me.agent is not None, "use an agent's key, not the admin's"
        agent = me.agent.id
        print(f"agent {agent} (key {me.key_id}, scopes {', '.join(me.scopes)})")
        heuristic = g.learn("Rebalance LP positions when mainnet gas is under 10 gwei, usually 2-4 AM UTC",
                            category="Heuristic")
        print(f"learned: {heuristic.outcome} {heuristic.entry_id}")
        for tick, seen in enumerate(OBSERVATIONS):
            g.remember(seen, tick=tick)
            known = g.recall_text("is gas cheap enough to rebalance the LP position now", k=5)
            context = g.assemble_context(agent, {"query": "rebalance the LP position", "budget": 600})
            cheap = "gwei" in seen and int(seen.split(" gwei")[0].rsplit(" ", 1)[1]) < 10
            decision = "rebalance" if cheap else "wait"
            g.remember(f"Decided to {decision} the LP position at tick {tick}", type="action", tick=tick,
                       outcome="positive" if cheap else "neutral")
            used = [hit.id for hit in known.results if hit.kind == "entry"]
            for entry_id in used:
                g.entry_outcome(entry_id, {"used_in_decision": True, "outcome": "positive" if cheap else "neutral"})
            print(f"tick {tick}: recalled {len(known.results)}, context {context.total_tokens} tokens, "
                  f"decided to {decision}, fed back to {len(used)} entries")
        episodes = sum(1 for _ in g.iterate(g.list_episodes, agent_id=agent, page_size=2))
        print(f"episodes now: {episodes}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
