"""Classification accuracy and the spread of scores over repeated runs.

Kabir et al. (2015) give the standard error of Table 4.4.1 only as "from the
variance"; their equation is missing from the text. The one reading that
reproduces their PAB value (0.1496) from Table 4.3.2 is the mean error rate
over the seven cases; see :func:`kabir_standard_error` for the ENIW value,
which no reading we tried reproduces (docs/metrics.md, "classification").
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np


def accuracy(y_true: Sequence, y_pred: Sequence) -> float:
    """Share of cases whose predicted label equals the true one (Kabir et al.
    2015, Eq. 2, as a fraction); NaN for no cases."""
    t, p = np.asarray(y_true), np.asarray(y_pred)
    if t.shape != p.shape:
        raise ValueError(f"y_true and y_pred differ in length: {t.shape} vs {p.shape}")
    return float(np.mean(t == p)) if t.size else math.nan


def mean_std(values: Iterable[float], ddof: int = 1) -> tuple[float, float]:
    """Mean and standard deviation (sample, ddof=1, by default) over repeats;
    std is NaN with fewer than ddof+1 values."""
    x = np.asarray(list(values), dtype=float)
    if x.size == 0:
        return math.nan, math.nan
    std = float(x.std(ddof=ddof)) if x.size > ddof else math.nan
    return float(x.mean()), std


def standard_error(values: Iterable[float]) -> float:
    """Textbook standard error of the mean: sample std / sqrt(n) (NaN for n < 2)."""
    x = np.asarray(list(values), dtype=float)
    return float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else math.nan


def kabir_standard_error(case_accuracies: Iterable[float]) -> float:
    """The "standard error" of Kabir et al. (2015), Table 4.4.1: the mean error
    rate 1 - mean(accuracy) over the test cases (accuracies as fractions).

    From Table 4.3.2's PAB column (0.80, 0.80, 0.83, 0.86, 0.88, 0.883, 0.90)
    this gives 0.14957, the published 0.1496. Their ENIW value (0.20396) is not
    reproduced by this or by any std/variance/SE reading of the ENIW column we
    tried (this reading gives 0.1681); use :func:`standard_error` for the
    conventional quantity.
    """
    x = np.asarray(list(case_accuracies), dtype=float)
    return float(1.0 - x.mean()) if x.size else math.nan
