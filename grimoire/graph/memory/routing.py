"""Where a memory goes (../shared/spec/moltbot-memory.md, section 8.2): its store, type, tags, confidence,
the entities and relations in it (the relation vocabulary of 6.3), whether core memory changes, and a
one-line summary — the spec's structured classification.

`RuleRouter` decides by patterns (the default: no model, microseconds); `LanguageModelRouter` asks the
configured chat model with the spec's classification prompt, validates the answer strictly, and lets the
rules answer when the model is down or answers junk (the classification then says so)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from grimoire.graph.knowledge.llm import ReasonerUnavailable
from grimoire.graph.memory.blocks import Block
from grimoire.graph.model.enums import EntityKind, MemoryRelation


def _words(text: str) -> list[str]:
    return text.split()


class Store(StrEnum):
    core = "core"
    episodic = "episodic"
    semantic = "semantic"
    procedural = "procedural"
    vault = "vault"


class MemoryType(StrEnum):
    """The episode metadata's type (section 5)."""

    decision = "decision"
    fact = "fact"
    preference = "preference"
    task = "task"
    event = "event"
    emotion = "emotion"
    correction = "correction"


class Confidence(StrEnum):
    high = "high"
    medium = "medium"
    low = "low"


CONFIDENCE_VALUE = {Confidence.high: 0.9, Confidence.medium: 0.6, Confidence.low: 0.3}
KINDS = {"person": EntityKind.Person, "project": EntityKind.Project, "concept": EntityKind.Concept,
         "tool": EntityKind.Tool, "place": EntityKind.Place}
USER = "user"  # the person the agent talks to, until a message names them


@dataclass(frozen=True)
class Entity:
    name: str
    kind: EntityKind

    @property
    def slug(self) -> str:
        """The spec's entity id: `kind--name` (person--alex, concept--oauth2-pkce)."""
        return f"{self.kind.value.lower()}--{slugify(self.name)}"

    @property
    def canonical_id(self) -> str:
        """The graph's entity id for an entity named off chain (graph/model/common.py EntityMention)."""
        return f"{self.kind.value.lower()}:{' '.join(self.name.lower().split())}"

    def out(self) -> dict[str, str]:
        return {"name": self.name, "type": self.kind.value.lower(), "id": self.slug}


@dataclass(frozen=True)
class Relation:
    subject: Entity
    relation: MemoryRelation
    object: Entity

    def out(self) -> dict[str, str]:
        return {"from": self.subject.slug, "relation": self.relation.value, "to": self.object.slug}


