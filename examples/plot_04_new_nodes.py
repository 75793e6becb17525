"""
Nodes that join after the fit
=============================

A fitted :class:`~digraph_askls.NodeClassifier` classifies nodes added to the graph
later without refitting: ``predict(nodes, graph=grown)`` builds the chosen kernel on the
grown graph and reads the new nodes' rows against the training nodes. Here a tenth of
the nodes are left out of the fit, added back, and classified as new nodes, beside the
same nodes classified by a fit that saw them (unlabelled) from the start.
"""

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm

adjacency, classes = make_directed_sbm(400, 4, 6.0, p_in=0.5, random_state=1)
grown = nx.from_scipy_sparse_array(adjacency, create_using=nx.DiGraph)
truth = dict(enumerate(classes.tolist()))
rng = np.random.default_rng(1)
order = rng.permutation(400)
new, labelled, rest = order[:40], order[40:200], order[200:]

# The graph at fit time: the 40 new nodes are not there yet.
before = grown.subgraph(set(grown) - set(new.tolist())).copy()
labels = {int(node): truth[int(node)] for node in labelled}
clf = NodeClassifier(random_state=0).fit(before, labels)

late = clf.predict(new.tolist(), graph=grown)
print("new nodes, classified after the fit:", np.mean(late == classes[new]).round(3))

# %%
# The same nodes, present (unlabelled) when the model was fitted:

seen = NodeClassifier(random_state=0).fit(grown, labels).predict(new.tolist())
print("same nodes, present at fit time:    ", np.mean(seen == classes[new]).round(3))
print("predictions that agree:", int(np.sum(late == seen)), "of", len(new))

fig, ax = plt.subplots(figsize=(5, 3.2))
ax.bar(["added after the fit", "present at fit time"],
       [np.mean(late == classes[new]), np.mean(seen == classes[new])],
       color=["tab:orange", "tab:blue"])
ax.set_ylim(0, 1)
ax.set_ylabel("accuracy on the 40 nodes")
fig.tight_layout()
plt.show()
