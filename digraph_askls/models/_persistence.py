"""What a fitted NodeClassifier saves with pickle or joblib, and what it leaves out.

A fit that kept every node's view scores from its solve (the walk kernel on many
labelled nodes, :mod:`~digraph_askls.models._train_scores`) predicts the fitted nodes
from those scores alone: the kernel on all nodes (the graph's walk, in and out links)
is not needed again, and it is the largest part of the model. It is left out of the
saved state (``kernel_`` is None after loading); the predictions of the fitted nodes
are unchanged, and a grown graph builds its kernel from the selected recipe anyway
(:mod:`~digraph_askls.models._new_nodes`). Any other kernel is saved: it is what
predicts the fitted nodes.
"""

__all__ = ["lean_state"]


def lean_state(state):
    """The pickled state of a NodeClassifier: ``state`` without the kernel that the
    kept node scores make redundant.

    Examples
    --------
    >>> from digraph_askls.models._persistence import lean_state
    >>> lean_state({"kernel_": "walk", "_node_scores": "scores"})["kernel_"] is None
    True
    >>> lean_state({"kernel_": "maps", "_node_scores": None})["kernel_"]
    'maps'
    """
    if state.get("_node_scores") is not None and state.get("kernel_") is not None:
        state = dict(state, kernel_=None)
    return state
