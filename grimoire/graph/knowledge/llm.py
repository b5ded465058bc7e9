"""The optional language-model Reasoner: the same judgement calls as the rule-based one, asked of a
model behind the OpenAI-compatible chat completions API (`POST {base_url}/chat/completions`).

Every answer is validated strictly. A timeout, a refused connection, an HTTP error or an answer that
does not validate makes the rule-based path answer instead, and the `Judged` it returns says so
(`reasoner='rule-based', fallback='timeout'`), so the decision or event written from it records why.
`contradicts` stays rule-based: the Admission Gate asks it once per neighbour of every candidate.

After a transport failure (not a junk answer) the model is not asked again for `retry_after_seconds`:
every call in that window falls back at once with the same reason, so a batch of candidates does not
wait out one timeout each while the model is down. That memory (`Breaker`) is the model's, shared with Loop 3's
replay and the Curator's consistency check, which ask the same model.

The client uses the standard library's HTTP (no extra dependency); it honours the usual proxy
variables (`https_proxy`, `no_proxy`) as any urllib client does.
"""

from __future__ import annotations

import http.client
import json
import logging
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, RootModel, ValidationError, model_validator

from grimoire.graph.knowledge.reasoner import (
    Candidate,
    ClusterSummary,
    Comparison,
    Judged,
    Lesson,
    RuleBasedReasoner,
)
from grimoire.graph.model.enums import EntryCategory

log = logging.getLogger(__name__)

MAX_RESPONSE_BYTES = 1024 * 1024
MAX_TEXT = 2000  # the longest lesson, interpretation or counterfactual accepted from a model
_REASON_CHARS = 160


class ReasonerUnavailable(Exception):
    """The language model gave no usable answer. `reason` is short: "timeout", "connection refused",
    "HTTP 500", "junk: <what was wrong>"; `junk` is true when the server answered but the answer
    did not validate (the model is reachable)."""

    def __init__(self, reason: str, *, junk: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason[:_REASON_CHARS]
        self.junk = junk


def _junk(what: str) -> ReasonerUnavailable:
    return ReasonerUnavailable(f"junk: {' '.join(what.split())}", junk=True)


def _network_reason(error: BaseException | str) -> str:
    if isinstance(error, TimeoutError):  # socket.timeout is TimeoutError since 3.10
        return "timeout"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, ConnectionResetError):
        return "connection reset"
    if isinstance(error, http.client.HTTPException):
        return f"bad HTTP response ({type(error).__name__})"
    if isinstance(error, OSError) and error.strerror:
        return f"unreachable: {error.strerror}"
    return f"unreachable: {error}"


# The chat completions answer, as far as it is read.
class _Message(BaseModel):
    content: str


class _Choice(BaseModel):
    message: _Message


class _ChatAnswer(BaseModel):
    choices: list[_Choice] = Field(min_length=1)


@dataclass(frozen=True)
class ChatClient:
    """A client for an OpenAI-compatible chat completions API: one POST per question, no retries."""

    base_url: str
    model: str
    api_key: str | None = None
    timeout_seconds: float = 10.0

    def __post_init__(self) -> None:
        if not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"the reasoner URL must be http:// or https://, not {self.base_url!r}")
        if self.timeout_seconds <= 0:
            raise ValueError("the reasoner timeout must be positive")

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def complete(self, messages: list[dict[str, str]], *, json_mode: bool = False, temperature: float = 0.0) -> str:
        """The first choice's message content. Raises ReasonerUnavailable on any failure."""
        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": temperature}
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_seconds) as response:
                raw: bytes = response.read(MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as e:
            e.close()
            raise ReasonerUnavailable(f"HTTP {e.code}") from e
        except urllib.error.URLError as e:
            raise ReasonerUnavailable(_network_reason(e.reason)) from e
        except (OSError, http.client.HTTPException) as e:  # timeouts and resets while reading
            raise ReasonerUnavailable(_network_reason(e)) from e
        if len(raw) > MAX_RESPONSE_BYTES:
            raise _junk(f"response over {MAX_RESPONSE_BYTES} bytes")
        try:
            answer = _ChatAnswer.model_validate_json(raw)
        except ValidationError as e:
            raise _junk(f"not a chat completion ({_first_error(e)})") from e
        return answer.choices[0].message.content


def _first_error(e: ValidationError) -> str:
    """The first two problems pydantic found (a union reports one per alternative)."""
    parts = []
    for err in e.errors()[:2]:
        where = ".".join(str(p) for p in err["loc"])
        parts.append(f"{where}: {err['msg']}" if where else str(err["msg"]))
    return "; ".join(parts)


# What each question accepts as an answer (strict: no strings for numbers, nothing extra).
class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


Unit = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]  # a score from 0 to 1, strictly


