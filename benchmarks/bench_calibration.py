"""Expected calibration error of ``NodeClassifier.predict_proba`` on the test nodes,
uncalibrated (the merge's probabilities) and calibrated (``calibrator_``), and their
reliability diagrams.

Every shipped single-label graph. Cora, CiteSeer, PubMed and polblogs with 20 labelled
nodes per class (``class_splits(labels, 20, 10, seed)``, 10 draws; seed 0, the
development draws, unless ``--seed`` says otherwise: the sealed seed is run once, for
the published figures); the others on their 10 fixed splits (Texas, Wisconsin,
Chameleon, Squirrel, Film and the filtered Chameleon and Squirrel: 37 to 1,520 test
nodes a split), the errors also pooled over the splits or draws.
``NodeClassifier(random_state=0)``; ``N_BINS`` = 15 equal-width bins of the top class's
confidence (the binning of Guo et al., ICML 2017). Run on one thread from the repository
root::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. \\
        python benchmarks/bench_calibration.py --data-home ../shared/datasets \\
        --out docs/results

writes ``calibration.json`` (per graph: the error of every draw, pooled, the accuracy
and mean confidence, and the expected errors of two estimators below, with the commit
that ran) , ``calibration.md`` (the table) and ``calibration.png`` (the reliability
diagrams, pooled; bins of fewer than 10 test nodes left out of the lines).

Beside the measured errors, two expected errors of given estimators, by simulation
(``N_SIMULATED`` outcomes a draw, seeded), from the draw's calibrated confidences; they
are expectations of what these estimators would measure, not bounds on what any
calibration could reach: ``if_calibrated``, the expected error if every test node were
right with exactly its confidence (what ``N_BINS`` bins of that many test nodes measure of a
perfectly calibrated model); ``mean_shift``, the expected error of one estimator of the
level seen through ``m`` labelled nodes (the draw's): each simulation draws ``m`` of the
confidences, right each with its probability, and shifts every confidence by the mean
of their residuals (right minus confidence). Another estimator of the level (a shift
shrunk towards zero, say) has another expected error, lower or higher.
"""

import argparse
import json
import textwrap
import warnings
from pathlib import Path

import numpy as np

from digraph_askls import NodeClassifier
from digraph_askls.datasets import load_dataset
from digraph_askls.metrics import expected_calibration_error
from digraph_askls.model_selection import class_splits, fixed_splits

#: Every shipped single-label graph (BlogCatalog's labels are several per node: one
#: probability per label, not one distribution, see the targets guide).
GRAPHS = ("cora", "citeseer", "pubmed", "polblogs", "texas", "wisconsin", "chameleon",
          "squirrel", "film", "chameleon-filtered", "squirrel-filtered")
#: Graphs without fixed splits: 20 labelled nodes per class, drawn.
RANDOM_DRAWS = ("cora", "citeseer", "pubmed", "polblogs")
N_RANDOM_DRAWS = 10
#: Simulated outcomes per draw for the expected errors.
N_SIMULATED = 200
#: Equal-width bins of the top class's confidence in every error (Guo et al., 2017).
N_BINS = 15
#: Fewest pooled test nodes of a bin drawn in the reliability diagram.
MIN_BIN = 10


def draws(name, data_home, seed=0):
    """(graph, train, test) of each draw of ``name``."""
    graph = load_dataset(name, data_home=data_home, download=False)
    splits = (class_splits(graph.labels, 20, N_RANDOM_DRAWS, seed) if name in RANDOM_DRAWS
              else fixed_splits(graph))
    for _, train, test in splits:
        yield graph, train, test


def probabilities(graph, train, test):
    """Uncalibrated and calibrated probabilities of the test nodes, columns = classes."""
    known = np.full(graph.n_nodes, -1)
    known[train] = graph.labels[train]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = NodeClassifier(random_state=0).fit(graph.adjacency, known,
                                                 features=graph.features)
    found = {}
    for name, calibrator in (("calibrated", clf.calibrator_), ("uncalibrated", None)):
        clf.calibrator_ = calibrator
        proba = np.zeros((test.size, int(graph.labels.max()) + 1))
        proba[:, clf.classes_] = clf.predict_proba()[test]
        found[name] = proba
    return found


