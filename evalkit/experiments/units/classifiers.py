"""The classifiers of San & Aye's Table 1: ZeroR, a one-cut 1R rule and entropy trees.

C4.8 (Weka J48) is replaced by scikit-learn's CART tree with the entropy
criterion and a minimum leaf size (see the departures in
:mod:`evalkit.experiments.units`); a spec ``{model, features, context}``
names the model and the unit features it sees.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.dummy import DummyClassifier
from sklearn.tree import DecisionTreeClassifier

from evalkit.experiments.units.features import BASE_FEATURES

#: minimum units per tree leaf ("leaves matching at least 1000 instances")
DEFAULT_MIN_SAMPLES_LEAF = 1000
#: the rows of San & Aye Table 1 (plus a local-features tree showing what context adds)
DEFAULT_CLASSIFIERS = {
    "zero_r": {"model": "zero_r"},
    "only_avg_word_length": {"model": "tree", "features": ["avg_word_length"]},
    "only_link_density": {"model": "tree", "features": ["link_density"]},
    "one_r_text_density": {"model": "one_r", "features": ["text_density"]},
    "tree_link_density": {"model": "tree", "features": ["link_density"], "context": True},
    "tree_n_words": {"model": "tree", "features": ["n_words"], "context": True},
    "tree_n_words_link_density": {
        "model": "tree",
        "features": ["n_words", "link_density"],
        "context": True,
    },
    "tree_text_density_link_density": {
        "model": "tree",
        "features": ["text_density", "link_density"],
        "context": True,
    },
    "tree_local_all": {"model": "tree", "features": list(BASE_FEATURES)},
    "tree_all": {"model": "tree", "features": list(BASE_FEATURES), "context": True},
}


# --------------------------------------------------------------------------- classifiers


class OneR(ClassifierMixin, BaseEstimator):
    """Holte's 1R reduced to one cut: the (feature, threshold) with the least weighted error.

    Every cut between two adjacent distinct values of every column is tried;
    each side predicts its weighted majority class. With no cut better than
    predicting the overall majority, both sides predict it. Ties keep the
    first column and the lowest threshold.
    """

    def fit(self, X, y, sample_weight=None):
        X = np.asarray(X, dtype=float)
        if X.ndim == 1:
            X = X[:, None]
        y = np.asarray(y)
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        self.classes_, codes = np.unique(y, return_inverse=True)
        onehot = np.zeros((len(y), len(self.classes_)))
        onehot[np.arange(len(y)), codes] = w
        total = onehot.sum(axis=0)
        best = (total.max(), 0, np.inf, int(total.argmax()), int(total.argmax()))
        for j in range(X.shape[1]):
            order = np.argsort(X[:, j], kind="stable")
            xs = X[order, j]
            left = np.cumsum(onehot[order], axis=0)[:-1]  # class weights of x <= xs[i]
            cut = np.flatnonzero(xs[1:] > xs[:-1])  # cuts only between distinct values
            if cut.size == 0:
                continue
            lw, rw = left[cut], total - left[cut]
            correct = lw.max(axis=1) + rw.max(axis=1)
            k = int(np.argmax(correct))
            if correct[k] > best[0]:
                i = cut[k]
                best = (
                    correct[k],
                    j,
                    (xs[i] + xs[i + 1]) / 2,
                    int(lw[k].argmax()),
                    int(rw[k].argmax()),
                )
        _, self.feature_, self.threshold_, left_class, right_class = best
        self.left_class_, self.right_class_ = self.classes_[left_class], self.classes_[right_class]
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        if X.ndim == 1:
            X = X[:, None]
        return np.where(X[:, self.feature_] <= self.threshold_, self.left_class_, self.right_class_)


def feature_columns(spec: Mapping[str, Any]) -> list[str]:
    """Columns a classifier spec uses: its features, plus prev_/next_ copies with ``context``."""
    feats = list(spec.get("features") or BASE_FEATURES)
    unknown = sorted(set(feats) - set(BASE_FEATURES))
    if unknown:
        raise ValueError(f"unknown unit features {unknown}; known: {list(BASE_FEATURES)}")
    if spec.get("context", False):
        return [f"{p}{f}" for f in feats for p in ("prev_", "", "next_")]
    return feats


def make_classifier(
    spec: Mapping[str, Any],
    min_samples_leaf: int = DEFAULT_MIN_SAMPLES_LEAF,
    criterion: str = "entropy",
    seed: int = 0,
):
    """A fresh estimator for a spec ``{model: zero_r|one_r|tree, features, context}``."""
    model = spec.get("model", "tree")
    if model == "zero_r":
        return DummyClassifier(strategy="most_frequent")
    if model == "one_r":
        return OneR()
    if model == "tree":
        return DecisionTreeClassifier(
            criterion=criterion,
            min_samples_leaf=int(spec.get("min_samples_leaf", min_samples_leaf)),
            random_state=seed,
        )
    raise ValueError(f"unknown unit classifier model {model!r}; known: zero_r, one_r, tree")
