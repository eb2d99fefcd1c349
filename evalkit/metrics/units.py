"""Unit metrics: word-weighted confusion of a page's evaluation units, micro and macro.

Summary-column naming used by :func:`unit_scores` (docs/metrics.md, "unit"):
``<metric>_<average>_<weight>`` where metric is precision/recall/f1/accuracy,
``micro_words`` means the counts of all pages are summed (every word weighs
the same) and ``macro_pages`` means per-page values are averaged (every page
weighs the same), e.g. ``f1_micro_words``, ``precision_macro_pages``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from evalkit.metrics.scores import (
    Confusion,
    confusion_scores,
    confusion_scores_rows,
    mean_defined,
)

UNIT_METRICS = ("precision", "recall", "f1", "accuracy")


def unit_confusion(
    gold: Sequence[bool], kept: Sequence[bool], weights: Sequence[float] | None = None
) -> Confusion:
    """Word-weighted confusion of one page's units, content the positive class.

    ``gold[i]`` is True for a content unit, ``kept[i]`` True when the method kept
    it, ``weights[i]`` its word count (1 per unit when omitted). TP = weight
    of kept content, FP = kept noise, FN = dropped content, TN = dropped noise.
    """
    g = np.asarray(gold, dtype=bool)
    k = np.asarray(kept, dtype=bool)
    w = np.ones(g.shape) if weights is None else np.asarray(weights, dtype=float)
    if not (g.shape == k.shape == w.shape) or g.ndim != 1:
        raise ValueError(
            "gold, kept and weights must be 1-D and the same length; "
            f"got {g.shape}, {k.shape}, {w.shape}"
        )
    return Confusion(
        float(w[g & k].sum()),
        float(w[~g & k].sum()),
        float(w[g & ~k].sum()),
        float(w[~g & ~k].sum()),
    )


def unit_scores(confusions: Iterable[Confusion | Sequence[float]]) -> dict[str, float]:
    """Micro and macro unit scores over pages from per-page ``(tp, fp, fn, tn)``.

    ``<m>_micro_words``: :func:`confusion_scores` of the summed counts.
    ``<m>_macro_pages``: mean over pages of each page's value, skipping pages
    where it is NaN (precision on pages with nothing kept, recall on pages
    without content). Also ``n_pages``. No pages gives NaN everywhere.
    """
    if isinstance(confusions, np.ndarray):  # a row per page already: no tuple per page
        rows = np.asarray(confusions, dtype=float).reshape(-1, 4)
    else:
        rows = np.asarray([tuple(c) for c in confusions], dtype=float).reshape(-1, 4)
    out: dict[str, float] = {}
    if len(rows) == 0:
        out.update({f"{m}_micro_words": math.nan for m in UNIT_METRICS})
    else:
        micro = confusion_scores(*rows.sum(axis=0))
        out.update({f"{m}_micro_words": micro[m] for m in UNIT_METRICS})
    # each page's scores, the numbers of confusion_scores(*row) (confusion_scores_rows)
    per_page = confusion_scores_rows(*rows.T)
    for m in UNIT_METRICS:
        out[f"{m}_macro_pages"] = mean_defined(per_page[m])
    out["n_pages"] = len(rows)
    return out
