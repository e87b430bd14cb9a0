"""Retrying downloads for flaky servers."""

from fetchkit.download import MirrorResult, download_all
from fetchkit.retry import Retry, RetryError

__all__ = ["MirrorResult", "Retry", "RetryError", "download_all"]
