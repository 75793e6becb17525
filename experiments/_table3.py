"""The paper's Table 3: AsK-LS against embedding and symmetrised-kernel baselines.

Every method runs on the same random 60/40 splits of the labelled nodes:

* SVM and LS-SVM on NERD embeddings ``[phi_s; phi_t]`` (a linear SVM and an LS-SVM with
  the linear kernel), one-vs-rest;
* SVM (scikit-learn ``SVC(kernel="precomputed")``, one-vs-rest) and LS-SVM with the
  symmetrised kernel ``(P + P^T) / 2``, merged as the paper did (arg-max of one-vs-rest
  scores) and, for the LS-SVM, also with the same stacking calibration as AsK-LS;
* AsK-LS with the paper's protocol (``NodeClassifier(preset="paper")``).
"""

import logging
import time
import warnings

import numpy as np
from scipy.sparse.linalg import aslinearoperator
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC, LinearSVC
from tqdm.auto import tqdm

from digraph_askls._memory import check_dense_allocation
from digraph_askls._paper_figures import PAPER_TABLE3
from digraph_askls.datasets import load_dataset
from digraph_askls.kernels import get_in_degree_kernel, get_symmetrized_kernel, restrict_kernel
from digraph_askls.linalg import SingularSystemWarning
from digraph_askls.models import LSSVMClassifier, NodeClassifier
from digraph_askls.model_selection import TrialResults, random_splits

__all__ = ["PAPER_TABLE3", "TABLE3_METHODS", "run_table3", "format_table3", "plot_table3"]

logger = logging.getLogger(__name__)

TABLE3_METHODS = ("NERD + SVM", "NERD + LS-SVM", "Sym. SVM", "Sym. LS-SVM",
                  "Sym. LS-SVM + stacking", "AsK-LS")


def _timed(function):
    start = time.perf_counter()
    predicted = function()
    return predicted, time.perf_counter() - start


def _embedding_methods(embedding, labels, train, test, seed):
    """Linear SVM and linear-kernel LS-SVM on the node embeddings."""
    def svm():
        model = LinearSVC(C=1.0, max_iter=5000, random_state=seed)
        return model.fit(embedding[train], labels[train]).predict(embedding[test])

    def lssvm():
        train_features = aslinearoperator(embedding[train])
        kernel = train_features @ train_features.T    # Phi Phi^T, never formed
        model = LSSVMClassifier(gamma=1.0, solver="batched", tol=1e-6)
        model.fit(kernel, labels[train])
        return model.predict(aslinearoperator(embedding[test]) @ train_features.T)

    return {"NERD + SVM": _timed(svm), "NERD + LS-SVM": _timed(lssvm)}


def _symmetrised_methods(K_sym, labels, train, test, seed):
    """SVM and LS-SVM with the symmetrised kernel (P + P^T) / 2."""
    K_train = restrict_kernel(K_sym, train, train)
    K_test = restrict_kernel(K_sym, test, train)

    def svm():
        # scikit-learn's SVC takes a precomputed kernel as a dense array only.
        check_dense_allocation((K_train.shape[0] + K_test.shape[0], K_train.shape[1]),
                               what="the dense symmetrised kernel of the SVM baseline",
                               remedy="run the SVM baseline on a smaller graph")
        model = OneVsRestClassifier(SVC(kernel="precomputed", C=1.0))
        return model.fit(K_train.toarray(), labels[train]).predict(K_test.toarray())

    def lssvm(calibration):
        model = LSSVMClassifier(gamma=1.0, calibration=calibration, solver="batched",
                                tol=1e-8, random_state=seed)
        return model.fit(K_train, labels[train]).predict(K_test)

    return {"Sym. SVM": _timed(svm), "Sym. LS-SVM": _timed(lambda: lssvm(None)),
            "Sym. LS-SVM + stacking": _timed(lambda: lssvm("stack"))}


