"""The tools: each a REST route (or, for a composite, several) with a name an agent reads, a description that
says when to use it, annotations, and the profile it belongs to. EXCLUDED names the routes with no tool and
why; tests/unit/test_mcp_catalog.py fails when a route is in neither (a new REST capability needs its tool).

Kinds set the annotations: `read` (read-only, idempotent), `write` (adds or changes, never deletes), `destructive`
(deletes, closes or rolls back). `person`: only a person's key (the agent's owner, scope `person`) or the admin's;
an agent's own key gets a tool error, so an agent never approves its own staged memory or rolls itself back."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from mcp.types import ToolAnnotations

Kind = Literal["read", "write", "destructive"]


class Profile(StrEnum):
    default = "default"  # what an agent needs every session
    full = "full"        # every capability


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    kind: Kind
    route: str | None = None           # a route tool: "METHOD /path"; None: a composite (composites.py)
    routes: tuple[str, ...] = ()       # the routes a composite calls (or a route tool also stands for)
    idempotent: bool = False
    default: bool = False              # in the default profile
    person: bool = False
    progress: bool = False             # reports progress while the route runs (GDS)

    @property
    def covers(self) -> tuple[str, ...]:
        return ((self.route,) if self.route else ()) + self.routes

    def annotations(self) -> ToolAnnotations:
        read = self.kind == "read"
        return ToolAnnotations(title=self.name.replace("_", " "), read_only_hint=read,
                               destructive_hint=self.kind == "destructive", idempotent_hint=read or self.idempotent,
                               open_world_hint=False)


def R(name: str, route: str, description: str, kind: Kind = "read", **kw: bool | tuple[str, ...]) -> ToolSpec:
    return ToolSpec(name, description, kind, route, **kw)  # type: ignore[arg-type]


def C(name: str, routes: tuple[str, ...], description: str, kind: Kind, **kw: bool) -> ToolSpec:
    return ToolSpec(name, description, kind, None, routes, **kw)  # type: ignore[arg-type]


A = "/agents/{agent_id}"
TOOLS: tuple[ToolSpec, ...] = (
    # ---------------------------------------------------------------- who am I, the store at a glance
    R("whoami", "GET /agents/me", "Who this API key acts as: its agent (id, clade, kind), key id and scopes. Call "
      "it first: every other tool acts as this principal and sees only what it may.", default=True),
    R("memory_stats", "GET /stats", "Counts of what this key may see: episodes, entries by category and status, "
      "entities, facts, causal links."),
    R("service_health", "GET /health", "Whether the service and its Neo4j answer, with the schema and model."),
    # ---------------------------------------------------------------- recall
    R("retrieve_memory", "POST /retrieve", "Retrieve what this agent knows that matters now: hybrid (vector + "
      "full-text + graph, fused by RRF, reranked, MMR-diversified, cut to a token budget) or another mode "
      "(vector, fulltext, graph, temporal, causal, ...), with filters (kinds, categories, time, regime, agents) "
      "and, on request, an explanation of each item's score. Use before any decision.", default=True),
    R("search_memory", "POST /search", "Plain similarity search over episodes or entries (vector or full-text), "
      "top k, no fusion or budget: for finding a specific item by its wording.", default=True),
    R("recall", f"GET {A}/recall", "Recall the agent's own memories (moltbot stores: episodic, semantic, "
      "procedural, ...) for a query, ranked by relevance, recency and strength."),
    R("retrieval_feedback", "POST /retrieve/feedback", "Say whether a retrieval (by its decision_id) was useful "
      "and how the decision turned out: one learning step on this agent's recency/importance/relevance weights.",
      "write"),
    R("get_retrieval_weights", "GET /retrieve/weights", "This agent's learned retrieval weights (recency, "
      "importance, relevance)."),
    # ---------------------------------------------------------------- context
    R("assemble_context", f"POST {A}/context/assemble", "Assemble the budgeted context for the next decision "
      "(the Context Governor): the policy's categories for the task, phase and regime, filled from memory, core "
      "blocks and the world graph within the token budget. Returns the sections, their tokens and an "
      "assembly_id to give feedback on.", "write", default=True),
    R("preassemble_context", f"POST {A}/context/preassemble", "Assemble a context ahead of time for a likely "
      "next situation, kept for a fast assemble later.", "write"),
    R("context_feedback", f"POST {A}/context/feedback", "Feedback on an assembled context (by assembly_id): what "
      "was cited, what was missing, quality and cost; feeds the policy's recalibration.", "write"),
    R("get_context_policy", f"GET {A}/context/policy", "The agent's context policy: per task and phase, which "
      "categories get what share of the budget."),
    R("set_context_policy", f"PUT {A}/context/policy", "Replace the agent's context policy (a new revision; "
      "the old one stays in the history).", "write", idempotent=True),
    R("context_policy_delta", f"GET {A}/context/policy/delta", "What changed between two policy revisions."),
    R("resolve_context_policy", f"POST {A}/context/policy/resolve", "The policy's allocation for a situation "
      "(task, phase, regime), without assembling."),
    R("list_policy_revisions", f"GET {A}/context/policy/revisions", "The policy's revisions, newest first."),
    R("recalibrate_context_policy", f"POST {A}/context/recalibrate", "Recalibrate the policy from the feedback "
      "gathered so far (otherwise done on the scheduler).", "write"),
    R("list_context_decisions", f"GET {A}/context/decisions", "The agent's recent context assemblies."),
    R("list_beliefs", f"GET {A}/context/beliefs", "The agent's current beliefs about which context helps."),
    R("list_reasoning_chains", f"GET {A}/context/reasoning", "The agent's decisions' reasoning chains kept for "
      "dream replay, each beside how the decision went."),
    R("list_context_mutations", f"GET {A}/context/mutations", "Policy mutations staged for trial."),
    R("stage_context_mutations", f"POST {A}/context/mutations/stage", "Stage policy mutations from the "
      "beliefs, for trial on later assemblies.", "write"),
    # ---------------------------------------------------------------- core memory
    R("get_core_memory", f"GET {A}/core", "The agent's core memory: identity, context, persona and critical "
      "blocks, each with its text, tokens, version and pinned facts. Read it at the start of a session; "
      "edit with edit_core_memory passing the version you read.", default=True),
    C("edit_core_memory", (f"POST {A}/core/{{block}}/append", f"PUT {A}/core/{{block}}",
                           f"POST {A}/core/{{block}}/line"),
      "Edit one core memory block: append lines, insert a line at a position, replace or delete one line "
      "(by number or current text), or rewrite the whole block. Pass expected_version (the block's version "
      "from get_core_memory): if someone wrote the block since, nothing is written and the error says its "
      "version. Refused past the core memory's token cap, or when it would drop a pinned critical fact.",
      "write", default=True),
    R("pin_critical_fact", f"POST {A}/core/critical/pin", "Pin a critical fact (added to the critical block "
      "when missing): it never decays and every edit keeps it.", "write", idempotent=True),
    R("unpin_critical_fact", f"POST {A}/core/critical/unpin", "Unpin a critical fact: it stays in the block, "
      "edits may now change it.", "write", idempotent=True),
    R("core_block_versions", f"GET {A}/core/{{block}}/versions", "A core block's earlier texts, newest first, "
      "with who wrote and replaced each."),
    # ---------------------------------------------------------------- episodes, entries, feedback
    R("record_episodes", "POST /episodes/batch", "Record what happened (episodes: observations, actions, "
      "outcomes, messages), up to 1,000 at once, with the entities they mention and their valid time. "
      "Idempotent on episode ids.", "write", idempotent=True, default=True, routes=("POST /episodes",)),
    R("list_episodes", "GET /episodes", "Episodes this key may see, newest first, filtered by agent, type, "
      "regime, valid and recorded time."),
    R("get_episode", "GET /episodes/{episode_id}", "One episode by id, with its mentions and entries."),
    R("get_episode_reflection", "GET /episodes/{episode_id}/reflection", "Reflexion's verdict on an episode's "
      "prediction: correct, miscalibrated or wrong, with its deviation and the operations queued on the entries "
      "that informed the decision."),
    R("add_entries", "POST /entries/batch", "Add knowledge entries (insights, heuristics, warnings, causal "
      "links, strategy fragments), up to 1,000 at once. Each goes through admission: admitted, merged into a "
      "near duplicate, skipped, or rejected, with the reason.", "write", idempotent=True, default=True,
      routes=("POST /entries",)),
    R("admission_dry_run", "POST /admission/dry-run", "What admission would decide for an entry, without "
      "writing it: the outcome, the score's parts and the nearest existing entries."),
    R("get_admission_decision", "GET /admission/decisions/{decision_id}", "A stored admission decision."),
    R("list_entries", "GET /entries", "Knowledge entries this key may see, filtered by agent, category, status, "
      "regime, valid/known time and minimum confidence."),
    R("get_entry", "GET /entries/{entry_id}", "One entry by id: content, confidence, quality, decay, sources."),
    R("entry_versions", "GET /entries/{entry_id}/versions", "An entry's earlier versions, newest first."),
    R("edit_entry", "POST /entries/{entry_id}/edit", "Edit an entry's content or fields (a new version; the old "
      "one is kept).", "write"),
    R("set_entry_scope", "POST /entries/{entry_id}/scope", "Set your entry's scope (private, shared with your "
      "clade, public): the only way a scope widens; a confidential entry stays private.", "write"),
    C("give_feedback", ("POST /entries/{entry_id}/upvote", "POST /entries/{entry_id}/downvote",
                        "POST /entries/{entry_id}/outcome"),
      "Feedback on an entry: confirm it (it held), contradict it (it did not), or report the outcome of a "
      "decision that used it (positive, negative, neutral). Moves its confidence and quality.", "write",
      default=True),
    # ---------------------------------------------------------------- the agent's own memories (messages)
    R("send_message", f"POST {A}/messages", "Tell the agent's memory a message (a user's or its own turn): "
      "triggers like 'remember ...' store memories, questions recall them.", "write"),
    R("list_memories", f"GET {A}/memories", "The agent's memories by store and day."),
    R("get_memory", f"GET {A}/memories/{{memory_id}}", "One memory by id."),
    R("entity_page", f"GET {A}/entities/{{entity_id}}/page", "An entity's page from the agent's own memories "
      "(by its id, kind--name such as project--moltbot-memory): summary, facts, timeline, open questions and "
      "relations, and the Markdown entity file."),
    R("reinforce_memories", f"POST {A}/memories/reinforce", "Reinforce memories that proved useful (their "
      "strength grows; they decay slower).", "write"),
    R("restore_memories", f"POST {A}/memories/restore", "Restore archived memories by id.", "write",
      idempotent=True),
    R("forget_preview", f"POST {A}/forget/preview", "What forget would remove for a target or ids, without "
      "removing anything."),
    R("forget", f"POST {A}/forget", "Forget: archive (or, with permanent, delete) the agent's memories and core "
      "lines matching a target or ids. Audited; a person can roll it back unless permanent.", "destructive",
      default=True),
    R("after_turn", "POST /hooks/after_turn", "The after-turn hook: record a conversation turn and what it "
      "taught in one call.", "write"),
    R("before_compact", "POST /hooks/before_compact", "The before-compaction hook: save what the agent must "
      "keep before its context window is compacted.", "write"),
    R("start_session", f"POST {A}/sessions", "Start a session: the critical items verified, the alerts waiting "
      "for the person, and what waits for a batch review (open proposals, the reflection to approve).", "write"),
    R("end_session", f"POST {A}/sessions/end", "End a session: a reflection over what it added, pending the "
      "person's approval (none when nothing new was remembered).", "write"),
    # ---------------------------------------------------------------- reflection, proposals, approval
    R("reflect", f"POST {A}/reflections", "Reflect on recent memories: a reflection with proposed changes, "
      "staged for the agent's person to approve.", "write"),
    R("list_reflections", f"GET {A}/reflections", "The agent's reflections, pending and decided."),
    R("get_reflection", f"GET {A}/reflections/{{reflection_id}}", "One reflection with its proposals."),
    R("decide_reflection", f"POST {A}/reflections/{{reflection_id}}/decision", "Approve (all, with changes, or "
      "part) or reject a pending reflection. A person's key (the agent's owner) or the admin's only.", "write",
      person=True),
    R("propose_memory", f"POST {A}/proposals", "Propose a memory for the main agent's store (a sub-agent's or "
      "a propose-only key's write).", "write"),
    R("list_proposals", f"GET {A}/proposals", "Proposals to the agent's memory, by status."),
    R("decide_proposal", f"POST {A}/proposals/{{proposal_id}}/decision", "Commit, reject or defer a proposal. A "
      "person's key (the agent's owner) or the admin's only.", "write", person=True),
    R("trust_subagent", f"PUT {A}/subagents/{{sub_id}}/trust", "Auto-commit a sub-agent's proposals from a "
      "confidence up (in the auto review mode).", "write", idempotent=True),
    R("set_review_mode", f"PUT {A}/review-mode", "How sub-agents' proposals are reviewed: auto, batch (the "
      "default) or manual. A person's key (the agent's owner) or the admin's only.", "write", idempotent=True,
      person=True),
    R("get_workspace", f"GET {A}/workspace", "The agent's whole memory workspace as files (MEMORY.md, daily "
      "logs, stores), now or at a past time."),
    R("import_workspace", f"POST {A}/workspace", "Import a workspace's files into the agent's memory.", "write"),
    # ---------------------------------------------------------------- audit, versions, rollback
    R("list_audit", f"GET {A}/audit", "The agent's audit trail, newest first: every change, who made it, by "
      "which channel (rest, mcp, scheduler), why, and how to revert it. A person's key or the admin's only.",
      person=True),
    R("list_all_audit", "GET /audit", "Every agent's audit trail (the admin's key)."),
    R("audit_of_item", f"GET {A}/audit/items/{{item_id}}", "Every change to one item."),
    R("audit_of_reflection", f"GET {A}/audit/reflections/{{reflection_id}}", "The changes a reflection made."),
    R("audit_critical", f"GET {A}/audit/critical", "Changes to critical items, and checksum mismatches."),
    R("audit_forgotten", f"GET {A}/audit/forgotten", "What was forgotten, by term."),
    R("audit_digests", f"GET {A}/audit/digests", "The agent's folded audit digests (older records summarised)."),
    R("all_audit_digests", "GET /audit/digests", "Every agent's audit digests (the admin's key)."),
    R("item_versions", f"GET {A}/versions/{{item_id}}", "An item's earlier versions, newest first."),
    R("rollback", f"POST {A}/rollback", "Roll back one item, a reflection, an actor's changes, a session, one "
      "change, or the whole memory to a time; dry_run shows what it would do. A person's key or the admin's "
      "only.", "destructive", person=True),
    R("list_alerts", f"GET {A}/alerts", "Integrity alerts (critical items changed outside the service)."),
    R("acknowledge_alert", f"POST {A}/alerts/{{alert_id}}/acknowledge", "Acknowledge an alert. A person's key or "
      "the admin's only.", "write", idempotent=True, person=True),
    # ---------------------------------------------------------------- causal graph
    R("link_cause", "POST /causal/links", "Link entries causally (cause -> effect, with mechanism and "
      "strength); each link starts unconfirmed.", "write", idempotent=True),
    R("confirm_link", "POST /causal/links/{link_id}/outcome", "Confirm or refute a causal link from an "
      "observed outcome (its confidence moves).", "write"),
    C("walk_causal", ("GET /causal/{entry_id}/causes", "GET /causal/{entry_id}/consequences"),
      "Walk the causal graph from an entry: its causes or its consequences, up to a depth.", "read"),
    R("get_causal_graph", f"GET {A}/causal-graph", "The agent's causal graph, exportable to another agent."),
    R("inherit_causal_graph", f"POST {A}/inherit-causal-graph", "Inherit another agent's causal graph (its "
      "links at reduced confidence).", "write", idempotent=True),
    # ---------------------------------------------------------------- the world: entities and facts
    R("resolve_entity", "GET /entities/resolve", "Find entities (tokens, pools, protocols, ...) by name, "
      "symbol or address."),
    R("upsert_entities", "POST /entities", "Create or update entities (idempotent on their natural keys).",
      "write", idempotent=True),
    R("assert_facts", "POST /facts", "Assert facts about entities with valid time (a block or time range); a "
      "changed value closes the old fact, never overwrites it.", "write", idempotent=True),
    R("invalidate_fact", "POST /facts/{fact_id}/invalidate", "Close a fact: it stops being true at a time "
      "(kept in its history).", "destructive", idempotent=True),
    R("get_facts", "GET /entities/{entity_id:path}/facts", "An entity's facts as of a block or a known time "
      "(bi-temporal), by predicate."),
    R("get_fact_history", "GET /facts/{fact_id}", "A fact's versions over valid and recorded time."),
    R("entity_episodes", "GET /entities/{entity_id:path}/related", "Episodes that mention an entity, with the "
      "entries drawn from them."),
    R("entity_lag", "GET /entities/{entity_id:path}/lag", "How late facts about an entity were learned "
      "(recorded time minus valid time)."),
    R("k_hop", "POST /topology/k-hop", "Entities within k hops of seeds in the world graph, as of a block."),
    R("shortest_path", "GET /topology/path", "The shortest path between two entities, as of a block."),
    R("curiosity", "POST /topology/curiosity", "Where the world graph is thin around seeds: what is worth "
      "learning next."),
    # ---------------------------------------------------------------- graph analytics (GDS)
    R("run_analysis", "POST /analytics/{algorithm}", "Run a graph algorithm (pagerank, louvain, betweenness, "
      "node similarity, ...) on a projection of what this key may see; reports progress while GDS runs.",
      "write", progress=True),
    R("cascade", "POST /analytics/cascade", "Simulate a shock cascading through the world graph from seed "
      "entities; reports progress.", "read", progress=True),
    R("list_analysis_runs", "GET /analytics/runs", "Earlier analysis runs, newest first."),
    R("get_analysis_run", "GET /analytics/runs/{run_id}", "One analysis run with its written results."),
    # ---------------------------------------------------------------- learning (the Curator)
    R("run_curator_cycle", "POST /curator/cycles", "Run a Curator cycle now (decay, consolidation, promotion), "
      "otherwise run by the scheduler.", "write"),
    R("list_curator_cycles", "GET /curator/cycles", "Curator cycles, newest first."),
    R("curator_cycle_operations", "GET /curator/cycles/{cycle_id}/operations", "What one cycle did."),
    R("get_playbook", "GET /playbook", "The agent's playbook (PLAYBOOK.md): its best heuristics and warnings."),
    R("list_strategies", "GET /strategies", "Strategies with their fragments and performance."),
    R("strategy_package", "GET /strategies/{strategy}/package", "A strategy's knowledge package."),
    R("import_strategy", f"POST {A}/strategies/import", "Import a clade mate's strategy package (as its owner "
      "fetched it): each entry a candidate of this agent's through the Admission Gate at 0.8x its confidence, "
      "with its provenance; the same package twice admits nothing.", "write", idempotent=True),
    R("list_mental_models", "GET /mental-models", "The mental models (DeFi's core causal models)."),
    # ---------------------------------------------------------------- events, metrics, scheduler
    R("list_events", "GET /events", "Events (writes, admissions, cycles, ...) this key may see, by type, "
      "agent and time; resume with after."),
    R("get_metrics", "GET /metrics", "Memory health metrics."),
    R("record_metric_samples", "POST /metrics/samples", "Record metric samples (the agent's own measures).",
      "write", idempotent=True),
    R("metric_series", "GET /metrics/series", "A metric's samples over time."),
    R("list_scheduler_jobs", "GET /scheduler/jobs", "The periodic jobs, when each last ran and runs next."),
    R("run_scheduler_job", "POST /scheduler/jobs/{name}/run", "Run a periodic job now (the admin's key).",
      "write"),
    # ---------------------------------------------------------------- agents and keys (the admin's)
    R("list_agents", "GET /agents", "Agents: all for the admin, this key's clade otherwise."),
    R("register_agent", "POST /agents", "Register an agent (the admin's key).", "write"),
    R("issue_key", f"POST {A}/keys", "Issue an API key for an agent (the admin's key); the key is shown once.",
      "write"),
    R("list_keys", f"GET {A}/keys", "An agent's keys (ids and scopes, never the secrets)."),
    R("revoke_key", "DELETE /keys/{key_id}", "Revoke an API key at once.", "destructive", idempotent=True),
    R("set_trust_level", f"PUT {A}/trust-level", "Set an agent's trust level (the admin's key).", "write",
      idempotent=True),
    R("set_agent_limits", f"PUT {A}/limits", "Set an agent's limits per key on each replica (the admin's key): "
      "requests at once and per second; over them a request is refused with 429 and when to retry.", "write",
      idempotent=True),
    R("get_agent_limits", f"GET {A}/limits", "An agent's limits per key on each replica: its own and what applies."),
    # ---------------------------------------------------------------- knowledge crystals
    R("get_crystal", "GET /crystals/{crystal_id}", "A knowledge crystal's fields: lifecycle, importance, "
      "hormones, provenance, governance."),
    R("crystal_lifecycle", "POST /crystals/{crystal_id}/lifecycle", "Move a crystal through its lifecycle "
      "(activate, freeze, archive, expire, ...); a move the diagram lacks is refused.", "destructive"),
    R("crystal_new_version", "POST /crystals/{crystal_id}/versions", "A new version of a crystal (how a frozen "
      "one changes).", "write"),
    R("fork_crystal", "POST /crystals/{crystal_id}/fork", "Fork a crystal into this agent's own copy, with "
      "lineage.", "write"),
    R("merge_crystals", "POST /crystals/merge", "Merge crystals into one, with lineage.", "write"),
    R("consolidate_crystals", "POST /crystals/consolidate", "Run a consolidation pass now.", "write"),
    R("crystal_provenance", "GET /crystals/{crystal_id}/provenance", "A crystal's ancestors."),
    R("crystal_provenance_tree", "GET /crystals/{crystal_id}/provenance/tree", "A crystal's lineage as a tree."),
    R("crystal_attribution", "GET /crystals/{crystal_id}/provenance/attribution", "Who contributed to a "
      "crystal, by share."),
    R("get_hormones", f"GET {A}/hormones", "The agent's hormonal state (dopamine, cortisol, ...) and what it "
      "does to retrieval."),
    R("hormone_event", f"POST {A}/hormones/events", "Report an event (a win, a loss, a threat) that moves the "
      "agent's hormones.", "write"),
    R("get_network_weather", "GET /hormones/network", "The network-wide hormonal weather."),
    R("set_network_weather", "PUT /hormones/network", "Set the network weather (the admin's key).", "write",
      idempotent=True),
    R("end_network_weather", "DELETE /hormones/network", "End the network weather (the admin's key).",
      "destructive", idempotent=True),
    R("crystallize_skill", "POST /skills", "Crystallize a skill from crystals: a versioned, reusable "
      "procedure.", "write"),
    R("list_skills", "GET /skills", "Skills by category and tag."),
    R("search_skills", "GET /skills/search", "Skills for a query, from a perspective."),
    R("get_skill", "GET /skills/{stable_id}", "A skill with its versions and record."),
    R("skill_new_version", "POST /skills/{stable_id}/versions", "A new version of a skill.", "write"),
    R("record_skill_execution", "POST /skills/{stable_id}/executions", "Record a skill's execution and "
      "its outcome.", "write"),
    R("deprecate_skill", "POST /skills/{stable_id}/deprecate", "Deprecate a skill (kept, no longer offered).",
      "destructive", idempotent=True),
    R("post_bounty", "POST /bounties", "Post a bounty: what you need a skill for, a reward multiplier (1 to 10) "
      "and who sees it (private, shared with your clade, public).", "write"),
    R("list_bounties", "GET /bounties", "The open bounties you can see (status=closed for fulfilled ones, all "
      "for both)."),
    R("get_bounty", "GET /bounties/{bounty_id}", "One bounty you can see."),
    R("match_bounty", "POST /bounties/{bounty_id}/match", "Fulfil another agent's open bounty with your skill: "
      "the bounty closes and your skill carries its reward multiplier (and a higher demand price).", "write"),
)

# Routes with no tool, and why. Each names where its capability is for an MCP client.
EXCLUDED: dict[str, str] = {
    "GET /events/stream": "a Server-Sent Events stream; list_events with `after` resumes the same events",
    f"GET {A}/export": "an NDJSON dump for backup; get_workspace reads the same memory",
    "POST /agents/import": "an NDJSON restore of an export (the admin's bulk operation): REST only",
    f"GET {A}/workspace.zip": "the workspace as a zip file; get_workspace returns the same files",
    f"GET {A}/core/memory.md": "the resource grimoire://memory (MEMORY.md)",
    f"GET {A}/entities/{{entity_id}}/page.md": "entity_page's `markdown`, as a file",
    f"GET {A}/reflections/pending.md": "list_reflections, rendered for people",
    f"GET {A}/reflections/log.md": "list_reflections, rendered for people",
    f"GET {A}/reflections/evolution.md": "list_reflections, rendered for people",
    f"GET {A}/proposals/pending.md": "list_proposals, rendered for people",
    f"GET {A}/audit.log": "list_audit, one line per record (each record's `line`)",
    f"GET {A}/audit/archive.md": "audit_digests, rendered for people",
    "POST /episodes/enrichment": "the admin's drain of the lazy enrichment queue for tests and benches, which the "
                                 "episodes.enrich job does moments after every ingest: REST only",
    "POST /audit/fold": "the admin's upkeep of the trail, which the daily audit.retention job does: REST and "
                        "`grimoire audit fold`",
    "POST /management-nodes": "the admin registers a management node's key (the control plane): REST only",
    "GET /management-nodes": "the control plane's management node keys, for the admin and the nodes' operators: "
                             "REST only",
    "DELETE /management-nodes/{node_id}": "the admin revokes a management node's key (the control plane): REST only",
    "POST /crystals/{crystal_id}/verify": "a management node's signed endorsement, presented by its operator with "
                                          "the crystal owner's key (the control plane): REST only; get_crystal "
                                          "shows is_verified",
    "GET /metrics/prometheus": "the operator's Prometheus scrape (the admin's key; text exposition for a scraper, "
                               "not an agent's tool)",
}


def tools(profile: Profile) -> tuple[ToolSpec, ...]:
    return TOOLS if profile is Profile.full else tuple(t for t in TOOLS if t.default)
