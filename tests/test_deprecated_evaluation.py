"""digraph_askls.evaluation: a deprecated alias of model_selection and metrics for one
release; the research harness's functions are not in the library any more."""

import importlib
import warnings

import pytest

import digraph_askls
import digraph_askls.evaluation as evaluation
from digraph_askls import metrics, model_selection, models

HARNESS = ["check_protocol", "has_twin", "linear_reference_features", "long_tail_splits",
           "twin_baseline"]


@pytest.mark.parametrize("name", evaluation.__all__)
def test_a_name_imported_from_evaluation_is_the_new_one_with_a_future_warning(name):
    new = model_selection if name in model_selection.__all__ else metrics
    assert name in new.__all__
    with pytest.warns(FutureWarning, match=rf"import {name} from {new.__name__} instead"):
        old = getattr(evaluation, name)
    assert old is getattr(new, name)


def test_from_evaluation_import_warns_at_the_caller():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from digraph_askls.evaluation import random_splits  # noqa: F401
    assert [warning.category for warning in caught] == [FutureWarning]
    assert caught[0].filename == __file__
    assert "digraph_askls.evaluation is deprecated" in str(caught[0].message)


def test_every_public_name_of_the_new_modules_is_reachable_from_the_alias():
    assert sorted(evaluation.__all__) == sorted(model_selection.__all__ + metrics.__all__)


@pytest.mark.parametrize("name", HARNESS)
def test_the_harness_functions_left_the_library_with_a_message_naming_their_place(name):
    with pytest.raises(ImportError, match=r"experiments/_protocols\.py"):
        exec(f"from digraph_askls.evaluation import {name}", {})
    for module in (model_selection, metrics, digraph_askls):
        assert not hasattr(module, name)
    assert callable(getattr(importlib.import_module("experiments._protocols"), name))


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        evaluation.no_such_name


def test_node_classifier_cv_is_unlisted_but_still_importable():
    assert "NodeClassifierCV" not in digraph_askls.__all__
    assert "NodeClassifierCV" not in models.__all__
    assert "NodeClassifierCV" not in dir(digraph_askls)
    from digraph_askls.models._node_cv import NodeClassifierCV

    assert digraph_askls.NodeClassifierCV is NodeClassifierCV
