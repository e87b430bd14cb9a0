"""Code-aware BM25 tokens: identifiers kept whole and split into their words."""

from __future__ import annotations

from indexer.tokens import split_identifier, tokenize


def test_identifiers_are_kept_whole_and_split_on_case_and_underscores():
    assert split_identifier("HTTPResponse_code") == ("httpresponse_code", "http", "response", "code")
    assert split_identifier("resolve_redirects") == ("resolve_redirects", "resolve", "redirects")
    assert split_identifier("plain") == ("plain",)


def test_tokens_are_stemmed_and_stop_words_dropped():
    tokens = tokenize("The session is resolving redirects in getHTTPResponse()")
    assert tokens == ["session", "resolv", "redirect", "gethttprespons", "get", "http", "respons"]
