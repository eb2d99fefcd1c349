"""Blocks, the three block parameters, sketching selection and the hybrid hash: the shared core of
three *reconstructions* of systems the seed paper compares with.

Saravanan & Sathya Bama (2020, docs/papers.md#saravanan2020) compare their method with
"Existing 1" (P. Sivakumar, Wireless Personal Communications 84(1), 2015, the paper's [24]),
"Existing 2" (R. Uma & B. Latha, Cluster Computing, 2018, the paper's [25]) and the near-duplicate
detector "Hybridhash" of [25]. Neither publication could be read (a search found Sivakumar's
abstract and nothing of Uma & Latha's text), so each system is rebuilt from the seed paper's own
sentences (§2):

    "P.Sivakumar [24] proposed a framework to extract the relevant content by eliminating the
    noises present in the web page. The noises are removed using simhash algorithm and for each
    block, three parameters namely keyword redundancy (KR), linkword percentage (LP) and
    titleword relevancy (TR) are computed based on which the significant blocks are extracted
    using sketching algorithm. Uma and Latha [25] proposed a similar framework in which the
    hybrid hash is used instead of simhash and enhanced sketching algorithm is used for
    extracting the important contents."

    "Hybridhash is another similarity computation approach that works similar to Simhash
    algorithm however simhash works for real values of data but the Hybrid hash can work on
    binary vectors to find the similarity."

The pieces both extractors (``baselines.existing1``, ``baselines.existing2``) and the detector
(``baselines.hybridhash``) share live here, since no baseline imports another
(docs/floors.md). Every reading is a named setting of the method that uses it; the defaults
are the most literal reading of the sentences above (docs/methods/existing1.md,
docs/methods/existing2.md, docs/methods/detectors.md#hybridhash):

* **Blocks** (:func:`separate_blocks`): the seed paper's own block tags, ``<div>`` and
  ``<td>`` inside ``<body>`` (its §3.1; Sivakumar's abstract names a "Block Splitting
  Operation" without its tags). A block owns its subtree minus nested blocks, so every text
  node belongs to one block; text outside every div/td forms one residual block. Invisible
  elements (``evalkit.core.visible.INVISIBLE_TAGS``: script, style, iframe, object, ...) hold no
  block text.
* **Keyword redundancy** (:func:`keyword_redundancy`): ``"block"`` = the share of the block's
  keyword occurrences that repeat a keyword already met in the block, (n - d) / n;
  ``"page"`` = the share of its distinct keywords that also occur in another block. Keywords
  are index terms (``evalkit.core.text.terms``: stop words dropped, Porter stems).
* **Linkword percentage** (:func:`linkword_percentage`): 100 x words inside ``<a>`` / words.
* **Titleword relevancy** (:func:`titleword_relevancy`): ``"coverage"`` = the share of the
  page title's distinct terms the block contains; ``"eq5"`` = the seed paper's Eq. 5, title
  term occurrences in the block / distinct title terms.
* **Sketching** (:func:`sketch_select`): each block is sketched by the triple (KR, 1 - LP/100,
  TR), all "higher is more important"; its importance is their weighted mean (equal weights:
  the sentences give none) and a block is significant iff its importance reaches the page's
  threshold (``"mean"``: the mean importance of the candidate blocks, or a fixed number).
  **Enhanced sketching** min-max normalises each parameter over the page's candidate blocks
  before the mean, so that no parameter weighs by its scale alone.
* **Simhash** (:func:`simhash_fingerprint`): Charikar's simhash of the block's term
  frequencies, as ``baselines.simhash`` (``evalkit.core.fingerprint``, XXH64, near duplicate iff
  Hamming <= k = 3 of 64 bits, Manku et al. 2007).
* **Hybrid hash** (:func:`hybrid_fingerprint`): the same sign projection applied to the block's
  *binary* vector, the set of its terms (or k-term shingles, ``evalkit.core.termsets.features``),
  each with weight 1: the set representation of Jaccard/MinHash, hashed as simhash hashes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate, chain

import lxml.etree
import numpy as np

from evalkit.core.block import Block, preview
from evalkit.core.fingerprint import SUPPORTED_BITS, fingerprint, term_hash
from evalkit.core.page import Extraction, Page, PageError
from evalkit.core.termsets import features
from evalkit.core.text import STEMMERS, STOPLISTS, terms, terms_many
from evalkit.core.validate import ParamError, check_choice, check_int, check_number, check_str_list
from evalkit.core.visible import BLOCK_TAGS as LINE_TAGS
from evalkit.core.visible import INVISIBLE_TAGS, join_lines

__all__ = [
    "BLOCK_TAGS",
    "DEFAULT_BITS",
    "DEFAULT_K",
    "LINK_TAGS",
    "REDUNDANCY",
    "THRESHOLDS",
    "TITLE_RELEVANCY",
    "BlockParams",
    "PageBlock",
    "binary_vector",
    "binary_weights",
    "block_params",
    "block_terms",
    "extract_sketched",
    "fingerprints_many",
    "hybrid_fingerprint",
    "keyword_redundancy",
    "linkword_percentage",
    "near_duplicates",
    "page_title",
    "separate_blocks",
    "simhash_fingerprint",
    "sketch_select",
    "tf_weights",
    "titleword_relevancy",
    "validate_settings",
]

#: elements that delimit blocks (the seed paper's §3.1: "<DIV> and <TD> as block tags")
BLOCK_TAGS = ("div", "td")
#: elements whose words are link words
LINK_TAGS = ("a",)
#: fingerprint width and Hamming threshold of both hashes (64 bits, k = 3: the seed's §3.3)
DEFAULT_BITS = 64
DEFAULT_K = 3
#: readings of keyword redundancy: inside the block, or against the rest of the page
REDUNDANCY = ("block", "page")
#: readings of titleword relevancy: title-term coverage, or the seed paper's Eq. 5
TITLE_RELEVANCY = ("coverage", "eq5")
# lxml's walk events: comments and processing instructions come as their own, with their tails
_WALK_EVENTS = ("start", "end", "comment", "pi")
#: the named page-relative threshold of sketching (a number is a fixed threshold)
THRESHOLDS = ("mean",)


@dataclass(slots=True)
class PageBlock:
    """One block of a page: its element, its own text and its word counts.

    ``raw`` is the block's text pieces joined as they are (line breaks where block-level
    elements start and end, white space uncollapsed): enough for its words and keywords;
    ``text`` lays it out (``evalkit.core.visible.join_lines``), which only output needs.
    """

    index: int
    element: object
    tag: str
    path: str
    raw: str
    words: int
    link_words: int = 0
    residual: bool = False

    @property
    def text(self) -> str:
        """The block's text a line per block-level element, as ``element_text`` gives it."""
        return join_lines([self.raw])