@dataclass(frozen=True)
class Procedure:
    trigger: str
    steps: tuple[str, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Classification:
    store: Store
    type: MemoryType
    summary: str
    tags: tuple[str, ...]
    confidence: Confidence
    entities: tuple[Entity, ...] = ()
    relations: tuple[Relation, ...] = ()
    core_update: bool = False
    core_block: Block | None = None      # which block a core update changes
    procedure: Procedure | None = None
    router: str = "rule-based"
    fallback: str | None = None          # why the rules answered for the model

    def out(self) -> dict[str, Any]:  # open: MessageOut.classification, its nulls kept on the wire
        """Section 8.2's structured output (and what this service adds: type, block, procedure, router)."""
        out: dict[str, Any] = {
            "store": self.store.value, "entities": [e.out() for e in self.entities],
            "relations": [r.out() for r in self.relations], "tags": list(self.tags),
            "confidence": self.confidence.value, "core_update": self.core_update, "summary": self.summary,
            "type": self.type.value, "core_block": self.core_block.value if self.core_block else None,
            "router": self.router, "fallback": self.fallback,
        }
        if self.procedure:
            out["procedure"] = {"trigger": self.procedure.trigger, "steps": list(self.procedure.steps),
                                "notes": list(self.procedure.notes)}
        return out


class Router(Protocol):
    @property
    def name(self) -> str: ...

    def classify(self, content: str, *, explicit: bool, user: str = USER) -> Classification: ...


def slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


# ---------------------------------------------------------------------------------------- the rules

_VAULT = re.compile(r"\b(?:vault|never forget|always remember|pin (?:this|it)|permanently|password|passphrase|"
                    r"api key|secret|pin code|social security|iban)\b", re.I)
_PROCEDURE = re.compile(r"\b(?:how to|whenever|when(?:ever)? (?:i|you) (?:ask|want|need)|steps?\b|workflow|procedure|"
                        r"first\b.+\bthen\b|before (?:you|we|i) (?:deploy|ship|push|release|merge))", re.I)
_IDENTITY = re.compile(r"\b(?:my name is|call me|i(?:'m| am) an? [a-z]+(?: [a-z]+)? (?:at|for|in)\b|i work as|"
                       r"i live in|my timezone|my pronouns|i(?:'m| am) based in)", re.I)
_CONTEXT = re.compile(r"\b(?:i(?:'m| am) (?:currently )?working on|currently|this week|my (?:top )?priority|"
                      r"focus(?:ing)? on|right now i)\b", re.I)
_PERSONA = re.compile(r"\b(?:(?:be|sound) (?:more|less)|talk to me|respond (?:in|with)|answer (?:in|with)|"
                      r"your tone|address me)\b", re.I)
_CRITICAL = re.compile(r"\b(?:allergic|deadline|must never|must always|never (?:ever )?(?:share|send|deploy|"
                       r"push|delete))\b", re.I)
_HEDGE = re.compile(r"\b(?:maybe|might|perhaps|i think|probably|not sure|possibly)\b", re.I)
_TYPES: tuple[tuple[MemoryType, re.Pattern[str]], ...] = (
    (MemoryType.correction, re.compile(r"\b(?:actually|correction|i meant|that was wrong|not .+ but)\b", re.I)),
    (MemoryType.decision, re.compile(r"\b(?:decided|decide|chose|choose|going with|we'll go with|agreed)\b", re.I)),
    (MemoryType.preference, re.compile(r"\b(?:prefers?|like|likes|love|loves|hate|hates|rather|favou?rite|"
                                       r"avoid|avoids|dislike)\b", re.I)),
    (MemoryType.emotion, re.compile(r"\b(?:feel|feeling|felt|happy|frustrated|worried|excited|sad|angry|"
                                    r"stressed)\b", re.I)),
    (MemoryType.task, re.compile(r"\b(?:todo|to-do|need to|have to|task|next:|remind me|by (?:monday|tuesday|"
                                 r"wednesday|thursday|friday|tomorrow))\b", re.I)),
    (MemoryType.event, re.compile(r"\b(?:meeting|met|yesterday|today|happened|went|launched|shipped|released|"
                                  r"incident|call with)\b", re.I)),
)
_TOOLS = frozenset(_words("""git github gitlab vim neovim emacs vscode slack docker kubernetes k8s postgres postgresql
mysql redis neo4j python rust go golang java typescript javascript node react linux macos windows terraform
aws gcp azure jira notion figma openclaw letta mem0 pytest fastapi django flask kafka spark airflow
grafana prometheus sentry jenkins circleci zsh bash tmux chrome firefox excel elasticsearch opensearch
rabbitmq nginx mongodb sqlite clickhouse snowflake dbt"""))
_PLACES = frozenset(_words("""berlin london paris amsterdam munich new york san francisco tokyo lisbon madrid rome
zurich vienna dublin boston seattle toronto sydney singapore"""))
_STOP = frozenset(_words("""a an the i me my mine we us our you your he she it its they them their this that these those
is am are was were be been being do does did have has had will would can could should may might must
and or but if then else when while for to of in on at by with from as into about over under after before
not no yes so too very just also please remember note important keep mind save forget don't dont
what how why who where which there here all any some more most much many each every own same other
prefer prefers like likes love loves use uses using used decided decide chose going go want wants
always never usually really actually currently working work works build building today yesterday tomorrow
week weekend month year morning evening tonight"""))
# Conversational words that say nothing about a topic: never tags, never the start of a name ("Hey John").
GENERIC = frozenset(_words("""hey hi hello thanks thank wow yeah yes oh ok okay well congrats sure totally definitely
happened happening everything something anything nothing great quite long crazy inspiring amazing awesome glad
pretty little lots things thing stuff feel feeling felt think thought knew good nice cool fun loved lovely
beautiful wonderful tough hard happy excited agreed went going gone made make doing done getting got take took
time times lately recently still even maybe super absolutely exactly special important cause because""")) | _STOP
_FIRST_PERSON = re.compile(r"^(?:i|me|my|we|us|our|myself)$", re.I)
_WORD = r"[A-Za-z0-9][\w.+#/-]*"
_CAPS = re.compile(r"\b(?:[A-Z][\w.+#-]*|[A-Za-z]*\d[\w.+#-]*)(?:\s+(?:[A-Z][\w.+#-]*|\d[\w.+#-]*))*")
# subject (a pronoun or up to four words) relation object (up to five words), most specific first
_NP = r"((?:[\w.+#'-]+\s+){0,3}?[\w.+#'-]+)"
_OBJECT_NP = r"((?:[\w.+#'-]+\s+){0,4}[\w.+#'-]+)"
_RELATION_PATTERNS: tuple[tuple[MemoryRelation, re.Pattern[str]], ...] = tuple(
    (rel, re.compile(_NP + r"\s+" + verb + r"\s+" + _OBJECT_NP, re.I)) for rel, verb in (
        (MemoryRelation.used_by, r"(?:is|are) used by"),
        (MemoryRelation.part_of, r"(?:is|are) (?:a )?part of"),
        (MemoryRelation.depends_on, r"(?:depends|depend) on"),
        (MemoryRelation.decided_on, r"(?:decided|agreed) (?:on|to use|to go with)"),
        (MemoryRelation.supersedes, r"(?:supersedes|replaces|replaced)"),
        (MemoryRelation.preceded_by, r"(?:is|was|comes) preceded by"),
        (MemoryRelation.followed_by, r"(?:is|was) followed by"),
        (MemoryRelation.uncertain_about, r"(?:(?:am|are|is)(?:n't| not) sure about|(?:am|are|is) uncertain about|"
                                         r"(?:am|are|is) unsure about)"),
        (MemoryRelation.confident_about, r"(?:am|are|is) (?:confident|sure) (?:about|in)"),
        (MemoryRelation.avoids, r"(?:avoids?|hates?|dislikes?|(?:do|does)(?:n't| not) (?:like|use|want))"),
        (MemoryRelation.prefers, r"(?:prefers?|likes?|loves?)"),
        (MemoryRelation.develops, r"(?:develops?|(?:am|is|are|'m) (?:building|developing)|builds?|maintains?|"
                                  r"(?:am|is|are|'m) (?:currently )?working on|works? on)"),
        (MemoryRelation.uses, r"(?:uses?|(?:am|is|are|'m) using|switched to)"),
        (MemoryRelation.contains, r"(?:contains?|includes?)"),
        (MemoryRelation.relates_to, r"(?:relates to|(?:is|are) related to|(?:is|are) about)"),
    ))
_OBJECT_END = re.compile(r"\s+(?:for|because|since|when|while|and|but|so|instead|over|rather|to|in|on|at|with|"
                         r"from|as|if|which|that|than)\b.*$", re.I)
# where a subject's clause starts: "Sam said [the billing service] depends on …"
_CLAUSE = re.compile(r"\b(?:said|says|told \w+|thinks?|believes?|mentioned|noted|that|and|but|because|so|when|"
                     r"while)\b", re.I)
_PROJECT_WORDS = frozenset({"project", "repo", "repository", "app", "service"})
# A capitalised one-word subject of these is somebody: "Alex develops …", "Sam prefers …".
_PERSON_VERBS = frozenset({MemoryRelation.develops, MemoryRelation.prefers, MemoryRelation.avoids,
                           MemoryRelation.confident_about, MemoryRelation.uncertain_about, MemoryRelation.decided_on})
_DETERMINER = re.compile(r"^(?:the|a|an|my|our|your|his|her|their|its|this|that)\s+", re.I)


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?;])\s+|\n+", text) if s.strip()]


