"""The execution environment: run a repository's tests in a hardened container or a local fallback."""