@dataclass(slots=True)
class BlockParams:
    """The three parameters of one block (``kr`` and ``tr`` are shares, ``lp`` a percentage)."""

    kr: float
    lp: float
    tr: float


def page_title(root) -> str:
    """The text of the page's first ``<title>`` (empty when it has none)."""
    title = root.find(".//title")
    return " ".join("".join(title.itertext()).split()) if title is not None else ""


def separate_blocks(root, block_tags=BLOCK_TAGS) -> list[PageBlock]:
    """The blocks of a parsed page in document order, the residual block (text outside every
    div/td, when there is some) first; blocks without visible text are left out.

    One walk of the body (``lxml.etree.iterwalk``): every text piece goes to the block that owns it (its
    nearest div/td ancestor, else the residual block), laid out as
    ``evalkit.core.visible.element_text`` lays out text (a line per block-level element); the words
    of a piece under an ``<a>`` are link words of that block. Invisible elements
    (``evalkit.core.visible.INVISIBLE_TAGS``) and comments are skipped with their subtree, their
    tails kept. The tree is not changed.
    """
    body = root.find(".//body")
    if body is None:
        body = root
    tags = frozenset(t.lower() for t in block_tags)
    links, invisible, lines = frozenset(LINK_TAGS), INVISIBLE_TAGS, LINE_TAGS
    out: list[str] = []  # the pieces of the block that owns the text here
    parts: dict[int, list[str]] = {id(body): out}
    link_words: dict[int, int] = {id(body): 0}
    order = [body]  # block elements in document order, the body (residual) first
    key, link = id(body), 0  # the owning block, and how many links are open here
    stack: list = []  # per open element: (its parent's key and pieces, whether it ends a line)
    push, pop = stack.append, stack.pop
    walker = lxml.etree.iterwalk(body, events=_WALK_EVENTS)  # the tree walked in C
    for event, node in walker:
        if event == "start":
            tag = node.tag.lower()
            if tag in invisible and node is not body:
                walker.skip_subtree()  # no text of its own; its tail still comes at its end
                push((key, out, False, False))
                continue
            up_key, up_out = key, out
            if tag in tags and node is not body:
                key = id(node)
                out = parts[key] = []
                link_words[key] = 0
                order.append(node)
            is_link = tag in links
            if is_link:
                link += 1
            line = tag in lines
            push((up_key, up_out, line, is_link))
            if line:
                out.append("\n")
            text = node.text
            if text:
                out.append(text)
                if link:
                    link_words[key] += len(text.split())
            continue
        if event == "end":
            up_key, up_out, line, is_link = pop()
            if line:  # the element's line closes in its own block
                out.append("\n")
            if is_link:
                link -= 1
            key, out = up_key, up_out
            if node is body:  # the body's tail is outside the body
                break
        tail = node.tail  # an element's, comment's or processing instruction's
        if tail:
            out.append(tail)
            if link:
                link_words[key] += len(tail.split())
    tree = root.getroottree()
    blocks: list[PageBlock] = []
    for el in order:
        raw = "".join(parts[id(el)])
        words = len(raw.split())
        if not words:
            continue
        residual = el is body
        blocks.append(
            PageBlock(
                len(blocks),
                el,
                "#residual" if residual else el.tag.lower(),
                tree.getpath(el),
                raw,
                words,
                min(link_words[id(el)], words),
                residual,
            )
        )
    return blocks


