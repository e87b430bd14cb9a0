"""Follow-up rounds with one model: repairing a structured reply, continuing a reply the output cap cut off.

A structured reply that does not parse is sent back once with what was wrong (a reply cut off
by the output cap is told to be shorter); if the second reply fails too, `StructuredReplyError`
lets the manager move on to the role's next model. A plain-text reply cut off by the output
cap is continued up to MAX_CONTINUATIONS times and the parts joined, unless it repeats itself; the
continuation counts against the same cap (a reply that used the whole cap is not continued: the
caller asks for smaller pieces instead); what is still cut off is marked `truncated`. Every round is paid for, so usage and cost add up across rounds.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from dataclasses import dataclass

from bot.errors import ContextTooLong, PromptTooLong, StopRequested, StructuredReplyError
from bot.llm.schemas import SchemaViolation, parse_structured
from bot.llm.types import LENGTH, ChatRequest, JsonObject, Message, ServerTiming, Usage, add_timing
from bot.redact import clip
from bot.trace import Span

log = logging.getLogger(__name__)

RAW_REPLY_TRACE_CHARS = 4000
MAX_CONTINUATIONS = 1  # the caller asks for smaller pieces after that (a coder's follow-up turn)
LOOP_LINES = 24  # a cut-off reply whose last lines repeat a few lines over and over is looping
REPAIR_PROMPT = ("Your reply could not be used: {error}. Reply again with only the corrected JSON object "
                 "for the {schema!r} schema, nothing else.")
CUT_OFF = ("the reply was cut off at the output cap of {cap} tokens before its JSON object was complete; "
           "it must be shorter")
CONTINUE_PROMPT = "Your reply was cut off. Continue exactly where you stopped, without repeating anything."


@dataclass
class Outcome:
    """What one model produced for one `complete` call, before it becomes a Reply."""

    text: str
    data: JsonObject | None
    usage: Usage = Usage()
    cost_usd: float = 0.0
    request_id: str | None = None
    retries: int = 0
    rate_limited: int = 0  # of the retries, those after a 429
    cached: bool = False
    replayed: bool = False
    repaired: bool = False
    finish_reason: str = "stop"
    truncated: bool = False
    timing: ServerTiming | None = None  # the server's split of its time reading the prompt and writing the reply


Send = Callable[[ChatRequest], Outcome]
Record = Callable[[str], None]  # counts a ledger event for the role: parse_failures, repaired, truncated


def then(first: Outcome, second: Outcome) -> Outcome:
    """`second`, carrying the usage, cost, retries and server time of both rounds."""
    return dataclasses.replace(second, usage=first.usage + second.usage, cost_usd=first.cost_usd + second.cost_usd,
                               retries=first.retries + second.retries,
                               rate_limited=first.rate_limited + second.rate_limited,
                               timing=add_timing(first.timing, second.timing))


def parse(outcome: Outcome, schema: str, cap: int) -> JsonObject:
    """The reply's structured data; a reply the output cap cut off says so."""
    try:
        return parse_structured(outcome.text, schema)
    except SchemaViolation:
        if outcome.finish_reason == LENGTH:
            raise SchemaViolation(CUT_OFF.format(cap=cap)) from None
        raise


def repair(send: Send, request: ChatRequest, first: Outcome, record: Record, s: Span) -> Outcome:
    """`first` with its data parsed, else one repair round; StructuredReplyError when that fails too."""
    schema = request.schema or ""
    try:
        return dataclasses.replace(first, data=parse(first, schema, request.max_output_tokens))
    except SchemaViolation as exc:
        record("parse_failures")
        s.set(raw_reply=clip(first.text, RAW_REPLY_TRACE_CHARS), schema_error=str(exc))
        log.info("%s: invalid %r reply (%s); asking once to repair it", request.role, schema, exc)
        messages = (*request.messages, Message("assistant", first.text),
                    Message("user", REPAIR_PROMPT.format(error=exc, schema=schema)))
    merged = dataclasses.replace(then(first, send(dataclasses.replace(request, messages=messages))), repaired=True)
    try:
        data = parse(merged, schema, request.max_output_tokens)
    except SchemaViolation as exc:
        record("parse_failures")
        s.set(raw_repair_reply=clip(merged.text, RAW_REPLY_TRACE_CHARS), schema_error=str(exc),
              tokens_in=merged.usage.input_tokens, tokens_out=merged.usage.output_tokens,
              tokens_cached=merged.usage.cached_tokens, cost_usd=round(merged.cost_usd, 6),
              retries=merged.retries)  # both rounds were paid for, even though the call failed
        raise StructuredReplyError(f"no valid {schema!r} reply, even after a repair round: {exc}. The raw "
                                   "replies are in the trace", merged.text) from None
    record("repaired")
    return dataclasses.replace(merged, data=data)


def continue_cut_off(send: Send, request: ChatRequest, first: Outcome, room: Callable[[ChatRequest], int],
                     limit: int | None = None) -> Outcome:
    """`first`, continued while the output cap cut it off (at most MAX_CONTINUATIONS times), parts joined.

    `room(request)` is how many output tokens the window leaves for a continuation request. The parts
    together stay within `limit` (default: the request's output cap; the configured cap for a request asked
    with less, what its reply was reckoned to need): what the first part used is not asked for again.
    When what is left is too small to be worth asking, or the deadline leaves no time to ask, the reply stays
    cut off.
    """
    parts, outcome = [first.text], first
    for _ in range(MAX_CONTINUATIONS):
        if outcome.finish_reason != LENGTH:
            break
        if looping("".join(parts)):
            log.info("%s: the cut-off reply repeats itself; not asking to continue it", request.role)
            break
        messages = (*request.messages, Message("assistant", "".join(parts)), Message("user", CONTINUE_PROMPT))
        follow = dataclasses.replace(request, messages=messages, until=None)  # its part alone is no whole reply
        total = request.max_output_tokens if limit is None else limit
        left = total - outcome.usage.output_tokens
        cap = min(left, room(follow))
        if cap < min(total, 256):
            log.info("%s: %s; not continuing the cut-off reply", request.role,
                     "it used the whole output cap" if left < 256 else "no room left in the window")
            break
        try:
            outcome = then(outcome, send(dataclasses.replace(follow, max_output_tokens=cap)))
        except (PromptTooLong, ContextTooLong):  # no room to continue: the reply stays cut off
            break
        except StopRequested as exc:  # no time to continue (the deadline): the reply stays cut off, not lost
            log.info("%s: %s; not continuing the cut-off reply", request.role, exc)
            break
        parts.append(outcome.text)
    return dataclasses.replace(outcome, text="".join(parts), truncated=outcome.finish_reason == LENGTH)


def looping(text: str) -> bool:
    """True when the text ends in a few lines repeated over and over (a small model's degenerate loop)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()][-LOOP_LINES:]
    return len(lines) == LOOP_LINES and len(set(lines)) <= LOOP_LINES // 6
