"""Prompts a client offers its user: start a session with this agent's memory, record how something turned
out."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from grimoire.api.mcp.server import GrimoireMCP


def register(server: GrimoireMCP) -> None:
    @server.prompt(name="start_session", title="Start a session with memory",
                   description="Load this agent's memory before working on a task.")
    def start_session(task: str) -> str:
        return (
            f"You are starting work on: {task}\n\n"
            "Before acting, load what you know:\n"
            "1. Call `whoami` to see which agent you are and what your key may do.\n"
            "2. Read the resource grimoire://memory (your MEMORY.md) and, if it helps, grimoire://playbook.\n"
            f"3. Call `assemble_context` with query={task!r} for a budgeted context, and `retrieve_memory` for "
            "anything specific it lacks.\n"
            "4. Keep core memory current with `edit_core_memory`, passing the version you read.\n"
            "As you work, record what happens with `record_episodes` and what you learn with `add_entries`."
        )

    @server.prompt(name="record_outcome", title="Record an outcome",
                   description="Record how a decision turned out and feed it back into memory.")
    def record_outcome(decision: str, outcome: str, entry_ids: str = "") -> str:
        used = f" It relied on the entries {entry_ids}." if entry_ids else ""
        return (
            f"The decision was: {decision}. It turned out: {outcome}.{used}\n\n"
            "1. Call `record_episodes` with one episode of type 'outcome' describing what happened.\n"
            "2. For each entry the decision relied on, call `give_feedback` with feedback='outcome' and "
            "outcome positive, negative or neutral (confirm or contradict an entry that the outcome proved or "
            "disproved).\n"
            "3. If you learned something new, call `add_entries` (an Insight, a Heuristic or a Warning); if the "
            "outcome retrieved context, call `retrieval_feedback` or `context_feedback` with its id."
        )
