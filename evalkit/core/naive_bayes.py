"""Naive Bayes accuracy: a downstream check of extracted text (Kabir et al. 2015, §4.3-4.4).

A measure, not a method: it judges the text any extractor returns, as the metrics
do, and is not in the method registry. So it sits in core beside ``evalkit.metrics``
(it was ``baselines/naive_bayes.py``, which made the classification experiment
import a baseline's internals; docs/floors.md).

Kabir, Amin et al. (2015, docs/papers.md#kabir2015) judge a cleaning method by how well a
Naive Bayes text classifier, trained on the cleaned text of most pages,
predicts the category of the rest. Their protocol: 500 pages in 3 categories;
seven random train/test partitions with 10, 20, ..., 70 test pages (2 % to
14 %, Table 4.3.1); accuracy = correct / classified per case (Table 4.3.2);
and one "standard error" per method over the seven cases (Table 4.4.1).

evalkit's reading (docs/methods/naive_bayes.md):

* Multinomial Naive Bayes (scikit-learn, Laplace smoothing alpha = 1) on word
  counts from ``CountVectorizer(lowercase=True, stop_words="english")``; the
  paper cites Kibriya et al. (2004) for multinomial NB and gives no features.
* A case is a test fraction; its test size is the fraction of the pages,
  rounded half up, at least 1 and leaving at least 1 training page. Each case
  is drawn ``repeats`` times with seeds derived from ``seed``, case and
  repeat, so the spread of one case is visible; the paper draws once, and
  repeat 0 plays that role (``first`` in the summary).
* Splits are stratified by label where that is possible (every class has two
  pages and both sides can hold one page per class). Otherwise, e.g. 7 test
  pages for 36 topics, the split is a plain seeded shuffle and the row's
  ``note`` says why.
* When the training texts have no word at all (an extractor that returns
  nothing) the classifier cannot be fitted; the prior alone is used (the
  majority training label, ties to the smallest label) and ``note`` says so.

The "standard error" of Table 4.4.1 is computed by
``evalkit.metrics.kabir_standard_error`` (re-exported here): the paper's Eq. (3)
is missing from its text, and the one reading that reproduces its PAB figure,
0.1496, from Table 4.3.2 is the mean error rate over the seven cases
(1 - 0.850428 = 0.149572). Its ENIW figure, 0.20396, is not reproduced by
that (0.16814) nor by any usual formula on the published accuracies, and is
taken as an inconsistency of the paper. The conventional standard error of
the mean over cases is reported next to it (``standard_error``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import train_test_split
from sklearn.naive_bayes import MultinomialNB

from evalkit.metrics import kabir_standard_error, standard_error

__all__ = [
    "DEFAULT_REPEATS",
    "DEFAULT_SEED",
    "DEFAULT_TEST_FRACTIONS",
    "FRAME_COLUMNS",
    "SUMMARY_COLUMNS",
    "case_standard_errors",
    "kabir_standard_error",
    "n_test_pages",
    "naive_bayes_accuracy",
    "standard_error",
    "summarize_accuracy",
]

#: Table 4.3.1: 10..70 test pages of 500
DEFAULT_TEST_FRACTIONS = (0.02, 0.04, 0.06, 0.08, 0.10, 0.12, 0.14)
DEFAULT_REPEATS = 10
DEFAULT_SEED = 0

FRAME_COLUMNS = [
    "case",
    "test_fraction",
    "repeat",
    "n_train",
    "n_test",
    "n_correct",
    "accuracy",
    "stratified",
    "note",
]
SUMMARY_COLUMNS = [
    "case",
    "test_fraction",
    "n_test",
    "repeats",
    "mean",
    "std",
    "first",
    "stratified",
]


def n_test_pages(n_pages: int, fraction: float) -> int:
    """Test pages for a case: fraction of the pages rounded half up, within [1, n_pages - 1]."""
    return min(max(1, math.floor(fraction * n_pages + 0.5)), n_pages - 1)


def _split_seed(seed: int, case: int, repeat: int) -> int:
    # independent, reproducible stream per (seed, case, repeat)
    return int(np.random.SeedSequence([seed, case, repeat]).generate_state(1)[0])


def _stratify_problem(counts: Counter, n_train: int, n_test: int) -> str:
    """Why a stratified split is impossible, or '' when it is possible."""
    n_classes = len(counts)
    smallest = min(counts.values())
    if smallest < 2:
        return f"unstratified: a class has {smallest} page"
    if n_test < n_classes:
        return f"unstratified: {n_test} test pages < {n_classes} classes"
    if n_train < n_classes:
        return f"unstratified: {n_train} training pages < {n_classes} classes"
    return ""


def _majority(labels: list[str]) -> str:
    counts = Counter(labels)
    top = max(counts.values())
    return min(lbl for lbl, c in counts.items() if c == top)


def _classify(
    counts, labels: list[str], train_idx: np.ndarray, test_idx: np.ndarray
) -> tuple[list[str], str]:
    """Predicted labels for the test rows, and a note when the prior alone was used.

    ``counts`` holds every page's word counts over the vocabulary of all pages.
    Keeping only the columns seen in training rows gives exactly the matrix a
    vectorizer fitted on the training texts alone would give (same sorted
    vocabulary, test-only words dropped), without re-tokenising every draw.
    """
    train_labels = [labels[i] for i in train_idx]
    if counts is not None:
        x_train = counts[train_idx]
        seen = np.flatnonzero(np.asarray(x_train.sum(axis=0)).ravel())
        if seen.size:
            model = MultinomialNB().fit(x_train[:, seen], train_labels)
            return list(model.predict(counts[test_idx][:, seen])), ""
    # no word in any training text: the classifier cannot be fitted, use the prior
    return [_majority(train_labels)] * len(test_idx), "empty vocabulary: majority label"


def naive_bayes_accuracy(
    texts: list[str],
    labels: list[str],
    test_fractions: Sequence[float] = DEFAULT_TEST_FRACTIONS,
    repeats: int = DEFAULT_REPEATS,
    seed: int = DEFAULT_SEED,
) -> pd.DataFrame:
    """Accuracy of multinomial NB for every case (test fraction) and repeat.

    Returns one row per (case, repeat) with columns ``FRAME_COLUMNS``; ``case``
    counts from 1 as in Table 4.3.1, ``accuracy`` is a fraction in [0, 1].
    """
    if len(texts) != len(labels):
        raise ValueError(f"{len(texts)} texts but {len(labels)} labels")
    if len(texts) < 2:
        raise ValueError(f"need at least 2 pages, got {len(texts)}")
    if repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats!r}")
    for frac in test_fractions:
        if not 0.0 < frac < 1.0:
            raise ValueError(f"test fractions must be in (0, 1), got {frac!r}")
    texts = [t or "" for t in texts]
    labels = [str(lbl) for lbl in labels]
    class_sizes = Counter(labels)
    try:
        counts = CountVectorizer(lowercase=True, stop_words="english").fit_transform(texts).tocsr()
    except ValueError:  # empty vocabulary: no page has a word
        counts = None
    index = np.arange(len(texts))
    rows = []
    for case, frac in enumerate(test_fractions, start=1):
        n_test = n_test_pages(len(texts), frac)
        n_train = len(texts) - n_test
        problem = _stratify_problem(class_sizes, n_train, n_test)
        for repeat in range(repeats):
            train_idx, test_idx = train_test_split(
                index,
                test_size=n_test,
                random_state=_split_seed(seed, case, repeat),
                shuffle=True,
                stratify=None if problem else labels,
            )
            predicted, note = _classify(counts, labels, train_idx, test_idx)
            correct = sum(p == labels[i] for p, i in zip(predicted, test_idx))
            rows.append(
                {
                    "case": case,
                    "test_fraction": frac,
                    "repeat": repeat,
                    "n_train": n_train,
                    "n_test": n_test,
                    "n_correct": int(correct),
                    "accuracy": correct / n_test,
                    "stratified": not problem,
                    "note": "; ".join(x for x in (problem, note) if x),
                }
            )
    return pd.DataFrame(rows, columns=FRAME_COLUMNS)


def summarize_accuracy(frame: pd.DataFrame) -> pd.DataFrame:
    """Per case: mean and std (ddof 1) over repeats, and the first draw (the paper's number)."""
    out = []
    for case, group in frame.groupby("case", sort=True):
        group = group.sort_values("repeat")
        acc = group["accuracy"].to_numpy(dtype=float)
        out.append(
            {
                "case": int(case),
                "test_fraction": float(group["test_fraction"].iloc[0]),
                "n_test": int(group["n_test"].iloc[0]),
                "repeats": len(acc),
                "mean": float(acc.mean()),
                "std": float(acc.std(ddof=1)) if len(acc) > 1 else float("nan"),
                "first": float(acc[0]),
                "stratified": bool(group["stratified"].all()),
            }
        )
    return pd.DataFrame(out, columns=SUMMARY_COLUMNS)


def case_standard_errors(summary: pd.DataFrame, column: str = "first") -> dict[str, float]:
    """Both standard errors over the cases of a summary, from ``first`` (the paper's
    single draws, the default) or ``mean``."""
    acc = summary.sort_values("case")[column].to_numpy(dtype=float)
    return {"kabir_se": kabir_standard_error(acc), "se": standard_error(acc)}
