"""scikit-learn MLPClassifier with verbose=True (its printed 'Iteration n, loss = ...' lines)."""

import warnings

from sklearn.neural_network import MLPClassifier

import common


def run(spec, out):
    c = spec["cfg"]
    warnings.simplefilter("default")
    x, y = common.tabular(c.get("n", 3000), seed=spec["seed"], noise=c.get("noise", 0.05))
    if c.get("raw_units"):
        x = x * c["raw_units"]
    xtr, ytr, xte, yte = x[:2400], y[:2400], x[2400:], y[2400:]
    clf = MLPClassifier(hidden_layer_sizes=(64, 64), verbose=True, random_state=spec["seed"], **c["kw"])
    clf.fit(xtr, ytr)
    print(f"train accuracy: {clf.score(xtr, ytr):.4f}")
    print(f"test accuracy: {clf.score(xte, yte):.4f}")
