"""The embedders: the real bundled model offline, and the static distillation's inference path."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from indexer.embedder import EmbedderError
from indexer.embedding import canonical_model_name, make_embedder
from indexer.static import StaticEmbedder, distilled_path


@pytest.mark.slow
def test_bundled_model_loads_offline_and_embeds_normalized_vectors():
    assert os.environ["HF_HUB_OFFLINE"] == "1"
    embedder = make_embedder("all-MiniLM-L6-v2")  # the full-precision model; the default is its int8 form
    vectors = embedder.embed(["follow HTTP redirects", "follow http redirects!", "matrix separability"])
    assert embedder.name == "all-MiniLM-L6-v2" and embedder.dim == 384
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


def test_a_model_that_is_not_on_disk_is_refused_with_the_fix(tmp_path: Path):
    with pytest.raises(EmbedderError, match="index.embedding_model"):
        make_embedder(str(tmp_path / "missing-model"))


def test_model_names_are_recorded_in_full():
    assert canonical_model_name(None) == canonical_model_name("") == "static:all-MiniLM-L6-v2"
    assert canonical_model_name("all-MiniLM-L6-v2") == "all-MiniLM-L6-v2"
    assert canonical_model_name("static:") == "static:all-MiniLM-L6-v2"


def test_static_embedder_averages_distilled_token_vectors(tmp_path: Path):
    # a stand-in distillation (random token vectors) exercises tokenization, averaging and normalization
    rng = np.random.default_rng(0)
    np.save(distilled_path(None, tmp_path), rng.standard_normal((30522, 8)).astype(np.float32))
    embedder = StaticEmbedder(None, cache_dir=tmp_path)
    vectors = embedder.embed(["resolve redirects", "resolve redirects", "", "completely different words"])
    assert embedder.name == "static:all-MiniLM-L6-v2" and vectors.shape == (4, 8)
    assert np.allclose(vectors[0], vectors[1]) and not np.allclose(vectors[0], vectors[3])
    assert np.allclose(np.linalg.norm(vectors[[0, 1, 3]], axis=1), 1.0, atol=1e-5)
    assert not vectors[2].any()  # an empty text embeds to zeros, never NaN


def test_the_distillation_cache_is_written_whole_and_an_unwritable_cache_only_warns(tmp_path: Path,
                                                                                      caplog: pytest.LogCaptureFixture):
    from indexer.static import _save

    vectors = np.arange(6, dtype=np.float32).reshape(2, 3)
    _save(tmp_path / "cache" / "model.npy", vectors)
    assert np.array_equal(np.load(tmp_path / "cache" / "model.npy"), vectors)
    assert [p.name for p in (tmp_path / "cache").iterdir()] == ["model.npy"]
    (tmp_path / "not-a-folder").write_text("a file where the cache folder should be")
    _save(tmp_path / "not-a-folder" / "model.npy", vectors)
    assert "cannot keep the distilled model" in caplog.text
