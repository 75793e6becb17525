"""Registry of graph kernels by name, so that estimators and experiments take a string."""

from scipy import sparse
from scipy.sparse.linalg import LinearOperator

from digraph_askls.graph import get_adjacency
from digraph_askls.kernels._attributes import get_attribute_kernel
from digraph_askls.kernels._embedding import get_embedding_kernel
from digraph_askls.kernels._graph import get_in_degree_kernel, get_symmetrized_kernel
from digraph_askls.kernels._profiles import get_link_profile_kernel
from digraph_askls.kernels._roles import get_role_kernel
from digraph_askls.kernels._walks import _ppr_in, _ppr_out, get_ppr_kernel

__all__ = ["KERNELS", "get_graph_kernel", "register_graph_kernel"]

#: Graph kernel builders by name. A builder is called as ``builder(adjacency, **params)``
#: with a canonical CSR adjacency and returns a square sparse matrix or a
#: ``scipy.sparse.linalg.LinearOperator`` (for kernels too dense to form, such as
#: multi-hop walks). Add entries with :func:`register_graph_kernel`.
KERNELS = {}


def register_graph_kernel(name, builder=None, *, overwrite=False):
    """Register a graph kernel builder under ``name``; usable as a decorator.

    Parameters
    ----------
    name : str
        Name given to :func:`get_graph_kernel`.
    builder : callable, optional
        ``builder(adjacency, **params)`` returning a square sparse matrix or
        ``LinearOperator`` of shape ``(n_nodes, n_nodes)``. Without it, a decorator is
        returned.
    overwrite : bool, default=False
        Allow replacing an existing entry.

    Returns
    -------
    callable
        ``builder`` (or the decorator).

    Examples
    --------
    >>> from scipy.sparse.linalg import aslinearoperator
    >>> from digraph_askls.kernels import KERNELS, get_graph_kernel, register_graph_kernel
    >>> @register_graph_kernel("adjacency_operator")
    ... def adjacency_operator(adjacency):
    ...     return aslinearoperator(adjacency)
    >>> get_graph_kernel("adjacency_operator", [(0, 1)]).shape
    (2, 2)
    >>> del KERNELS["adjacency_operator"]
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty string, got {name!r}")

    def register(function):
        if not callable(function):
            raise TypeError(f"builder must be callable, got {type(function).__name__}")
        if name in KERNELS and not overwrite:
            raise ValueError(
                f"a graph kernel named {name!r} is already registered; pass overwrite=True"
            )
        KERNELS[name] = function
        return function

    return register if builder is None else register(builder)


def get_graph_kernel(name, adjacency, **params):
    """Build the graph kernel registered as ``name`` on a graph.

    Parameters
    ----------
    name : str
        One of ``sorted(KERNELS)``, e.g. ``"in_degree"`` (the paper's
        ``D_in^{-1} (A + I)``), ``"in_degree_sym"`` (its symmetric part), ``"ppr"``
        (truncated personalised-PageRank series, an operator; see
        :func:`~digraph_askls.kernels.get_ppr_kernel`), ``"ppr_in"`` / ``"ppr_out"``
        (the same along in-links / out-links only), ``"link_profile"``,
        ``"roles"``, ``"attributes"`` (pass ``features=``).
    adjacency : graph in any form accepted by :func:`~digraph_askls.graph.get_adjacency`
        ``adjacency[i, j]`` = weight of the edge ``i -> j``.
    **params
        Passed to the builder.

    Returns
    -------
    scipy sparse matrix or scipy.sparse.linalg.LinearOperator of shape (n_nodes, n_nodes)

    Raises
    ------
    ValueError
        If ``name`` is not registered (the message lists the valid names).

    Examples
    --------
    >>> from digraph_askls.kernels import get_graph_kernel
    >>> K = get_graph_kernel("in_degree_sym", [(0, 1)])
    >>> K.toarray()
    array([[1.  , 0.25],
           [0.25, 0.5 ]])
    """
    if name not in KERNELS:
        raise ValueError(f"unknown graph kernel {name!r}; choose from {sorted(KERNELS)}"
                         f"{_recipe_hint(name)}")
    adjacency, _ = get_adjacency(adjacency)
    kernel = KERNELS[name](adjacency, **params)
    if not (sparse.issparse(kernel) or isinstance(kernel, LinearOperator)):
        raise TypeError(
            f"graph kernel {name!r} must return a sparse matrix or a LinearOperator, "
            f"got {type(kernel).__name__}"
        )
    n = adjacency.shape[0]
    if kernel.shape != (n, n):
        raise ValueError(f"graph kernel {name!r} must have shape {(n, n)}, got {kernel.shape}")
    return kernel


def _recipe_hint(name):
    """Where an unknown name points at a recipe (``"walk"``: ``WalkKernel()``, the kernel
    the documentation calls the walk kernel), how to pass it; else the recipes."""
    from digraph_askls import kernels
    from digraph_askls.kernels._specs import GraphKernel

    recipes = [item for item in kernels.__all__ if item not in ("GraphKernel", "NamedKernel",
                                                                "SumKernel")
               and isinstance(getattr(kernels, item), type)
               and issubclass(getattr(kernels, item), GraphKernel)]
    key = str(name).lower().replace("_", "").replace("-", "").replace(" ", "")
    key = key.removesuffix("kernel")
    match = [item for item in recipes if item.lower().removesuffix("kernel") == key]
    if match:
        return (f". The {name!r} kernel of the documentation is the recipe {match[0]}() of "
                f"digraph_askls.kernels: pass kernel={match[0]}() (from digraph_askls.kernels "
                f"import {match[0]})")
    return (f", or pass a recipe of digraph_askls.kernels: "
            f"{', '.join(item + '()' for item in recipes)}")


def _in_degree_symmetrized(adjacency):
    return get_symmetrized_kernel(get_in_degree_kernel(adjacency))


register_graph_kernel("in_degree", get_in_degree_kernel)
register_graph_kernel("in_degree_sym", _in_degree_symmetrized)
register_graph_kernel("ppr", get_ppr_kernel)
register_graph_kernel("ppr_in", _ppr_in)
register_graph_kernel("ppr_out", _ppr_out)
register_graph_kernel("link_profile", get_link_profile_kernel)
register_graph_kernel("roles", get_role_kernel)
register_graph_kernel("attributes", get_attribute_kernel)   # needs features=
register_graph_kernel("embedding", get_embedding_kernel)    # embedding="hope", "app", ...
