"""Metadata scores: title, authors and publication date of a page against its gold.

Per page, a prediction and a gold :class:`~evalkit.core.metadata.PageMetadata` give:

* ``title_accuracy``: 1 when the two titles are equal after :func:`normalise_title` (Unicode
  NFKC, typographic quotes and dashes folded to ASCII, casefold, whitespace runs collapsed,
  punctuation and symbols stripped from both ends), else 0.
* ``title_f1``: token F1 of the two titles: tokens are the ``\\w+`` runs of the normalised
  titles (WCXB's own tokens, its ``evaluate.py``), counted as bags: overlap = Σ min(counts),
  P = overlap / predicted tokens, R = overlap / gold tokens.
* ``author_precision``, ``author_recall``, ``author_f1``: set P/R/F1 of author names. Both
  sides go through the same :func:`split_authors` (a gold string such as ``"A, B and C"``
  and a predicted ``"A; B"`` alike) and :func:`normalise_author`; two names match when their
  normalised forms are equal.
* ``date_accuracy``: 1 when the predicted ISO day equals the gold day, else 0: a date is
  right when its day is right, as htmldate's evaluation counts it (adbar/htmldate,
  ``tests/comparison.py``, ``evaluate_result``: string equality of ``YYYY-MM-DD``).
* ``title_coverage``, ``author_coverage``, ``date_coverage``: 1 when the method gave a value
  for the field, else 0; defined on every page, gold or not.

A method that does not look for a field at all (htmldate: dates only) is scored with
``fields`` naming those it does; the other columns are NaN.

A page whose gold lacks a field gives NaN in that field's score columns (left out of the
mean, as ``nanmean`` does); a missing prediction against a present gold scores 0 (title
accuracy and F1, author recall and F1, date accuracy). Departures and assumptions, each named:

* :data:`FOLD_QUOTES`: curly quotes, primes and dashes become ``'``, ``"`` and ``-`` before
  comparing: 20 of the 71 WCXB dev gold titles with ``'`` stand in their page's HTML
  with ``’`` only (and 21 gold titles keep ``’``).
* :data:`SITE_SUFFIX_SEPARATORS` with the switch ``strip_site_suffix`` (default False: titles
  compared literally): when on, the prediction is also read without its last separator and
  what follows it (``"Otters | Site"`` as ``"Otters"``) and the better of the two readings
  counts. The gold is never cut: WCXB's gold titles are headlines, and many carry a
  separator of their own (``"How Machine Learning is Shaping eCommerce – 10 Benefits"``).
* :data:`AUTHOR_SEPARATORS`, :data:`BYLINE_PREFIX`, :data:`CREDENTIAL_TOKEN`,
  :data:`HONORIFICS`: how an author string becomes names (:func:`split_authors`).
  A comma piece after the first whose every token is a credential (``MS``, ``Ph.D.``,
  ``E-RYT 200``) is no name and is dropped; a role after a comma (``"Mike Marshall,
  Shipping Expert"``) is not recognised and counts as a name (7 of the 739 WCXB dev author
  strings have one), and an organisation with "and" in its name gives two (1: ``"Center for
  Drug Evaluation and Research"``); an inverted ``"Kaufman, Jeff T."`` gives two (1).
* :data:`AUTHOR_EMPTY_PREDICTION`: no predicted name against gold names gives precision NaN
  (nothing was claimed), recall 0 and F1 0.
* WCXB's ``publish_date`` (:func:`wcxb_gold_date`): ``YYYY-MM-DD`` is the gold day; any other
  form gives no gold date, for the reason named in :data:`GOLD_DATE_RULES` (2 dev pages give
  only a month).

Pure: imports only evalkit.core; one call per page, no state.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any, NamedTuple

from evalkit.core.metadata import PageMetadata
from evalkit.core.page import Extraction, Gold

__all__ = [
    "AUTHOR_EMPTY_PREDICTION",
    "AUTHOR_SEPARATORS",
    "BYLINE_PREFIX",
    "COLUMNS",
    "CREDENTIAL_TOKEN",
    "FIELDS",
    "FOLD_QUOTES",
    "GOLD_DATE_RULES",
    "HONORIFICS",
    "SITE_SUFFIX_SEPARATORS",
    "STRIP_SITE_SUFFIX",
    "TITLE_TOKEN",
    "GoldDate",
    "as_metadata",
    "author_scores",
    "author_set",
    "cut_site_suffix",
    "date_accuracy",
    "extraction_scores",
    "gold_state",
    "normalise_author",
    "normalise_title",
    "score",
    "split_authors",
    "title_accuracy",
    "title_f1",
    "title_tokens",
    "wcxb_gold_date",
    "wcxb_gold_metadata",
]

#: the PageMetadata fields a method may look for (``score``'s ``fields``)
FIELDS = ("title", "authors", "date")
#: the per-page columns :func:`score` returns, in table order
COLUMNS = (
    "title_accuracy",
    "title_f1",
    "author_precision",
    "author_recall",
    "author_f1",
    "date_accuracy",
    "title_coverage",
    "author_coverage",
    "date_coverage",
)

NAN = float("nan")

# --- titles -------------------------------------------------------------------------------

#: fold typographic quotes, primes and dashes to ASCII before comparing (module docstring)
FOLD_QUOTES = True
_QUOTE_FOLD = str.maketrans(
    {
        **dict.fromkeys("‘’‚‛′‹›`´", "'"),
        **dict.fromkeys("“”„‟″«»", '"'),
        **dict.fromkeys("‐‑‒–—―−", "-"),
    }
)
#: cut a site name after the last of these separators (only with ``strip_site_suffix``)
SITE_SUFFIX_SEPARATORS = (" | ", " - ", " – ", " — ", " :: ", " · ", " » ", " / ")
#: default of the ``strip_site_suffix`` switch: titles are compared literally
STRIP_SITE_SUFFIX = False
#: a title token: a run of Unicode word characters of the normalised title (WCXB's tokens)
TITLE_TOKEN = re.compile(r"\w+")
_SPACE = re.compile(r"\s+")


def _is_edge_char(ch: str) -> bool:
    return ch.isspace() or unicodedata.category(ch)[0] in "PS"


def _fold(text: str, fold_quotes: bool = FOLD_QUOTES) -> str:
    text = unicodedata.normalize("NFKC", text)
    return text.translate(_QUOTE_FOLD) if fold_quotes else text


def normalise_title(text: str | None, fold_quotes: bool = FOLD_QUOTES) -> str:
    """NFKC, quotes folded, casefold, whitespace collapsed, punctuation stripped at both ends."""
    if not text:
        return ""
    text = _SPACE.sub(" ", _fold(text, fold_quotes).casefold()).strip()
    start, end = 0, len(text)
    while start < end and _is_edge_char(text[start]):
        start += 1
    while end > start and _is_edge_char(text[end - 1]):
        end -= 1
    return text[start:end]


def cut_site_suffix(title: str | None) -> str | None:
    """``title`` without its last :data:`SITE_SUFFIX_SEPARATORS` separator and what follows
    (``"Otters | Example Media"`` -> ``"Otters"``); unchanged when none leaves a head."""
    if not title:
        return title
    text = _SPACE.sub(" ", unicodedata.normalize("NFKC", title)).strip()
    cut = max(text.rfind(sep) for sep in SITE_SUFFIX_SEPARATORS)
    return text[:cut].strip() if cut > 0 else text


def title_tokens(text: str | None) -> list[str]:
    """The ``\\w+`` tokens of the normalised title."""
    return TITLE_TOKEN.findall(normalise_title(text))


def _readings(pred: str | None, strip_site_suffix: bool) -> tuple[str | None, ...]:
    """The prediction as written and, with ``strip_site_suffix``, without its site suffix."""
    return (pred, cut_site_suffix(pred)) if strip_site_suffix else (pred,)


def title_accuracy(
    pred: str | None, gold: str | None, strip_site_suffix: bool = STRIP_SITE_SUFFIX
) -> float:
    """1.0 / 0.0: the normalised titles are equal; NaN when the gold has no title.

    With ``strip_site_suffix`` the prediction is also read without its last separator and
    what follows (:func:`cut_site_suffix`), and the better reading counts."""
    want = normalise_title(gold)
    if not want:
        return NAN
    return max(
        1.0 if normalise_title(p) == want else 0.0 for p in _readings(pred, strip_site_suffix)
    )


def _token_f1(pred: str | None, want: Counter) -> float:
    got = Counter(title_tokens(pred))
    overlap = sum(min(c, want[t]) for t, c in got.items())
    if overlap == 0:
        return 0.0
    p, r = overlap / sum(got.values()), overlap / sum(want.values())
    return 2 * p * r / (p + r)


def title_f1(
    pred: str | None, gold: str | None, strip_site_suffix: bool = STRIP_SITE_SUFFIX
) -> float:
    """Bag-of-tokens F1 of the two titles; NaN when the gold has no token
    (``strip_site_suffix`` as in :func:`title_accuracy`)."""
    want = Counter(title_tokens(gold))
    if not want:
        return NAN
    return max(_token_f1(p, want) for p in _readings(pred, strip_site_suffix))


# --- authors ------------------------------------------------------------------------------

#: what separates two names in one author string: ``;``, ``|``, ``/`` and ``&`` between
#: spaces, a comma (also ", and"), and the word "and" (any case)
AUTHOR_SEPARATORS = re.compile(r"\s*[;|]\s*|\s+[/&]\s+|\s*,\s*(?:and\s+)?|\s+and\s+", re.IGNORECASE)
#: a byline's lead-in, cut from the start of each name ("By Jane Doe", "edited by Walter")
BYLINE_PREFIX = re.compile(
    r"^(?:(?:written|posted|edited|reviewed|published|sponsored|words|story|text)\s+)?by\b\s*:?\s*"
    r"|^authors?\s*:\s*",
    re.IGNORECASE,
)
#: a credential or name suffix: an upper-case abbreviation (``MS``, ``FAND``, ``E-RYT``,
#: ``CEPF®``), a dotted degree (``Ph.D.``, ``M.D.``, ``Jr.``), a mixed-case degree of a short
#: list (``PhD``, ``MSc``), a parenthesis or a number
CREDENTIAL_TOKEN = re.compile(
    r"(?:[A-Z][A-Z0-9+®™-]{1,5}|[A-Z][a-z]{1,2}\.|(?:[A-Z][a-z]?\.){2,3}"
    r"|(?:PhD|DPhil|MPhil|MSc|BSc|MEng|BEng|EdD|PsyD|DrPH|Esq)\.?|\([^)]*\)|\d+)"
)
#: titles before a name, dropped when comparing (``Dr Marna van der Merwe``)
HONORIFICS = frozenset({"dr", "prof", "professor", "mr", "mrs", "ms", "mx", "sir", "dame"})
#: precision when nothing is predicted against gold names (recall and F1 are 0)
AUTHOR_EMPTY_PREDICTION = NAN
_NAME_PUNCT = re.compile(r"[^\w\s'-]+")


def _is_credential(piece: str) -> bool:
    tokens = piece.split()
    return bool(tokens) and all(CREDENTIAL_TOKEN.fullmatch(t) for t in tokens)


def split_authors(value: str | None) -> tuple[str, ...]:
    """The names in one author string, in order, without duplicates.

    HTML entities are decoded and whitespace collapsed; the string is split at
    :data:`AUTHOR_SEPARATORS`; each piece loses a :data:`BYLINE_PREFIX`; a piece after the
    first whose every token is a :data:`CREDENTIAL_TOKEN` is dropped (credentials, not a
    name), unless the string has no lower-case letter (an all-capitals list of names).
    ``"Ellen Lindell, VMD, DACVB; Debra Horwitz, DVM & Gary Landsberg"`` gives
    ``("Ellen Lindell", "Debra Horwitz", "Gary Landsberg")``.
    """
    if not value:
        return ()
    text = _SPACE.sub(" ", html.unescape(value)).strip()
    has_lower = any(ch.islower() for ch in text)
    names: list[str] = []
    for i, piece in enumerate(AUTHOR_SEPARATORS.split(text)):
        piece = BYLINE_PREFIX.sub("", piece.strip()).strip(" ,;:|")
        if not piece or (i > 0 and has_lower and _is_credential(piece)):
            continue
        if piece not in names:
            names.append(piece)
    return tuple(names)


def normalise_author(name: str) -> str:
    """A name as compared: NFKC, quotes folded, trailing credentials and leading honorifics
    dropped, punctuation but ``'`` and ``-`` removed, casefold, whitespace collapsed."""
    tokens = _fold(name).split()
    if any(ch.islower() for ch in name):  # "Jeffrey A. Slotnick CPP" -> "Jeffrey A. Slotnick"
        while len(tokens) > 2 and CREDENTIAL_TOKEN.fullmatch(tokens[-1]):
            tokens.pop()
    words = _NAME_PUNCT.sub(" ", " ".join(tokens)).casefold().split()
    while len(words) > 1 and words[0] in HONORIFICS:
        words.pop(0)
    return " ".join(w.strip("'-") for w in words if w.strip("'-"))


