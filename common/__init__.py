"""Leaf code every layer shares: the git facade, the glob engine, the token counter, retries and the like.

`indexer/`, `sandbox/`, `bot/` and `actions/` may all import this package; it imports none of
them (nor anything heavy at import time), so it can sit under every layer without a cycle.

    common.git       run git: one function family, one error type (`GitError`) naming the command and stderr
    common.globs     gitignore-style path patterns (pathspec): `paths.deny`, index include/exclude
    common.tokens    token counts: exact with tiktoken where the model's encoding is known, else one estimate
    common.retry     retry with backoff and the one `Retry-After` reading (model calls and GitHub calls)
    common.languages the language registry: suffixes, tree-sitter grammars, the file names test runners collect
    common.testfiles what a test file and a harness file are (built on common.languages)
    common.atomic    the one atomic file writer (temporary file, fsync, rename; nothing left behind on failure)
    common.github    the PyGithub client built one way, and the rate-limit and 5xx waits of every GitHub call
"""