def keyword_redundancy(
    block_terms: list[str], others: Counter | None = None, reading: str = "block"
) -> float:
    """KR of one block. ``"block"``: (n - d) / n for n keyword occurrences and d distinct
    keywords; ``"page"``: the share of its distinct keywords found in ``others`` (the keyword
    counts of the page's other blocks). 0.0 for a block without keywords."""
    if not block_terms:
        return 0.0
    distinct = set(block_terms)
    if reading == "block":
        return (len(block_terms) - len(distinct)) / len(block_terms)
    if reading == "page":
        others = others or Counter()
        return sum(1 for t in distinct if others[t] > 0) / len(distinct)
    raise ValueError(f"reading must be one of {REDUNDANCY}, got {reading!r}")


def linkword_percentage(words: int, link_words: int) -> float:
    """LP of one block: 100 x link words / words (0.0 for a block without words)."""
    return 100.0 * link_words / words if words else 0.0


def titleword_relevancy(
    block_terms: list[str], title_terms: set[str], reading: str = "coverage"
) -> float:
    """TR of one block. ``"coverage"``: distinct title terms in the block / distinct title
    terms; ``"eq5"``: title-term occurrences in the block / distinct title terms (the seed
    paper's Eq. 5, which can exceed 1). 0.0 when the title has no terms."""
    if not title_terms:
        return 0.0
    if reading == "coverage":
        return len(title_terms.intersection(block_terms)) / len(title_terms)
    if reading == "eq5":
        return sum(1 for t in block_terms if t in title_terms) / len(title_terms)
    raise ValueError(f"reading must be one of {TITLE_RELEVANCY}, got {reading!r}")


