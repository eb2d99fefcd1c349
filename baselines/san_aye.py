"""San & Aye's whole pipeline: jusText-style cleaning, cosine duplicate removal, block importance.

Reference: Pan Ei San and Nilar Aye, "Noise Block Cleaning and Main Content Block
Extraction from Dynamic Web Page" (docs/papers.md#san-aye), §4.1.1-4.1.3,
Algorithm 1 and Equations 2-7. The first half of the method, the noise cleaning
of §4.1.1-4.1.2 (Pomikálek's jusText, which the paper summarises), is the same
code as the ``justext_style`` baseline (:mod:`evalkit.core.paragraphs`); this module adds
the second half, §4.1.3 "Exaction Important Block".

Stages, one function each:

1. cleaning (:func:`clean`): segment into paragraphs, classify them context-free
   (Algorithm 1) and by context; the paragraphs classified good are the
   "noiseless blocks".
2. keywords (:func:`keyword_vector`): a block's keywords are its lower-cased
   ``\\w+`` words that are not all digits, stop words (the cleaning's stop list) left out;
   a block is the vector of its keyword frequencies ("weight of keywords").
3. duplicate removal (:func:`remove_duplicates`, Eq. 2): a noiseless block whose
   cosine similarity with an earlier kept one is at least ``duplicate_threshold``
   is removed as its duplicate.
4. sub-block weight (:func:`sub_block_weight`, Eq. 3) of every remaining block:
   ``alpha * T_k + beta * K_f + gamma * PF_s`` from title word relevancy
   (:func:`title_relevancy`, Eq. 4), keyword frequency (:func:`keyword_frequency`,
   Eq. 5) and the position feature (:func:`position_feature`, Eq. 6).
5. main blocks (:func:`main_blocks`, Eq. 7): the remaining blocks grouped into main
   blocks, each weighted ``alpha * sum of its sub-block weights``; the output is the
   heaviest main block ("the system displays the main content block to the user").

The paper gives no values for alpha, beta and gamma, no cosine threshold and no
definition of a main block; each is a named setting below whose default is the
most literal reading we found (docs/methods/san_aye.md quotes the sentences).

Where this departs from the paper
---------------------------------
- Cleaning: jusText's heuristic classifier (the paper's Algorithm 1 and its
  context-sensitive revision), not the decision tree of the paper's example; the
  same departures as ``justext_style`` (docs/methods/justext_style.md).
- "Duplicate" (no threshold in the paper): ``duplicate_threshold=1.0``, cosine
  similarity 1 (the same keywords in the same proportions; order, case, stop words
  and punctuation may differ). The earlier block of a pair is kept.
- Eq. 5's ``N`` ("the total number of words on the web page") is the number of
  white-space words of all the page's paragraphs after preprocessing
  (``keyword_total="page"``); ``"blocks"`` takes the noiseless blocks' words.
- Eq. 6: the printed case ``1 if 0.7 >= T`` contradicts the prose ("if the ratio
  ... is greater than or equal to 0.7, then the region is recognized as the data
  region"); ``position_rule="at_least"`` follows the prose, ``"at_most"`` the
  formula. T counts keyword occurrences: the block's over the page's paragraphs'.
  No rendering: "horizontally centered" is not tested.
- Eq. 7: a "main block" is read as a run of consecutive noiseless paragraphs
  (``main_block="run"``: the runs jusText's context revision produces); a
  duplicate removed inside a run does not split it. ``select="all"`` keeps every
  remaining block instead of the heaviest main block (the pipeline without its
  last step, for the ablation). Ties go to the earlier main block.
- Eq. 4 with no title keyword (``m_k = 0``) gives ``T_k = 0``.
"""

from __future__ import annotations

import math
from collections import Counter

from evalkit.core.block import PREVIEW_CHARS, Block
from evalkit.core.method import Extractor
from evalkit.core.page import Extraction, Page
from evalkit.core.paragraphs import (
    DEFAULT_LENGTH_HIGH,
    DEFAULT_LENGTH_LOW,
    DEFAULT_MAX_HEADING_DISTANCE,
    DEFAULT_MAX_LINK_DENSITY,
    DEFAULT_STOPLIST,
    DEFAULT_STOPWORDS_HIGH,
    DEFAULT_STOPWORDS_LOW,
    GOOD,
    Paragraph,
    check_cleaning,
    classify_context_free,
    make_paragraphs,
    preprocess,
    revise,
)
from evalkit.core.text import stopwords, terms, terms_many
from evalkit.core.validate import (
    check_choice,
    check_int,
    check_number,
    check_share,
)

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_BETA",
    "DEFAULT_DUPLICATE_THRESHOLD",
    "DEFAULT_GAMMA",
    "DEFAULT_POSITION_THRESHOLD",
    "DEFAULT_TOP_K",
    "SanAye",
    "clean",
    "cosine",
    "keyword_frequency",
    "keyword_vector",
    "main_blocks",
    "position_feature",
    "remove_duplicates",
    "sub_block_weight",
    "title_relevancy",
]