def _kind_of(name: str, context: str) -> EntityKind:
    low = name.lower()
    if low in _TOOLS or low.split()[0] in _TOOLS:
        return EntityKind.Tool
    if low in _PLACES:
        return EntityKind.Place
    if re.search(r"\b(?:project|repo|app|service)\s+" + re.escape(name) + r"\b|\b" + re.escape(name)
                 + r"\s+(?:project|repo|app|service)\b", context, re.I):
        return EntityKind.Project
    if re.search(r"\b(?:name is|call me|colleague|friend|manager|boss|wife|husband|partner|sister|brother|"
                 r"mother|father|with|met|told|asked)\s+" + re.escape(name) + r"\b", context, re.I):
        return EntityKind.Person
    if re.search(r"\b(?:in|at|from|to)\s+" + re.escape(name) + r"\b", context) and low in _PLACES:
        return EntityKind.Place
    return EntityKind.Concept


def _clean(phrase: str) -> str:
    phrase = _OBJECT_END.sub("", phrase.strip(" .,:;!?\"'()"))
    while _DETERMINER.match(phrase):
        phrase = _DETERMINER.sub("", phrase, count=1)
    return phrase.strip(" .,:;!?\"'()")


def _entity(phrase: str, context: str, user: str, known: dict[str, Entity]) -> Entity | None:
    phrase = _clean(phrase)
    if not phrase:
        return None
    if _FIRST_PERSON.match(phrase):
        return Entity(user, EntityKind.Person)
    words = phrase.split()
    if words[-1].lower() in _PROJECT_WORDS:  # "the Moltbot memory project"; "the project" alone names nothing
        return Entity(" ".join(words[:-1]), EntityKind.Project) if len(words) > 1 else None
    for size in range(len(words), 0, -1):  # the longest known entity inside the phrase
        for start in range(0, len(words) - size + 1):
            hit = known.get(" ".join(words[start:start + size]).lower())
            if hit:
                return hit
    content = [w for w in words if w.lower() not in _STOP]
    if not content:
        return None
    name = " ".join(words[-4:]) if len(words) > 4 else phrase
    return Entity(name, _kind_of(name, context))


