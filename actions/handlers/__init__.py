"""One module per behaviour; each exposes `handle(ctx) -> Outcome`. actions.router picks one per event."""
