"""The ``synthetic`` reader: pages of every site drawn from the seed, and their gold.

Gold: ``gold.text`` is the headline and the article paragraphs (one per line,
no copies, no comments). Units come from an annotated twin of each page in
which every fragment root carries ``data-gold="<fine class>"``; the raw page is
the same markup with those attributes removed, so its units line up one to one.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass

import lxml.html

from evalkit.core.page import CONTENT, NOISE, Gold, Page, parse_html
from evalkit.core.units import segment
from evalkit.core.validate import ParamError, check_int
from evalkit.core.visible import element_text
from evalkit.readers.base import Dataset, LazyPages
from evalkit.readers.synthetic.article import _article
from evalkit.readers.synthetic.layout import _render_page
from evalkit.readers.synthetic.markup import GOLD_ATTR
from evalkit.readers.synthetic.site import _Site, _site_keys, _site_template
from evalkit.readers.synthetic.topics import TOPICS

DEFAULT_N_SITES = 30  # the paper's experiment: 30 news sites ...
DEFAULT_PAGES_PER_SITE = 10  # ... 10 pages each
DEFAULT_N_TOPICS = 6
#: elements the proposed method separates into blocks
#: (docs/methods/proposed.md#31-block-separation)
SEPARATION_TAGS = frozenset({"div", "td"})

FINE_CLASSES = (
    "headline",
    "content",
    "nav",
    "header",
    "ad",
    "social",
    "legal",
    "footer",
    "related",
    "comments",
    "duplicate",
    "search",
    "template",
)
CONTENT_FINE = frozenset({"headline", "content"})
#: fine classes that are content or copies of content (gold.block_texts)
PLANTED_FINE = frozenset({"headline", "content", "duplicate"})


def block_text(el: lxml.html.HtmlElement) -> str:
    """Visible text of a div/td block minus its nested div/td blocks.

    See docs/methods/proposed.md#31-block-separation.
    """
    return element_text(el, skip_tags=SEPARATION_TAGS)


_GOLD_RE = re.compile(r' data-gold="[a-z]+"')


def _label_of(el) -> tuple[str, str] | None:
    node = el
    while node is not None:
        fine = node.get(GOLD_ATTR)
        if fine:
            return (CONTENT if fine in CONTENT_FINE else NOISE), fine
        node = node.getparent()
    return None


@dataclass(frozen=True)
class SiteTask:
    """One site of a synthetic set as a runner task: the worker that runs it generates the
    site's pages (:meth:`pages`), so generation runs in parallel and the main process
    holds no page. Small and picklable: the set's parameters, the site's index and name,
    and how many of its pages the set's ``limit`` leaves."""

    params: dict
    site: int
    key: str
    take: int

    def pages(self) -> list[Page]:
        ds = SyntheticDataset(**{k: v for k, v in self.params.items() if k != "limit"})
        return ds.site_pages(self.site, self.key, self.take)