def author_set(authors) -> frozenset[str]:
    """The normalised names of a sequence of author strings (each split by
    :func:`split_authors`) or of one string."""
    if authors is None:
        return frozenset()
    if isinstance(authors, str):
        authors = (authors,)
    names = (normalise_author(n) for a in authors for n in split_authors(a))
    return frozenset(n for n in names if n)


def author_scores(pred, gold) -> tuple[float, float, float]:
    """(precision, recall, F1) of the name sets; NaN x3 when the gold has no name."""
    want, got = author_set(gold), author_set(pred)
    if not want:
        return NAN, NAN, NAN
    if not got:
        return AUTHOR_EMPTY_PREDICTION, 0.0, 0.0
    hit = len(want & got)
    if hit == 0:
        return 0.0, 0.0, 0.0
    p, r = hit / len(got), hit / len(want)
    return p, r, 2 * p * r / (p + r)


# --- dates --------------------------------------------------------------------------------


def date_accuracy(pred: str | None, gold: str | None) -> float:
    """1.0 / 0.0: the same ISO day (htmldate's rule); NaN when the gold has no date."""
    if not gold:
        return NAN
    return 1.0 if pred and pred[:10] == gold[:10] else 0.0


# --- one page -----------------------------------------------------------------------------


def as_metadata(value: PageMetadata | Mapping[str, Any] | None) -> PageMetadata:
    """A PageMetadata from a record, its ``to_dict`` form (``Extraction.metadata``) or None
    (an empty record: a method that gave no metadata)."""
    if value is None:
        return PageMetadata()
    if isinstance(value, PageMetadata):
        return value
    return PageMetadata.from_dict(dict(value))


