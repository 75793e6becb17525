"""
Quick start: classify the nodes of a small directed graph
=========================================================

Fit :class:`~digraph_askls.NodeClassifier` on a directed graph of 80 nodes of which
30 are labelled, predict the others and draw the graph coloured by the predictions.
The graph is the library's directed stochastic block model: each class links mostly
inside itself and otherwise to the *next* class only, so the links flow one way.
"""

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np

from digraph_askls import NodeClassifier
from digraph_askls.datasets import make_directed_sbm

adjacency, classes = make_directed_sbm(80, 3, 8.0, p_in=0.6, random_state=0)
rng = np.random.default_rng(0)
labels = np.full(80, -1)                     # -1 marks a node to predict
known = rng.choice(80, size=30, replace=False)
labels[known] = classes[known]

clf = NodeClassifier(random_state=0).fit(adjacency, labels)
predicted = clf.predict()                    # every node, in node order
unknown = labels == -1
print("kernel chosen:", clf.selection_["kernel"])
print("its estimate of its accuracy:", round(clf.selection_["accuracy"], 3))
print("accuracy on the 50 unlabelled nodes:",
      round(float(np.mean(predicted[unknown] == classes[unknown])), 3))

# %%
# Draw the graph: colour is the predicted class, a black ring marks a labelled node,
# a cross a node predicted wrongly.

graph = nx.from_scipy_sparse_array(adjacency, create_using=nx.DiGraph)
position = nx.spring_layout(graph, seed=1)
colours = np.array(["tab:blue", "tab:orange", "tab:green"])
fig, ax = plt.subplots(figsize=(6.5, 5))
nx.draw_networkx_edges(graph, position, ax=ax, alpha=0.25, arrowsize=6, width=0.6)
nx.draw_networkx_nodes(graph, position, ax=ax, node_size=90,
                       node_color=colours[predicted],
                       edgecolors=np.where(unknown, "white", "black"), linewidths=1.5)
wrong = np.flatnonzero(predicted != classes)
ax.scatter([position[n][0] for n in wrong], [position[n][1] for n in wrong],
           marker="x", color="black", s=60, zorder=3, label="predicted wrongly")
ax.set_title("Predicted classes (black ring: labelled node)")
ax.legend(loc="lower right")
ax.set_axis_off()
plt.show()
