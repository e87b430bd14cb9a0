"""`ModelManager`: one place where the ensemble asks models things.

`complete(role, messages, schema)` picks the role's model from the config, serves a cache
hit if there is one, checks the budget, sends the request with the retry policy, validates a
structured reply (one repair round), fails over along the role's fallback chain, records the
spend, and wraps it all in one trace span. It is safe to call from several threads at once.
"""

from __future__ import annotations

import dataclasses
import logging
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.config import Config
from bot.errors import ModelNotFound, ProviderError, StructuredReplyError, UsageError
from bot.llm.budget import Ledger
from bot.llm.cache import ReplyCache, cache_key
from bot.llm.prices import PriceTable
from bot.llm.registry import create_model
from bot.llm.retry import RetryLog, RetryPolicy, call_with_retries
from bot.llm.schemas import SchemaViolation, get_schema, parse_structured
from bot.llm.tokens import ContextPiece, count_message_tokens, count_tokens, fit_context
from bot.llm.types import ChatModel, ChatRequest, Completion, Message, Reply, Usage
from bot.trace import Span, span

log = logging.getLogger(__name__)

RAW_REPLY_TRACE_CHARS = 4000
REPAIR_PROMPT = ("Your reply could not be used: {error}. Reply again with only the corrected JSON object "
                 "for the {schema!r} schema, nothing else.")


@dataclass(frozen=True)
class Link:
    """One entry of a role's chain: the model and its configured temperature."""

    model: ChatModel
    temperature: float = 0.0
    setting: str = ""  # where the config chose it, for error messages: models.coder.fallback[0].model

    @property
    def label(self) -> str:
        return f"{self.model.provider}/{self.model.model}"


@dataclass
class _Outcome:
    """What one model produced for one `complete` call, before it becomes a Reply."""

    text: str
    data: dict[str, Any] | None
    usage: Usage = Usage()
    cost_usd: float = 0.0
    request_id: str | None = None
    retries: int = 0
    cached: bool = False
    replayed: bool = False
    repaired: bool = False


def team_role(role: str, team: int) -> str:
    """The manager's role name for team number `team`'s own model: 'coder@b' for the second team."""
    return f"{role}@{chr(ord('a') + team)}"


def _settings(key: str, fallbacks: int, env_role: str | None = None) -> list[str]:
    """The config settings of a chain's models, primary first, for messages that name what to change."""
    primary = f"{key}.model" + (f" (or ENSEMBLE_{env_role.upper()}_MODEL)" if env_role else "")
    return [primary, *(f"{key}.fallback[{i}].model" for i in range(fallbacks))]