def score(
    pred: PageMetadata | Mapping[str, Any] | None,
    gold: PageMetadata | Mapping[str, Any],
    strip_site_suffix: bool = STRIP_SITE_SUFFIX,
    fields: Iterable[str] = FIELDS,
) -> dict[str, float]:
    """The :data:`COLUMNS` of one page (module docstring).

    ``fields``: the :data:`FIELDS` the method looks for; the columns of the others are NaN,
    coverage too (htmldate finds dates only: its title and author columns say nothing).
    """
    pred, gold = as_metadata(pred), as_metadata(gold)
    fields = set(fields)
    if not fields <= set(FIELDS):
        raise ValueError(f"unknown metadata fields {sorted(fields - set(FIELDS))}; known: {FIELDS}")
    out = dict.fromkeys(COLUMNS, NAN)
    if "title" in fields:
        out["title_accuracy"] = title_accuracy(pred.title, gold.title, strip_site_suffix)
        out["title_f1"] = title_f1(pred.title, gold.title, strip_site_suffix)
        out["title_coverage"] = 1.0 if normalise_title(pred.title) else 0.0
    if "authors" in fields:
        p, r, f = author_scores(pred.authors, gold.authors)
        out.update(author_precision=p, author_recall=r, author_f1=f)
        out["author_coverage"] = 1.0 if author_set(pred.authors) else 0.0
    if "date" in fields:
        out["date_accuracy"] = date_accuracy(pred.date, gold.date)
        out["date_coverage"] = 1.0 if pred.date else 0.0
    return out