def expected_errors(proba, n_labelled, rng):
    """Expected error (``N_BINS`` bins) of ``proba``'s confidences if they were exactly right
    (``if_calibrated``), and of the mean-shift estimator of their level from
    ``n_labelled`` labels (``mean_shift``): see the module's docstring."""
    confidence = proba.max(axis=1)
    found = {"if_calibrated": [], "mean_shift": []}
    for _ in range(N_SIMULATED):
        right = rng.random(confidence.size) < confidence
        found["if_calibrated"].append(_confidence_error(confidence, right))
        seen = rng.choice(confidence, n_labelled)
        shift = np.mean(rng.random(n_labelled) < seen) - seen.mean()
        right = rng.random(confidence.size) < np.clip(confidence - shift, 0, 1)
        found["mean_shift"].append(_confidence_error(confidence, right))
    return {kind: float(np.mean(errors)) for kind, errors in found.items()}


def _confidence_error(confidence, right):
    """:func:`expected_calibration_error` from the confidences and whether each is right."""
    return float(sum(count * abs(accuracy - mean) for mean, accuracy, count
                     in _bin_rows(confidence, right)) / confidence.size)


def _bin_rows(confidence, right, n_bins=N_BINS):
    """Per non-empty bin of confidence: (mean confidence, accuracy, count)."""
    bins = np.searchsorted(np.arange(1, n_bins) / n_bins, confidence, side="left")
    rows = []
    for b in range(n_bins):
        mask = bins == b
        if mask.any():
            rows.append((float(confidence[mask].mean()), float(right[mask].mean()),
                         int(mask.sum())))
    return rows


