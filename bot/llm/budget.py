"""The run's spend: per-role accounting, the USD and token caps, and failover notes.

Before a call is sent, its prompt is priced as input tokens and reserved against the caps;
a call that would pass a cap is refused with `BudgetExceeded`. Reservations make the check
hold when two ensembles call at once. After the call the reservation is replaced by what the
provider reported. Cache hits cost nothing and are only counted, as are the replies that
could not be parsed (`parse_failures`), those a repair round fixed (`repaired`) and those the
output cap cut off (`truncated`), so run summaries and benchmarks can show how sloppy a model is.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

# pydantic (bot/ensemble/wire.py) reads a TypedDict only from typing_extensions before Python 3.12
from typing_extensions import TypedDict

from bot.errors import BudgetExceeded
from bot.llm.prices import PriceTable
from bot.llm.types import Usage


class SpendFigures(TypedDict):
    """One role's or one model's totals as plain data (`RoleSpend.figures`), the keys of `by_role` and `by_model`."""

    calls: int
    cache_hits: int
    replayed: int
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    cost_usd: float
    parse_failures: int
    repaired: int
    truncated: int


# A role's model gave up and the next in its chain took over; `from` is a keyword, hence the functional form.
Fallback = TypedDict("Fallback", {"role": str, "from": str, "to": str, "reason": str})


class SpendSummary(SpendFigures):
    """The run's spend as plain data (`Ledger.summary`): what `RunResult.usage` holds and `ensemble run --json` prints:
    the run's totals, its limits, and the totals by role and by model."""

    budget_usd: float | None
    budget_tokens: int | None
    by_role: dict[str, SpendFigures]
    by_model: dict[str, SpendFigures]
    fallbacks: list[Fallback]


@dataclass
class RoleSpend:
    """Totals for one role."""

    calls: int = 0
    cache_hits: int = 0
    replayed: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float = 0.0
    parse_failures: int = 0
    repaired: int = 0
    truncated: int = 0

    def count(self, event: str) -> None:
        """Count one of EVENTS."""
        if event == "parse_failures":
            self.parse_failures += 1
        elif event == "repaired":
            self.repaired += 1
        else:
            self.truncated += 1

    def add(self, usage: Usage, cost_usd: float, replayed: bool) -> None:
        """Count one settled call."""
        self.calls += 1
        self.replayed += int(replayed)
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.cached_tokens += usage.cached_tokens
        self.cost_usd += cost_usd

    def __add__(self, other: RoleSpend) -> RoleSpend:
        """Both totals together (the run's totals are the roles' added up)."""
        return RoleSpend(self.calls + other.calls, self.cache_hits + other.cache_hits, self.replayed + other.replayed,
                         self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens,
                         self.cached_tokens + other.cached_tokens, self.cost_usd + other.cost_usd,
                         self.parse_failures + other.parse_failures, self.repaired + other.repaired,
                         self.truncated + other.truncated)

    def figures(self) -> SpendFigures:
        """These totals as plain data."""
        return SpendFigures(calls=self.calls, cache_hits=self.cache_hits, replayed=self.replayed,
                            input_tokens=self.input_tokens, output_tokens=self.output_tokens,
                            cached_tokens=self.cached_tokens, cost_usd=self.cost_usd,
                            parse_failures=self.parse_failures, repaired=self.repaired, truncated=self.truncated)


EVENTS = ("parse_failures", "repaired", "truncated")


@dataclass(frozen=True)
class Reservation:
    """A call's estimated share of the caps, held until it finishes."""

    tokens: int
    usd: float


