"""The BlogCatalog page: one draw's noise, top-k predictions and the published figures."""

import importlib.util
from pathlib import Path

import numpy as np

from digraph_askls.metrics import top_k_f1

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "blogcatalog_table.py"
_SPEC = importlib.util.spec_from_file_location("blogcatalog_table", _PATH)
table = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(table)


def _cells(micro):
    """One draw per fraction: the default's and DeepWalk's micro-F1 as given."""
    cells = {}
    for fraction, (mine, theirs) in micro.items():
        for method, value, macro in ((table.METHODS[0], mine, 0.2), (table.METHODS[1], theirs,
                                                                     0.3)):
            cells[method, fraction, 1, 0] = {
                "method": method, "fraction": fraction, "seed": 1, "draw": 0,
                "micro_f1": value, "macro_f1": macro, "seconds": 10.0, "config": {}}
    return cells


def test_the_page_says_one_draw_top_k_only_and_which_differences_are_noise():
    cells = _cells({0.1: (0.30, 0.36), 0.5: (0.413, 0.408)})
    text = table.page(cells, 1, test_labels={0.1: 13000, 0.5: 7200})
    assert "**Top-k only:**" in text and "**One draw per fraction**" in text
    # 0.5: sqrt(0.413 * 0.587 / 7200) = 0.0058, so +0.005 is within two errors
    assert "within two such errors of each other at 50% (+0.005); apart at 10% (-0.060)" \
        in text
    assert "In macro-F1 DeepWalk is ahead at 2 of the 2 fractions." in text
    assert "DeepWalk's macro-F1 as its own authors report it" in text
    assert "binomial standard error" not in table.page(cells, 1)   # no label counts given


def test_the_digested_predictions_are_those_top_k_f1_scores():
    rng = np.random.default_rng(0)
    truth = (rng.random((50, 6)) < 0.3).astype(int)
    truth[truth.sum(axis=1) == 0, 0] = 1
    scores = rng.random((50, 6))
    predicted = table.top_k(truth, scores)
    assert np.array_equal(predicted.sum(axis=1), truth.sum(axis=1))
    micro = (predicted & truth).sum() / truth.sum()
    assert np.isclose(micro, top_k_f1(truth, scores)[0])