# --- WCXB's gold --------------------------------------------------------------------------

#: why a gold ``publish_date`` gives no gold day (the reason :func:`wcxb_gold_date` names)
GOLD_DATE_RULES = {
    "missing": "no publish_date (null, absent or empty)",
    "month_only": "YYYY-MM without a day: no day to compare (2 WCXB dev pages)",
    "not_a_day": "a string that is not an ISO day YYYY-MM-DD",
    "not_a_calendar_day": "YYYY-MM-DD that names no calendar day (2025-02-30)",
}
_GOLD_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:$|[T ])")
_GOLD_MONTH = re.compile(r"\d{4}-\d{2}$")


class GoldDate(NamedTuple):
    """A gold day (``YYYY-MM-DD``) or None with the :data:`GOLD_DATE_RULES` key saying why."""

    day: str | None
    reason: str | None = None


def wcxb_gold_date(value: Any) -> GoldDate:
    """WCXB's ``publish_date`` as a gold day, or None and the rule that refused it."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return GoldDate(None, "missing")
    if not isinstance(value, str):
        return GoldDate(None, "not_a_day")
    text = value.strip()
    if _GOLD_MONTH.match(text):
        return GoldDate(None, "month_only")
    m = _GOLD_DAY.match(text)
    if not m:
        return GoldDate(None, "not_a_day")
    try:
        day = date(int(m[1]), int(m[2]), int(m[3]))
    except ValueError:
        return GoldDate(None, "not_a_calendar_day")
    return GoldDate(day.isoformat())


def wcxb_gold_metadata(record: Mapping[str, Any]) -> PageMetadata:
    """WCXB's gold ``title``, ``author`` and ``publish_date`` as a PageMetadata.

    ``record`` is a ground-truth file's object (its ``ground_truth`` is read) or that
    ``ground_truth`` object itself. The title has its whitespace collapsed (empty: None);
    the author string is split by :func:`split_authors`; the date is :func:`wcxb_gold_date`.
    """
    truth = record.get("ground_truth", record)
    if not isinstance(truth, Mapping):
        truth = {}
    title = truth.get("title")
    title = _SPACE.sub(" ", title).strip() if isinstance(title, str) else None
    author = truth.get("author")
    authors = split_authors(author) if isinstance(author, str) else ()
    return PageMetadata(title or None, authors, wcxb_gold_date(truth.get("publish_date")).day)


def gold_state(gold: Gold) -> PageMetadata | None:
    """The family's gold side (evalkit.metrics.families): the page's metadata, or None."""
    return gold.metadata


def extraction_scores(ext: Extraction, state: PageMetadata | None) -> dict[str, float]:
    """The family's columns for one extraction; NaN throughout when the gold has no metadata
    or the method gives none (``Extraction.metadata`` None: not a method that looks), so a
    text extractor is never counted as having found nothing. A method that looks for some
    fields only names them in its record's ``fields`` (htmldate: dates)."""
    if state is None or ext.metadata is None:
        return dict.fromkeys(COLUMNS, NAN)
    return score(ext.metadata, state, fields=ext.metadata.get("fields") or FIELDS)
