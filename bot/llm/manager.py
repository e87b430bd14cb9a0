"""`ModelManager`: one place where the ensemble asks models things.

`complete(role, messages, schema)` picks the role's model from the config, serves a cache
hit if there is one, fits the request to the model's window, checks the budget, sends the
request with the retry policy, validates a structured reply (one repair round) or continues a
plain one the output cap cut off, fails over along the role's fallback chain (also when a
structured reply stays invalid), records the spend, and wraps it all in one trace span.
A request repeated within the run is not answered from the cache again but sampled warmer,
so a later round that asks the same thing gets something new. It is safe to call from
several threads at once.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.config import Config, ModelChoice, RoleModel
from bot.errors import (
    ModelError,
    ModelNotFound,
    PromptTooLong,
    ProviderError,
    StopRequested,
    StructuredReplyError,
    UsageError,
)
from bot.llm import followups, window
from bot.llm.budget import Ledger, SpendSummary
from bot.llm.cache import CachedReply, ReplyCache, cache_key
from bot.llm.followups import Outcome
from bot.llm.prices import PriceTable
from bot.llm.reasoning import reasoned, thinks
from bot.llm.registry import create_model
from bot.llm.retry import RetryLog, RetryPolicy, call_with_retries
from bot.llm.schemas import REPLY_TOKENS, get_schema
from bot.llm.tokens import count_message_tokens
from bot.llm.types import LENGTH, ChatModel, ChatRequest, Completion, Message, Reply, ReplyEnd
from bot.redact import withhold_secrets
from bot.trace import Span, span
from common.tokens import count_tokens

log = logging.getLogger(__name__)

REPEAT_WARMING = 0.3  # added to the temperature for each repeat of a request within the run
MAX_REPEAT_TEMPERATURE = 1.0
MIN_SHORT_REPLY = 128  # output tokens: a reply due by a time (`by`) that leaves fewer is not asked for
MIN_NEED_TOKENS = 256  # the lowest output cap a request is sent with for what its reply needs


@dataclass(frozen=True)
class Link:
    """One entry of a role's chain: the model and its configured temperature."""

    model: ChatModel
    temperature: float = 0.0
    setting: str = ""  # where the config chose it, for error messages: models.coder.fallback[0].model

    @property
    def label(self) -> str:
        return f"{self.model.provider}/{self.model.model}"


def team_role(role: str, team: int) -> str:
    """The manager's role name for team number `team`'s own model: 'coder@b' for the second team."""
    return f"{role}@{chr(ord('a') + team)}"


def _settings(key: str, fallbacks: int, env_role: str | None = None) -> list[str]:
    """The config settings of a chain's models, primary first, for messages that name what to change."""
    primary = f"{key}.model" + (f" (or ENSEMBLE_{env_role.upper()}_MODEL)" if env_role else "")
    return [primary, *(f"{key}.fallback[{i}].model" for i in range(fallbacks))]


def _links(choice: RoleModel, key: str, env: Mapping[str, str], base_dir: Path | None, env_role: str | None = None) -> list[Link]:
    """A role's chain from its config entry (a RoleModel): the primary, then its fallbacks."""
    choices: tuple[ModelChoice, ...] = (choice, *choice.fallback)
    return [Link(create_model(c.provider, c.model, env, base_dir, c.base_url, c.api_key_env), c.temperature, where)
            for c, where in zip(choices, _settings(key, len(choice.fallback), env_role), strict=True)]