#: Eq. 2: cosine similarity from which a block duplicates an earlier one (the paper: none)
DEFAULT_DUPLICATE_THRESHOLD = 1.0
#: Eq. 5: "the top-K keywords of each and every block"; "f_k = Frequency of Top ten keywords"
DEFAULT_TOP_K = 10
#: Eq. 6: "the threshold of the ratio is set at 0.7"
DEFAULT_POSITION_THRESHOLD = 0.7
#: Eq. 3: "Where gamma, beta and alpha are constants" (no values given): equal weights
DEFAULT_ALPHA = 1.0
DEFAULT_BETA = 1.0
DEFAULT_GAMMA = 1.0
#: cosine values this close below the threshold count as reaching it (float rounding)
_COSINE_EPS = 1e-12

KEYWORD_TOTALS = ("page", "blocks")
POSITION_RULES = ("at_least", "at_most")
MAIN_BLOCKS = ("run",)
SELECTS = ("best_main_block", "all")


def clean(page: Page, stoplist: str, **thresholds) -> tuple[list[Paragraph], str]:
    """Stage 1: the page's paragraphs, classified (``cls`` good or bad), and its title.

    ``thresholds`` are :func:`evalkit.core.paragraphs.classify_context_free`'s keywords plus
    ``max_heading_distance`` and ``heading_pass_bug_compatible`` for the revision.
    """
    root = page.tree(plain=True)
    title = " ".join(" ".join(el.itertext()) for el in root.iter("title"))
    paras = make_paragraphs(preprocess(root))
    revision = {
        k: thresholds.pop(k) for k in ("max_heading_distance", "heading_pass_bug_compatible")
    }
    classify_context_free(paras, stopwords(stoplist), **thresholds)
    revise(paras, **revision)
    return paras, title


def keyword_vector(text: str, stoplist: str) -> Counter:
    """Stage 2: keyword -> frequency in ``text`` (lower-cased words that are not all digits,
    no stop words, no stemming)."""
    return Counter(terms(text, stoplist=stoplist, stemmer="none"))


def cosine(a: Counter, b: Counter) -> float:
    """Eq. 2: ``|a . b| / (|a| |b|)``; 0 when either block has no keyword."""
    if not a or not b:
        return 0.0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    dot = sum(v * large.get(k, 0) for k, v in small.items())
    norm = math.sqrt(sum(v * v for v in a.values())) * math.sqrt(sum(v * v for v in b.values()))
    return dot / norm


def remove_duplicates(
    vectors: list[Counter], threshold: float = DEFAULT_DUPLICATE_THRESHOLD
) -> list[tuple[int, float] | None]:
    """Stage 3: for each block, ``(index of the earlier kept block it duplicates, cosine)``
    or None. A block duplicates the first earlier kept block with cosine (Eq. 2,
    :func:`cosine`) >= ``threshold``. Dot products run over an index of the kept blocks'
    keywords, so only blocks that share a keyword are compared (not every pair)."""
    out: list[tuple[int, float] | None] = []
    index: dict[str, list[tuple[int, int]]] = {}  # keyword -> (kept block, frequency)
    norms: dict[int, float] = {}
    for i, vec in enumerate(vectors):
        norm = math.sqrt(sum(v * v for v in vec.values()))
        dots: dict[int, float] = {}
        for key, v in vec.items():
            for j, w in index.get(key, ()):
                dots[j] = dots.get(j, 0.0) + v * w
        hit = None
        for j in sorted(dots):
            sim = dots[j] / (norm * norms[j])
            if sim >= threshold - _COSINE_EPS:
                hit = (j, sim)
                break
        out.append(hit)
        if hit is None and vec:
            norms[i] = norm
            for key, v in vec.items():
                index.setdefault(key, []).append((i, v))
    return out


def title_relevancy(vector: Counter, title_keywords: set[str]) -> float:
    """Eq. 4: ``T_k = 1 - m_k / (m_k + sum_i F_i)``, ``m_k`` the number of title keywords,
    ``F_i`` the frequency of title keyword i in the block; 0 without title keywords."""
    m = len(title_keywords)
    if m == 0:
        return 0.0
    hits = sum(vector.get(k, 0) for k in title_keywords)
    return 1.0 - m / (m + hits)


