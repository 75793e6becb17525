"""The helpers of ``benchmarks/calibration_variants.py`` that its level table rests on."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

_FOLDER = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(_FOLDER))        # the script imports its sibling bench_calibration
_SPEC = importlib.util.spec_from_file_location("calibration_variants",
                                               _FOLDER / "calibration_variants.py")
variants = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(variants)
sys.path.remove(str(_FOLDER))


def test_label_distance_counts_other_labelled_nodes_only():
    # A directed path 0 -> 1 -> 2 -> 3 -> 4 -> 5, links read both ways.
    path = sp.csr_matrix((np.ones(5), (np.arange(5), np.arange(1, 6))), shape=(6, 6))
    # Node 0 alone labelled: its own two-link walk 0 - 1 - 0 does not count.
    assert variants.label_distance(path, [0]).tolist() == [0, 2, 1, 0, 0, 0]
    # Nodes 0 and 2: each is two links from the other.
    assert variants.label_distance(path, [0, 2]).tolist() == [1, 2, 1, 2, 1, 0]
    # A self-loop is not a labelled neighbour.
    looped = path + sp.eye(6)
    assert variants.label_distance(looped, [3]).tolist() == [0, 1, 2, 0, 2, 1]


def test_gain_in_standard_errors_is_zero_without_a_move():
    right = np.array([[0.5, 0.6, 0.7], [0.6, 0.7, 0.8]])

    class Calibrator:
        shrinkage_ = 0.0

    assert variants.gain_z(Calibrator(), right) == 0.0
    Calibrator.shrinkage_ = 1.0
    gain = np.log(right[1] / right[0])
    expected = gain.mean() / (gain.std(ddof=1) / np.sqrt(3))
    assert variants.gain_z(Calibrator(), right) == pytest.approx(expected, rel=1e-12)
