"""Fakes that speak real wire protocols over localhost HTTP, and deterministic stand-ins for the engine's parts.

Shared by the tests and the benchmarks, so that bench/ runs from an installed package without the
test tree. The production packages (bot, actions, indexer, sandbox, common) never import it
(tests/test_imports.py holds that rule).

- `github_server`, `github_routes`: a fake GitHub (a REST subset and git smart HTTP) for PyGithub and git;
- `model_server`, `openai_server`, `gemini_server`: fake model endpoints for the OpenAI and Gemini SDKs;
- `peers`: which local process is at the other end of a connection (the fake servers log it);
- `github_hub`: the fake GitHub seeded with a buggy repository, and GitHub's part played: events
  delivered to `actions.app.handle_event` with GitHub's example webhook payloads (`webhooks/`);
- `scripted_engine`: an engine that commits a fixed change for real instead of running the ensemble;
- `engine_parts`: a retriever that reads whole files and a test runner that runs pytest on the host;
- `median_replies`: model replies scripted for the sample repository's median() bug.
"""
