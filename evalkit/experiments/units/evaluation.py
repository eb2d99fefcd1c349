"""Grouped cross-validation of the unit classifiers, word-weighted scores, and their intervals.

Folds are grouped by page (no page is split between training and test); every
score is weighted by each unit's number of words. The summary value is the
mean over folds; its interval a seeded percentile bootstrap of that mean,
pages resampled within each test fold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.model_selection import GroupKFold

from evalkit.experiments.units.classifiers import (
    DEFAULT_MIN_SAMPLES_LEAF,
    feature_columns,
    make_classifier,
)
from evalkit.harness.summary import summary_row

DEFAULT_FOLDS = 10
DEFAULT_N_BOOT = 1000
DEFAULT_ALPHA = 0.05
#: scores per (fold, classifier, task); "_weighted" = averaged over both classes by word support
SCORE_NAMES = (
    "precision",
    "recall",
    "f1",
    "accuracy",
    "precision_weighted",
    "recall_weighted",
    "f1_weighted",
)
_COUNTS = ["words_tp", "words_fp", "words_fn", "words_tn"]


# --------------------------------------------------------------------------- evaluation


def group_folds(groups: Sequence, n_folds: int = DEFAULT_FOLDS, seed: int = 0) -> np.ndarray:
    """Fold number per row; rows of one group (page) always share a fold."""
    groups = np.asarray(groups)
    n_groups = len(np.unique(groups))
    if n_groups < n_folds:
        raise ValueError(
            f"{n_folds}-fold cross-validation needs at least {n_folds} pages, got {n_groups}"
        )
    fold = np.empty(len(groups), dtype=int)
    splitter = GroupKFold(n_splits=n_folds, shuffle=True, random_state=seed)
    for k, (_, test) in enumerate(splitter.split(np.zeros(len(groups)), groups=groups)):
        fold[test] = k
    return fold


def word_scores(tp, fp, fn, tn) -> dict[str, np.ndarray]:
    """Scores from word-weighted confusion counts (scalars or arrays); 0/0 counts as 0.

    ``precision/recall/f1`` are those of the content class; ``*_weighted``
    average the content and noise classes' scores weighted by their true word
    counts; ``recall_weighted`` therefore equals ``accuracy``.
    """
    tp, fp, fn, tn = (np.asarray(v, dtype=float) for v in (tp, fp, fn, tn))

    def ratio(a, b):
        return np.divide(a, b, out=np.zeros(np.broadcast(a, b).shape), where=b > 0)

    def prf(t, f_pos, f_neg):
        p, r = ratio(t, t + f_pos), ratio(t, t + f_neg)
        return p, r, ratio(2 * p * r, p + r)

    p1, r1, f1 = prf(tp, fp, fn)
    p0, r0, f0 = prf(tn, fn, fp)
    n1, n0 = tp + fn, tn + fp
    total = n1 + n0
    return {
        "precision": p1,
        "recall": r1,
        "f1": f1,
        "accuracy": ratio(tp + tn, total),
        "precision_weighted": ratio(n1 * p1 + n0 * p0, total),
        "recall_weighted": ratio(n1 * r1 + n0 * r0, total),
        "f1_weighted": ratio(n1 * f1 + n0 * f0, total),
    }


def _counts(y, pred, w) -> np.ndarray:
    y, pred = np.asarray(y).astype(bool), np.asarray(pred).astype(bool)
    return np.array(
        [w[y & pred].sum(), w[~y & pred].sum(), w[y & ~pred].sum(), w[~y & ~pred].sum()]
    )


def cross_validate(
    rows: pd.DataFrame,
    classifiers: Mapping[str, Mapping[str, Any]],
    tasks: Sequence[str],
    n_folds: int = DEFAULT_FOLDS,
    seed: int = 0,
    min_samples_leaf: int = DEFAULT_MIN_SAMPLES_LEAF,
    criterion: str = "entropy",
    train_weight: str = "words",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Grouped k-fold CV of every classifier on every task.

    Returns ``(folds, pages)``: per (task, classifier, fold) the word-weighted
    confusion counts and scores, and per (task, classifier, page) the
    confusion counts of the out-of-fold predictions.
    """
    if train_weight not in ("words", "none"):
        raise ValueError(f"train_weight must be 'words' or 'none', got {train_weight!r}")
    fold = group_folds(rows["page_id"].to_numpy(), n_folds, seed)
    w = rows["weight"].to_numpy(float)
    fit_w = w if train_weight == "words" else None
    page_codes, page_ids = pd.factorize(rows["page_id"])
    page_fold = np.zeros(len(page_ids), dtype=int)
    page_fold[page_codes] = fold  # one fold per page (group_folds guarantees it)
    fold_recs, page_recs = [], []
    for task in tasks:
        y = rows[f"y_{task}"].to_numpy(int)
        for name, spec in classifiers.items():
            x = rows[feature_columns(spec)].to_numpy(float)
            pred = np.zeros(len(y), dtype=int)
            for k in range(n_folds):
                train, test = fold != k, fold == k
                est = make_classifier(spec, min_samples_leaf, criterion, seed)
                est.fit(x[train], y[train], sample_weight=None if fit_w is None else fit_w[train])
                pred[test] = est.predict(x[test])
                c = _counts(y[test], pred[test], w[test])
                scores = {s: float(v) for s, v in word_scores(*c).items()}
                fold_recs.append(
                    {
                        "task": task,
                        "method": name,
                        "fold": k,
                        "n_units": int(test.sum()),
                        **dict(zip(_COUNTS, c)),
                        **scores,
                    }
                )
            hit, miss = pred.astype(bool), ~pred.astype(bool)
            yes, no = y.astype(bool), ~y.astype(bool)
            per = np.stack(
                [
                    np.bincount(page_codes, weights=w * (a & b), minlength=len(page_ids))
                    for a, b in ((yes, hit), (no, hit), (yes, miss), (no, miss))
                ],
                axis=1,
            )
            for pid, k, c in zip(page_ids, page_fold, per):
                page_recs.append(
                    {
                        "task": task,
                        "method": name,
                        "page_id": pid,
                        "fold": int(k),
                        **dict(zip(_COUNTS, c)),
                    }
                )
    return pd.DataFrame(fold_recs), pd.DataFrame(page_recs)