class _UtilityObject(_Strict):
    utility: Unit


class _UtilityAnswer(RootModel[_UtilityObject | Unit]):
    """{"utility": 0.7}, or a bare 0.7."""

    model_config = ConfigDict(strict=True)

    @property
    def value(self) -> float:
        return float(self.root.utility if isinstance(self.root, _UtilityObject) else self.root)


class _DistillAnswer(_Strict):
    category: Literal["Heuristic", "Warning", "Insight", "none"]
    content: str = Field(default="", max_length=MAX_TEXT)
    polarity: Literal[-1, 0, 1] = 0

    @model_validator(mode="after")
    def _consistent(self) -> _DistillAnswer:
        if self.category == "none":
            return self
        if not self.content.strip():
            raise ValueError("a lesson needs content")
        if self.category == "Heuristic" and self.polarity != 1:
            raise ValueError("a Heuristic has polarity 1")
        if self.category == "Warning" and self.polarity != -1:
            raise ValueError("a Warning has polarity -1")
        return self


class _ReflectAnswer(_Strict):
    interpretation: str = Field(min_length=1, max_length=MAX_TEXT)
    counterfactual: str = Field(min_length=1, max_length=MAX_TEXT)
    insight: str | None = Field(default=None, max_length=MAX_TEXT)


_A = TypeVar("_A", bound=BaseModel)

SYSTEM = ("You are the Reasoner of Grimoire, the memory of an autonomous DeFi agent. You judge knowledge "
          "from the agent's own experience. Answer with one JSON object and nothing else.")


def _parse(content: str, schema: type[_A]) -> _A:
    text = content.strip()
    if text.startswith("```"):  # a fenced block: ```json ... ```
        text = text.strip("`").removeprefix("json").strip()
    try:
        data = json.loads(text)
    except ValueError as e:
        raise _junk(f"not JSON: {content[:60]!r}") from e
    try:
        return schema.model_validate(data)
    except ValidationError as e:
        raise _junk(_first_error(e)) from e


