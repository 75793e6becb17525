"""experiments layer of digraph_askls."""

from digraph_askls.experiments._corel import (
    CLASS_NAMES,
    fit_image_gmms,
    get_corel_features,
    get_dct_features,
    get_kl_divergences,
    load_corel,
)

__all__ = []
__all__ += ["CLASS_NAMES", "fit_image_gmms", "get_corel_features", "get_dct_features",
            "get_kl_divergences", "load_corel"]