def run_table3(datasets=("cora", "citeseer", "pubmed"), n_trials=10, data_home=None,
               random_state=0, nerd_params=None, verbose=True):
    """Micro- and macro-F1 of every method of Table 3 on the same splits.

    Parameters
    ----------
    datasets : sequence of str
        Registered dataset names. Missing files give a row marked "data not available".
    n_trials : int
        Random 60/40 splits (seeds ``(random_state, trial)``).
    nerd_params : dict, optional
        Parameters of :class:`digraph_askls.embedding.NERD` (one embedding per dataset,
        learnt without labels, shared by the trials).

    Returns
    -------
    list of dict
        One row per dataset and method (``TrialResults.summary()`` with the paper's
        figures), or a row ``{"dataset": name, "status": "data not available: ..."}``.
    """
    from digraph_askls.embedding import NERD

    rows = []
    for name in datasets:
        try:
            graph = load_dataset(name, data_home=data_home, download=False)
        except (FileNotFoundError, OSError) as error:
            rows.append({"dataset": name, "status": f"data not available: {error}"})
            continue
        labels = graph.labels
        results = {method: TrialResults(method) for method in TABLE3_METHODS}
        start = time.perf_counter()
        nerd = NERD(random_state=random_state, verbose=verbose, **(nerd_params or {}))
        embedding = nerd.fit_transform(graph.adjacency)
        embedding_seconds = time.perf_counter() - start
        K_sym = get_symmetrized_kernel(get_in_degree_kernel(graph.adjacency))
        splits = random_splits(labels, 0.6, n_trials, random_state)
        for seed, train, test in tqdm(splits, desc=name, disable=not verbose):
            known = np.full(labels.size, -1)
            known[train] = labels[train]

            def asks():
                model = NodeClassifier(preset="paper", random_state=seed[1])
                return model.fit(graph.adjacency, known).predict(test)

            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SingularSystemWarning)
                timed = _embedding_methods(embedding, labels, train, test, seed[1])
                timed.update(_symmetrised_methods(K_sym, labels, train, test, seed[1]))
                timed["AsK-LS"] = _timed(asks)
            for method, (predicted, seconds) in timed.items():
                results[method].record(labels[test], predicted, seconds)
        for method in TABLE3_METHODS:
            summary = results[method].summary()
            paper = PAPER_TABLE3.get(name, {}).get(method.replace(" + stacking", ""))
            summary.update(dataset=name, status="ok", micro_f1=results[method].micro_f1,
                           macro_f1=results[method].macro_f1,
                           nerd_seconds=embedding_seconds if "NERD" in method else None,
                           paper_micro_f1=None if paper is None else paper[0],
                           paper_macro_f1=None if paper is None else paper[1],
                           seeds=[list(seed) for seed, _, _ in splits])
            rows.append(summary)
    return rows


def format_table3(rows):
    """A markdown table laid out like the paper's Table 3, the paper's numbers beside."""
    lines = ["| dataset | F1 | " + " | ".join(TABLE3_METHODS) + " |",
             "|---|---|" + "---|" * len(TABLE3_METHODS)]
    for name in dict.fromkeys(row["dataset"] for row in rows):
        group = [row for row in rows if row["dataset"] == name]
        if group[0].get("status", "ok") != "ok":
            lines.append(f"| {name} | | " + " | ".join(["data not available"]
                                                      * len(TABLE3_METHODS)) + " |")
            continue
        for score in ("micro", "macro"):
            cells = []
            for method in TABLE3_METHODS:
                row = next(r for r in group if r["method"] == method)
                paper = row[f"paper_{score}_f1"]
                cells.append(f"{row[f'{score}_f1_mean']:.3f} ± {row[f'{score}_f1_std']:.3f}"
                             + ("" if paper is None else f" ({paper:.3f})"))
            lines.append(f"| {name} | {score} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Ours: mean ± std over the random 60/40 splits; the paper's figure in "
                 "parentheses. 'Sym. LS-SVM + stacking' is compared with the paper's "
                 "'Sym. LS-SVM' column.")
    return "\n".join(lines)


def plot_table3(rows, path=None):
    """Bar chart of our micro-F1 (with std) beside the paper's, one panel per dataset.

    Parameters
    ----------
    rows : list of dict
        Output of :func:`run_table3`.
    path : str or os.PathLike, optional
        Where to save the figure (PNG); the figure is returned either way.

    Returns
    -------
    matplotlib.figure.Figure
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError('plotting needs matplotlib: pip install "digraph-askls[plot]"') \
            from error
    names = [name for name in dict.fromkeys(row["dataset"] for row in rows)
             if next(r for r in rows if r["dataset"] == name).get("status", "ok") == "ok"]
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.8), squeeze=False)
    positions = np.arange(len(TABLE3_METHODS))
    for ax, name in zip(axes[0], names):
        group = {row["method"]: row for row in rows if row["dataset"] == name}
        ours = [group[m]["micro_f1_mean"] for m in TABLE3_METHODS]
        spread = [group[m]["micro_f1_std"] for m in TABLE3_METHODS]
        paper = [np.nan if group[m]["paper_micro_f1"] is None else group[m]["paper_micro_f1"]
                 for m in TABLE3_METHODS]
        ax.bar(positions - 0.2, ours, 0.4, yerr=spread, label="ours")
        ax.bar(positions + 0.2, paper, 0.4, label="paper")
        ax.set_xticks(positions, TABLE3_METHODS, rotation=45, ha="right", fontsize=8)
        ax.set(title=name, ylim=(0, 1), ylabel="micro-F1")
    axes[0][0].legend(loc="lower left")
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig
