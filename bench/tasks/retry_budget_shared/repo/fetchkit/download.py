"""Mirror a list of URLs into a folder, retrying each one."""

from __future__ import annotations

import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from fetchkit.retry import Retry, RetryError


def urllib_fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read()


@dataclass
class MirrorResult:
    saved: list[Path] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (url, why)


def target_name(url: str) -> str:
    """The file name a URL is saved under: its last path segment, or index.html."""
    name = urlsplit(url).path.rsplit("/", 1)[-1]
    return name or "index.html"


def download_all(urls: Iterable[str], folder: str | Path, retry: Retry | None = None,
                 fetch: Callable[[str], bytes] = urllib_fetch) -> MirrorResult:
    """Fetch every URL into `folder`; one that keeps failing is listed in `failed`, the rest go on."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    retry = retry or Retry()
    result = MirrorResult()
    for url in urls:
        try:
            data = retry(fetch, url)
        except RetryError as exc:
            result.failed.append((url, str(exc)))
            continue
        path = folder / target_name(url)
        path.write_bytes(data)
        result.saved.append(path)
    return result
