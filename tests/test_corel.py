"""Tests of the Corel-1K pipeline: DCT features, per-image GMMs, KL matrix and the cache."""

import numpy as np
import pytest
from scipy.fft import dctn

from experiments import (
    fit_image_gmms,
    get_corel_features,
    get_dct_features,
    get_kl_divergences,
    load_corel,
)
from experiments import _corel
from experiments._cache import load_or_compute
from digraph_askls.kernels import DiagonalGMMs

INDICES = np.arange(0, 1000, 50)  # 20 images, two per class


@pytest.fixture(scope="module")
def corel(shared_datasets):
    path = shared_datasets / "corel1k"
    if not (path / "0.jpg").is_file():
        pytest.skip(f"Corel-1K images not found in {path}")
    return load_corel(path, indices=INDICES)


def _zigzag_naive():
    """JPEG zig-zag order as (row, column) pairs, by walking the anti-diagonals."""
    order = []
    for diagonal in range(15):
        cells = [(r, diagonal - r) for r in range(8) if 0 <= diagonal - r < 8]
        order += cells if diagonal % 2 else cells[::-1]
    return order


def test_load_corel(corel):
    images, labels = corel
    assert len(images) == 20
    np.testing.assert_array_equal(labels, INDICES // 100)
    for image in images:
        assert image.dtype == np.uint8
        assert image.shape in [(384, 256, 3), (256, 384, 3)]


def test_dct_features_of_a_block_match_a_direct_computation():
    rng = np.random.default_rng(0)
    image = rng.integers(0, 256, size=(20, 28, 3)).astype(np.uint8)
    features = get_dct_features(image, step=4)
    assert features.shape == (4 * 6, 64)
    # block (row 1, column 2) starts at pixel (4, 8)
    rgb = image[4:12, 8:16].astype(float)
    y = 0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2]
    cb = 128 - 0.168736 * rgb[..., 0] - 0.331264 * rgb[..., 1] + 0.5 * rgb[..., 2]
    cr = 128 + 0.5 * rgb[..., 0] - 0.418688 * rgb[..., 1] - 0.081312 * rgb[..., 2]
    zigzag = [[dctn(c, norm="ortho")[cell] for cell in _zigzag_naive()] for c in (y, cb, cr)]
    expected = np.ravel(np.column_stack(zigzag))[:64]
    np.testing.assert_allclose(features[1 * 6 + 2], expected, atol=1e-9)
    assert expected[0] == pytest.approx(8 * y.mean())
    luminance = get_dct_features(image, step=4, colour="luminance")
    np.testing.assert_allclose(luminance[1 * 6 + 2], zigzag[0], atol=1e-9)


def test_dct_feature_errors():
    with pytest.raises(ValueError, match=r"image must have shape .* got shape \(8, 8\)"):
        get_dct_features(np.zeros((8, 8)))
    with pytest.raises(ValueError, match="colour must be 'ycbcr' or 'luminance', got 'rgb'"):
        get_dct_features(np.zeros((8, 8, 3)), colour="rgb")
    with pytest.raises(ValueError, match="step must be a positive integer, got 0"):
        get_dct_features(np.zeros((8, 8, 3)), step=0)


def test_pipeline_shapes_caching_and_kl(corel, tmp_path, monkeypatch):
    images, _ = corel
    assert get_dct_features(images[0], step=8).shape == (48 * 32, 64)
    features = get_corel_features(images, step=8, max_blocks=200, random_state=0,
                                  cache_dir=tmp_path)
    assert [f.shape for f in features] == [(200, 64)] * 20
    gmms = fit_image_gmms(features, 2, random_state=0, cache_dir=tmp_path)
    assert isinstance(gmms, DiagonalGMMs)
    assert (len(gmms), gmms.n_components, gmms.n_features) == (20, 2, 64)
    D = get_kl_divergences(gmms, n_samples=200, random_state=0, cache_dir=tmp_path)
    assert D.shape == (20, 20)
    assert len(list(tmp_path.glob("*.npz"))) == 3

    # second calls load from disk: the computations would fail if they ran
    def fail(*args, **kwargs):
        raise AssertionError("recomputed instead of loading from the cache")

    monkeypatch.setattr(_corel, "get_dct_features", fail)
    monkeypatch.setattr(_corel, "_fit_one", fail)
    monkeypatch.setattr(_corel, "get_gmm_kl_divergences", fail)
    cached = get_corel_features(images, step=8, max_blocks=200, random_state=0,
                                cache_dir=tmp_path)
    for fresh, again in zip(features, cached):
        np.testing.assert_array_equal(fresh, again)
    gmms_again = fit_image_gmms(cached, 2, random_state=0, cache_dir=tmp_path)
    np.testing.assert_array_equal(gmms_again.means, gmms.means)
    np.testing.assert_array_equal(
        get_kl_divergences(gmms_again, n_samples=200, random_state=0, cache_dir=tmp_path), D)
    with pytest.raises(AssertionError, match="recomputed"):
        fit_image_gmms(cached, 3, random_state=0, cache_dir=tmp_path)

    # KL: zero diagonal, non-negative up to Monte Carlo error, informative
    off_diagonal = D[~np.eye(20, dtype=bool)]
    np.testing.assert_allclose(np.diag(D), 0.0, atol=1e-8 * np.abs(D).max())
    assert off_diagonal.min() > -0.05 * np.median(off_diagonal)
    assert not np.allclose(D, D.T)


def test_caching_requires_an_int_seed(tmp_path):
    features = [np.random.default_rng(0).normal(size=(30, 2))]
    with pytest.raises(ValueError, match="random_state must be an int when cache_dir"):
        fit_image_gmms(features, 1, random_state=None, cache_dir=tmp_path)


def test_cache_keys_and_files(tmp_path):
    calls = []

    def compute():
        calls.append(1)
        return {"x": np.arange(3.0)}

    first = load_or_compute(tmp_path, "demo", {"a": 1}, compute)
    second = load_or_compute(tmp_path, "demo", {"a": 1}, compute)
    load_or_compute(tmp_path, "demo", {"a": 2}, compute)
    np.testing.assert_array_equal(first["x"], second["x"])
    assert len(calls) == 2
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".npz", ".npz"]


def test_missing_folder_says_where(tmp_path):
    with pytest.raises(FileNotFoundError, match=f"{tmp_path}/0.jpg"):
        load_corel(tmp_path)