class ModelManager:
    """Roles to model chains, with retries, failover, schemas, windows, budget, cache and tracing."""

    def __init__(self, chains: Mapping[str, Sequence[Link]], ledger: Ledger, *, policy: RetryPolicy | None = None,
                 cache: ReplyCache | None = None, timeout_s: float = 120.0, max_output_tokens: int = 4096,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
                 rng: random.Random | None = None, deadline: float | None = None):
        self.chains = {role: tuple(chain) for role, chain in chains.items()}
        self.ledger = ledger
        self.policy = policy or RetryPolicy()
        self.cache = cache
        self.timeout_s = timeout_s
        self.max_output_tokens = max_output_tokens
        self.clock = clock
        self.sleep = sleep
        self.rng = rng or random.Random()
        self.deadline = deadline  # a `clock()` time: no call is sent after it, none waits past it
        self._answered: dict[str, int] = {}  # request key -> how often this run has answered it
        self._quickest: dict[tuple[str, str], float] = {}  # _kind(request) -> seconds of its quickest answer
        self._pace: dict[tuple[str, str], float] = {}  # _kind(request) -> output tokens a second, answer read too
        self._full_cap: set[tuple[str, str]] = set()  # (model label, role): asked with the configured cap only
        self._lock = threading.Lock()

    @classmethod
    def from_config(cls, config: Config, env: Mapping[str, str], cache_dir: Path | None = None,
                    use_cache: bool = True, *, clock: Callable[[], float] = time.monotonic,
                    sleep: Callable[[float], None] = time.sleep, rng: random.Random | None = None,
                    base_dir: Path | None = None) -> ModelManager:
        """A manager for `config`'s roles; keys come from `env`, the cache lives in `cache_dir` (None: off)."""
        llm = config.llm
        chains: dict[str, list[Link]] = {}
        for role in ("planner", "coder", "critic"):
            chains[role] = _links(config.models.for_role(role), f"models.{role}", env, base_dir, role)
            for number in range(len(config.team_models)):  # a team's own model: role "coder@b"
                if (own := config.team_role(number, role)) is not None:
                    chains[team_role(role, number)] = _links(own, f"team_models[{number}].{role}", env, base_dir)
        prices = PriceTable(llm.prices)
        cache = ReplyCache(cache_dir, llm.cache_max_mb * 1024 * 1024) if cache_dir and use_cache and llm.cache else None
        policy = RetryPolicy(max_attempts=llm.max_attempts, max_wait_s=llm.max_retry_wait_s)
        deadline = clock() + config.deadline_minutes * 60 if config.deadline_minutes else None
        return cls(chains, Ledger(config.budget_usd, config.budget_tokens, prices), policy=policy, cache=cache,
                   timeout_s=llm.timeout_s, max_output_tokens=llm.max_output_tokens, clock=clock, sleep=sleep, rng=rng,
                   deadline=deadline)

    def chain(self, role: str) -> tuple[Link, ...]:
        """The role's model chain, primary first."""
        if role not in self.chains:
            raise UsageError(f"unknown model role {role!r}; expected one of {', '.join(self.chains)}")
        return self.chains[role]

    def complete(self, role: str, messages: Sequence[Message], schema: str | None = None,
                 temperature: float | None = None, stop: Sequence[str] = (), by: float | None = None,
                 max_tokens: int | None = None, until: ReplyEnd | None = None) -> Reply:
        """Ask `role`'s model; with a schema ('plan', 'review', 'explore') the reply's `data` is the validated JSON;
        a reply ends before the first of the `stop` sequences, and once it is complete (`until`: what follows is
        not waited for where the provider streams).

        The output cap sent is what the reply can need (`max_tokens`, else the schema's REPLY_TOKENS), never above
        `llm.max_output_tokens`: on a slow server a reply's length is its time, and a model that rambles is
        stopped. A reply that cap cuts off is asked again (a structured one) or continued (text) within the
        configured cap, and the role's model is asked with the configured cap from then on.

        `by` (a `clock()` time) is when the reply must be done: its output cap is what the model writes in the
        time until then, at the pace its earlier answers to the same instructions were written (a short reply
        instead of none); StopRequested when that is under MIN_SHORT_REPLY tokens."""
        chain = self.chain(role)
        if schema is not None:
            get_schema(schema)
        # A key or token that reached a prompt (pasted in an issue, say) is not sent on to a provider.
        messages = [dataclasses.replace(m, content=withhold_secrets(m.content)) for m in messages]
        with span("llm.complete", role=role, schema=schema) as s:
            failures: list[str] = []
            for index, link in enumerate(chain):
                start = self.clock()
                s.set(provider=link.model.provider, model=link.model.model)
                try:
                    outcome = self._ask(link, role, tuple(messages), schema, temperature, s, tuple(stop), by,
                                        max_tokens, until)
                except (ProviderError, StructuredReplyError, PromptTooLong) as exc:
                    failures.append(f"{link.label}: {type(exc).__name__}: {exc}")
                    s.set(failovers=list(failures))
                    if index + 1 == len(chain):
                        raise self._final_error(role, link, exc, failures) from exc
                    log.warning("%s: %s failed (%s); failing over to %s", role, link.label, exc, chain[index + 1].label)
                    self.ledger.record_fallback(role, link.label, chain[index + 1].label, f"{type(exc).__name__}: {exc}")
                    continue
                reply = self._reply(role, link, outcome, self.clock() - start, chain[0].label if index else None)
                self._trace(s, reply)
                s.set(rate_limited=outcome.rate_limited)
                return reply
        raise AssertionError("unreachable: a chain has at least one model")

    def _ask(self, link: Link, role: str, messages: tuple[Message, ...], schema: str | None,
             temperature: float | None, s: Span, stop: tuple[str, ...] = (), by: float | None = None,
             need: int | None = None, until: ReplyEnd | None = None) -> Outcome:
        """One model's answer: from the cache, or sent (warmer when this run already answered the same request)."""
        temp = link.temperature if temperature is None else temperature
        cap = self._need_cap(link, role, need if need is not None else REPLY_TOKENS.get(schema or ""))
        request = ChatRequest(role, messages, schema, temp, cap, self.timeout_s, stop, until)
        if by is not None:
            request = self._due(request, by)
        params: dict[str, object] = {"temperature": temp, "max_output_tokens": request.max_output_tokens,
                                     "base_url": link.model.base_url}  # same name, other server: other model
        if stop:
            params["stop"] = list(stop)
        if until is not None:
            params["until"] = until.name
        key = cache_key(link.model.provider, link.model.model, messages, schema, params)
        with self._lock:
            repeat = self._answered.get(key, 0)
        if repeat:  # a later round asking the same again wants something new, not the same answer
            request = dataclasses.replace(request, temperature=warmer(temp, repeat))
            s.set(repeat=repeat)
        s.set(temperature=request.temperature, max_tokens=request.max_output_tokens)
        cacheable = self.cache is not None and temp == 0 and not repeat and link.model.provider != "scripted"
        outcome = self._cached(key, role) if cacheable else None
        if outcome is None:
            outcome = self._answer(link, request, s, cap)
            if cacheable:
                self._store(key, link, outcome)
        with self._lock:
            self._answered[key] = self._answered.get(key, 0) + 1
        return outcome

    def _answer(self, link: Link, request: ChatRequest, s: Span, cap: int) -> Outcome:
        """Send `request`, then repair a structured reply or continue a plain one the output cap cut off; a reply
        cut off at `cap`, the cap of what it was reckoned to need, gets the configured cap for the rest."""
        def send(follow: ChatRequest) -> Outcome:  # an answer asked with the cap chosen for it times answers
            return self._send(link, follow, measure=follow.max_output_tokens >= cap)

        outcome = send(request)
        full = self._output_cap(link)
        outran = outcome.finish_reason == LENGTH and request.max_output_tokens == cap < full
        if outran or reasoned(outcome.text):  # the reckoning was short, or the model thinks out loud first
            with self._lock:
                self._full_cap.add((link.label, request.role))
        if outran:
            log.info("%s: the reply outran its cap of %d tokens; asking with the configured %d", request.role, cap, full)
            s.set(outran_cap=cap)
        if request.schema:
            if outran:  # a JSON object cut off is no answer: asked again with room, not told to be shorter
                request = dataclasses.replace(request, max_output_tokens=full)
                outcome = followups.then(outcome, send(request))
            return followups.repair(send, request, outcome, lambda event: self.ledger.record_event(request.role, event), s)
        return followups.continue_cut_off(lambda follow: self._send(link, follow, measure=False), request, outcome,
                                          lambda follow: self._room(link, follow), full if outran else None)

    def _send(self, link: Link, request: ChatRequest, measure: bool = True) -> Outcome:
        """One request fitted to the window, with retries, checked against and recorded in the budget; the time of
        a `measure` request (an answer asked with its whole cap, not a reply cut short nor the rest of one) is
        remembered as a measure of answers to the same instructions."""
        model = link.model
        tokens = count_message_tokens(request.messages, model.model)
        window.check_fits(tokens, request.max_output_tokens, self._window(link), model.model)
        reservation = self.ledger.reserve(request.role, link.label, model.model, tokens)
        record = RetryLog()
        try:
            completion: Completion = call_with_retries(lambda: self._timed(model, request, measure), self.policy,
                                                       sleep=self.sleep, rng=self.rng, log_to=record)
        except BaseException:
            self.ledger.release(reservation)
            raise
        cost = 0.0 if completion.replayed else self.ledger.prices.cost(model.model, completion.usage)
        self.ledger.settle(reservation, request.role, completion.usage, cost, completion.replayed,
                           model=completion.model or model.model)
        if completion.finish_reason == LENGTH:
            self.ledger.record_event(request.role, "truncated")
        return Outcome(completion.text, None, completion.usage, cost, completion.request_id, record.retries,
                       rate_limited=sum(e.startswith("RateLimited") for e in record.errors),
                       replayed=completion.replayed, finish_reason=completion.finish_reason, timing=completion.timing)

    def _timed(self, model: ChatModel, request: ChatRequest, measure: bool = True) -> Completion:
        """One attempt at `request` within the deadline; an answered one's seconds are remembered for its kind, when
        it was asked with the whole output cap (a reply cut short, or the rest of one, is no measure of an answer),
        and its pace (output tokens a second) in any case."""
        began = self.clock()
        completion = model.complete(self._in_time(request))
        took = self.clock() - began
        with self._lock:
            kind = _kind(request)
            if measure:
                self._quickest[kind] = min(took, self._quickest.get(kind, took))
            if took > 0 and completion.usage.output_tokens > 0:
                pace = completion.usage.output_tokens / took
                self._pace[kind] = max(pace, self._pace.get(kind, pace))
        return completion

    def _due(self, request: ChatRequest, by: float) -> ChatRequest:
        """`request` with an output cap the model writes before the clock's time `by`, at the pace of its answers
        to the same instructions (the whole answer's time over its output: reading the prompt is counted in);
        StopRequested when the time until `by` is shorter than MIN_SHORT_REPLY tokens take. Without a pace to
        go by, `request` as it is (the deadline still bounds it)."""
        pace = self._pace.get(_kind(request))
        if pace is None:
            return request
        due_in = by - self.clock()
        cap = int(due_in * pace)
        if cap < MIN_SHORT_REPLY:
            raise StopRequested(f"a {request.role} reply due in {max(0.0, due_in):.0f} s would hold "
                                f"about {max(cap, 0)} tokens at the pace of its earlier answers; not asked for")
        return dataclasses.replace(request, max_output_tokens=min(cap, request.max_output_tokens))

    def _in_time(self, request: ChatRequest) -> ChatRequest:
        """`request` with a timeout that ends by the deadline (`deadline_minutes`); StopRequested once it passed,
        or when the time left is shorter than any answer of the role to the same instructions took so far (or,
        for a request whose output cap is short, than that cap takes at their pace).

        A reply the deadline cuts off is not waited for, and one it would cut off is not asked for (its
        tokens would be spent for nothing): the run keeps its best judged change instead.
        """
        if self.deadline is None:
            return request
        left = self.deadline - self.clock()
        if left <= 0:
            raise StopRequested("the deadline passed (deadline_minutes)")
        kind = _kind(request)
        quickest = self._quickest.get(kind)
        if quickest is not None:
            capped_s = request.max_output_tokens / self._pace[kind] if kind in self._pace else quickest
            if left < min(quickest, capped_s):
                why = (f"{request.max_output_tokens} output tokens take {capped_s:.0f} s at the pace of the "
                       f"{request.role}'s earlier answers to the same instructions") if capped_s < quickest else \
                    f"no {request.role} answer to the same instructions so far took less than {quickest:.0f} s"
                raise StopRequested(f"the deadline (deadline_minutes) is {left:.0f} s away and {why}")
        return dataclasses.replace(request, timeout_s=left) if left < request.timeout_s else request

    def _cached(self, key: str, role: str) -> Outcome | None:
        assert self.cache is not None
        entry = self.cache.get(key)
        if entry is None:
            return None
        self.ledger.record_cache_hit(role)
        return Outcome(entry["text"], entry.get("data"), request_id=entry.get("request_id"), cached=True,
                       finish_reason=str(entry.get("finish_reason", "stop")), truncated=bool(entry.get("truncated")))

    def _store(self, key: str, link: Link, outcome: Outcome) -> None:
        assert self.cache is not None
        try:
            self.cache.put(key, CachedReply(text=outcome.text, data=outcome.data, request_id=outcome.request_id,
                                            provider=link.model.provider, model=link.model.model,
                                            finish_reason=outcome.finish_reason, truncated=outcome.truncated))
        except OSError as exc:  # a full or read-only disk must not lose a reply already paid for
            log.warning("could not cache a reply of %s (%s); going on without caching it", link.label, exc)

    def _window(self, link: Link) -> int:
        """The model's context window in tokens (a replayed transcript has none to speak of)."""
        if link.model.provider == "scripted":
            return window.SCRIPTED_WINDOW
        return self.ledger.prices.lookup(link.model.model).context_window

    def _output_cap(self, link: Link) -> int:
        return window.output_cap(self._window(link), self.max_output_tokens)

    def _need_cap(self, link: Link, role: str, need: int | None) -> int:
        """The output cap for a reply that can need `need` tokens (None: unknown): at least MIN_NEED_TOKENS and at
        most the configured cap, which a model that thinks before answering always gets (its thoughts count as
        output), as does one whose replies for the role outran such a cap or held reasoning before."""
        full = self._output_cap(link)
        with self._lock:
            learned = (link.label, role) in self._full_cap
        if need is None or learned or thinks(link.model.provider, link.model.model):
            return full
        return min(full, max(need, MIN_NEED_TOKENS))

    def _room(self, link: Link, request: ChatRequest) -> int:
        """Output tokens the model's window leaves after `request`'s messages."""
        return self._window(link) - count_message_tokens(request.messages, link.model.model)

    def _reply(self, role: str, link: Link, outcome: Outcome, latency: float, fallback_from: str | None) -> Reply:
        return Reply(text=outcome.text, data=outcome.data, usage=outcome.usage, cost_usd=outcome.cost_usd,
                     latency_s=latency, request_id=outcome.request_id, provider=link.model.provider,
                     model=link.model.model, role=role, cached=outcome.cached, replayed=outcome.replayed,
                     fallback_from=fallback_from, retries=outcome.retries, repaired=outcome.repaired,
                     finish_reason=outcome.finish_reason, truncated=outcome.truncated, timing=outcome.timing)

    @staticmethod
    def _trace(s: Span, reply: Reply) -> None:
        s.set(tokens_in=reply.usage.input_tokens, tokens_out=reply.usage.output_tokens,
              tokens_cached=reply.usage.cached_tokens, cost_usd=round(reply.cost_usd, 6),
              latency_s=round(reply.latency_s, 3), cache_hit=reply.cached, retries=reply.retries,
              fallback_from=reply.fallback_from, request_id=reply.request_id, replayed=reply.replayed,
              repaired=reply.repaired, finish_reason=reply.finish_reason, truncated=reply.truncated)
        if reply.timing is not None:  # the server's own split (llama.cpp); `ensemble report` sums it per role
            s.set(prompt_s=round(reply.timing.prompt_s, 3), reply_s=round(reply.timing.reply_s, 3))

    @staticmethod
    def _final_error(role: str, link: Link, exc: ModelError | PromptTooLong, failures: list[str]) -> Exception:
        """The last failure, re-raised with the role and model named and every earlier failure listed."""
        message = f"{role} ({link.label}): {exc}"
        setting = link.setting or f"models.{role}.model"
        if isinstance(exc, ModelNotFound):
            message += f"; set {setting} in .github/ensemble.yml to a model the provider serves"
        if isinstance(exc, StructuredReplyError):
            message += f"; try a stronger model for {setting}"
        if len(failures) > 1:
            message += "; earlier in the fallback chain: " + " | ".join(failures[:-1])
        if isinstance(exc, ProviderError):
            return type(exc)(message, exc.status, exc.retry_after)
        if isinstance(exc, StructuredReplyError):
            return StructuredReplyError(message, exc.raw_reply)
        return type(exc)(message)

    def has_role(self, role: str) -> bool:
        """True when `role` has a model chain of its own (a team's own model: `coder@b`)."""
        return role in self.chains

    def spend(self) -> SpendSummary:
        """The run's usage so far: totals, per role (with parse failures, repairs, cut-off replies), caps, fallbacks."""
        return self.ledger.summary()

    def count_tokens(self, role: str, text: str) -> int:
        """Tokens in `text` for the role's primary model."""
        return count_tokens(text, self.chain(role)[0].model.model)

    def prompt_budget(self, role: str) -> int:
        """Tokens a prompt for `role`'s primary model may take: its window less the output cap and a margin,
        and no more than the run's token budget has left."""
        link = self.chain(role)[0]
        room = window.prompt_room(self._window(link), self._output_cap(link))
        if self.ledger.budget_tokens is not None:
            spent = self.spend()
            room = min(room, self.ledger.budget_tokens - spent["input_tokens"] - spent["output_tokens"])
        return max(room, 0)


def warmer(temperature: float, repeat: int) -> float:
    """The temperature for the `repeat`-th repeat of a request: warmer, capped, never cooler than asked."""
    return max(temperature, round(min(MAX_REPEAT_TEMPERATURE, temperature + REPEAT_WARMING * repeat), 2))


def _kind(request: ChatRequest) -> tuple[str, str]:
    """What an answer's time is a measure for: requests of the same role with the same instructions (its system
    messages). Other instructions ask for answers of another length: a coder asked for whole files writes
    several times the tokens it writes as edit blocks, and on a slow server takes that much longer."""
    return request.role, "\n".join(m.content for m in request.messages if m.role == "system")
