"""``experiment=crawl``: extractors compared on crawled pages without gold (issue 41, item 3).

Every method of the run extracts every page of each data set (a WARC folder:
``dataset=warc``, evalkit.readers.warc; any other set works too, its gold unread). Per
(page, method) record (evalkit.experiments.crawl.records): ``n_words_out`` (white-space
words), ``has_output`` (``n_words_out >= crawl.min_words``), ``n_tokens`` (tokens of the
agreement metric), ``language`` and ``language_prob`` of the output
(evalkit.metrics.language: ``und`` when too short or unsure), ``agree_<m>`` (the agreement
with each method ``m`` scored before it on the page), and on the last method of
``crawl.union`` the page's ``union_tokens`` and ``intersection_tokens``.

**Agreement** of A and B on a page is the bag-of-words F1 of A's output against B's as gold,
``2 |A ∩ B| / (|A| + |B|)`` over token multisets, hence symmetric; tokens as
``crawl.agreement_metric`` says (``word``: the word family's white-space tokens, case kept;
``wcxb``: WCXB's lower-cased ``\\w+``). Both outputs empty: undefined (NaN, the page left out
of the pair's mean); one empty: 0. **Union / intersection** of the methods of
``crawl.union``: the multiset union (each token as often as the output holding it most) and
intersection (least) of their tokens per page, a failed output counting as empty.

Tables (``tables/crawl_<kind>_<set>``): ``yield`` (pages, failures, share with output, words
per page mean / median / p90, total), ``languages`` (share of each method's outputs in the
``crawl.top_languages`` commonest languages, ``other``, ``und``), ``agreement`` (method x
method mean F1), ``union``. Figures: ``crawl_agreement_<set>``, ``crawl_yield_<set>``.
summary.csv rows per method: ``failures``, ``output_share``, ``words_mean``,
``words_median``, ``words_p90``, ``words_total``, ``tokens_total``, ``language_<code>``,
``agreement_<other method>``, ``union_share``; methods ``union`` and ``intersection``:
``tokens_mean``, ``tokens_total``. experiments/crawl/README.md tells how to read them.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from importlib import metadata

import pandas as pd

from evalkit.core.validate import ParamError, check_choice, check_int
from evalkit.experiments import Context
from evalkit.experiments.crawl.records import AGREE, AGREEMENT_METRICS, page_scorer
from evalkit.experiments.crawl.tally import COLUMNS, INTERSECTION, UNION, Tally
from evalkit.experiments.studies import show
from evalkit.harness.config import ConfigError
from evalkit.report.filenames import file_stem
from evalkit.report.sections import Figure, Heading, Table, Text
from evalkit.report.tables import write_table

__all__ = ["DEFAULTS", "CrawlSettings", "run", "settings"]

#: the settings of the ``crawl`` section and their defaults (configs/experiment/crawl.yaml)
DEFAULTS = {"min_words": 1, "agreement_metric": "word", "top_languages": 5, "union": None}


@dataclass(frozen=True)
class CrawlSettings:
    min_words: int
    agreement_metric: str
    top_languages: int
    #: the methods whose union and intersection are measured, in run order
    union: tuple[str, ...]


def settings(ctx: Context) -> CrawlSettings:
    """The ``crawl`` section, checked: one line naming the key (``crawl.min_words=-1: ...``)."""
    opts = {**DEFAULTS, **(ctx.section("crawl") or {})}
    labels = [spec.label for spec in ctx.specs]
    try:
        check_int("min_words", opts["min_words"], low=0)
        check_choice("agreement_metric", opts["agreement_metric"], tuple(AGREEMENT_METRICS))
        check_int("top_languages", opts["top_languages"], low=0)
        union = opts["union"]
        if union is None:
            union = labels
        elif not isinstance(union, (list, tuple)) or not union:
            raise ParamError("union", union, "must be a non-empty list of method names or null")
        unknown = [m for m in union if m not in labels]
        if unknown:
            raise ParamError(
                "union",
                union,
                f"names a method the run does not run ({unknown[0]}); "
                f"run methods: {', '.join(labels)}",
            )
    except ParamError as exc:
        raise ConfigError(exc.under("crawl")) from None
    for name in (UNION, INTERSECTION):
        if name in labels:
            raise ConfigError(
                f"method {name!r}: experiment=crawl names its union rows so; rename the method"
            )
    chosen = set(union)
    return CrawlSettings(
        min_words=int(opts["min_words"]),
        agreement_metric=str(opts["agreement_metric"]),
        top_languages=int(opts["top_languages"]),
        union=tuple(m for m in labels if m in chosen),
    )


def _langid_version() -> str | None:
    try:
        return metadata.version("py3langid")
    except metadata.PackageNotFoundError:
        return None


def _num(x: float, digits: int = 3) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _console(tally: Tally) -> pd.DataFrame:
    """One row per method: share with output, words per page, top language, mean agreement
    with the other methods, failures."""
    rows = []
    for m in tally.methods:
        t, w = tally.by_method[m], tally.words(m)
        langs = t.languages.most_common()
        top = min(langs, key=lambda kv: (-kv[1], kv[0])) if langs else None
        total = sum(t.languages.values())
        others = [tally.agreement(m, o)[0] for o in tally.methods if o != m]
        others = [v for v in others if not math.isnan(v)]
        rows.append(
            {
                "method": m,
                "with output": _num(t.with_output / t.known if t.known else math.nan),
                "words/page": _num(w["mean"], 1),
                "median": _num(w["median"], 1),
                "top language": f"{top[0]} {top[1] / total:.2f}" if top else "-",
                "agreement": _num(sum(others) / len(others) if others else math.nan),
                "failures": f"{t.failures}/{t.records}",
            }
        )
    return pd.DataFrame(rows)


def _report(ctx: Context, label: str, tally: Tally, s: CrawlSettings, n_pages: int) -> None:
    """Tables, figures, report sections and the console table of one data set."""
    from evalkit.experiments.crawl.figures import agreement_heatmap, yield_bars

    stem = file_stem(label)
    tables = ctx.out / "tables"
    yields = tally.yield_table()
    cap_yield = (
        f"Yield per method on {label} ({n_pages} pages): share of pages with at least "
        f"{s.min_words} word(s) of output, words kept per page (white-space words), failures"
    )
    write_table(yields, tables / f"crawl_yield_{stem}", caption=cap_yield)
    langs = tally.language_table(s.top_languages)
    cap_lang = (
        f"Language of each method's output on {label}: share of its outputs in the "
        f"{s.top_languages} commonest languages, the others pooled, und = too short or unsure"
    )
    write_table(langs, tables / f"crawl_languages_{stem}", caption=cap_lang)
    agree = tally.agreement_table()
    cap_agree = (
        f"Agreement between methods on {label}: mean per-page {s.agreement_metric} F1 of one "
        "output against the other (symmetric; pages where both are empty left out)"
    )
    write_table(agree, tables / f"crawl_agreement_{stem}", caption=cap_agree)
    union = tally.union_table()
    cap_union = (
        f"Union and intersection yield on {label} of {', '.join(s.union)}: "
        f"{s.agreement_metric} tokens per page of each output, of their multiset union and "
        "intersection (a failed output counts as empty)"
    )
    write_table(union, tables / f"crawl_union_{stem}", caption=cap_union)

    fig_agree = f"figures/crawl_agreement_{stem}"
    agreement_heatmap(
        tally.methods, tally.agreement_matrix(), ctx.out / fig_agree, label, s.agreement_metric
    )
    fig_yield = f"figures/crawl_yield_{stem}"
    words = [tally.words(m) for m in tally.methods]
    yield_bars(
        tally.methods,
        [c.value for c in yields["with output"]],
        [w["mean"] for w in words],
        [w["median"] for w in words],
        ctx.out / fig_yield,
        label,
    )
    ctx.report += [
        Heading(f"Crawl: {label}"),
        Text(f"{cap_yield}."),
        Table(yields),
        Figure(f"{fig_yield}.png", f"yield per method on {label}"),
        Text(f"{cap_lang}."),
        Table(langs),
        Text(f"{cap_agree}."),
        Table(agree),
        Figure(f"{fig_agree}.png", f"agreement between methods on {label}"),
        Text(f"{cap_union}."),
        Table(union),
    ]
    show(
        ctx,
        _console(tally),
        f"{label} ({n_pages} pages): yield, language and agreement ({s.agreement_metric} F1)",
    )


def run(ctx: Context) -> pd.DataFrame | None:
    s = settings(ctx)
    labels = [spec.label for spec in ctx.specs]
    score = page_scorer(min_words=s.min_words, metric=s.agreement_metric, union=s.union)
    ctx.scoring["crawl"] = {
        "agreement_metric": s.agreement_metric,
        "min_words": s.min_words,
        "py3langid": _langid_version(),
    }
    out = []
    for label, ds in ctx.datasets.items():
        spill = ctx.stream_records("crawl", label, ds, score)
        if not spill.n_records:
            print(
                f"evalkit: crawl: data set {label!r} gave no page (a folder of WARC files is "
                "read by dataset=warc dataset.warc.path=DIR)",
                file=sys.stderr,
            )
            continue
        ctx.record_pages(spill.frame(["page_id", "method", "error"]), label, spill=spill)
        tally = Tally(labels, s.union)
        agree = [c for c in spill.columns if c.startswith(AGREE)]
        for chunk in spill.chunks(COLUMNS + agree):
            tally.add(chunk)
        n_pages = max((t.records for t in tally.by_method.values()), default=0)
        _report(ctx, label, tally, s, n_pages)
        out.append(pd.DataFrame(tally.summary_rows(label, s.top_languages)))
    return pd.concat(out, ignore_index=True) if out else None
