"""The figures the paper prints, kept apart from the experiments that rerun them.

A module of plain data, so that the command line can set the paper's figure beside a
``run --preset paper`` without importing the research harness
(`experiments/` beside the package).
"""

__all__ = ["PAPER_TABLE3"]

#: (micro-F1, macro-F1) means printed in the paper's Table 3.
PAPER_TABLE3 = {
    "cora": {"NERD + SVM": (0.740, 0.730), "NERD + LS-SVM": (0.733, 0.724),
             "Sym. SVM": (0.305, 0.077), "Sym. LS-SVM": (0.713, 0.708), "AsK-LS": (0.753, 0.748)},
    "citeseer": {"NERD + SVM": (0.497, 0.454), "NERD + LS-SVM": (0.507, 0.452),
                 "Sym. SVM": (0.393, 0.301), "Sym. LS-SVM": (0.596, 0.560),
                 "AsK-LS": (0.605, 0.579)},
    "pubmed": {"NERD + SVM": (0.732, 0.680), "NERD + LS-SVM": (0.726, 0.669),
               "Sym. SVM": (0.602, 0.451), "Sym. LS-SVM": (0.635, 0.503),
               "AsK-LS": (0.719, 0.698)},
    "amazon-photo": {"NERD + SVM": (0.858, 0.834), "NERD + LS-SVM": (0.834, 0.767),
                     "Sym. SVM": (0.319, 0.155), "Sym. LS-SVM": (0.799, 0.732),
                     "AsK-LS": (0.885, 0.874)},
    "amazon-computers": {"NERD + SVM": (0.606, 0.429), "NERD + LS-SVM": (0.609, 0.454),
                         "Sym. SVM": (0.400, 0.107), "Sym. LS-SVM": (0.619, 0.443),
                         "AsK-LS": (0.868, 0.846)},
}