def reliability(y, proba):
    """Per bin of confidence: (mean confidence, accuracy, count)."""
    return _bin_rows(proba.max(axis=1), proba.argmax(axis=1) == y)


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = min(3, len(results))
    n_rows = -(-len(results) // columns)
    fig, axes = plt.subplots(n_rows, columns, figsize=(3.0 * columns, 2.9 * n_rows),
                             sharey=True, squeeze=False)
    for ax in axes.ravel()[len(results):]:
        ax.set_visible(False)
    for ax, (name, result) in zip(axes.ravel(), results.items()):
        ax.plot([0, 1], [0, 1], color="0.7", lw=1)
        for kind, style in (("uncalibrated", "s--"), ("calibrated", "o-")):
            # bins of fewer than MIN_BIN test nodes are left out of the lines: their
            # accuracy is a coin's
            rows = [row for row in result[kind]["reliability"] if row[2] >= MIN_BIN]
            ax.plot([r[0] for r in rows], [r[1] for r in rows], style, ms=3.5, lw=1.2,
                    label=f"{kind} ({result[kind]['ece_pooled']:.3f})")
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("confidence", fontsize=8)
        ax.legend(fontsize=6.5, loc="upper left", title="ECE pooled", title_fontsize=6.5)
        ax.tick_params(labelsize=7)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
    for ax in axes[:, 0]:
        ax.set_ylabel("accuracy", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=130)


def commit():
    """The commit of the working tree, ``+`` appended when it has changes."""
    import subprocess

    def git(*args):
        return subprocess.run(["git", *args], capture_output=True, text=True,
                              cwd=Path(__file__).parent).stdout.strip()

    head = git("rev-parse", "--short", "HEAD")
    return head + ("+" if git("status", "--porcelain", "--untracked-files=no") else "")


def table(results, seed, revision):
    """The Markdown page of ``results``: per graph, the mean over the draws (or splits)
    and the pooled error, uncalibrated beside calibrated, then every draw."""
    draws_named = "development draws, seed 0" if seed == 0 else f"draws of seed {seed}"
    about = textwrap.fill(
        f"Written by `benchmarks/bench_calibration.py` at commit `{revision}`. Expected "
        f"calibration error ({N_BINS} equal-width bins of the top class's confidence) "
        "of the test nodes: the merge's probabilities "
        "(uncalibrated) and `predict_proba` (calibrated), the same fits. *Per draw*: the "
        "mean over the draws or splits; *pooled*: the test nodes of every draw together. "
        "The last two columns are expected errors of two given estimators, by simulation "
        "from the calibrated confidences (the script's docstring): a perfectly calibrated "
        "model on these test nodes, and the level learnt as the mean residual of as many "
        "labelled nodes; neither bounds what a calibration can reach.", 100)
    lines = [f"# Calibration of `predict_proba` ({draws_named})", "", about,
             "",
             "| graph | per draw, uncalibrated | per draw, calibrated | pooled, "
             "uncalibrated | pooled, calibrated | accuracy / confidence, calibrated | "
             "expected: calibrated model | expected: mean shift |",
             "|---|---|---|---|---|---|---|---|"]
    for name, result in results.items():
        raw, cal = result["uncalibrated"], result["calibrated"]
        lines.append(f"| {name} | {raw['ece_mean']:.4f} | {cal['ece_mean']:.4f} | "
                     f"{raw['ece_pooled']:.4f} | {cal['ece_pooled']:.4f} | "
                     f"{cal['accuracy']:.3f} / {cal['confidence']:.3f} | "
                     f"{cal['expected_if_calibrated']:.4f} | "
                     f"{cal['expected_mean_shift']:.4f} |")
    lines += ["", "Every draw (uncalibrated -> calibrated):", ""]
    for name, result in results.items():
        pairs = zip(result["uncalibrated"]["ece_draws"],
                    result["calibrated"]["ece_draws"])
        lines.append(f"- {name}: " + ", ".join(f"{a:.3f} -> {b:.3f}"
                                              for a, b in pairs))
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-home", default="../shared/datasets")
    parser.add_argument("--graphs", nargs="+", default=list(GRAPHS))
    parser.add_argument("--out", default=None,
                        help="folder for calibration.json, .md and .png")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the drawn splits (0: development); "
                             "another writes calibration-<seed>.json, .md and .png")
    args = parser.parse_args(argv)
    revision = commit()
    results = {}
    for name in args.graphs:
        per_draw, pooled, truth, expected = {}, {}, [], {}
        rng = np.random.default_rng(0)
        for graph, train, test in draws(name, args.data_home, args.seed):
            truth.append(graph.labels[test])
            for kind, proba in probabilities(graph, train, test).items():
                per_draw.setdefault(kind, []).append(
                    expected_calibration_error(graph.labels[test], proba, N_BINS))
                pooled.setdefault(kind, []).append(proba)
            for kind, error in expected_errors(pooled["calibrated"][-1], train.size,
                                               rng).items():
                expected.setdefault(kind, []).append(error)
        y = np.concatenate(truth)
        results[name] = {}
        for kind in ("uncalibrated", "calibrated"):
            proba = np.vstack(pooled[kind])
            result = {"ece_draws": per_draw[kind],
                      "ece_mean": float(np.mean(per_draw[kind])),
                      "ece_pooled": expected_calibration_error(y, proba, N_BINS),
                      "accuracy": float(np.mean(proba.argmax(axis=1) == y)),
                      "confidence": float(proba.max(axis=1).mean()),
                      "reliability": reliability(y, proba)}
            if kind == "calibrated":
                for estimator, errors in expected.items():
                    result[f"expected_{estimator}_draws"] = errors
                    result[f"expected_{estimator}"] = float(np.mean(errors))
            results[name][kind] = result
            print(f"{name} {kind}: ECE mean over draws {result['ece_mean']:.4f}, pooled "
                  f"{result['ece_pooled']:.4f}; accuracy {result['accuracy']:.4f}, mean "
                  f"confidence {result['confidence']:.4f}" + (
                      f"; expected errors: calibrated model "
                      f"{result['expected_if_calibrated']:.4f}, mean shift "
                      f"{result['expected_mean_shift']:.4f}"
                      if "expected_if_calibrated" in result else ""), flush=True)
    if args.out:
        out = Path(args.out)
        stem = "calibration" if args.seed == 0 else f"calibration-{args.seed}"
        (out / f"{stem}.json").write_text(json.dumps(
            {"commit": revision, "seed": args.seed, "graphs": results}, indent=1))
        (out / f"{stem}.md").write_text(table(results, args.seed, revision))
        plot(results, out / f"{stem}.png")


if __name__ == "__main__":
    main()