def keyword_frequency(vector: Counter, n_words: int, top_k: int = DEFAULT_TOP_K) -> float:
    """Eq. 5: ``K_f = sum_{k=1..K} f_k / N``, ``f_k`` the frequencies of the block's top-K
    keywords (most frequent first; ties by first occurrence), ``N`` the page's words."""
    if n_words <= 0:
        return 0.0
    return sum(f for _, f in vector.most_common(top_k)) / n_words


def position_feature(
    block_keywords: int,
    page_keywords: int,
    threshold: float = DEFAULT_POSITION_THRESHOLD,
    rule: str = "at_least",
) -> tuple[int, float]:
    """Eq. 6: ``(PF_s, T)`` with ``T`` = the block's keywords / the page's keywords;
    ``PF_s = 1`` when ``T >= threshold`` (``rule="at_least"``, the prose) or
    ``T <= threshold`` (``"at_most"``, the printed formula), else 0."""
    ratio = block_keywords / page_keywords if page_keywords else 0.0
    hit = ratio >= threshold if rule == "at_least" else ratio <= threshold
    return int(hit), ratio


def sub_block_weight(
    tk: float,
    kf: float,
    pfs: float,
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
    gamma: float = DEFAULT_GAMMA,
) -> float:
    """Eq. 3: ``B_W' = alpha * T_k + beta * K_f + gamma * PF_s``."""
    return alpha * tk + beta * kf + gamma * pfs


def main_blocks(noiseless: list[bool]) -> list[list[int]]:
    """Stage 5's grouping: runs of consecutive noiseless paragraphs (indices), in order."""
    runs: list[list[int]] = []
    previous = False
    for i, good in enumerate(noiseless):
        if good:
            if previous:
                runs[-1].append(i)
            else:
                runs.append([i])
        previous = good
    return runs