def block_params(
    blocks: list[PageBlock],
    block_terms: list[list[str]],
    title_terms: set[str],
    redundancy: str = "block",
    title_relevancy: str = "coverage",
) -> list[BlockParams]:
    """(KR, LP, TR) of each block; ``block_terms[i]`` are the keywords of ``blocks[i]``, and the
    ``"page"`` redundancy compares each block with the other blocks of this list."""
    page = Counter()
    if redundancy == "page":
        for seq in block_terms:
            page.update(set(seq))
    out = []
    for b, seq in zip(blocks, block_terms):
        others = None
        if redundancy == "page":
            others = page.copy()
            others.subtract(set(seq))
        out.append(
            BlockParams(
                kr=keyword_redundancy(seq, others, redundancy),
                lp=linkword_percentage(b.words, b.link_words),
                tr=titleword_relevancy(seq, title_terms, title_relevancy),
            )
        )
    return out


def _sketch(p: BlockParams) -> tuple[float, float, float]:
    """The block's sketch: (KR, 1 - LP/100, TR), every entry higher for a more important block."""
    return (p.kr, 1.0 - p.lp / 100.0, p.tr)


def _min_max(columns: list[list[float]]) -> list[list[float]]:
    """Each column scaled to [0, 1] by its min and max (a constant column becomes all 0)."""
    out = []
    for col in columns:
        lo, hi = min(col), max(col)
        out.append([(v - lo) / (hi - lo) if hi > lo else 0.0 for v in col])
    return out


def sketch_select(
    params: list[BlockParams],
    weights: tuple[float, float, float] = (1.0, 1.0, 1.0),
    threshold: str | float = "mean",
    enhanced: bool = False,
) -> tuple[list[bool], list[float], float | None]:
    """Which blocks sketching keeps: ``(keep, importance, threshold)``.

    Importance = the weighted mean of the sketch (KR, 1 - LP/100, TR) with ``weights`` in that
    order; ``enhanced`` min-max normalises each of the three over ``params`` first. A block is
    kept iff importance >= the threshold: the mean importance (``"mean"``) or a number.
    """
    if not params:
        return [], [], None
    rows = [_sketch(p) for p in params]
    columns = [list(col) for col in zip(*rows)]
    if enhanced:
        columns = _min_max(columns)
    total = sum(weights)
    importance = [
        sum(w * col[i] for w, col in zip(weights, columns)) / total for i in range(len(params))
    ]
    cut = sum(importance) / len(importance) if threshold == "mean" else float(threshold)
    # a hair of tolerance so that a block exactly at the mean is kept whatever the rounding
    keep = [v >= cut - 1e-12 for v in importance]
    return keep, importance, cut


def simhash_fingerprint(seq: list[str], bits: int = DEFAULT_BITS) -> int | None:
    """Charikar simhash of a block's term frequencies (None when it has no terms)."""
    weights = tf_weights(seq)
    return None if weights is None else fingerprint(weights, bits)


def hybrid_fingerprint(feats: frozenset[str] | set[str], bits: int = DEFAULT_BITS) -> int | None:
    """The hybrid hash: simhash's sign projection of a binary vector, each present feature with
    weight 1 (features sorted, so the sum is the same in every process). None when empty."""
    weights = binary_weights(feats)
    return None if weights is None else fingerprint(weights, bits)


def binary_vector(
    text: str, shingle: int = 1, stoplist: str = "english", stemmer: str = "porter"
) -> frozenset[str]:
    """The features set to 1 in a block's binary vector: its distinct terms, or k-term shingles
    (``evalkit.core.termsets.features``, as the Jaccard and MinHash detectors read a block)."""
    return features(text, shingle, stoplist, stemmer)


def tf_weights(seq: list[str]) -> dict[str, float] | None:
    """The simhash weights of a block: its term frequencies (None when it has no terms)."""
    return dict(Counter(seq)) if seq else None


def binary_weights(feats: frozenset[str] | set[str]) -> dict[str, float] | None:
    """The hybrid hash weights of a block: 1 for each feature of its binary vector, sorted
    (None when it has none)."""
    return dict.fromkeys(sorted(feats), 1.0) if feats else None


