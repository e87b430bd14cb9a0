"""Prices and context windows of common OpenAI and Gemini models.

Prices are USD per million tokens (input, cached input, output), the providers' published
standard-tier list prices for prompts under 200k tokens; they change, so check them and
override or extend them under `llm.prices` in `.github/ensemble.yml`. A model missing from
the table costs 0 (a local server, say) and `ensemble doctor` flags it.
Snapshots of a model (`gpt-4o-2024-08-06`, `gemini-1.5-pro-002`, `…-latest`, `…-preview-05-20`)
match their family by the longest known prefix; other names that merely start like one
(`o3-pro`, `gpt-5-pro`) are different models at different prices, so they count as unknown.
An override that gives only some prices keeps the built-in ones for the rest.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from bot.config import PriceSpec
from bot.llm.types import Usage

DEFAULT_CONTEXT_WINDOW = 8192  # a cautious guess for unknown (often local) models


@dataclass(frozen=True)
class ModelInfo:
    """What a model costs per million tokens, and how many tokens its window holds."""

    input: float
    cached_input: float
    output: float
    context_window: int = DEFAULT_CONTEXT_WINDOW
    known: bool = True


MODEL_TABLE: dict[str, ModelInfo] = {
    "gpt-4o": ModelInfo(2.50, 1.25, 10.00, 128_000),
    "gpt-4o-mini": ModelInfo(0.15, 0.075, 0.60, 128_000),
    "gpt-4.1": ModelInfo(2.00, 0.50, 8.00, 1_047_576),
    "gpt-4.1-mini": ModelInfo(0.40, 0.10, 1.60, 1_047_576),
    "gpt-4.1-nano": ModelInfo(0.10, 0.025, 0.40, 1_047_576),
    "gpt-5": ModelInfo(1.25, 0.125, 10.00, 400_000),
    "gpt-5-mini": ModelInfo(0.25, 0.025, 2.00, 400_000),
    "gpt-5-nano": ModelInfo(0.05, 0.005, 0.40, 400_000),
    "o3": ModelInfo(2.00, 0.50, 8.00, 200_000),
    "o3-mini": ModelInfo(1.10, 0.55, 4.40, 200_000),
    "o4-mini": ModelInfo(1.10, 0.275, 4.40, 200_000),
    "gemini-2.5-pro": ModelInfo(1.25, 0.31, 10.00, 1_048_576),
    "gemini-2.5-flash": ModelInfo(0.30, 0.075, 2.50, 1_048_576),
    "gemini-2.5-flash-lite": ModelInfo(0.10, 0.025, 0.40, 1_048_576),
    "gemini-2.0-flash": ModelInfo(0.10, 0.025, 0.40, 1_048_576),
    "gemini-2.0-flash-lite": ModelInfo(0.075, 0.075, 0.30, 1_048_576),
    "gemini-1.5-pro": ModelInfo(1.25, 0.3125, 5.00, 2_097_152),
    "gemini-1.5-flash": ModelInfo(0.075, 0.01875, 0.30, 1_048_576),
}
UNKNOWN = ModelInfo(0.0, 0.0, 0.0, DEFAULT_CONTEXT_WINDOW, known=False)
# What may follow a family's name in one of its snapshots: a date, a version number, latest, a preview.
SNAPSHOT = re.compile(r"(\d{4}-\d{2}-\d{2}|\d{2,4}|latest|(preview|exp)(-\d{2}-\d{2}|-\d{4}-\d{2}-\d{2})?)")


class PriceTable:
    """The built-in table with the config's overrides on top."""

    def __init__(self, overrides: Iterable[PriceSpec] = ()):
        self._table = dict(MODEL_TABLE)
        for spec in overrides:
            base = self.lookup(spec.model)
            base = base if base.known else UNKNOWN
            self._table[spec.model] = ModelInfo(
                base.input if spec.input is None else spec.input,
                base.cached_input if spec.cached_input is None else spec.cached_input,
                base.output if spec.output is None else spec.output,
                spec.context_window or base.context_window)

    def lookup(self, model: str) -> ModelInfo:
        """The model's entry: exact name, else the longest known prefix, else UNKNOWN (costs 0)."""
        name = model.removeprefix("models/")
        if name in self._table:
            return self._table[name]
        prefixes = [key for key in self._table
                    if name.startswith(key + "-") and SNAPSHOT.fullmatch(name[len(key) + 1:])]
        return self._table[max(prefixes, key=len)] if prefixes else UNKNOWN

    def cost(self, model: str, usage: Usage) -> float:
        """USD for `usage` on `model`; cached input tokens are billed at the cached price."""
        info = self.lookup(model)
        fresh = max(usage.input_tokens - usage.cached_tokens, 0)
        total = fresh * info.input + usage.cached_tokens * info.cached_input + usage.output_tokens * info.output
        return total / 1_000_000