@dataclass
class Ledger:
    """Thread-safe spend tracking against `budget_usd` and `budget_tokens` (None: no token cap)."""

    budget_usd: float | None
    budget_tokens: int | None
    prices: PriceTable
    roles: dict[str, RoleSpend] = field(default_factory=dict)
    models: dict[str, RoleSpend] = field(default_factory=dict)  # by the model name the provider reported
    fallbacks: list[Fallback] = field(default_factory=list)
    _reserved: list[Reservation] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def reserve(self, role: str, label: str, model: str, prompt_tokens: int) -> Reservation:
        """Hold the prompt's estimated cost, or raise BudgetExceeded if it would pass a cap."""
        estimate = Reservation(prompt_tokens, self.prices.cost(model, Usage(input_tokens=prompt_tokens)))
        with self._lock:
            total = self._total()
            usd = total.cost_usd + sum(r.usd for r in self._reserved)
            tokens = total.input_tokens + total.output_tokens + sum(r.tokens for r in self._reserved)
            if self.budget_usd is not None and estimate.usd > 0 and usd + estimate.usd > self.budget_usd:
                self._refuse(role, label, estimate, f"the cap of ${self.budget_usd:.2f} (budget_usd)")
            if self.budget_tokens is not None and tokens + estimate.tokens > self.budget_tokens:
                self._refuse(role, label, estimate, f"the cap of {self.budget_tokens:,} tokens (budget_tokens)")
            self._reserved.append(estimate)
        return estimate

    def _refuse(self, role: str, label: str, estimate: Reservation, cap: str) -> None:
        spend = self._summary()
        raise BudgetExceeded(
            f"budget: the next {role} call to {label} (about {estimate.tokens:,} prompt tokens, "
            f"${estimate.usd:.4f}) would pass {cap}; spent so far ${spend['cost_usd']:.4f} and "
            f"{spend['input_tokens'] + spend['output_tokens']:,} tokens in {spend['calls']} calls. "
            "Raise the cap in .github/ensemble.yml (or ENSEMBLE_BUDGET_USD) to go further.", spend)

    def release(self, reservation: Reservation) -> None:
        """Drop a reservation whose call was not made or failed."""
        with self._lock:
            if reservation in self._reserved:
                self._reserved.remove(reservation)

    def settle(self, reservation: Reservation | None, role: str, usage: Usage, cost_usd: float,
               replayed: bool = False, model: str = "") -> None:
        """Replace a reservation with the call's real usage and cost (also counted under `model` when given)."""
        with self._lock:
            if reservation is not None and reservation in self._reserved:
                self._reserved.remove(reservation)
            self.roles.setdefault(role, RoleSpend()).add(usage, cost_usd, replayed)
            if model:
                self.models.setdefault(model, RoleSpend()).add(usage, cost_usd, replayed)

    def record_cache_hit(self, role: str) -> None:
        """Count a reply served from the disk cache (free)."""
        with self._lock:
            self.roles.setdefault(role, RoleSpend()).cache_hits += 1

    def record_event(self, role: str, event: str) -> None:
        """Count one of EVENTS for `role`: a reply not parsed, one repaired, one cut off by the output cap."""
        if event not in EVENTS:
            raise ValueError(f"unknown ledger event {event!r}; expected one of {', '.join(EVENTS)}")
        with self._lock:
            spend = self.roles.setdefault(role, RoleSpend())
            spend.count(event)

    def record_fallback(self, role: str, failed: str, next_label: str, reason: str) -> None:
        """Note that `failed` gave up for `role` and `next_label` took over."""
        with self._lock:
            self.fallbacks.append(Fallback({"role": role, "from": failed, "to": next_label, "reason": reason}))

    def summary(self) -> SpendSummary:
        """Totals, per-role figures, caps and fallbacks, as plain data for the run summary."""
        with self._lock:
            return self._summary()

    def _total(self) -> RoleSpend:
        return sum(self.roles.values(), RoleSpend())

    def _summary(self) -> SpendSummary:
        total = self._total()
        return SpendSummary(
            calls=total.calls, cache_hits=total.cache_hits, replayed=total.replayed, input_tokens=total.input_tokens,
            output_tokens=total.output_tokens, cached_tokens=total.cached_tokens, parse_failures=total.parse_failures,
            repaired=total.repaired, truncated=total.truncated, cost_usd=round(total.cost_usd, 9),
            budget_usd=self.budget_usd, budget_tokens=self.budget_tokens,
            by_role={role: spend.figures() for role, spend in sorted(self.roles.items())},
            by_model={name: spend.figures() for name, spend in sorted(self.models.items())},
            fallbacks=list(self.fallbacks))


def no_spend() -> SpendSummary:
    """The summary of a run that has made no model call yet (no caps known)."""
    return Ledger(None, None, PriceTable()).summary()