def _named(text: str, user: str) -> dict[str, Entity]:
    """Capitalised names and known tools in the text, by their lower-cased name."""
    found: dict[str, Entity] = {}
    for sentence in _sentences(text):
        for m in _CAPS.finditer(sentence):
            words = m.group(0).split()
            while words and words[0].lower() in GENERIC:  # "Remember", "The", "Hey" at the start of a sentence
                words = words[1:]
            if not words:
                continue
            name = " ".join(words).strip(".,")
            if name.lower() in _STOP or len(name) < 2:
                continue
            found.setdefault(name.lower(), Entity(name, _kind_of(name, text)))
        for word in re.findall(_WORD, sentence):
            low = word.lower().strip(".,")
            if low in _TOOLS and low not in found:
                found[low] = Entity(word.strip(".,"), EntityKind.Tool)
    if named := re.search(r"\b(?:my name is|call me)\s+([A-Z][\w-]*)", text):
        found[named.group(1).lower()] = Entity(named.group(1), EntityKind.Person)
    found.pop(user.lower(), None)
    return found


def _relations(text: str, user: str, known: dict[str, Entity]) -> list[Relation]:
    out: list[Relation] = []
    for sentence in _sentences(text):
        taken: list[tuple[int, int]] = []
        for relation, rx in _RELATION_PATTERNS:
            for m in rx.finditer(sentence):
                if any(m.start() < end and start < m.end() for start, end in taken):
                    continue
                subject = _entity(_CLAUSE.split(m.group(1).split(",")[-1])[-1], sentence, user, known)
                obj = _entity(m.group(2), sentence, user, known)
                if (subject and relation in _PERSON_VERBS and subject.kind is EntityKind.Concept
                        and " " not in subject.name and subject.name[:1].isupper()):
                    subject = known[subject.name.lower()] = Entity(subject.name, EntityKind.Person)
                if subject and obj and subject != obj:
                    out.append(Relation(subject, relation, obj))
                    taken.append((m.start(), m.end()))
    return list(dict.fromkeys(out))