class ModelManager:
    """Roles to model chains, with retries, failover, schemas, budget, cache and tracing."""

    def __init__(self, chains: Mapping[str, Sequence[Link]], ledger: Ledger, *, policy: RetryPolicy | None = None,
                 cache: ReplyCache | None = None, timeout_s: float = 120.0, max_output_tokens: int = 8192,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
                 rng: random.Random | None = None):
        self.chains = {role: tuple(chain) for role, chain in chains.items()}
        self.ledger = ledger
        self.policy = policy or RetryPolicy()
        self.cache = cache
        self.timeout_s = timeout_s
        self.max_output_tokens = max_output_tokens
        self.clock = clock
        self.sleep = sleep
        self.rng = rng or random.Random()

    @classmethod
    def from_config(cls, config: Config, env: Mapping[str, str], cache_dir: Path | None = None,
                    use_cache: bool = True, *, clock: Callable[[], float] = time.monotonic,
                    sleep: Callable[[float], None] = time.sleep, rng: random.Random | None = None,
                    base_dir: Path | None = None) -> ModelManager:
        """A manager for `config`'s roles; keys come from `env`, the cache lives in `cache_dir` (None: off)."""
        llm = config.llm
        chains: dict[str, list[Link]] = {}
        for role in ("planner", "coder", "critic"):
            choice = config.models.for_role(role)
            chains[role] = [Link(create_model(c.provider, c.model, env, base_dir), c.temperature, where)
                            for c, where in zip((choice, *choice.fallback),
                                                _settings(f"models.{role}", len(choice.fallback), role), strict=True)]
            for number in range(len(config.team_models)):  # a team's own model: role "coder@b"
                if (own := config.team_role(number, role)) is not None:
                    chains[team_role(role, number)] = [
                        Link(create_model(c.provider, c.model, env, base_dir), c.temperature, where)
                        for c, where in zip((own, *own.fallback),
                                            _settings(f"team_models[{number}].{role}", len(own.fallback)), strict=True)]
        prices = PriceTable(llm.prices)
        cache = ReplyCache(cache_dir, llm.cache_max_mb * 1024 * 1024) if cache_dir and use_cache and llm.cache else None
        policy = RetryPolicy(max_attempts=llm.max_attempts, max_wait_s=llm.max_retry_wait_s)
        return cls(chains, Ledger(config.budget_usd, config.budget_tokens, prices), policy=policy, cache=cache,
                   timeout_s=llm.timeout_s, max_output_tokens=llm.max_output_tokens, clock=clock, sleep=sleep, rng=rng)

    def chain(self, role: str) -> tuple[Link, ...]:
        """The role's model chain, primary first."""
        if role not in self.chains:
            raise UsageError(f"unknown model role {role!r}; expected one of {', '.join(self.chains)}")
        return self.chains[role]

    def complete(self, role: str, messages: Sequence[Message], schema: str | None = None,
                 temperature: float | None = None) -> Reply:
        """Ask `role`'s model; with `schema` ('plan' or 'review') the reply's `data` is the validated JSON."""
        chain = self.chain(role)
        if schema is not None:
            get_schema(schema)
        with span("llm.complete", role=role, schema=schema) as s:
            failures: list[str] = []
            for index, link in enumerate(chain):
                start = self.clock()
                s.set(provider=link.model.provider, model=link.model.model)
                try:
                    outcome = self._ask(link, role, tuple(messages), schema, temperature, s)
                except ProviderError as exc:
                    failures.append(f"{link.label}: {type(exc).__name__}: {exc}")
                    s.set(failovers=list(failures))
                    if index + 1 == len(chain):
                        raise self._final_error(role, link, exc, failures) from exc
                    log.warning("%s: %s failed (%s); failing over to %s", role, link.label, exc, chain[index + 1].label)
                    self.ledger.record_fallback(role, link.label, chain[index + 1].label, f"{type(exc).__name__}: {exc}")
                    continue
                reply = self._reply(role, link, outcome, self.clock() - start, chain[0].label if index else None)
                self._trace(s, reply)
                return reply
        raise AssertionError("unreachable: a chain has at least one model")

    def _ask(self, link: Link, role: str, messages: tuple[Message, ...], schema: str | None,
             temperature: float | None, s: Span) -> _Outcome:
        temp = link.temperature if temperature is None else temperature
        request = ChatRequest(role, messages, schema, temp, self.max_output_tokens, self.timeout_s)
        key = None
        if self.cache is not None and temp == 0 and link.model.provider != "scripted":
            params = {"temperature": temp, "max_output_tokens": self.max_output_tokens,
                      "base_url": getattr(link.model, "base_url", None)}  # same name, other server: other model
            key = cache_key(link.model.provider, link.model.model, messages, schema, params)
            entry = self.cache.get(key)
            if entry is not None:
                self.ledger.record_cache_hit(role)
                return _Outcome(entry["text"], entry.get("data"), request_id=entry.get("request_id"), cached=True)
        outcome = self._send(link, request)
        if schema:
            outcome = self._validate(link, request, outcome, s)
        if key is not None and self.cache is not None:
            try:
                self.cache.put(key, {"text": outcome.text, "data": outcome.data, "request_id": outcome.request_id,
                                     "provider": link.model.provider, "model": link.model.model})
            except OSError as exc:  # a full or read-only disk must not lose a reply already paid for
                log.warning("could not cache the %s reply (%s); going on without caching it", role, exc)
        return outcome

    def _send(self, link: Link, request: ChatRequest) -> _Outcome:
        """One request with retries, checked against and recorded in the budget."""
        model = link.model
        reservation = self.ledger.reserve(request.role, link.label, model.model,
                                          count_message_tokens(request.messages, model.model))
        record = RetryLog()
        try:
            completion: Completion = call_with_retries(lambda: model.complete(request), self.policy, sleep=self.sleep,
                                                       rng=self.rng, log_to=record)
        except BaseException:
            self.ledger.release(reservation)
            raise
        cost = 0.0 if completion.replayed else self.ledger.prices.cost(model.model, completion.usage)
        self.ledger.settle(reservation, request.role, completion.usage, cost, completion.replayed)
        return _Outcome(completion.text, None, completion.usage, cost, completion.request_id, record.retries,
                        replayed=completion.replayed)

    def _validate(self, link: Link, request: ChatRequest, first: _Outcome, s: Span) -> _Outcome:
        """Parse a structured reply; on failure send the error back once, then give up clearly."""
        schema = request.schema or ""
        try:
            return dataclasses.replace(first, data=parse_structured(first.text, schema))
        except SchemaViolation as exc:
            s.set(raw_reply=first.text[:RAW_REPLY_TRACE_CHARS], schema_error=str(exc))
            repair_messages = (*request.messages, Message("assistant", first.text),
                               Message("user", REPAIR_PROMPT.format(error=exc, schema=schema)))
            log.info("%s: %s sent an invalid %r reply (%s); asking once to repair it", request.role, link.label,
                     schema, exc)
        second = self._send(link, dataclasses.replace(request, messages=repair_messages))
        merged = dataclasses.replace(second, usage=first.usage + second.usage, cost_usd=first.cost_usd + second.cost_usd,
                                     retries=first.retries + second.retries, repaired=True)
        try:
            return dataclasses.replace(merged, data=parse_structured(second.text, schema))
        except SchemaViolation as exc:
            s.set(raw_repair_reply=second.text[:RAW_REPLY_TRACE_CHARS], schema_error=str(exc),
                  tokens_in=merged.usage.input_tokens, tokens_out=merged.usage.output_tokens,
                  tokens_cached=merged.usage.cached_tokens, cost_usd=round(merged.cost_usd, 6),
                  retries=merged.retries)  # both rounds were paid for, even though the call failed
            raise StructuredReplyError(
                f"{request.role} ({link.label}) did not give a valid {schema!r} reply, even after a repair round: "
                f"{exc}. The raw replies are in the trace; try a stronger model for models.{request.role}",
                second.text) from None

    def _reply(self, role: str, link: Link, outcome: _Outcome, latency: float, fallback_from: str | None) -> Reply:
        return Reply(text=outcome.text, data=outcome.data, usage=outcome.usage, cost_usd=outcome.cost_usd,
                     latency_s=latency, request_id=outcome.request_id, provider=link.model.provider,
                     model=link.model.model, role=role, cached=outcome.cached, replayed=outcome.replayed,
                     fallback_from=fallback_from, retries=outcome.retries, repaired=outcome.repaired)

    @staticmethod
    def _trace(s: Span, reply: Reply) -> None:
        s.set(tokens_in=reply.usage.input_tokens, tokens_out=reply.usage.output_tokens,
              tokens_cached=reply.usage.cached_tokens, cost_usd=round(reply.cost_usd, 6),
              latency_s=round(reply.latency_s, 3), cache_hit=reply.cached, retries=reply.retries,
              fallback_from=reply.fallback_from, request_id=reply.request_id, replayed=reply.replayed,
              repaired=reply.repaired)

    @staticmethod
    def _final_error(role: str, link: Link, exc: ProviderError, failures: list[str]) -> ProviderError:
        """The last failure, re-raised with the role and model named and every earlier failure listed."""
        message = f"{role} ({link.label}): {exc}"
        if isinstance(exc, ModelNotFound):
            message += (f"; set {link.setting or f'models.{role}.model'} in .github/ensemble.yml "
                        "to a model the provider serves")
        if len(failures) > 1:
            message += "; earlier in the fallback chain: " + " | ".join(failures[:-1])
        return type(exc)(message, exc.status, exc.retry_after)

    def spend(self) -> dict[str, Any]:
        """The run's usage so far: totals, per role, caps and fallbacks (for the run summary)."""
        return self.ledger.summary()

    def count_tokens(self, role: str, text: str) -> int:
        """Tokens in `text` for the role's primary model."""
        return count_tokens(text, self.chain(role)[0].model.model)

    def fit_context(self, role: str, pieces: Sequence[ContextPiece], max_tokens: int | None = None) -> list[ContextPiece]:
        """`pieces` cut to fit the role's context window less room for the reply, and the token budget left."""
        model = self.chain(role)[0].model.model
        window = self.ledger.prices.lookup(model).context_window
        limit = window - min(self.max_output_tokens, window // 4)
        if max_tokens is not None:
            limit = min(limit, max_tokens)
        if self.ledger.budget_tokens is not None:
            spent = self.spend()
            limit = min(limit, self.ledger.budget_tokens - spent["input_tokens"] - spent["output_tokens"])
        return fit_context(pieces, max(limit, 0), model)
