"""Health check of the status service."""

import urllib.request

STATUS_URL = "http://127.0.0.1:9/health"


def service_up(url: str = STATUS_URL, timeout: float = 2.0) -> bool:
    """True when the status service answers 200."""
    with urllib.request.urlopen(url, timeout=timeout) as reply:
        return reply.status == 200
