"""ensemble-bot: the engine (config, models, ensemble, forges, tracing, CLI)."""

__version__ = "0.1.0"
