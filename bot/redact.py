"""Secret redaction: no secret value may reach a trace, a log, a file, a comment or a container.

Two nets: the values of secret variables (exact match), and token-shaped strings (GitHub,
OpenAI, Google, AWS, Slack, Stripe, Hugging Face, GitLab, npm and PyPI keys, JSON web tokens,
private key blocks, the password in `scheme://user:password@host`) whatever variable they came
from. A variable is secret by its name: the known ones (`SECRET_ENV_VARS`), any named in the
usual secret vocabulary (`is_secret_name`: `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, `*API_KEY*`,
`STRIPE_KEY` ...) unless exempted (a config's `not_secret_env`) or its value is plainly not a
secret (`could_be_secret`: no "true", number or path), and those the entry points register once
they know more (a config's `secret_env`, a model's `api_key_env`). `register_secrets` adds to the
process-wide set every `Redactor` masks as well, so each sink (trace, reply cache, insights,
index, comments, commit messages, step summary) applies the same one. Text is redacted before it
is cut (`clip`): a cut secret is no longer whole, so no net would find its prefix afterwards.
`find_secrets` names what a text holds without repeating it, for refusals.

Regular expressions rather than detect-secrets: on 1 MB of run output detect-secrets' default
plugins take about 40 times as long only to find what these mask (bench/redact_speed.py).
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Literal, overload
from urllib.parse import urlsplit

SECRET_ENV_VARS = ("GITHUB_TOKEN", "GH_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
                   "INPUT_GITHUB-TOKEN", "INPUT_OPENAI-API-KEY", "INPUT_GEMINI-API-KEY")
MASK = "[REDACTED]"
# Shorter values would blank out ordinary words; real keys are far longer.
MIN_SECRET_LENGTH = 6

# A variable name is split into words at `_`, `-` and `.`; after Sentry's and detect-secrets' keyword
# lists. Whole words only for the short ones (TOKENIZERS_PARALLELISM, COMPASS_DIR, GIT_AUTHOR_NAME are
# not secrets); the long ones anywhere in the name (DBPASSWORD, MYAPIKEY).
SECRET_WORDS = frozenset({"TOKEN", "TOKENS", "PASS", "PWD", "AUTH", "OAUTH", "COOKIE", "SESSIONID", "CREDS"})
SECRET_PARTS = ("SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "APIKEY", "API_KEY", "PRIVATE_KEY", "PRIVATEKEY",
                "CREDENTIAL", "AUTHORIZATION", "ACCESSTOKEN", "AUTHTOKEN")
# `<word>_KEY` is a secret after these (SECRET_KEY, SIGNING_KEY, STRIPE_KEY); PRIMARY_KEY, SORT_KEY,
# CACHE_KEY are not.
KEY_QUALIFIERS = frozenset({
    "ACCESS", "ADMIN", "APP", "CLIENT", "CRYPT", "DEPLOY", "ENCRYPTION", "HMAC", "JWT", "LICENSE", "MASTER",
    "SERVICE", "SESSION", "SIGNING", "SSH", "WEBHOOK",
    "ALGOLIA", "ANTHROPIC", "AWS", "AZURE", "CLOUDFLARE", "COHERE", "DATADOG", "DD", "DEEPSEEK", "DIGITALOCEAN",
    "DISCORD", "FIREBASE", "FIREWORKS", "GEMINI", "GITHUB", "GITLAB", "GOOGLE", "GROQ", "HEROKU", "HF",
    "HUGGINGFACE", "LANGSMITH", "LINEAR", "MAILGUN", "MAPBOX", "MISTRAL", "NETLIFY", "NEWRELIC", "NOTION", "NPM",
    "OPENAI", "OPENROUTER", "PAYPAL", "PERPLEXITY", "PINECONE", "POSTMARK", "PUSHER", "PYPI", "REPLICATE",
    "SENDGRID", "SENTRY", "SHOPIFY", "SLACK", "SQUARE", "STRIPE", "SUPABASE", "TELEGRAM", "TOGETHER", "TWILIO",
    "VERCEL", "VOYAGE", "WANDB", "XAI",
})
# A last word that says where or how a secret is kept, not the secret itself (GITHUB_TOKEN_FILE,
# PASSWORD_STORE_DIR, SSH_AUTH_SOCK, TOKEN_URL, AUTH_TYPE).
NOT_SECRET_LAST_WORDS = frozenset({
    "ALG", "ALGORITHM", "COUNT", "DIR", "DISABLED", "ENABLED", "ENDPOINT", "ENV", "EXPIRES", "EXPIRY", "FILE", "HOST",
    "ID", "LEN", "LENGTH", "LIMIT", "MAX", "METHOD", "MIN", "MODE", "NAME", "PATH", "PORT", "PREFIX", "PROVIDER",
    "REGION", "SIZE", "SOCK", "SOCKET", "TIMEOUT", "TTL", "TYPE", "URI", "URL", "USER", "USERNAME", "VERSION",
})
# Values no secret has: switches, placeholders, numbers, versions, paths and URLs without a password.
_NOT_SECRET_VALUES = frozenset({"true", "false", "yes", "no", "on", "off", "none", "null", "nil", "enabled",
                                "disabled", "auto", "default", "required", "optional", "unset", "empty"})
_PLAIN_VALUE = re.compile(r"[\d\s.,:;_+\-]*|[a-z]{1,15}(?:-[a-z]{1,15})?|(?:~|\.{1,2})?/\S*|[A-Za-z]:\\\S*")

# (what it is, its shape); each names a kind of credential in refusals without repeating it.
TOKEN_SHAPES = (
    ("a GitHub token", r"\bgh[pousr]_[A-Za-z0-9]{20,}"),  # classic, OAuth, app, refresh tokens
    ("a GitHub token", r"\bgithub_pat_[A-Za-z0-9_]{20,}"),  # fine-grained personal access tokens
    ("an OpenAI-style API key", r"\bsk-[A-Za-z0-9][A-Za-z0-9_\-]{16,}"),  # sk-..., sk-proj-...
    ("a Google API key", r"\bAIza[0-9A-Za-z_\-]{30,}"),
    ("an AWS access key id", r"\bA[KS]IA[0-9A-Z]{16}\b"),  # AKIA..., ASIA...
    ("an AWS secret access key", r"(?i:aws_secret_access_key[\"']?\s*[:=]\s*[\"']?)\K[A-Za-z0-9/+]{40}"),
    ("a Slack token", r"\bxox[abprs]-[A-Za-z0-9\-]{10,}"),
    ("a Stripe key", r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("a Hugging Face token", r"\bhf_[A-Za-z0-9]{30,}"),
    ("a GitLab token", r"\bglpat-[A-Za-z0-9_\-]{20,}"),
    ("an npm token", r"\bnpm_[A-Za-z0-9]{36,}"),
    ("a PyPI token", r"\bpypi-Ag[A-Za-z0-9_\-]{50,}"),
    ("a JSON web token", r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*"),
    ("a private key", r"-----BEGIN [A-Z ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY"
                      r"(?: BLOCK)?-----|\Z)"),
    ("a token in a URL", r"x-access-token:\K(?!\[REDACTED\])[^@\s]+"),  # clone URLs (not yet masked)
    ("a password in a URL", r"://[^\s:/@]*:\K(?!\[REDACTED\]@)[^\s@/]+(?=@)"),  # scheme://user:password@host
)
# Masked wherever they are written down, but no reason to refuse a commit: code and its tests are full of
# placeholder credentials in URLs (postgres://user:pass@localhost) and sample tokens for JWT libraries.
MASKED_NOT_REFUSED = frozenset({"a password in a URL", "a JSON web token"})


def _shape(index: int) -> str:
    r"""Shape `index` as a group named `s<index>`, a `\K` prefix as a group `k<index>` the mask puts back
    (`\K` is not Python's, and a lookbehind of variable width is not either)."""
    pattern = TOKEN_SHAPES[index][1].removeprefix(r"\b")
    if r"\K" in pattern:
        prefix, rest = pattern.split(r"\K", 1)
        pattern = f"(?P<k{index}>{prefix}){rest}"
    return f"(?P<s{index}>{pattern})"


def _passes() -> tuple[re.Pattern[str], ...]:
    """The shapes as few patterns as are fast: those that start a word in one (behind a look at the first
    letter, which spares trying every shape at every word), each of the others on its own."""
    worded = [i for i, (_, pattern) in enumerate(TOKEN_SHAPES) if pattern.startswith(r"\b")]
    firsts = "".join(dict.fromkeys(c for i in worded for c in _first_letters(TOKEN_SHAPES[i][1][2:])))
    together = re.compile(rf"\b(?=[{firsts}])(?:{'|'.join(_shape(i) for i in worded)})")
    return (together, *(re.compile(_shape(i)) for i in range(len(TOKEN_SHAPES)) if i not in worded))


def _first_letters(pattern: str) -> str:
    """The letters a shape can start with: its first literal letter, or the letters of its first `[...]`."""
    return pattern[1:pattern.index("]")] if pattern.startswith("[") else pattern[0]


_PASSES = _passes()
TOKEN_PATTERNS = re.compile("|".join(f"(?:{p.pattern})" for p in _PASSES))  # any shape at all
_registered: tuple[str, ...] = ()
_not_secret: frozenset[str] = frozenset()
_lock = threading.Lock()


def register_secrets(values: Iterable[str]) -> None:
    """Mask these values too, in every redactor of this process from now on."""
    global _registered
    with _lock:
        known = {*_registered, *(v for v in values if v and len(v) >= MIN_SECRET_LENGTH)}
        _registered = tuple(sorted(known, key=len, reverse=True))


def registered_secrets() -> tuple[str, ...]:
    """The values registered so far (longest first)."""
    return _registered


def exempt_secret_names(names: Iterable[str]) -> None:
    """Take these variables out of the name sweep from now on (a config's `not_secret_env`: false positives)."""
    global _not_secret
    with _lock:
        _not_secret = _not_secret | {name.upper() for name in names}


def is_secret_name(name: str) -> bool:
    """Whether a variable named `name` holds a secret by the usual vocabulary (DEPLOY_SECRET, SLACK_BOT_TOKEN,
    DATABASE_PASSWORD, STRIPE_KEY; not TOKENIZERS_PARALLELISM, PASSWORD_STORE_DIR or PRIMARY_KEY)."""
    upper = name.upper()
    words = [w for w in re.split(r"[_\-.]", upper) if w]
    if not words or words[-1] in NOT_SECRET_LAST_WORDS:
        return False
    if SECRET_WORDS.intersection(words) or any(part in upper for part in SECRET_PARTS):
        return True
    return len(words) >= 2 and words[-1] in ("KEY", "KEYS") and words[-2] in KEY_QUALIFIERS


def could_be_secret(value: str) -> bool:
    """False for values no secret has, which masking would blank all over ordinary text: short ones,
    switches ("true", "off"), numbers and versions, lowercase words, paths, URLs without a password."""
    value = value.strip()
    if len(value) < MIN_SECRET_LENGTH or value.lower() in _NOT_SECRET_VALUES or _PLAIN_VALUE.fullmatch(value):
        return False
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9+.\-]*://\S+", value):
        try:
            return urlsplit(value).password is not None
        except ValueError:
            return True
    return True