def summarize(
    folds: pd.DataFrame,
    pages: pd.DataFrame,
    dataset: str,
    n_boot: int = DEFAULT_N_BOOT,
    alpha: float = DEFAULT_ALPHA,
    seed: int = 0,
) -> pd.DataFrame:
    """Long summary rows, metric ``<score>_<task>``: the mean of the fold scores and its
    percentile interval.

    Each bootstrap replicate resamples the pages of every test fold (with
    replacement, within the fold), scores each fold from its resampled word
    counts and averages the folds, so the interval belongs to the reported mean.
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    rows = []
    for (task, method), fdf in folds.groupby(["task", "method"], sort=False):
        sub = pages[(pages["task"] == task) & (pages["method"] == method)]
        rng = np.random.default_rng(seed)
        per_fold = []
        for _, fp in sub.groupby("fold", sort=True):
            counts = fp[_COUNTS].to_numpy(float)
            boot = counts[rng.integers(0, len(counts), size=(n_boot, len(counts)))].sum(axis=1)
            per_fold.append(word_scores(*boot.T))
        for s in SCORE_NAMES:
            stat = np.mean([b[s] for b in per_fold], axis=0)
            lo, hi = np.quantile(stat, [alpha / 2, 1 - alpha / 2])
            rows.append(
                summary_row(dataset, method, f"{s}_{task}", fdf[s].mean(), lo, hi, len(sub))
            )
    return pd.DataFrame(rows)