class SyntheticDataset(Dataset):
    """Seeded annotated pages: ``n_sites`` x ``pages_per_site`` over ``n_topics`` topics.

    Page ids are ``site07-p03`` (1-based), urls
    ``http://www.<site>.example/<topic>/<slug>.html``, ``page.site`` the host
    and ``gold.category`` the topic (page g of the sequence gets topic
    g mod n_topics, so topics are balanced to within one page). The same seed
    gives byte-identical pages. ``path`` is accepted for a uniform dataset
    signature and ignored.

    Gold, besides ``text``, ``units`` (``unit_source="planted"``, ``fine`` one of
    :data:`FINE_CLASSES`) and ``duplicate_groups``:

    - ``block_texts``: :func:`block_text` of the div/td blocks that are
      headline, content or copies of content, in document order;
      ``duplicate_groups`` index into it, original first.
    - ``extra["near_edits"]``: ``{block index: words substituted}`` for each near
      copy (exact copies are absent).
    - ``template_texts``: block texts that occur on every page of the
      site (every page of a site is generated before the first is yielded).
    - ``extra["ads"]``: the planted ad slots (``kind`` image/iframe/adsense/native,
      ``size``); ``extra["layout"]``, ``extra["naming"]``, ``extra["title"]``.
    """

    name = "synthetic"

    def __init__(
        self,
        n_sites: int = DEFAULT_N_SITES,
        pages_per_site: int = DEFAULT_PAGES_PER_SITE,
        n_topics: int = DEFAULT_N_TOPICS,
        seed: int = 0,
        limit: int | None = None,
        name: str = "synthetic",
        path: str | None = None,
    ):
        super().__init__(path=path, limit=limit)
        check_int("n_sites", n_sites, low=1)
        check_int("pages_per_site", pages_per_site, low=1)
        check_int("seed", seed)
        try:
            check_int("n_topics", n_topics, low=1, high=len(TOPICS))
        except ParamError as exc:
            raise ParamError("n_topics", n_topics, f"{exc.allowed} ({', '.join(TOPICS)})") from None
        self.n_sites = n_sites
        self.pages_per_site = pages_per_site
        self.n_topics = n_topics
        self.seed = seed
        self.name = name

    def get_params(self) -> dict:
        return {
            "n_sites": self.n_sites,
            "pages_per_site": self.pages_per_site,
            "n_topics": self.n_topics,
            "seed": self.seed,
            "limit": self.limit,
            "name": self.name,
            "path": self.path,
        }

    def topics(self) -> tuple[str, ...]:
        """The topics in use, in assignment order (page g gets topic g mod n_topics)."""
        return TOPICS[: self.n_topics]

    def _iter_pages(self) -> Iterator[Page]:
        for task in self._site_tasks():
            yield from task.pages()

    def _count_pages(self) -> int:
        return self.n_sites * self.pages_per_site

    def _site_tasks(self) -> Iterator[SiteTask]:
        """One :class:`SiteTask` per site, cut at ``limit`` pages."""
        left = self.limit
        for s, key in enumerate(_site_keys(self.n_sites, self.seed)):
            take = self.pages_per_site if left is None else min(left, self.pages_per_site)
            if take <= 0:
                return
            yield SiteTask(self.get_params(), s, key, take)
            if left is not None:
                left -= take

    def pages(self) -> LazyPages:
        """The pages, as :meth:`Dataset.pages`, from a stream that can also hand the runner
        one :class:`SiteTask` per site instead (:class:`evalkit.readers.base.LazyPages`), so the
        pages are generated where the task runs."""
        self.skipped = []
        return LazyPages(self, self._site_tasks)

    def site_pages(self, s: int, key: str, take: int) -> list[Page]:
        """The first ``take`` pages of site ``s`` (its name ``key``): the same bytes wherever
        and in whatever order the sites are generated (every draw is seeded per site and page).

        Every page of the site is drafted before any is returned: ``template_texts`` are the
        block texts common to all of them.
        """
        topics = self.topics()
        width = max(2, len(str(max(self.n_sites, self.pages_per_site))))
        site = _site_template(s, key, random.Random(f"synthetic:{self.seed}:site:{s}"))
        drafts = []
        for p in range(self.pages_per_site):
            g = s * self.pages_per_site + p
            rng = random.Random(f"synthetic:{self.seed}:site:{s}:page:{p}")
            drafts.append(
                self._draft(
                    site, topics[g % len(topics)], rng, f"site{s + 1:0{width}d}-p{p + 1:0{width}d}"
                )
            )
        common = set.intersection(*(set(d["all_blocks"]) for d in drafts))
        out = []
        for d in drafts[:take]:
            d["gold"].template_texts = [t for t in d["all_blocks"] if t in common]
            out.append(
                Page(
                    id=d["id"],
                    dataset=self.name,
                    raw=d["raw"],
                    gold=d["gold"],
                    url=d["url"],
                    source=d["id"],
                    site=site.host,
                )
            )
        return out

    def _draft(self, site: _Site, topic: str, rng: random.Random, page_id: str) -> dict:
        art = _article(site, topic, rng)
        url = f"http://{site.host}/{topic}/{art.slug}.html"
        annotated, planted, ads = _render_page(site, art, url, rng)
        raw_html = _GOLD_RE.sub("", annotated)
        root = parse_html(annotated, source=page_id)
        units = segment(root, label_of=_label_of)
        blocks, all_blocks = [], []
        for el in root.iter("div", "td"):
            text = block_text(el)
            if text and text not in all_blocks:
                all_blocks.append(text)
            if el.get(GOLD_ATTR) in PLANTED_FINE:
                blocks.append(text)
        if len(blocks) != len(planted):  # the renderer and the tree must agree
            raise RuntimeError(
                f"{page_id}: {len(blocks)} planted blocks in the tree, {len(planted)} rendered"
            )
        first = {}  # original content index -> its block index
        groups: dict[int, list[int]] = {}
        near_edits = {}
        for b, (fine, orig, edits) in enumerate(planted):
            if fine == "content":
                first[orig] = b
            elif fine == "duplicate":
                groups.setdefault(first[orig], [first[orig]]).append(b)
                if edits:
                    near_edits[b] = edits
        lines = [art.headline] + [p.text for paras in art.blocks for p in paras]
        gold = Gold(
            text="\n".join(lines),
            units=units,
            unit_source="planted",
            duplicate_groups=[groups[k] for k in sorted(groups)],
            category=topic,
            block_texts=blocks,
            extra={
                "near_edits": near_edits,
                "layout": site.layout,
                "naming": site.scheme,
                "ads": ads,
                "title": art.title,
            },
        )
        return {
            "id": page_id,
            "url": url,
            "raw": raw_html.encode("utf-8"),
            "gold": gold,
            "all_blocks": all_blocks,
        }