def secret_values(env: Mapping[str, str], extra_names: Iterable[str] = ()) -> list[str]:
    """The values in `env` of the known secret variables and of `extra_names` (whatever they look like), and
    of every variable named like a secret and not exempted whose value could be one."""
    named = {*SECRET_ENV_VARS, *extra_names}
    values = [env[name] for name in named if env.get(name)]
    values += [value for name, value in env.items() if name not in named and name.upper() not in _not_secret
               and value and is_secret_name(name) and could_be_secret(value)]
    return values


class Redactor:
    """Replaces secret values and token-shaped strings with a mask."""

    def __init__(self, secrets: Iterable[str] = ()):
        values = {s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH}
        # Longest first, so a secret that contains another is masked whole.
        self._values = sorted(values, key=len, reverse=True)

    def extended(self, secrets: Iterable[str]) -> Redactor:
        """A redactor that also masks `secrets`."""
        return Redactor([*self._values, *secrets])

    @classmethod
    def from_env(cls, env: Mapping[str, str], extra_names: Iterable[str] = ()) -> Redactor:
        """A redactor for the secrets in `env`: by name (`secret_values`) plus `extra_names`."""
        return cls(secret_values(env, extra_names))

    def values(self) -> list[str]:
        """Every exact value masked: this redactor's and the process's registered ones, longest first."""
        return sorted({*self._values, *_registered}, key=len, reverse=True)

    def text(self, text: str) -> str:
        """`text` with every secret masked."""
        text = self.known_values(text)
        for shapes in _PASSES:
            text = shapes.sub(_mask, text)
        return text

    def known_values(self, text: str) -> str:
        """`text` with the exact secret values masked, token shapes left alone (for prompts: code may
        hold fake tokens the coder must quote exactly)."""
        for value in self.values():
            if value in text:
                text = text.replace(value, MASK)
        return text

    def clip(self, text: str, limit: int, keep: Literal["head", "tail"] = "head") -> str:
        """The first (or last) `limit` characters of `text` redacted: masked before it is cut, since a secret
        cut in two is whole in neither part and no net finds its prefix afterwards."""
        clean = self.text(text)
        return clean[:limit] if keep == "head" else clean[-limit:] if limit > 0 else ""

    def find(self, text: str) -> list[str]:
        """What kinds of secret `text` holds ("the value of a secret variable", "a GitHub token"), once each."""
        found = ["the value of a secret variable"] if any(v in text for v in self.values()) else []
        found += [_kind(m) for shapes in _PASSES for m in shapes.finditer(text)]
        return list(dict.fromkeys(found))

    def introduced(self, old: str, new: str) -> list[str]:
        """The kinds of secret `new` holds that `old` did not (an edit near an old fixture is not refused);
        placeholders in URLs and sample JSON web tokens are not counted (`MASKED_NOT_REFUSED`)."""
        found = ["the value of a secret variable"] if any(v in new and v not in old for v in self.values()) else []
        before = {m[0] for shapes in _PASSES for m in shapes.finditer(old)} if old else set()
        found += [_kind(m) for shapes in _PASSES for m in shapes.finditer(new) if m[0] not in before]
        return [kind for kind in dict.fromkeys(found) if kind not in MASKED_NOT_REFUSED]

    @overload
    def value(self, value: Mapping[str, object]) -> dict[str, object]: ...

    @overload
    def value(self, value: object) -> object: ...

    def value(self, value: object) -> object:
        """A copy of a JSON-like value with every string redacted (a mapping stays a mapping)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.text(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple | set):
            return [self.value(v) for v in value]
        if value is None or isinstance(value, bool | int | float):
            return value
        return self.text(repr(value))


def _kind(match: re.Match[str]) -> str:
    return TOKEN_SHAPES[int(str(match.lastgroup)[1:])][0]


def _mask(match: re.Match[str]) -> str:
    keep = f"k{str(match.lastgroup)[1:]}"
    return (match.group(keep) if keep in match.re.groupindex else "") + MASK


def process_redactor() -> Redactor:
    """The redactor for this process: the secret variables of its environment and every registered value."""
    return Redactor.from_env(os.environ)


def scrub(text: str) -> str:
    """`text` with every secret this process knows of, and every token shape, masked."""
    return process_redactor().text(text)


def clip(text: str, limit: int, keep: Literal["head", "tail"] = "head") -> str:
    """`text` scrubbed, then cut to its first (or last) `limit` characters: every cut on the way to a sink."""
    return process_redactor().clip(text, limit, keep)


def withhold_secrets(text: str) -> str:
    """`text` without the values of the secrets this process knows of: what may be sent to a model."""
    return process_redactor().known_values(text)


def find_secrets(text: str) -> list[str]:
    """The kinds of secret `text` holds, named without repeating them (empty when none)."""
    return process_redactor().find(text)


class RedactingFilter(logging.Filter):
    """A logging filter that masks secrets in every record's message, traceback and stack (installed on the
    CLI's handlers): an exception's message quotes whatever it was given, a key included."""

    def filter(self, record: logging.LogRecord) -> bool:
        redactor = process_redactor()
        message = record.getMessage()
        clean = redactor.text(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redactor.text(record.exc_text)
        if record.stack_info:
            record.stack_info = redactor.text(record.stack_info)
        return True
