"""Leaf code every layer shares: the git facade, the glob engine and the token counter.

`indexer/`, `sandbox/`, `bot/` and `actions/` may all import this package; it imports none of
them (nor anything heavy at import time), so it can sit under every layer without a cycle.

    common.git      run git: one function family, one error type (`GitError`) naming the command and stderr
    common.globs    gitignore-style path patterns (pathspec): `paths.deny`, index include/exclude
    common.tokens   token counts: exact with tiktoken where the model's encoding is known, else one estimate
"""