class Breaker:
    """A model's circuit breaker. After a transport failure (not a junk answer) the model is not asked for
    `retry_after_seconds` (open): a run of questions to a model that is down costs one timeout, not one each. When the
    rest is over, one question goes through (half-open) while the others still fall back; its answer closes the
    breaker (the model is back; a junk answer counts: the model answered) or opens it for another rest.

    One per configured model (`Breaker.of`: its URL and model name), shared by every user of that model — the
    Reasoner, Loop 3's replay, the Curator's consistency check — and kept for the process's life, so an outage one of
    them saw is remembered by the others and across their cycles."""

    _shared: dict[tuple[str, str], Breaker] = {}
    _shared_lock = threading.Lock()

    def __init__(self, retry_after_seconds: float = 30.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.retry_after_seconds = retry_after_seconds
        self.clock = clock
        self._lock = threading.Lock()
        self._down_until = 0.0
        self._down_reason: str | None = None   # None: closed
        self._probing = False                  # half-open: one question let through to see if the model is back

    @classmethod
    def of(cls, client: ChatClient) -> Breaker:
        """The process's breaker for `client`'s model (its URL and model name)."""
        key = (client.url, client.model)
        with cls._shared_lock:
            found = cls._shared.get(key)
            if found is None:
                found = cls._shared[key] = cls()
            return found

    @classmethod
    def forget_all(cls) -> None:
        """Drops every model's breaker (a test's fresh start: a port a test's dead model had may serve the next)."""
        with cls._shared_lock:
            cls._shared.clear()

    @property
    def state(self) -> Literal["closed", "open", "half-open"]:
        with self._lock:
            if self._down_reason is None:
                return "closed"
            return "half-open" if self._probing and self.clock() < self._down_until else "open"

    def down(self) -> str | None:
        """Why the model is not to be asked now (None: ask it). The first caller after the rest is let through as the
        probe; the others wait for its answer (for another rest at most, should it never report)."""
        with self._lock:
            if self._down_reason is None:
                return None
            now = self.clock()
            if now < self._down_until:
                return self._down_reason
            self._down_until, self._probing = now + self.retry_after_seconds, True
            return None

    def succeeded(self) -> None:
        """The model answered: closed."""
        with self._lock:
            self._down_reason, self._down_until, self._probing = None, 0.0, False

    def failed(self, e: ReasonerUnavailable) -> bool:
        """Records a failure; whether it opened the breaker (a transport failure: a junk answer closes it, since the
        model answered)."""
        if e.junk:
            self.succeeded()
            return False
        with self._lock:
            self._down_until = self.clock() + self.retry_after_seconds
            self._down_reason = e.reason
            self._probing = False
        return True


def ask(client: ChatClient, prompt: str, schema: type[_A], *, temperature: float = 0.0,
        breaker: Breaker | None = None) -> _A:
    """One question to `client`, its answer validated by `schema`, through `breaker` (the model's shared one by
    default): raises ReasonerUnavailable at once while the breaker is open, and as `complete` and `_parse` do."""
    breaker = breaker if breaker is not None else Breaker.of(client)
    if (reason := breaker.down()) is not None:
        raise ReasonerUnavailable(reason)
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": prompt}]
    try:
        content = client.complete(messages, json_mode=True, temperature=temperature)
    except ReasonerUnavailable as e:
        if breaker.failed(e):
            log.warning("language model %s at %s unavailable (%s): not asked for the next %.0f s", client.model,
                        client.url, e.reason, breaker.retry_after_seconds)
        raise
    breaker.succeeded()
    return _parse(content, schema)


def _fmt(x: float | None) -> str:
    return "unknown" if x is None else f"{x:+.4g}"


class LanguageModelReasoner:
    """The Reasoner protocol answered by a language model, with the rule-based Reasoner behind it."""

    def __init__(self, client: ChatClient, *, rules: RuleBasedReasoner | None = None,
                 breaker: Breaker | None = None) -> None:
        self.client = client
        self.rules = rules or RuleBasedReasoner()
        self.name = f"language-model:{client.model}"
        self.breaker = breaker if breaker is not None else Breaker.of(client)   # shared with the model's other users

    # -- the protocol

    def future_utility(self, candidate: Candidate) -> float:
        return self.future_utility_judged(candidate)[0]

    def future_utility_judged(self, candidate: Candidate) -> tuple[float, Judged]:
        prompt = (
            "Will this knowledge entry be useful for future decisions in similar conditions? "
            'Answer {"utility": <a number from 0 to 1>}: 0 useless, 1 certainly useful.\n'
            f"category: {candidate.category.value}\n"
            f"decay class: {candidate.decay_class.value if candidate.decay_class else 'unspecified'}\n"
            f"market regime: {candidate.regime.value if candidate.regime else 'unspecified'}\n"
            f"supporting episodes: {candidate.evidence}\n"
            f"tags: {', '.join(candidate.tags) or 'none'}\n"
            f"content: {candidate.content}"
        )
        try:
            answer = self._ask(prompt, _UtilityAnswer)
        except ReasonerUnavailable as e:
            return self.rules.future_utility(candidate), self._fell_back(e)
        return answer.value, Judged(self.name)

    def contradicts(self, claim: str, existing: str) -> bool:
        return self.rules.contradicts(claim, existing)

    def distill(self, cluster: ClusterSummary) -> tuple[Lesson | None, Judged]:
        if cluster.decided < 3:  # the protocol's precondition: fewer than three outcomes teach nothing
            return None, Judged(self.name)
        examples = "\n".join(f"- {t}" for t in cluster.texts) or "- (none given)"
        prompt = (
            "These episodes of one agent share a tool, chain and token pair. What rule do their outcomes teach? "
            'Answer {"category": "Heuristic" | "Warning" | "Insight" | "none", "content": <the rule, one sentence, '
            'naming the tool and the conditions>, "polarity": 1 | -1 | 0}: a Heuristic says do it (polarity 1), '
            "a Warning says avoid it (polarity -1), an Insight describes (polarity 0); "
            '"none" when the outcomes teach nothing yet.\n'
            f"tool: {cluster.tool or 'unknown'}\nchain: {cluster.chain or 'unknown'}\n"
            f"token pair: {cluster.token_pair or 'unknown'}\nregime: {cluster.regime or 'mixed'}\n"
            f"strategy: {cluster.strategy or 'mixed'}\n"
            f"outcomes: {cluster.positives} positive, {cluster.negatives} negative, {cluster.neutrals} neutral; "
            f"mean gain {_fmt(cluster.mean_gain)}\n"
            f"episodes (newest first):\n{examples}"
        )
        try:
            answer = self._ask(prompt, _DistillAnswer)
        except ReasonerUnavailable as e:
            lesson, _ = self.rules.distill(cluster)
            return lesson, self._fell_back(e)
        if answer.category == "none":
            return None, Judged(self.name)
        return (Lesson(EntryCategory(answer.category), " ".join(answer.content.split()), answer.polarity),
                Judged(self.name))

    def reflect(self, comparison: Comparison) -> tuple[str, Lesson | None, Judged]:
        c = comparison
        history = "; ".join(f"expected {_fmt(e)} actual {_fmt(a)}" for e, a in c.history) or "none"
        prompt = (
            "An agent predicted a metric before acting; here is the verified outcome. Interpret it: why did it "
            "differ (or not), what would have happened had the agent acted otherwise, and is there a lesson for "
            'future predictions? Answer {"interpretation": <one or two sentences>, "counterfactual": '
            '<one sentence>, "insight": <a one-sentence lesson, or null when there is none>}.\n'
            f"metric: {c.metric}\nexpected: {_fmt(c.expected)}\nactual: {_fmt(c.actual)}\n"
            f"deviation: {_fmt(c.deviation)} (tolerance {c.tolerance:.4g}): {c.verdict}\n"
            f"tool: {c.tool or 'unknown'}\ntoken pair: {c.token_pair or 'unknown'}\nregime: {c.regime or 'unknown'}\n"
            f"earlier predictions of this metric, oldest first: {history}"
        )
        try:
            answer = self._ask(prompt, _ReflectAnswer)
        except ReasonerUnavailable as e:
            text, lesson, _ = self.rules.reflect(comparison)
            return text, lesson, self._fell_back(e)
        text = (f"predicted {c.metric} {c.expected:+.4g}, actual {c.actual:+.4g} (deviation {c.deviation:+.4g}, "
                f"tolerance {c.tolerance:.4g}): {c.verdict}; {' '.join(answer.interpretation.split())} "
                f"Counterfactual: {' '.join(answer.counterfactual.split())}")
        insight = " ".join((answer.insight or "").split())
        lesson = Lesson(EntryCategory.Insight, insight, 0) if insight else None
        return text, lesson, Judged(self.name)

    # -- asking, and falling back

    def _ask(self, prompt: str, schema: type[_A]) -> _A:
        return ask(self.client, prompt, schema, breaker=self.breaker)

    def _fell_back(self, e: ReasonerUnavailable) -> Judged:
        if e.junk:
            log.info("language-model reasoner gave %s; the rule-based reasoner answered", e.reason)
        return Judged(self.rules.name, fallback=e.reason)