class SanAye(Extractor):
    """San & Aye: jusText-style cleaning, cosine duplicate removal, block importance.

    The cleaning parameters are ``justext_style``'s (the same defaults); the others are
    the settings of the module docstring. Block records, one per paragraph in document
    order, tag ``#paragraph``: ``kept``; ``stage``/``rule`` of the step that removed it
    (``cleaning``/``jusText``, ``dedup``/``cosine``, ``importance``/``main_block``);
    ``duplicate_of``; ``scores``: ``link_density``, ``stopword_density`` and, for the
    noiseless blocks, ``cosine`` (duplicates), ``tk``, ``kf``, ``pfs``, ``t_ratio``,
    ``weight`` (Eq. 3), ``main_block`` and ``main_weight`` (Eq. 7).
    """

    name = "san_aye"

    def __init__(
        self,
        length_low: int = DEFAULT_LENGTH_LOW,
        length_high: int = DEFAULT_LENGTH_HIGH,
        stopwords_low: float = DEFAULT_STOPWORDS_LOW,
        stopwords_high: float = DEFAULT_STOPWORDS_HIGH,
        max_link_density: float = DEFAULT_MAX_LINK_DENSITY,
        max_heading_distance: int = DEFAULT_MAX_HEADING_DISTANCE,
        no_headings: bool = False,
        stoplist: str = DEFAULT_STOPLIST,
        heading_pass_bug_compatible: bool = False,
        duplicate_threshold: float = DEFAULT_DUPLICATE_THRESHOLD,
        top_k: int = DEFAULT_TOP_K,
        keyword_total: str = "page",
        position_threshold: float = DEFAULT_POSITION_THRESHOLD,
        position_rule: str = "at_least",
        alpha: float = DEFAULT_ALPHA,
        beta: float = DEFAULT_BETA,
        gamma: float = DEFAULT_GAMMA,
        main_block: str = "run",
        select: str = "best_main_block",
    ):
        self.length_low = length_low
        self.length_high = length_high
        self.stopwords_low = stopwords_low
        self.stopwords_high = stopwords_high
        self.max_link_density = max_link_density
        self.max_heading_distance = max_heading_distance
        self.no_headings = no_headings
        self.stoplist = stoplist
        self.heading_pass_bug_compatible = heading_pass_bug_compatible
        self.duplicate_threshold = duplicate_threshold
        self.top_k = top_k
        self.keyword_total = keyword_total
        self.position_threshold = position_threshold
        self.position_rule = position_rule
        self.alpha = alpha
        self.beta = beta
        self.gamma = gamma
        self.main_block = main_block
        self.select = select
        self.validate()

    def _validate(self) -> None:
        check_cleaning(self)
        check_number(
            "duplicate_threshold", self.duplicate_threshold, low=0.0, high=1.0, low_open=True
        )
        check_int("top_k", self.top_k, low=1)
        check_choice("keyword_total", self.keyword_total, KEYWORD_TOTALS)
        check_share("position_threshold", self.position_threshold)
        check_choice("position_rule", self.position_rule, POSITION_RULES)
        for key in ("alpha", "beta", "gamma"):
            check_number(key, getattr(self, key), low=0.0)
        check_choice("main_block", self.main_block, MAIN_BLOCKS)
        check_choice("select", self.select, SELECTS)

    def versions(self) -> dict[str, str]:
        if self.stoplist != "justext_english":
            return {}
        from importlib.metadata import version

        return {"justext": version("justext")}  # its stop list is data this method uses

    def extract(self, page: Page) -> Extraction:
        stoplist = self.stoplist
        paras, title = clean(
            page,
            stoplist,
            length_low=self.length_low,
            length_high=self.length_high,
            stopwords_low=self.stopwords_low,
            stopwords_high=self.stopwords_high,
            max_link_density=self.max_link_density,
            no_headings=self.no_headings,
            max_heading_distance=self.max_heading_distance,
            heading_pass_bug_compatible=self.heading_pass_bug_compatible,
        )
        good = [i for i, p in enumerate(paras) if p.cls == GOOD]
        # every paragraph's keywords at once: the good ones' vectors and Eq. 6's page total
        keywords = terms_many([p.text for p in paras], stoplist=stoplist, stemmer="none")
        vectors = {i: Counter(keywords[i]) for i in good}
        dups = {
            i: None if d is None else (good[d[0]], d[1])
            for i, d in zip(
                good, remove_duplicates([vectors[i] for i in good], self.duplicate_threshold)
            )
        }
        kept = [i for i in good if dups[i] is None]
        # Eq. 4-6 need the page's totals
        counted = paras if self.keyword_total == "page" else [paras[i] for i in good]
        n_words = sum(p.text.count(" ") + 1 for p in counted)
        page_keywords = sum(map(len, keywords))
        title_keywords = set(keyword_vector(title, stoplist))
        parts = {}
        for i in kept:
            vec = vectors[i]
            tk = title_relevancy(vec, title_keywords)
            kf = keyword_frequency(vec, n_words, self.top_k)
            pfs, ratio = position_feature(
                sum(vec.values()), page_keywords, self.position_threshold, self.position_rule
            )
            parts[i] = (
                tk,
                kf,
                pfs,
                ratio,
                sub_block_weight(tk, kf, pfs, self.alpha, self.beta, self.gamma),
            )
        # Eq. 7 over the runs of noiseless paragraphs; duplicates stay in their run, unweighted
        is_good = [p.cls == GOOD for p in paras]
        runs = main_blocks(is_good)
        run_of, run_weight = {}, []
        for r, run in enumerate(runs):
            run_weight.append(self.alpha * sum(parts[i][4] for i in run if i in parts))
            run_of.update((i, r) for i in run)
        best = max(range(len(runs)), key=lambda r: (run_weight[r], -r)) if runs else None
        chosen = {i for i in kept if self.select == "all" or run_of[i] == best}
        blocks = [
            self._block(i, p, dups.get(i), parts.get(i), run_of, run_weight, chosen)
            for i, p in enumerate(paras)
        ]
        out = [paras[i].text for i in sorted(chosen)]
        return Extraction(
            text="\n".join(out),
            blocks=blocks,
            info={
                "paragraphs": len(paras),
                "noiseless": len(good),
                "duplicates": len(good) - len(kept),
                "main_blocks": len(runs),
                "kept": len(out),
                "best_main_block": -1 if best is None else best,
            },
        )

    @staticmethod
    def _block(i, p, dup, part, run_of, run_weight, chosen) -> Block:
        text, chars = p.text, len(p.text)
        scores = {"link_density": round(p.link_chars / chars if chars else 0.0, 4)}
        stage = rule = None
        if p.cls != GOOD:
            stage, rule = "cleaning", "jusText"
        elif dup is not None:
            stage, rule = "dedup", "cosine"
            scores["cosine"] = round(dup[1], 4)
        elif i not in chosen:
            stage, rule = "importance", "main_block"
        if part is not None:
            tk, kf, pfs, ratio, weight = part
            scores.update(
                tk=round(tk, 4),
                kf=round(kf, 4),
                pfs=pfs,
                t_ratio=round(ratio, 4),
                weight=round(weight, 4),
            )
        if i in run_of:
            scores.update(main_block=run_of[i], main_weight=round(run_weight[run_of[i]], 4))
        return Block(
            i,
            "#paragraph",
            text=text[:PREVIEW_CHARS],
            words=text.count(" ") + 1,
            kept=i in chosen,
            stage=stage,
            rule=rule,
            duplicate_of=None if dup is None else dup[0],
            scores=scores,
            attrs={"cf_class": p.cf_class, "class": p.cls},
        )