def _procedure(text: str) -> Procedure:
    trigger_match = re.search(r"\b(?:when(?:ever)?\s+(?:i|you|we)\s+[^,:.]+|how to\s+[^,:.]+|to\s+[^,:.]+(?=:))",
                              text, re.I)
    trigger = trigger_match.group(0).strip() if trigger_match else (_sentences(text) or [text])[0].strip() or "-"
    body = text[trigger_match.end():] if trigger_match else text
    numbered = re.split(r"\s*(?:^|\s)\d+[.)]\s+", body)
    parts = [p for p in numbered[1:]] if len(numbered) > 2 else re.split(
        r"\s*(?:,\s*(?:and\s+)?then\s+|;\s*|\bthen\b\s*|,\s*(?:and\s+)?finally\s+|\bfinally\b\s*|\bfirst\b\s*|"
        r"\bnext\b,?\s*|\bafter that\b,?\s*|,\s*and\s+)", body, flags=re.I)
    steps: list[str] = []
    notes: list[str] = []
    for part in parts:
        part = part.strip(" ,.:;")
        if not part:
            continue
        if re.match(r"^(?:note|notes|ps|p\.s\.)\b", part, re.I):
            notes.append(re.sub(r"^(?:notes?|ps|p\.s\.)[:\s]*", "", part, flags=re.I))
        else:
            steps.append(part[0].upper() + part[1:])
    for m in re.finditer(r"\((?:note:?\s*)?([^)]+)\)", text, re.I):
        notes.append(m.group(1).strip())
    return Procedure(trigger[0].upper() + trigger[1:], tuple(steps), tuple(dict.fromkeys(notes)))


def _tags(content: str, entities: tuple[Entity, ...], kind: MemoryType) -> tuple[str, ...]:
    tags = [slugify(e.name) for e in entities if e.name.lower() != USER][:3]
    for word in sorted({w.lower() for w in re.findall(r"[A-Za-z][A-Za-z-]{3,}", content)} - GENERIC,
                       key=lambda w: (-len(w), w)):
        if len(tags) >= 4:
            break
        if word not in tags and all(word not in t for t in tags):
            tags.append(word)
    if kind.value not in tags:
        tags.append(kind.value)
    return tuple(tags[:5])


def summarise(content: str) -> str:
    text = " ".join(content.split()).strip(" ,;:-")
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


@dataclass
class RuleRouter:
    name: str = "rule-based"
    _cache: dict[str, Any] = field(default_factory=dict)

    def classify(self, content: str, *, explicit: bool, user: str = USER) -> Classification:
        summary = summarise(content)
        known = _named(content, user)
        relations = tuple(_relations(content, user, known))
        related = list(dict.fromkeys(e for r in relations for e in (r.subject, r.object)))
        inside = {e for e in known.values() for r in related   # "Moltbot" inside "Moltbot memory" (a project)
                  if e != r and re.search(r"\b" + re.escape(e.name.lower()) + r"\b", r.name.lower())}
        entities = tuple(dict.fromkeys([*(e for e in known.values() if e not in inside), *related]))
        kind = next((t for t, rx in _TYPES if rx.search(content)), MemoryType.fact)
        confidence = (Confidence.low if _HEDGE.search(content) else
                      Confidence.high if explicit else Confidence.medium)
        store, block, procedure = Store.episodic, None, None
        if _VAULT.search(content):
            store = Store.vault
        elif _PROCEDURE.search(content):
            store, procedure = Store.procedural, _procedure(content)
        elif _IDENTITY.search(content):
            store, block = Store.core, Block.identity
        elif _CONTEXT.search(content):
            store, block = Store.core, Block.context
        elif _PERSONA.search(content):
            store, block = Store.core, Block.persona
        elif _CRITICAL.search(content):
            store, block = Store.core, Block.critical
        elif kind is MemoryType.event:
            pass  # an event is logged by day; reflection extracts its relations later (section 5)
        elif relations or kind in (MemoryType.fact, MemoryType.preference):
            store = Store.semantic
        if store is Store.vault:
            confidence = Confidence.high
        return Classification(store=store, type=kind, summary=summary, tags=_tags(content, entities, kind),
                              confidence=confidence, entities=entities, relations=relations,
                              core_update=block is not None, core_block=block, procedure=procedure,
                              router=self.name)


# ---------------------------------------------------------------------------------------- the model

