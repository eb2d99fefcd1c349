"""Metric functions: inputs in, numbers out, no I/O and no hidden state.

Every function here is pure. Per-page scores are computed from counts, and
one convention for the degenerate cases runs through the whole package (see
:func:`~evalkit.metrics.scores.prf_from_counts`):

* precision ``tp / (tp + fp)`` is **undefined (NaN)** when nothing was
  predicted, recall ``tp / (tp + fn)`` is **NaN** when there is nothing to
  find; averages over pages skip NaN pages;
* per-page F1 is ``2 tp / (2 tp + fp + fn)`` (the harmonic mean of P and R
  whenever both exist), **0** when exactly one side is empty and **1** when
  both are empty (nothing to find and nothing claimed is a perfect answer).

One concept per module; every public name is re-exported here, so code and
tests import from ``evalkit.metrics``:

* :mod:`.scores`: the ``PRF`` and ``Confusion`` records, scores from counts,
  means over the pages where a metric is defined, pages correct;
* :mod:`.overlap`: text overlap of an extraction with its gold (shingle,
  word and LCS P/R/F1, Kaur's word-count confusion);
* :mod:`.lcs`: the bit-parallel longest common subsequence;
* :mod:`.rouge`: ROUGE-N and ROUGE-LSum as ``rouge-score`` computes them (sentences,
  n-grams, the summary-level union LCS);
* :mod:`.units`: word-weighted unit confusion, micro and macro;
* :mod:`.pairs`: near-duplicate pairs;
* :mod:`.classification`: accuracy and the spread over repeated runs;
* :mod:`.inference`: bootstrap intervals, paired tests, Holm's correction.

The definitions, with their sources and departures, are in docs/metrics.md
and in each module's docstring.
"""

from __future__ import annotations

from evalkit.metrics.classification import (
    accuracy,
    kabir_standard_error,
    mean_std,
    standard_error,
)
from evalkit.metrics.families import BY_NAME, FAMILIES, TEXT_FAMILIES, Family, family_of
from evalkit.metrics.inference import (
    ALPHA,
    N_BOOT,
    N_PERM,
    BootstrapBatch,
    bootstrap_ci,
    bootstrap_ci_pages,
    holm,
    paired_bootstrap_test,
    paired_permutation_test,
    paired_permutation_tests,
)
from evalkit.metrics.lcs import lcs_length, lcs_length_ids, position_masks
from evalkit.metrics.overlap import (
    SHINGLE_N,
    GoldText,
    aeb_tokens,
    aggregate_prf,
    aggregate_prf_rows,
    check_families,
    edit_similarity,
    lcs_prf,
    page_text_metrics,
    prepare_gold,
    shingle_counts,
    shingle_prf,
    text_metrics,
    word_confusion,
    word_counts,
    word_prf,
)
from evalkit.metrics.pairs import exact_set_accuracy, pair_prf, pairs_from_groups
from evalkit.metrics.rouge import (
    ROUGE_N,
    ngram_counts,
    rouge_lsum_counts,
    rouge_lsum_prf,
    rouge_n_counts,
    rouge_n_prf,
    sentence_tokens,
    sentences,
)
from evalkit.metrics.scores import (
    PRF,
    Confusion,
    confusion_scores,
    confusion_scores_rows,
    mean_defined,
    mean_defined_rows,
    pages_correct,
    pages_correct_curve,
    prf_from_counts,
)
from evalkit.metrics.units import UNIT_METRICS, unit_confusion, unit_scores

__all__ = [
    "ALPHA",
    "BY_NAME",
    "FAMILIES",
    "N_BOOT",
    "N_PERM",
    "PRF",
    "ROUGE_N",
    "SHINGLE_N",
    "TEXT_FAMILIES",
    "UNIT_METRICS",
    "BootstrapBatch",
    "Confusion",
    "Family",
    "GoldText",
    "accuracy",
    "aeb_tokens",
    "aggregate_prf",
    "aggregate_prf_rows",
    "bootstrap_ci",
    "bootstrap_ci_pages",
    "check_families",
    "confusion_scores",
    "confusion_scores_rows",
    "edit_similarity",
    "exact_set_accuracy",
    "family_of",
    "holm",
    "kabir_standard_error",
    "lcs_length",
    "lcs_length_ids",
    "lcs_prf",
    "mean_defined",
    "mean_defined_rows",
    "mean_std",
    "ngram_counts",
    "page_text_metrics",
    "pages_correct",
    "pages_correct_curve",
    "pair_prf",
    "paired_bootstrap_test",
    "paired_permutation_test",
    "paired_permutation_tests",
    "pairs_from_groups",
    "position_masks",
    "prepare_gold",
    "prf_from_counts",
    "rouge_lsum_counts",
    "rouge_lsum_prf",
    "rouge_n_counts",
    "rouge_n_prf",
    "sentence_tokens",
    "sentences",
    "shingle_counts",
    "shingle_prf",
    "standard_error",
    "text_metrics",
    "unit_confusion",
    "unit_scores",
    "word_confusion",
    "word_counts",
    "word_prf",
]
