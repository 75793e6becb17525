"""
Choosing a kernel, and reading ``cv_results_``
==============================================

``NodeClassifier()`` chooses a kernel family, its gamma and the way the two views are
merged by cross-validation on the labelled nodes. ``selection_`` says what it chose and
``cv_results_`` lists every candidate with its held-out accuracy: here they are drawn as
a chart, then one family is fitted alone at a grid of gammas.
"""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm
from digraph_askls.model_selection import kernel_family
from digraph_askls.kernels import WalkKernel

adjacency, classes = make_directed_sbm(400, 4, 5.0, p_in=0.3, random_state=0)
rng = np.random.default_rng(0)
# Noisy node attributes: the class, one-hot, drowned in noise.
features = np.eye(4)[classes] + rng.normal(scale=1.5, size=(400, 4))
labels = classes.copy()
test = rng.random(400) < 0.6
labels[test] = -1

clf = NodeClassifier(random_state=0).fit(adjacency, labels, features=features)
print({key: clf.selection_[key] for key in ("kernel", "gamma", "merge")})
print("test accuracy:", round(float(np.mean(clf.predict()[test] == classes[test])), 3))

# %%
# ``cv_results_`` is a dict of lists, one entry per (kernel, gamma) tried: a DataFrame
# gives the best gamma of each family.

results = pd.DataFrame(clf.cv_results_)
results["family"] = [kernel_family(kernel) for kernel in results["kernel"]]
best = results.groupby("family")["mean_test_score"].max().sort_values()
print(best.round(3).to_string())

fig, ax = plt.subplots(figsize=(7, 3.5))
ax.barh([name[:45] for name in best.index], best.to_numpy(), color="tab:blue")
ax.set_xlabel("held-out accuracy (best gamma of each family)")
ax.set_xlim(0, 1)
ax.set_title("The candidates of the selection")
fig.tight_layout()

# %%
# One family alone, at a grid of gammas: with one kernel the selection only chooses
# gamma and the merge.

walk = NodeClassifier(kernel=WalkKernel(), gamma=[1e-4, 1e-3, 1e-2, 1e-1, 1.0],
                      random_state=0).fit(adjacency, labels)
grid = pd.DataFrame(walk.cv_results_)
columns = ["gamma", "merge", "mean_test_score"]
print(grid[columns].to_string(index=False, float_format="{:.3g}".format))

fig, ax = plt.subplots(figsize=(5, 3.2))
ax.semilogx(grid["gamma"], grid["mean_test_score"], "o-")
ax.set_xlabel("gamma")
ax.set_ylabel("held-out accuracy")
ax.set_title("WalkKernel() at five gammas")
fig.tight_layout()
plt.show()