PROMPT = """You are classifying a piece of information for storage. Given the content below, determine:
1. store: core (critical, always-relevant: identity, active priorities, key preferences), episodic (a specific
   event, decision or interaction worth logging chronologically), semantic (a fact, concept or relationship for the
   knowledge graph), procedural (a workflow, pattern or how-to), vault (the user wants it permanently protected).
2. entities (name, type: person/project/concept/tool/place) and relations (subject -> relation -> object) where the
   relation is one of: {relations}.
3. tags: 2-5 topical tags. 4. confidence: high, medium or low. 5. core_update: true only if it changes the user's
   identity, active context or critical facts (then core_block: identity, context, persona or critical).
6. type: decision, fact, preference, task, event, emotion or correction. 7. summary: one sentence.
For a procedure also give procedure: {{"trigger": ..., "steps": [...], "notes": [...]}}.
Answer with JSON only: {{"store": ..., "type": ..., "entities": [{{"name": ..., "type": ...}}], "relations":
[{{"from": <entity name>, "relation": ..., "to": <entity name>}}], "tags": [...], "confidence": ...,
"core_update": ..., "core_block": ..., "summary": ..., "procedure": ...}}
The user is called {user}. Content: {content}"""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _EntityAnswer(_Strict):
    name: str = Field(min_length=1, max_length=200)
    type: Literal["person", "project", "concept", "tool", "place"]


class _RelationAnswer(_Strict):
    from_: str = Field(alias="from", min_length=1, max_length=200)
    relation: MemoryRelation
    to: str = Field(min_length=1, max_length=200)


class _ProcedureAnswer(_Strict):
    trigger: str = Field(min_length=1, max_length=500)
    steps: list[str] = Field(max_length=50)
    notes: list[str] = Field(default_factory=list, max_length=50)


class _Answer(_Strict):
    store: Store
    type: MemoryType = MemoryType.fact
    entities: list[_EntityAnswer] = Field(default_factory=list, max_length=50)
    relations: list[_RelationAnswer] = Field(default_factory=list, max_length=50)
    tags: list[str] = Field(min_length=1, max_length=5)
    confidence: Confidence
    core_update: bool = False
    core_block: Block | None = None
    summary: str = Field(min_length=1, max_length=2_000, pattern=r"\S")
    procedure: _ProcedureAnswer | None = None


class Asker(Protocol):
    def complete(self, messages: list[dict[str, str]], *, json_mode: bool = False) -> str: ...


@dataclass
class LanguageModelRouter:
    """Section 8.2's classification prompt asked of the configured chat model; the rules answer when it
    fails (the classification's `fallback` says why)."""

    client: Asker
    model: str
    rules: RuleRouter = field(default_factory=RuleRouter)

    @property
    def name(self) -> str:
        return f"language-model:{self.model}"

    def classify(self, content: str, *, explicit: bool, user: str = USER) -> Classification:
        prompt = PROMPT.format(relations=", ".join(r.value for r in MemoryRelation), user=user, content=content)
        try:
            raw = self.client.complete([{"role": "user", "content": prompt}], json_mode=True)
            text = raw.strip().strip("`").removeprefix("json").strip()  # a fenced block: ```json ... ```
            answer = _Answer.model_validate(json.loads(text))
            return self._classification(answer, user)
        except (ReasonerUnavailable, ValidationError, ValueError) as e:
            reason = getattr(e, "reason", None) or f"junk: {str(e)[:120]}"
            return replace(self.rules.classify(content, explicit=explicit, user=user), fallback=reason)

    def _classification(self, a: _Answer, user: str) -> Classification:
        entities = {e.name.lower(): Entity(e.name, KINDS[e.type]) for e in a.entities}

        def resolve(name: str) -> Entity:
            if _FIRST_PERSON.match(name) or name.lower() in (USER, user.lower()):
                return Entity(user, EntityKind.Person)
            return entities.get(name.lower()) or Entity(name, EntityKind.Concept)

        relations = tuple(Relation(resolve(r.from_), r.relation, resolve(r.to)) for r in a.relations)
        block = a.core_block if a.core_update else None
        if block is None and a.store is Store.core:
            block = Block.critical
        procedure = (Procedure(a.procedure.trigger, tuple(a.procedure.steps), tuple(a.procedure.notes))
                     if a.procedure and a.store is Store.procedural else None)
        if a.store is Store.procedural and procedure is None:
            procedure = _procedure(a.summary)
        return Classification(
            store=a.store, type=a.type, summary=summarise(a.summary),
            tags=tuple(dict.fromkeys(slugify(t) for t in a.tags)), confidence=a.confidence,
            entities=tuple(dict.fromkeys([*entities.values(), *(e for r in relations for e in (r.subject, r.object))])),
            relations=relations, core_update=block is not None, core_block=block, procedure=procedure,
            router=self.name)
