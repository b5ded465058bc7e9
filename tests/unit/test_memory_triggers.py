"""Trigger phrases (section 8.1; graph/memory/triggers.py) and the router's classification (8.2;
graph/memory/routing.py): the rules, and the language model with the rules behind it."""

from __future__ import annotations

import json

import pytest

from grimoire.graph.knowledge.llm import ReasonerUnavailable
from grimoire.graph.memory.routing import LanguageModelRouter, RuleRouter
from grimoire.graph.memory.triggers import Intent, QueryType, detect


@pytest.mark.parametrize(("text", "intent", "content"), [
    ("Remember that Alex develops the Moltbot memory project.", Intent.remember,
     "Alex develops the Moltbot memory project"),
    ("Don't forget: the demo is on Friday.", Intent.remember, "the demo is on Friday"),
    ("Please keep in mind I prefer brainstorming.", Intent.remember, "I prefer brainstorming"),
    ("Note that the project uses OpenClaw.", Intent.remember, "the project uses OpenClaw"),
    ("Important: I'm allergic to peanuts.", Intent.remember, "I'm allergic to peanuts"),
    ("For future reference, staging is at 10.0.0.2", Intent.remember, "staging is at 10.0.0.2"),
    ("Save this: the wifi is 'moltbot'", Intent.remember, "the wifi is 'moltbot'"),
    ("FYI for later, the office closes at 6", Intent.remember, "the office closes at 6"),
    ("Forget about the CSS bug.", Intent.forget, "the CSS bug"),
    ("Never mind about the offsite", Intent.forget, "the offsite"),
    ("Disregard the old deploy steps", Intent.forget, "the old deploy steps"),
    ("Scratch that.", Intent.forget, ""),
    ("That's no longer relevant", Intent.forget, ""),
    ("Ignore what I said about tabs", Intent.forget, "tabs"),
    ("Remove from memory the staging address", Intent.forget, "the staging address"),
    ("Delete the memory about the CSS bug", Intent.forget, "the CSS bug"),
    ("Please permanently delete the memory about the CSS bug.", Intent.delete, "the CSS bug"),
    ("Reflect on this week", Intent.reflect, "this week"),
    ("Consolidate your memories", Intent.reflect, ""),
    ("Can you clean up your memory?", Intent.reflect, ""),
    ("I need to reflect on my career", Intent.none, "I need to reflect on my career"),
    ("OK, clean up your memory", Intent.reflect, ""),
    ("I remember when we met.", Intent.none, "I remember when we met."),
    ("My name is Alex.", Intent.auto, "My name is Alex."),
    ("Nice weather today", Intent.none, "Nice weather today"),
])
def test_phrases(text: str, intent: Intent, content: str) -> None:
    t = detect(text)
    assert (t.intent, t.content) == (intent, content)


@pytest.mark.parametrize(("text", "kind", "explicit", "content"), [
    ("What do you remember about OAuth2 PKCE?", QueryType.entity, True, "OAuth2 PKCE"),
    ("What do you know about the memory project?", QueryType.entity, True, "the memory project"),
    ("When did we discuss the deploy?", QueryType.temporal, False, "discuss the deploy"),
    ("How do I usually deploy?", QueryType.procedural, False, "deploy"),
    ("What's the latest on the memory project?", QueryType.latest, False, "the memory project"),
    ("Do you remember the offsite?", QueryType.general, True, "the offsite"),
])
def test_recall_questions_search_instead_of_writing(text: str, kind: QueryType, explicit: bool, content: str) -> None:
    t = detect(text)
    assert (t.intent, t.query_type, t.explicit, t.content) == (Intent.recall, kind, explicit, content)


def test_the_rules_classify_like_the_spec() -> None:
    rules = RuleRouter()
    c = rules.classify("we decided to use OAuth2 PKCE for the mobile client auth", explicit=True, user="Alex")
    out = c.out()
    assert (out["store"], out["type"], out["confidence"], out["core_update"]) == ("semantic", "decision", "high", False)
    assert out["relations"] == [{"from": "person--alex", "relation": "decided-on", "to": "concept--oauth2-pkce"}]
    assert {"name": "OAuth2 PKCE", "type": "concept", "id": "concept--oauth2-pkce"} in out["entities"]
    assert 2 <= len(out["tags"]) <= 5 and out["summary"] == "We decided to use OAuth2 PKCE for the mobile client auth."
    assert rules.classify("maybe the API is slow", explicit=True).confidence.value == "low"
    assert rules.classify("the API is slow", explicit=False).confidence.value == "medium"
    assert rules.classify("my name is Sam", explicit=False).out()["core_block"] == "identity"
    assert rules.classify("be more concise with me", explicit=True).out()["core_block"] == "persona"
    assert rules.classify("the vault code is 1234", explicit=True).store.value == "vault"
    proc = rules.classify("how to release: first bump the version, then tag it, then push", explicit=True)
    assert proc.store.value == "procedural" and proc.procedure is not None
    assert proc.procedure.steps == ("Bump the version", "Tag it", "Push")


class _Fake:
    def __init__(self, answer: str | Exception) -> None:
        self.answer, self.asked = answer, 0

    def complete(self, messages: list[dict[str, str]], *, json_mode: bool = False) -> str:
        self.asked += 1
        assert json_mode and "relates-to" in messages[0]["content"]
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_the_language_model_classifies_and_the_rules_answer_when_it_cannot() -> None:
    good = json.dumps({"store": "semantic", "type": "decision", "entities": [
        {"name": "Moltbot", "type": "project"}, {"name": "OAuth2 PKCE", "type": "concept"}],
        "relations": [{"from": "Moltbot", "relation": "uses", "to": "OAuth2 PKCE"}],
        "tags": ["auth", "security", "mobile"], "confidence": "high", "core_update": False,
        "summary": "Decided to use OAuth2 PKCE flow for mobile client auth."})
    router = LanguageModelRouter(_Fake(good), "tiny")
    out = router.classify("we picked PKCE", explicit=True).out()
    assert out["relations"] == [{"from": "project--moltbot", "relation": "uses", "to": "concept--oauth2-pkce"}]
    assert (out["router"], out["fallback"]) == ("language-model:tiny", None)
    assert out["tags"] == ["auth", "security", "mobile"]
    junk = LanguageModelRouter(_Fake('{"store": "attic"}'), "tiny").classify("note that X uses Y", explicit=True)
    assert junk.router == "rule-based" and junk.fallback is not None and junk.fallback.startswith("junk")
    down = LanguageModelRouter(_Fake(ReasonerUnavailable("timeout")), "tiny").classify("X uses Y", explicit=True)
    assert (down.router, down.fallback) == ("rule-based", "timeout")