# term -> its xxHash as little-endian bytes, per width: the page pass joins them in C
_HASH_BYTES: dict[int, dict[str, bytes]] = {}
#: terms kept per width before the table starts again (as term_hash's cache, bounded)
HASH_TABLE_MAX = 400_000


def _hash_bytes(vocab, bits: int) -> bytes:
    """The hashes of ``vocab``'s terms (``evalkit.core.fingerprint.term_hash``), one after the other
    as ``bits // 8`` little-endian bytes each."""
    table = _HASH_BYTES.setdefault(bits, {})
    if len(table) > HASH_TABLE_MAX:
        table.clear()
    width = bits // 8
    for term in vocab:
        if term not in table:
            table[term] = term_hash(term, bits).to_bytes(width, "little")
    return b"".join(map(table.__getitem__, vocab))


def fingerprints_many(
    weights: list[dict[str, float] | None], bits: int = DEFAULT_BITS
) -> list[int | None]:
    """``evalkit.core.fingerprint.fingerprint`` of every block of a page in one pass (None stays None).

    Each distinct term of the page is hashed once (``term_hash``); every (block, term) pair adds
    its weight times the term's +-1 bit signs, summed per block. With the whole-number weights
    used here (frequencies, ones) the sums, and so the fingerprints, are exactly the one-block
    function's (tests/test_existing2.py checks it on real pages).
    """
    present = [i for i, w in enumerate(weights) if w]
    out: list[int | None] = [None] * len(weights)
    if not present:
        return out
    flat = list(chain.from_iterable(weights[i] for i in present))  # every (block, term) pair
    values = list(chain.from_iterable(weights[i].values() for i in present))
    bounds = [0, *accumulate(len(weights[i]) for i in present)][:-1]  # each block's first pair
    vocab = {t: j for j, t in enumerate(dict.fromkeys(flat))}  # the page's distinct terms
    index = list(map(vocab.__getitem__, flat))
    raw = _hash_bytes(vocab, bits)
    bit_rows = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), bitorder="little")
    signs = bit_rows.reshape(len(vocab), bits).astype(np.float64) * 2.0 - 1.0
    contrib = signs[np.asarray(index)] * np.asarray(values, dtype=np.float64)[:, None]
    sums = np.add.reduceat(contrib, np.asarray(bounds), axis=0)
    packed = np.packbits(sums > 0, axis=1, bitorder="little")
    for row, i in zip(packed, present):
        out[i] = int.from_bytes(row.tobytes(), "little")
    return out


def near_duplicates(fps: list[int | None], k: int = DEFAULT_K) -> list[int | None]:
    """For each fingerprint, the index of the earlier kept one within Hamming ``k``, else None.

    Blocks are walked in order; the first of a group of near duplicates is kept and the later
    ones point at it. A ``None`` fingerprint (no terms) is never compared.
    """
    kept: list[tuple[int, int]] = []
    out: list[int | None] = []
    for i, fp in enumerate(fps):
        match = None
        if fp is not None:
            for j, other in kept:
                if (fp ^ other).bit_count() <= k:
                    match = j
                    break
            if match is None:
                kept.append((i, fp))
        out.append(match)
    return out


def block_terms(
    blocks: list[PageBlock], stoplist: str = "english", stemmer: str = "porter"
) -> list[list[str]]:
    """The keywords of each block (``evalkit.core.text.terms``)."""
    return terms_many([b.raw for b in blocks], stoplist, stemmer)


