"""Corel-1K features of the paper's Table 1: block DCT features, one GMM per image, KL matrix.

The paper follows Moreno, Ho and Vasconcelos (NIPS 2003, "A Kullback-Leibler divergence
based kernel for SVM classification in multimedia applications"): each image becomes a set of
64-dimensional DCT vectors of 8 x 8 blocks, a diagonal Gaussian mixture is fitted to each set
(256 components in the paper) and images are compared by ``KL(P_i || P_j)``, estimated by
Monte Carlo. The recipe implemented here, step by step:

1. Colour: RGB is converted to YCbCr with the JPEG (JFIF, full range) matrix, in floating
   point; no other scaling, so coefficients are in grey levels.
2. Blocks: all 8 x 8 windows whose top-left corner lies on a grid of ``step`` pixels
   (``step=4``: windows overlap by half; ``step=8``: the non-overlapping JPEG tiling). A
   384 x 256 image gives 95 x 63 = 5985 blocks with ``step=4``.
3. Transform: orthonormal 2-D DCT-II of every block of every channel
   (``scipy.fft.dctn(..., norm="ortho")``, all blocks at once through a strided view).
4. Ordering: the coefficients of each channel in JPEG zig-zag order, DC first, the three
   channels interleaved (Y0, Cb0, Cr0, Y1, Cb1, Cr1, ...) and the first 64 kept: 22 luminance
   and 21 + 21 chrominance coefficients, lowest frequencies first. DC is kept. With
   ``colour="luminance"`` the 64 zig-zag coefficients of Y alone are used instead.
5. Subsampling: ``max_blocks`` blocks per image drawn without replacement (seeded), to
   bound memory and the cost of the GMM fits.
6. Mixture: ``sklearn.mixture.GaussianMixture(covariance_type="diag")`` per image, k-means
   initialisation, ``reg_covar`` added to the variances (1 grey level squared by default).

The interleaving of step 4 is our reading of that line of work; the NIPS paper only states
"64-dimensional DCT features of 8 x 8 blocks", and the block step is our choice.
"""

import logging
import warnings
from pathlib import Path

import numpy as np
from joblib import Parallel, delayed
from numpy.lib.stride_tricks import sliding_window_view
from scipy.fft import dctn
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import GaussianMixture
from tqdm.auto import tqdm

from experiments._cache import fingerprint, load_or_compute
from digraph_askls.kernels import DiagonalGMMs, get_gmm_kl_divergences

__all__ = ["CLASS_NAMES", "load_corel", "get_dct_features", "get_corel_features",
           "fit_image_gmms", "get_kl_divergences"]

logger = logging.getLogger(__name__)

CLASS_NAMES = ("africa", "beaches", "buildings", "buses", "dinosaurs", "elephants",
               "flowers", "horses", "mountains", "food")
"""Class of image ``n`` of Corel-1K: ``CLASS_NAMES[n // 100]``."""

_YCBCR = np.array([[0.299, 0.587, 0.114],
                   [-0.168736, -0.331264, 0.5],
                   [0.5, -0.418688, -0.081312]])
_YCBCR_OFFSET = np.array([0.0, 128.0, 128.0])
_BLOCK = 8
_N_FEATURES = 64


def _zigzag(size=_BLOCK):
    """Flat indices of a ``size x size`` block in JPEG zig-zag order."""
    rows, cols = np.divmod(np.arange(size * size), size)
    diagonal = rows + cols
    # odd anti-diagonals run down (row increasing), even ones up
    order = np.lexsort((np.where(diagonal % 2 == 1, rows, -rows), diagonal))
    return order


def load_corel(path, *, indices=None):
    """Read the Corel-1K images ``{n}.jpg`` and their labels ``n // 100``.

    Parameters
    ----------
    path : str or path
        Folder holding ``0.jpg`` ... ``999.jpg``.
    indices : sequence of int, default=None
        Image numbers to read; ``None`` reads all 1000.

    Returns
    -------
    images : list of ndarray of shape (height, width, 3), dtype uint8
        RGB images.
    labels : ndarray of shape (n_images,)
        Class indices into :data:`CLASS_NAMES`.

    Examples
    --------
    >>> from experiments import load_corel
    >>> load_corel("/nonexistent")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    FileNotFoundError: Corel-1K image not found: /nonexistent/0.jpg; ...
    """
    Image = _pillow_image()
    path = Path(path)
    indices = np.arange(1000) if indices is None else np.asarray(indices, dtype=int)
    images = []
    for index in indices:
        file = path / f"{index}.jpg"
        if not file.is_file():
            raise FileNotFoundError(
                f"Corel-1K image not found: {file}; expected the files 0.jpg ... 999.jpg "
                "(see datasets/MANIFEST.md, section 5, of the shared data)")
        with Image.open(file) as image:
            images.append(np.asarray(image.convert("RGB")))
    return images, indices // 100


