"""The model query manager: OpenAI, Gemini and scripted replies behind one interface.

    manager = ModelManager.from_config(config, os.environ, repo / CACHE_SUBDIR)
    room = manager.prompt_budget("planner")  # tokens the prompt may take in the model's window
    plan = manager.complete("planner", [Message("user", task)], schema="plan").data

SDKs are imported only when a model is first called, so importing this package is cheap.
"""

from bot.errors import BudgetExceeded, ModelError, PromptTooLong, ProviderError, StructuredReplyError
from bot.llm.cache import CACHE_SUBDIR, ReplyCache
from bot.llm.gemini import GeminiChatModel
from bot.llm.manager import Link, ModelManager
from bot.llm.openai import OpenAIChatModel
from bot.llm.prices import MODEL_TABLE, PriceTable
from bot.llm.registry import PROVIDERS, create_model
from bot.llm.retry import RetryPolicy
from bot.llm.schemas import (
    EXPLORE_SCHEMA,
    PLAN_SCHEMA,
    REVIEW_SCHEMA,
    SCHEMAS,
    SchemaViolation,
    parse_structured,
)
from bot.llm.scripted import ScriptedChatModel
from bot.llm.tokens import ContextPiece, count_tokens, fit_context, join_context
from bot.llm.types import ChatModel, ChatRequest, Completion, Message, Reply, Usage

__all__ = [
    "CACHE_SUBDIR", "EXPLORE_SCHEMA", "MODEL_TABLE", "PLAN_SCHEMA", "PROVIDERS", "REVIEW_SCHEMA", "SCHEMAS",
    "BudgetExceeded", "ChatModel", "ChatRequest", "Completion", "ContextPiece", "GeminiChatModel", "Link",
    "Message", "ModelError", "ModelManager", "OpenAIChatModel", "PriceTable", "PromptTooLong", "ProviderError", "Reply",
    "ReplyCache", "RetryPolicy", "SchemaViolation", "ScriptedChatModel", "StructuredReplyError", "Usage",
    "count_tokens", "create_model", "fit_context", "join_context", "parse_structured",
]