def extract_sketched(
    page: Page,
    weights_of: Callable[[str, list[str]], dict | None],
    bits: int = DEFAULT_BITS,
    k: int = DEFAULT_K,
    redundancy: str = "block",
    title_relevancy: str = "coverage",
    weights: tuple[float, float, float] = (1.0, 1.0, 1.0),
    threshold: str | float = "mean",
    enhanced: bool = False,
    stoplist: str = "english",
    stemmer: str = "porter",
    block_tags=BLOCK_TAGS,
) -> Extraction:
    """The whole pipeline of both reconstructions on one page.

    Blocks (:func:`separate_blocks`) -> near duplicates removed (the ``bits``-bit simhash of
    ``weights_of(text, keywords)`` per block, :func:`fingerprints_many`; Hamming <= ``k`` to an
    earlier kept block, :func:`near_duplicates`)
    -> (KR, LP, TR) of each remaining block that has keywords (:func:`block_params`) ->
    sketching (:func:`sketch_select`). The output is the text of the kept blocks in block order.

    Block records (``evalkit.core.block.Block``): stage ``dedup`` (rule ``near_duplicate``), stage
    ``sketching`` (rules ``no_keywords``, ``below_threshold``); scores ``kr``, ``lp`` (a
    percentage), ``tr``, ``importance`` and ``threshold``.
    """
    try:
        root = page.tree(plain=True)
    except PageError as exc:  # nothing to extract from an empty document
        return Extraction(text="", info={"n_blocks": 0, "skipped": exc.reason})
    title_terms = set(terms(page_title(root), stoplist, stemmer))
    blocks = separate_blocks(root, block_tags)
    seqs = block_terms(blocks, stoplist, stemmer)
    fps = fingerprints_many([weights_of(b.raw, seq) for b, seq in zip(blocks, seqs)], bits)
    dups = near_duplicates(fps, k)
    candidates = [i for i, d in enumerate(dups) if d is None and seqs[i]]
    params = block_params(
        [blocks[i] for i in candidates],
        [seqs[i] for i in candidates],
        title_terms,
        redundancy,
        title_relevancy,
    )
    keep, importance, cut = sketch_select(params, weights, threshold, enhanced)
    decided = {i: (p, keep[n], importance[n]) for n, (i, p) in enumerate(zip(candidates, params))}
    records, kept_text = [], []
    for i, b in enumerate(blocks):
        rec = Block(
            index=i,
            tag=b.tag,
            path=b.path,
            text=preview(b.raw),
            words=b.words,
            link_words=b.link_words,
        )
        if dups[i] is not None:
            rec.kept, rec.stage, rec.rule, rec.duplicate_of = (
                False,
                "dedup",
                "near_duplicate",
                dups[i],
            )
            rec.reason = f"within Hamming {k} of block {dups[i]}"
        elif i not in decided:
            rec.kept, rec.stage, rec.rule = False, "sketching", "no_keywords"
            rec.reason = "no keywords: nothing to sketch"
        else:
            p, kept, value = decided[i]
            rec.scores = {"kr": p.kr, "lp": p.lp, "tr": p.tr, "importance": value, "threshold": cut}
            if kept:
                kept_text.append(b.text)
            else:
                rec.kept, rec.stage, rec.rule = False, "sketching", "below_threshold"
                rec.reason = f"importance {value:.3f} < {cut:.3f}"
        records.append(rec)
    info = {
        "n_blocks": len(blocks),
        "n_duplicates": sum(d is not None for d in dups),
        "n_sketched": len(candidates),
        "n_kept": len(kept_text),
        "threshold": cut,
    }
    return Extraction(text="\n".join(kept_text), blocks=records, info=info)


def validate_settings(m) -> None:
    """Check the settings both extractors share (``m`` is the method): ParamError naming one."""
    check_str_list("block_tags", m.block_tags)
    check_choice("bits", m.bits, SUPPORTED_BITS)
    check_int("k", m.k, low=0, high=m.bits)
    check_choice("redundancy", m.redundancy, REDUNDANCY)
    check_choice("title_relevancy", m.title_relevancy, TITLE_RELEVANCY)
    for name in ("w_kr", "w_lp", "w_tr"):
        check_number(name, getattr(m, name), low=0)
    if m.w_kr + m.w_lp + m.w_tr <= 0:
        raise ParamError("w_kr", m.w_kr, "w_kr + w_lp + w_tr must be > 0")
    if not (m.threshold in THRESHOLDS and isinstance(m.threshold, str)):
        check_number("threshold", m.threshold, low=0, high=1)
    check_choice("stoplist", m.stoplist, STOPLISTS)
    check_choice("stemmer", m.stemmer, STEMMERS)