def get_dct_features(image, *, step=4, colour="ycbcr"):
    """64-dimensional DCT features of all 8 x 8 blocks of an image (recipe: module docs).

    Parameters
    ----------
    image : array-like of shape (height, width, 3)
        RGB image with values in ``[0, 255]``.
    step : int, default=4
        Distance in pixels between the corners of neighbouring blocks.
    colour : {"ycbcr", "luminance"}, default="ycbcr"
        Interleaved YCbCr coefficients, or luminance only.

    Returns
    -------
    features : ndarray of shape (n_blocks, 64)
        One row per block, blocks in row-major order of their corners.

    Examples
    --------
    >>> import numpy as np
    >>> from experiments import get_dct_features
    >>> image = np.full((16, 24, 3), 255, dtype=np.uint8)
    >>> features = get_dct_features(image, step=8)
    >>> features.shape
    (6, 64)
    >>> features[0, :4]  # DC of Y, Cb, Cr (8 x mean), then the first AC of Y
    array([2040., 1024., 1024.,    0.])
    """
    if colour not in ("ycbcr", "luminance"):
        raise ValueError(f"colour must be 'ycbcr' or 'luminance', got {colour!r}")
    if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or step < 1:
        raise ValueError(f"step must be a positive integer, got {step!r}")
    image = np.asarray(image, dtype=np.float64)
    if image.ndim != 3 or image.shape[2] != 3 or min(image.shape[:2]) < _BLOCK:
        raise ValueError("image must have shape (height >= 8, width >= 8, 3), "
                         f"got shape {image.shape}")
    ycbcr = image @ _YCBCR.T + _YCBCR_OFFSET
    if colour == "luminance":
        ycbcr = ycbcr[..., :1]
    blocks = sliding_window_view(ycbcr, (_BLOCK, _BLOCK), axis=(0, 1))[::step, ::step]
    coefficients = dctn(blocks, axes=(-2, -1), norm="ortho")
    n_blocks = blocks.shape[0] * blocks.shape[1]
    # (blocks, channel, zig-zag position) -> position-major, channel-minor interleaving
    zigzagged = coefficients.reshape(n_blocks, ycbcr.shape[2], -1)[:, :, _zigzag()]
    return zigzagged.transpose(0, 2, 1).reshape(n_blocks, -1)[:, :_N_FEATURES]


def get_corel_features(images, *, step=4, colour="ycbcr", max_blocks=1000,
                       random_state=None, cache_dir=None, verbose=False):
    """DCT features of many images, subsampled to ``max_blocks`` blocks each, cached.

    Parameters
    ----------
    images : sequence of array-like of shape (height, width, 3)
        RGB images, e.g. from :func:`load_corel`.
    step, colour
        See :func:`get_dct_features`.
    max_blocks : int or None, default=1000
        Blocks kept per image, drawn without replacement; ``None`` keeps all.
    random_state : None or int, default=None
        Seed of the subsampling; must be an int when ``cache_dir`` is given.
    cache_dir : str, path or None, default=None
        Folder where the features are cached, keyed by the images and the parameters.
    verbose : bool, default=False
        Show a progress bar.

    Returns
    -------
    features : list of ndarray of shape (n_blocks_i, 64), dtype float32

    Examples
    --------
    >>> import numpy as np
    >>> from experiments import get_corel_features
    >>> images = np.random.default_rng(0).integers(0, 256, size=(2, 32, 32, 3))
    >>> [f.shape for f in get_corel_features(images, max_blocks=10, random_state=0)]
    [(10, 64), (10, 64)]
    """
    seed = _check_cacheable(cache_dir, random_state)
    images = [np.asarray(image) for image in images]
    params = {"what": "corel-dct-features", "images": fingerprint(images), "step": int(step),
              "colour": colour, "max_blocks": None if max_blocks is None else int(max_blocks),
              "random_state": seed}

    def compute():
        rngs = np.random.default_rng(random_state).spawn(len(images))
        features = []
        for image, rng in zip(tqdm(images, disable=not verbose, desc="DCT features"), rngs):
            blocks = get_dct_features(image, step=step, colour=colour)
            if max_blocks is not None and len(blocks) > max_blocks:
                blocks = blocks[np.sort(rng.choice(len(blocks), max_blocks, replace=False))]
            features.append(blocks.astype(np.float32))
        return {"features": np.concatenate(features),
                "offsets": np.cumsum([0] + [len(f) for f in features])}

    arrays = load_or_compute(cache_dir, "corel-features", params, compute)
    offsets = arrays["offsets"]
    return [arrays["features"][start:stop] for start, stop in zip(offsets[:-1], offsets[1:])]


