"""Shallow text features of a page's units, and their neighbours', as one row per unit.

Features of a unit (all from the unit's own text and link counts):

* ``n_words``: number of words, a word being a whitespace-delimited token
  holding at least one letter or digit (Kohlschütter's definition);
* ``avg_word_length``: mean length in characters of those words;
* ``link_density``: whitespace tokens inside ``<a>`` / all whitespace tokens
  (the unit's ``n_link_words / n_words`` as counted by the segmenter);
* ``text_density``: the unit's whitespace tokens are wrapped greedily into
  lines of at most ``line_width`` (80) characters (a token longer than a line
  gets a line of its own); with more than one line, the words in every line
  but the last, divided by the number of lines minus one (the last line is
  usually short and would drag the density down); with one line, the words in
  that line;
* ``prev_*`` / ``next_*``: the same four features of the previous and next
  unit with at least one word; 0 at the start and end of the page.

Units inside drop-down lists (``<select>``/``<option>``) and units without a
word are left out before neighbours are taken (see the departures in
:mod:`evalkit.experiments.units`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from evalkit.core.page import CONTENT, Page, Unit

#: wrapping width of the text-density feature, in characters (Kohlschütter et al.)
DEFAULT_LINE_WIDTH = 80
#: the four per-unit features, in column order
BASE_FEATURES = ("n_words", "avg_word_length", "link_density", "text_density")
#: units whose DOM path passes through one of these tags are not classified (drop-down lists)
DEFAULT_DROP_INSIDE = ("select", "option")
#: task name -> classes counted as content. ``main``: headline + full text
#: (evalkit's convention); ``any``: every annotated class, the papers' 2-class task
DEFAULT_TASKS = {"main": ("sel1", "sel2"), "any": ("sel1", "sel2", "sel3", "sel4", "sel5")}
_HAS_ALNUM = re.compile(r"[^\W_]")
_PATH_INDEX = re.compile(r"\[\d+\]$")


# --------------------------------------------------------------------------- features


def words_of(text: str) -> list[str]:
    """Whitespace tokens holding at least one letter or digit (Kohlschütter's words)."""
    return [t for t in text.split() if _HAS_ALNUM.search(t)]


def wrap_lines(tokens: Sequence[str], width: int = DEFAULT_LINE_WIDTH) -> list[list[str]]:
    """Greedy word wrap: a line takes tokens while ``len(" ".join(line)) <= width``.

    A token longer than ``width`` gets a line of its own (it is never split).
    """
    if width < 1:
        raise ValueError(f"line width must be >= 1, got {width!r}")
    lines: list[list[str]] = []
    current: list[str] = []
    length = 0
    for tok in tokens:
        if current and length + 1 + len(tok) > width:
            lines.append(current)
            current, length = [], 0
        length += len(tok) + (1 if current else 0)
        current.append(tok)
    if current:
        lines.append(current)
    return lines


def text_density(text: str, width: int = DEFAULT_LINE_WIDTH) -> float:
    """Words per wrapped line, the last line excluded unless it is the only one."""
    lines = wrap_lines(text.split(), width)
    if not lines:
        return 0.0
    counts = [len(words_of(" ".join(line))) for line in lines]
    if len(lines) == 1:
        return float(counts[0])
    return sum(counts[:-1]) / (len(lines) - 1)


def unit_features(unit: Unit, width: int = DEFAULT_LINE_WIDTH) -> dict[str, float]:
    """The four shallow features of one unit (see the module docstring)."""
    words = words_of(unit.text)
    n = len(words)
    tokens = unit.n_words
    return {
        "n_words": float(n),
        "avg_word_length": (sum(map(len, words)) / n) if n else 0.0,
        "link_density": min(unit.n_link_words / tokens, 1.0) if tokens else 0.0,
        "text_density": text_density(unit.text, width),
    }


def inside(path: str, tags: Sequence[str]) -> bool:
    """Whether an lxml element path (``/html/body/form/select/option[2]``) passes through a tag."""
    wanted = {t.lower() for t in tags}
    return any(_PATH_INDEX.sub("", step).lower() in wanted for step in path.split("/"))


def page_rows(
    units: Sequence[Unit],
    page_id: str,
    by_span: bool,
    tasks: Mapping[str, Sequence[str]] = DEFAULT_TASKS,
    width: int = DEFAULT_LINE_WIDTH,
    drop_inside: Sequence[str] = DEFAULT_DROP_INSIDE,
) -> pd.DataFrame:
    """One row per unit with a word: features, context features, weight and a label per task.

    ``by_span``: labels come from the unit's fine class (L3S-GN1 spans; a
    unit outside every span is noise). Otherwise (aligned gold) every task
    uses the unit's content/noise label. Units inside ``drop_inside`` tags
    and units without a word are left out before neighbours are taken.
    """
    feats, meta = [], []
    for u in units:
        if drop_inside and inside(u.path, drop_inside):
            continue
        f = unit_features(u, width)
        if f["n_words"] == 0:
            continue
        feats.append(f)
        labels = {
            f"y_{t}": int(u.fine in cls) if by_span else int(u.label == CONTENT)
            for t, cls in tasks.items()
        }
        # the gold class: the span class on L3S-GN1, else the aligned content/noise label
        meta.append(
            {
                "page_id": page_id,
                "unit": u.index,
                "by_span": by_span,
                "fine": u.fine if by_span else u.label,
                **labels,
            }
        )
    cols = list(BASE_FEATURES)
    if not feats:
        return pd.DataFrame(
            columns=[
                "page_id",
                "unit",
                "by_span",
                "fine",
                *(f"y_{t}" for t in tasks),
                "weight",
                *cols,
                *(f"prev_{c}" for c in cols),
                *(f"next_{c}" for c in cols),
            ]
        )
    x = pd.DataFrame(feats, columns=cols)
    prev = x.shift(1, fill_value=0.0).add_prefix("prev_")
    nxt = x.shift(-1, fill_value=0.0).add_prefix("next_")
    df = pd.DataFrame(meta)
    df["weight"] = x["n_words"].to_numpy()
    return pd.concat([df, x, prev, nxt], axis=1)


def _page_rows_of(page: Page, tasks, width, drop_inside):
    from evalkit.core.align import gold_units

    units = gold_units(page)
    return page_rows(units, page.id, page.gold.unit_source == "spans", tasks, width, drop_inside)


def feature_task(
    pages: Sequence[Page], *, tasks, width, drop_inside
) -> tuple[list[pd.DataFrame], list[dict[str, Any]]]:
    """The task the runner maps over a data set's pages: each page's unit rows, and a
    failure record for a page whose units cannot be read (the run goes on). Module
    level, so workers can run it."""
    frames, failures = [], []
    for page in pages:
        try:
            frames.append(_page_rows_of(page, tasks, width, drop_inside))
        except Exception as exc:  # noqa: BLE001 - a bad page is recorded, the run goes on
            failures.append(
                {
                    "dataset": page.dataset,
                    "page": page.id,
                    "method": "units_features",
                    "error": f"{type(exc).__name__}: {exc}"[:500],
                }
            )
    return frames, failures
