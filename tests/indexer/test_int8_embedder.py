"""The `int8:` embedding model: the bundled model with its linear layers quantized when loaded."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from indexer.embedding import canonical_model_name, make_embedder

pytestmark = pytest.mark.slow
TEXTS = ["def median(values):\n    ordered = sorted(values)", "class HTTPAdapter(BaseAdapter): send a request",
         "median() is wrong for an even number of values"]


def test_int8_vectors_are_normalized_and_close_to_the_full_model() -> None:
    assert canonical_model_name("int8:") == "int8:all-MiniLM-L6-v2"
    full = make_embedder("all-MiniLM-L6-v2")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # quantizing and embedding are quiet (torch's deprecation notice is kept in)
        int8 = make_embedder("int8:")
        a, b = full.embed(TEXTS), int8.embed(TEXTS)
    assert int8.name == "int8:all-MiniLM-L6-v2" and int8.dim == full.dim == 384
    assert np.allclose(np.linalg.norm(b, axis=1), 1.0, atol=1e-4)
    assert (a * b).sum(axis=1).min() > 0.8  # the same space, a little blurred
    # and it still ranks: the code about medians is nearest to the question about medians
    assert int(np.argmax(b[:2] @ b[2])) == 0