def _fit_one(features, n_components, reg_covar, max_iter, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        gmm = GaussianMixture(n_components, covariance_type="diag", reg_covar=reg_covar,
                              max_iter=max_iter, random_state=seed)
        gmm.fit(np.asarray(features, dtype=np.float64))
    return gmm.weights_, gmm.means_, gmm.covariances_, gmm.converged_


def fit_image_gmms(features, n_components, *, reg_covar=1.0, max_iter=100,
                   random_state=None, cache_dir=None, n_jobs=None, verbose=False):
    """Fit one diagonal Gaussian mixture per image, in parallel, cached.

    Parameters
    ----------
    features : sequence of ndarray of shape (n_blocks_i, n_features)
        Feature vectors of each image, e.g. from :func:`get_corel_features`.
    n_components : int
        Components per mixture (256 in the paper).
    reg_covar : float, default=1.0
        Added to every variance; in squared grey levels for DCT features.
    max_iter : int, default=100
        EM iterations per image.
    random_state : None or int, default=None
        Seed of the k-means initialisations; must be an int when ``cache_dir`` is given.
    cache_dir : str, path or None, default=None
        Folder where the parameters are cached, keyed by the features and the parameters.
    n_jobs : int or None, default=None
        Parallel fits (joblib); ``None`` means 1.
    verbose : bool, default=False
        Show a progress bar.

    Returns
    -------
    gmms : DiagonalGMMs
        Mixture ``i`` is fitted to ``features[i]``.

    Examples
    --------
    >>> import numpy as np
    >>> from experiments import fit_image_gmms
    >>> rng = np.random.default_rng(0)
    >>> features = [rng.normal(size=(50, 3)), rng.normal(size=(60, 3)) + 5]
    >>> fit_image_gmms(features, 2, random_state=0)
    DiagonalGMMs(n_mixtures=2, n_components=2, n_features=3)
    """
    seed = _check_cacheable(cache_dir, random_state)
    params = {"what": "image-gmms", "features": fingerprint(features),
              "n_components": int(n_components), "reg_covar": float(reg_covar),
              "max_iter": int(max_iter), "random_state": seed}

    def compute():
        seeds = np.random.default_rng(random_state).integers(2**31 - 1, size=len(features))
        jobs = (delayed(_fit_one)(f, n_components, reg_covar, max_iter, int(seed))
                for f, seed in zip(features, seeds))
        fits = Parallel(n_jobs=n_jobs, return_as="generator")(jobs)
        fits = list(tqdm(fits, total=len(features), disable=not verbose, desc="GMM fits"))
        weights, means, variances, converged = (np.stack(part) for part in zip(*fits))
        return {"weights": weights, "means": means, "variances": variances,
                "converged": converged}

    arrays = load_or_compute(cache_dir, "image-gmms", params, compute)
    n_failed = int(np.sum(~arrays["converged"]))
    if n_failed:
        logger.warning("%d of %d GMM fits did not converge in %d iterations",
                       n_failed, len(arrays["converged"]), max_iter)
    return DiagonalGMMs(arrays["weights"], arrays["means"], arrays["variances"])


def get_kl_divergences(gmms, *, n_samples=1000, random_state=None, cache_dir=None,
                       verbose=False):
    """Monte Carlo matrix ``KL(P_i || P_j)`` of the image mixtures, cached.

    :func:`digraph_askls.kernels.get_gmm_kl_divergences` with a disk cache keyed by the
    mixture parameters, ``n_samples`` and ``random_state``.

    Parameters
    ----------
    gmms : DiagonalGMMs
        One mixture per image, e.g. from :func:`fit_image_gmms`.
    n_samples : int, default=1000
        Draws per mixture.
    random_state : None or int, default=None
        Seed of the draws; must be an int when ``cache_dir`` is given.
    cache_dir : str, path or None, default=None
        Folder of the cache.
    verbose : bool, default=False
        Show a progress bar.

    Returns
    -------
    divergences : ndarray of shape (n_images, n_images)

    Examples
    --------
    >>> from experiments import get_kl_divergences
    >>> from digraph_askls.kernels import DiagonalGMMs
    >>> gmms = DiagonalGMMs([[1.0], [1.0]], [[[0.0]], [[1.0]]], [[[1.0]], [[1.0]]])
    >>> get_kl_divergences(gmms, n_samples=100, random_state=0).shape
    (2, 2)
    """
    seed = _check_cacheable(cache_dir, random_state)
    params = {"what": "gmm-kl-divergences", "n_samples": int(n_samples),
              "gmms": fingerprint([gmms.weights, gmms.means, gmms.variances]),
              "random_state": seed}

    def compute():
        return {"divergences": get_gmm_kl_divergences(
            gmms, n_samples=n_samples, random_state=random_state, verbose=verbose)}

    return load_or_compute(cache_dir, "kl-divergences", params, compute)["divergences"]


def _check_cacheable(cache_dir, random_state):
    """The seed as it enters a cache key; only ints make cached results reproducible."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        return int(random_state)
    if cache_dir is not None:
        raise ValueError("caching needs a reproducible result: random_state must be an int "
                         f"when cache_dir is given, got {random_state!r}")
    return None


def _pillow_image():
    """``PIL.Image``, imported only when images are read (Pillow is an optional extra)."""
    try:
        from PIL import Image
    except ImportError as error:
        raise ImportError('reading the Corel images needs Pillow: '
                          'pip install "digraph-askls[images]"') from error
    return Image
