"""The environment the engine runs with: built by an allow-list, so no GitHub credential reaches it.

The engine reads untrusted text and talks to models; whatever library runs in its process can
read its environment. So it gets only what it needs (the system's basics, certificates and proxies,
the Docker engine's address, caches, the ENSEMBLE_*/OTEL_* settings, the model keys and base URLs,
and the variables the config names in `secret_env` or a model's `api_key_env`) and never a GitHub
or Actions credential: not GITHUB_*, GH_TOKEN, ACTIONS_* or the action's INPUT_* variables, even
when the config names one, nor any variable whose value holds one of their secret values.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

from bot.config import Config
from bot.redact import could_be_secret, is_secret_name

log = logging.getLogger(__name__)

PASSED = frozenset({
    # the system
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP", "TMP", "TERM",
    "PYTHONPATH", "VIRTUAL_ENV", "RUNNER_TEMP", "CI",
    "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",  # never GIT_CONFIG_*
    # certificates and proxies (a TLS-intercepting proxy needs its CA bundle)
    "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "PIP_CERT", "NODE_EXTRA_CA_CERTS",
    "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy",
    # the Docker engine the sandbox runs in
    "DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CONFIG", "DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH",
    # models: keys and servers (a role's own `api_key_env` comes from the config)
    "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID", "GEMINI_API_KEY", "GOOGLE_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    # the embedding model and its libraries, offline
    "HF_HOME", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "SENTENCE_TRANSFORMERS_HOME", "TORCH_HOME",
    "TOKENIZERS_PARALLELISM", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
})
PASSED_PREFIXES = ("LC_", "XDG_", "ENSEMBLE_", "OTEL_")
# Never passed, whatever the config says: GitHub's and the Actions runner's credentials and the
# action's inputs (the github-token input arrives as INPUT_GITHUB-TOKEN).
WITHHELD_PREFIXES = ("GITHUB_", "GH_", "ACTIONS_", "INPUT_", "RUNNER_TOKEN")
WITHHELD = frozenset({"GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_PAT"})
GITHUB_CREDENTIALS = WITHHELD | {"INPUT_GITHUB-TOKEN"}
# Set for the engine whatever the caller had: git never asks a person for a password, and reads only the
# working copy's own configuration, which stores no credential (not a machine's or user's credential helper,
# `url.<base>.insteadOf` with a token in it or `http.extraheader`).
FIXED = {"GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def engine_environment(env: Mapping[str, str], config: Config) -> dict[str, str]:
    """The variables of `env` the engine may see (see the module docstring), plus `FIXED`."""
    from bot.ensemble.runner import config_secret_names  # the engine's modules load only when it runs

    named = set(config_secret_names(config))
    allowed = {name: value for name, value in env.items() if _allowed(name, named)}
    credentials = _credential_values(env, set(allowed.values()))
    passed = {}
    for name, value in allowed.items():
        if any(secret in value for secret in credentials):
            log.warning("%s is not passed to the engine: its value holds a GitHub or Actions credential", name)
            continue
        passed[name] = value
    return passed | FIXED


def _allowed(name: str, named: set[str]) -> bool:
    """Whether `name` is on the allow-list (and not withheld)."""
    if _withheld(name):
        return False
    if name in PASSED or name in named:
        return True
    return name.startswith(PASSED_PREFIXES) and (name.startswith("OTEL_") or not is_secret_name(name))


def _withheld(name: str) -> bool:
    return name in WITHHELD or name.startswith(WITHHELD_PREFIXES)


def _credential_values(env: Mapping[str, str], given: set[str]) -> set[str]:
    """The values of the withheld credentials: GitHub's tokens, the runner's secret-named ACTIONS_* and
    GITHUB_* variables, and the action's inputs, where the value could be a secret (a token, not `true`).

    An action input forwarded as it is to a variable the engine gets (INPUT_OPENAI-API-KEY as
    OPENAI_API_KEY) is that variable's value, not a GitHub credential; GitHub's own tokens never are.
    """
    return {value.strip() for name, value in env.items()
            if _is_credential(name) and could_be_secret(value)
            and (name in GITHUB_CREDENTIALS or name.startswith("ACTIONS_") or value not in given)}


def _is_credential(name: str) -> bool:
    """GITHUB_REPOSITORY or GITHUB_REF are withheld too, but are no secret to look for in other values."""
    return name in GITHUB_CREDENTIALS or name.startswith("INPUT_") or (_withheld(name) and is_secret_name(name))
