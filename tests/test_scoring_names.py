"""A scorer of two classes (scikit-learn's average='binary') on labels of more classes is
refused with the averages to choose, not scikit-learn's own error."""

import numpy as np
import pytest

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm


def _graph(n_classes):
    adjacency, classes = make_directed_sbm(120, n_classes, 6, p_in=0.8, random_state=0)
    labels = np.where(np.random.default_rng(0).random(120) < 0.5, classes, -1)
    return adjacency, labels


@pytest.mark.parametrize("name", ["f1", "precision", "recall"])
def test_a_binary_scorer_on_several_classes_names_the_averages(name):
    adjacency, labels = _graph(3)
    with pytest.raises(ValueError) as error:
        NodeClassifier(scoring=name, kernel="in_degree", verbose=False).fit(adjacency,
                                                                            labels)
    message = str(error.value)
    assert (f"scoring={name!r} scores two classes (scikit-learn's average='binary'), got "
            f"labels of 3 classes; choose an average over the classes: '{name}_macro'") \
        in message, message
    assert f"'{name}_weighted'" in message and f"'{name}_micro'" in message
    assert "Target is multiclass" not in message


def test_a_binary_scorer_on_two_classes_still_scores():
    adjacency, labels = _graph(2)
    model = NodeClassifier(scoring="f1", kernel="in_degree", verbose=False).fit(adjacency,
                                                                               labels)
    assert model.selection_["scoring"] == "f1"
    assert 0.5 < model.selection_["score_estimate"] <= 1.0
