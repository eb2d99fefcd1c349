"""The ``units`` experiment: classifying atomic text blocks with shallow text features.

Rebuilds the 2-class table of San & Aye ("Noise block cleaning and main
content block extraction from dynamic web page", Table 1), whose rows and
numbers are those of Kohlschütter, Fankhauser & Nejdl ("Boilerplate detection
using shallow text features", WSDM 2010) on the L3S-GN1 Google-News pages:
ZeroR, single features, a one-threshold 1R rule on text density, and C4.8
decision trees on number of words, link density, text density and their
combinations with the features of the neighbouring blocks.

Units are evalkit's gold units (:func:`evalkit.align.gold_units`): on
L3S-GN1 the annotated atomic text blocks with their class ``sel0..sel5``.

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

Evaluation: k-fold cross-validation with folds grouped by page (no page is
split between training and test), all scores weighted by each unit's number
of words. Per fold and classifier: precision, recall and F1 of the content
class, accuracy, and the class-weighted averages of precision, recall and F1
over both classes (what Weka prints as "Weighted Avg." and what both papers
report: their ZeroR row, 40.7 / 63.8 / 49.7, is exactly c², c and
c·2c/(1+c) for a content share c = 0.638). The summary value is the mean
over folds; its interval a seeded percentile bootstrap of that mean, pages
resampled within each test fold.

Where this departs from the papers:

* Units come from evalkit's segmenter over the annotated copy, not from
  boilerpipe's block splitter; counts differ slightly (e.g. the content word
  share of the 2-class task is 0.639 here, 0.638 in the paper).
* Units without any word (``|``, ``»``) are dropped: they weigh nothing in
  word-weighted scores, and neighbours are taken among the remaining units.
* Units inside ``<select>``/``<option>`` (drop-down lists) are dropped, as
  San & Aye's preprocessing removes ``<select>``; evalkit's segmenter counts
  form controls as visible. On L3S-GN1 these are 16,000 words, nearly all
  unlabelled (noise); keeping them moves the content share from 0.639 to 0.616.
* C4.8 (Weka J48, C4.5 with gain ratio and pruning) is replaced by
  scikit-learn's CART tree with the entropy criterion and a minimum leaf
  size, the papers' means of avoiding over-fitting ("at least 1000
  instances"); there is no post-pruning.
* Classifiers are trained with each unit weighted by its number of words, so
  that ZeroR predicts the majority by words (content), as in the paper.
* "Only X" rows are read as a tree on the unit's own feature X; "C4.8 X" rows
  as a tree on X of the previous, current and next unit (San & Aye's example
  tree uses exactly these ``Prev``/``Curr``/``Next`` features). 1R is a single
  threshold on one feature (Weka's 1R may cut several intervals).
* The papers' 2-class task counts every annotated class (headline, full text,
  supplemental, related content, comments) as content; evalkit's main task
  (headline + full text) is run beside it. Which one a table shows is named.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.dummy import DummyClassifier
from sklearn.model_selection import GroupKFold
from sklearn.tree import DecisionTreeClassifier

from evalkit.experiments import Context
from evalkit.page import CONTENT, Page, Unit
from evalkit.summary import summary_row

__all__ = [
    "BASE_FEATURES",
    "DEFAULT_CLASSIFIERS",
    "DEFAULT_DROP_INSIDE",
    "DEFAULT_FOLDS",
    "DEFAULT_LINE_WIDTH",
    "DEFAULT_MIN_SAMPLES_LEAF",
    "DEFAULT_TASKS",
    "SCORE_NAMES",
    "OneR",
    "cross_validate",
    "feature_columns",
    "feature_task",
    "group_folds",
    "inside",
    "make_classifier",
    "page_rows",
    "paper_rows",
    "paper_table",
    "run",
    "summarize",
    "text_density",
    "unit_features",
    "word_scores",
    "words_of",
    "wrap_lines",
]

#: wrapping width of the text-density feature, in characters (Kohlschütter et al.)
DEFAULT_LINE_WIDTH = 80
#: minimum units per tree leaf ("leaves matching at least 1000 instances")
DEFAULT_MIN_SAMPLES_LEAF = 1000
DEFAULT_FOLDS = 10
DEFAULT_N_BOOT = 1000
DEFAULT_ALPHA = 0.05
#: the four per-unit features, in column order
BASE_FEATURES = ("n_words", "avg_word_length", "link_density", "text_density")
#: units whose DOM path passes through one of these tags are not classified (drop-down lists)
DEFAULT_DROP_INSIDE = ("select", "option")
#: task name -> classes counted as content. ``main``: headline + full text
#: (evalkit's convention); ``any``: every annotated class, the papers' 2-class task
DEFAULT_TASKS = {"main": ("sel1", "sel2"), "any": ("sel1", "sel2", "sel3", "sel4", "sel5")}
#: the rows of San & Aye Table 1 (plus a local-features tree showing what context adds)
DEFAULT_CLASSIFIERS = {
    "zero_r": {"model": "zero_r"},
    "only_avg_word_length": {"model": "tree", "features": ["avg_word_length"]},
    "only_link_density": {"model": "tree", "features": ["link_density"]},
    "one_r_text_density": {"model": "one_r", "features": ["text_density"]},
    "tree_link_density": {"model": "tree", "features": ["link_density"], "context": True},
    "tree_n_words": {"model": "tree", "features": ["n_words"], "context": True},
    "tree_n_words_link_density": {"model": "tree", "features": ["n_words", "link_density"],
                                  "context": True},
    "tree_text_density_link_density": {"model": "tree",
                                       "features": ["text_density", "link_density"],
                                       "context": True},
    "tree_local_all": {"model": "tree", "features": list(BASE_FEATURES)},
    "tree_all": {"model": "tree", "features": list(BASE_FEATURES), "context": True},
}
#: scores per (fold, classifier, task); "_weighted" = averaged over both classes by word support
SCORE_NAMES = ("precision", "recall", "f1", "accuracy",
               "precision_weighted", "recall_weighted", "f1_weighted")
_HAS_ALNUM = re.compile(r"[^\W_]")
_PATH_INDEX = re.compile(r"\[\d+\]$")
_COUNTS = ["words_tp", "words_fp", "words_fn", "words_tn"]


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


def page_rows(units: Sequence[Unit], page_id: str, by_span: bool,
              tasks: Mapping[str, Sequence[str]] = DEFAULT_TASKS,
              width: int = DEFAULT_LINE_WIDTH,
              drop_inside: Sequence[str] = DEFAULT_DROP_INSIDE) -> pd.DataFrame:
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
        labels = {f"y_{t}": int(u.fine in cls) if by_span else int(u.label == CONTENT)
                  for t, cls in tasks.items()}
        # the gold class: the span class on L3S-GN1, else the aligned content/noise label
        meta.append({"page_id": page_id, "unit": u.index, "by_span": by_span,
                     "fine": u.fine if by_span else u.label, **labels})
    cols = list(BASE_FEATURES)
    if not feats:
        return pd.DataFrame(columns=["page_id", "unit", "by_span", "fine", *(f"y_{t}" for t in tasks),
                                     "weight", *cols, *(f"prev_{c}" for c in cols),
                                     *(f"next_{c}" for c in cols)])
    x = pd.DataFrame(feats, columns=cols)
    prev = x.shift(1, fill_value=0.0).add_prefix("prev_")
    nxt = x.shift(-1, fill_value=0.0).add_prefix("next_")
    df = pd.DataFrame(meta)
    df["weight"] = x["n_words"].to_numpy()
    return pd.concat([df, x, prev, nxt], axis=1)


def _page_rows_of(page: Page, tasks, width, drop_inside):
    from evalkit.align import gold_units

    units = gold_units(page)
    return page_rows(units, page.id, page.gold.unit_source == "spans", tasks, width, drop_inside)


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
                best = (correct[k], j, (xs[i] + xs[i + 1]) / 2,
                        int(lw[k].argmax()), int(rw[k].argmax()))
        _, self.feature_, self.threshold_, left_class, right_class = best
        self.left_class_, self.right_class_ = self.classes_[left_class], self.classes_[right_class]
        self.n_features_in_ = X.shape[1]
        return self

    def predict(self, X):
        X = np.asarray(X, dtype=float)
        if X.ndim == 1:
            X = X[:, None]
        return np.where(X[:, self.feature_] <= self.threshold_, self.left_class_,
                        self.right_class_)


def feature_columns(spec: Mapping[str, Any]) -> list[str]:
    """Columns a classifier spec uses: its features, plus prev_/next_ copies with ``context``."""
    feats = list(spec.get("features") or BASE_FEATURES)
    unknown = sorted(set(feats) - set(BASE_FEATURES))
    if unknown:
        raise ValueError(f"unknown unit features {unknown}; known: {list(BASE_FEATURES)}")
    if spec.get("context", False):
        return [f"{p}{f}" for f in feats for p in ("prev_", "", "next_")]
    return feats


def make_classifier(spec: Mapping[str, Any], min_samples_leaf: int = DEFAULT_MIN_SAMPLES_LEAF,
                    criterion: str = "entropy", seed: int = 0):
    """A fresh estimator for a spec ``{model: zero_r|one_r|tree, features, context}``."""
    model = spec.get("model", "tree")
    if model == "zero_r":
        return DummyClassifier(strategy="most_frequent")
    if model == "one_r":
        return OneR()
    if model == "tree":
        return DecisionTreeClassifier(criterion=criterion,
                                      min_samples_leaf=int(spec.get("min_samples_leaf",
                                                                    min_samples_leaf)),
                                      random_state=seed)
    raise ValueError(f"unknown unit classifier model {model!r}; known: zero_r, one_r, tree")


# --------------------------------------------------------------------------- evaluation

def group_folds(groups: Sequence, n_folds: int = DEFAULT_FOLDS, seed: int = 0) -> np.ndarray:
    """Fold number per row; rows of one group (page) always share a fold."""
    groups = np.asarray(groups)
    n_groups = len(np.unique(groups))
    if n_groups < n_folds:
        raise ValueError(f"{n_folds}-fold cross-validation needs at least {n_folds} pages, "
                         f"got {n_groups}")
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
        "precision": p1, "recall": r1, "f1": f1, "accuracy": ratio(tp + tn, total),
        "precision_weighted": ratio(n1 * p1 + n0 * p0, total),
        "recall_weighted": ratio(n1 * r1 + n0 * r0, total),
        "f1_weighted": ratio(n1 * f1 + n0 * f0, total),
    }


def _counts(y, pred, w) -> np.ndarray:
    y, pred = np.asarray(y).astype(bool), np.asarray(pred).astype(bool)
    return np.array([w[y & pred].sum(), w[~y & pred].sum(), w[y & ~pred].sum(),
                     w[~y & ~pred].sum()])


def cross_validate(rows: pd.DataFrame, classifiers: Mapping[str, Mapping[str, Any]],
                   tasks: Sequence[str], n_folds: int = DEFAULT_FOLDS, seed: int = 0,
                   min_samples_leaf: int = DEFAULT_MIN_SAMPLES_LEAF, criterion: str = "entropy",
                   train_weight: str = "words") -> tuple[pd.DataFrame, pd.DataFrame]:
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
                est.fit(x[train], y[train],
                        sample_weight=None if fit_w is None else fit_w[train])
                pred[test] = est.predict(x[test])
                c = _counts(y[test], pred[test], w[test])
                scores = {s: float(v) for s, v in word_scores(*c).items()}
                fold_recs.append({"task": task, "method": name, "fold": k,
                                  "n_units": int(test.sum()), **dict(zip(_COUNTS, c)), **scores})
            hit, miss = pred.astype(bool), ~pred.astype(bool)
            yes, no = y.astype(bool), ~y.astype(bool)
            per = np.stack([np.bincount(page_codes, weights=w * (a & b), minlength=len(page_ids))
                            for a, b in ((yes, hit), (no, hit), (yes, miss), (no, miss))], axis=1)
            for pid, k, c in zip(page_ids, page_fold, per):
                page_recs.append({"task": task, "method": name, "page_id": pid, "fold": int(k),
                                  **dict(zip(_COUNTS, c))})
    return pd.DataFrame(fold_recs), pd.DataFrame(page_recs)


def summarize(folds: pd.DataFrame, pages: pd.DataFrame, dataset: str,
              n_boot: int = DEFAULT_N_BOOT, alpha: float = DEFAULT_ALPHA,
              seed: int = 0) -> pd.DataFrame:
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
            rows.append(summary_row(dataset, method, f"{s}_{task}", fdf[s].mean(), lo, hi,
                                    len(sub)))
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- the experiment

def feature_task(pages: Sequence[Page], *, tasks, width, drop_inside
                 ) -> tuple[list[pd.DataFrame], list[dict[str, Any]]]:
    """The task the runner maps over a data set's pages: each page's unit rows, and a
    failure record for a page whose units cannot be read (the run goes on). Module
    level, so workers can run it."""
    frames, failures = [], []
    for page in pages:
        try:
            frames.append(_page_rows_of(page, tasks, width, drop_inside))
        except Exception as exc:  # noqa: BLE001 - a bad page is recorded, the run goes on
            failures.append({"dataset": page.dataset, "page": page.id, "method": "units_features",
                             "error": f"{type(exc).__name__}: {exc}"[:500]})
    return frames, failures


def _features(runner, ds, tasks, width, drop_inside, failures: list) -> pd.DataFrame:
    """Unit rows of every page of ``ds`` (computed by ``runner``); pages whose units cannot
    be read are appended to ``failures``."""
    task = functools.partial(feature_task, tasks=tasks, width=width, drop_inside=drop_inside)
    frames = []
    for got, failed in runner.map(task, runner.page_tasks(ds.pages()), desc=f"units {ds.name}",
                                  unit="page", count=lambda r: len(r[0]) + len(r[1])):
        frames += [f for f in got if len(f)]
        failures.extend(failed)
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True)


def _class_table(rows: pd.DataFrame, tasks) -> pd.DataFrame:
    fine = rows["fine"].fillna("none")
    total = rows["weight"].sum()
    out = (rows.assign(fine=fine).groupby("fine", sort=True)
           .agg(units=("weight", "size"), words=("weight", "sum")).reset_index())
    out["words"] = out["words"].astype(int)
    out["word_share"] = (out["words"] / total).round(4)
    spans = rows["by_span"].any()
    for t, cls in tasks.items():
        out[f"content_in_{t}"] = out["fine"].isin(list(cls) if spans else [CONTENT])
    return out


def run(ctx: Context) -> pd.DataFrame | None:
    opts = ctx.section("units")
    tasks = {str(k): tuple(v) for k, v in (opts.get("tasks") or DEFAULT_TASKS).items()}
    classifiers = opts.get("classifiers") or DEFAULT_CLASSIFIERS
    for spec in classifiers.values():
        feature_columns(spec)  # unknown features fail before any parsing
    width = int(opts.get("line_width", DEFAULT_LINE_WIDTH))
    drop_inside = tuple(opts.get("drop_inside", DEFAULT_DROP_INSIDE) or ())
    n_folds = int(opts.get("folds", DEFAULT_FOLDS))
    seed = int(opts.get("seed", ctx.seed))
    summaries = []
    for label, ds in ctx.datasets.items():
        rows = _features(ctx.runner, ds, tasks, width, drop_inside, ctx.failures)
        if rows.empty:
            continue
        # without span classes every task has the same (aligned) labels: run the first only
        ds_tasks = tasks if rows["by_span"].any() else dict(list(tasks.items())[:1])
        folds, pages = cross_validate(
            rows, classifiers, list(ds_tasks), n_folds=n_folds, seed=seed,
            min_samples_leaf=int(opts.get("min_samples_leaf", DEFAULT_MIN_SAMPLES_LEAF)),
            criterion=str(opts.get("criterion", "entropy")),
            train_weight=str(opts.get("train_weight", "words")))
        summary = summarize(folds, pages, label, n_boot=int(opts.get("n_boot", DEFAULT_N_BOOT)),
                            alpha=float(opts.get("alpha", DEFAULT_ALPHA)), seed=seed)
        summaries.append(summary)
        ctx.per_page.append(pages.assign(experiment="units", dataset=label))
        ctx.dataset_info.setdefault(label, {"reader": type(ds).__name__, "path": ds.path})
        ctx.dataset_info[label]["units"] = {"n_pages": int(rows["page_id"].nunique()),
                                            "n_units": len(rows),
                                            "n_words": int(rows["weight"].sum())}
        _outputs(ctx, label, rows, folds, summary, ds_tasks, opts)
    return pd.concat(summaries, ignore_index=True) if summaries else None


def _outputs(ctx: Context, label, rows, folds, summary, tasks, opts) -> None:
    from evalkit.plots import bar_prf
    from evalkit.results import write_csv
    from evalkit.tables import to_markdown, wide_table, write_table

    tdir, fdir = ctx.out / "tables", ctx.out / "figures"
    classes = _class_table(rows, tasks)
    write_table(classes, tdir / f"units_{label}_classes",
                caption=f"Units with at least one word on {label}, by gold class")
    write_csv(folds, tdir / f"units_{label}_folds.csv")
    ctx.report += [f"## Unit classification on {label}", "",
                   (f"{rows['page_id'].nunique()} pages, {len(rows)} units, "
                    f"{int(rows['weight'].sum())} words; {opts.get('folds', DEFAULT_FOLDS)}-fold "
                    "cross-validation grouped by page; word-weighted scores, mean over folds "
                    "[95% page bootstrap within folds]."), "", to_markdown(classes)]
    spans = bool(rows["by_span"].any())
    for task, cls in tasks.items():
        what = "+".join(cls) if spans else "units aligned with the gold text"
        metrics = [f"{s}_{task}" for s in SCORE_NAMES]
        table = wide_table(summary, metrics, dataset=label)
        table.columns = [c.removesuffix(f"_{task}") for c in table.columns]
        caption = f"Unit classification on {label}, content = {what}"
        write_table(table, tdir / f"units_{label}_{task}", caption=caption)
        stem = f"units_{label}_{task}_prf"
        bar_prf(summary, fdir / stem, label, metrics=tuple(metrics[:3]),
                title=f"{label}: content = {what}, word-weighted P/R/F1")
        ctx.report += [f"### {caption}", "", to_markdown(table), f"![P/R/F1](figures/{stem}.png)",
                       ""]
    paper = opts.get("paper")
    if paper and paper["task"] in tasks:
        long = paper_rows(summary, paper, label)
        table = paper_table(long)
        write_csv(long, tdir / f"units_{label}_paper_long.csv")
        write_table(table, tdir / f"units_{label}_paper",
                    caption=f"{paper.get('source', 'paper')} beside evalkit on {label} "
                            f"(task {paper['task']}, percent)")
        stem = f"units_{label}_paper_f1"
        _paper_figure(long, fdir / stem, label, paper)
        ctx.report += [f"### {paper.get('source', 'Paper')} beside ours (task {paper['task']})",
                       "", to_markdown(table), f"![paper vs ours](figures/{stem}.png)", ""]


def paper_rows(summary: pd.DataFrame, paper: Mapping[str, Any], dataset: str) -> pd.DataFrame:
    """The paper's numbers beside ours, long format, in percent.

    ``paper``: ``task`` (which task the paper's numbers belong to),
    ``metrics`` (score names, in the order of each row's values) and ``rows``
    (``{our classifier name: {row: the paper's row name, values: [...]}}``).
    Columns: paper row, method, metric, paper, ours, ours_low, ours_high
    (NaN where we have no such classifier).
    """
    task, metrics = paper["task"], list(paper["metrics"])
    df = summary[summary["dataset"] == dataset].set_index(["method", "metric"])
    out = []
    for method, row in paper["rows"].items():
        row_name = row.get("row", method)
        values = list(row["values"])
        if len(values) != len(metrics):
            raise ValueError(f"paper row {row_name!r} has {len(values)} values for "
                             f"{len(metrics)} metrics {metrics}")
        for m, v in zip(metrics, values):
            key = (method, f"{m}_{task}")
            ours = df.loc[key] if key in df.index else None
            out.append({"paper row": row_name, "method": method, "metric": m,
                        "paper": float(v),
                        **{k: 100 * float(ours[c]) if ours is not None else np.nan
                           for k, c in (("ours", "value"), ("ours_low", "ci_low"),
                                        ("ours_high", "ci_high"))}})
    return pd.DataFrame(out)


def paper_table(long: pd.DataFrame) -> pd.DataFrame:
    """One row per paper row: ``<metric> paper`` and ``<metric> ours`` (with interval) columns."""
    from evalkit.tables import format_cell

    out = []
    for row_name, df in long.groupby("paper row", sort=False):
        rec = {"paper row": row_name, "method": df["method"].iloc[0]}
        for r in df.itertuples(index=False):
            rec[f"{r.metric} paper"] = f"{r.paper:.1f}"
            rec[f"{r.metric} ours"] = format_cell(r.ours, r.ours_low, r.ours_high, digits=1)
        out.append(rec)
    return pd.DataFrame(out)


def _paper_figure(long: pd.DataFrame, stem, dataset: str, paper) -> None:
    import matplotlib.pyplot as plt

    from evalkit.plots import save

    metric = list(paper["metrics"])[-1]
    df = long[long["metric"] == metric]
    ours = df["ours"].to_numpy(float)
    err = np.vstack([np.clip(ours - df["ours_low"].to_numpy(float), 0, None),
                     np.clip(df["ours_high"].to_numpy(float) - ours, 0, None)])
    x = np.arange(len(df))
    fig, ax = plt.subplots(figsize=(max(6.0, 0.9 * len(df) + 2), 4.2))
    ax.bar(x - 0.2, df["paper"].to_numpy(float), 0.4, label="paper")
    ax.bar(x + 0.2, ours, 0.4, yerr=np.nan_to_num(err), capsize=3, label="evalkit (95% CI)")
    ax.set_xticks(x, df["paper row"], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel(f"{metric.replace('_', ' ')} (%)")
    ax.set_xlabel("classifier (the paper's row)")
    ax.set_ylim(0, 100)
    ax.set_title(f"{dataset}: {paper.get('source', 'paper')} vs evalkit, task {paper['task']}")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    save(fig, stem)
