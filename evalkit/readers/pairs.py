"""Reader for page sets stored as pairs of files: an HTML page and its gold, same stem.

The generic format behind the "Chaos" and "Big5" sets (GitHub
``MSVCode/ir-research-data``: ``html/<name>.htm[l]`` + ``gold/<name>.txt``),
and the base of the CleanEval and Readability readers, which differ only in
folder names and in how the gold file is turned into text
(``gold_format``):

* ``text`` — the file is the gold text;
* ``cleaneval`` — CleanEval format (Baroni et al. 2008): a ``URL:`` line, then
  text with ``<p>``/``<h>``/``<l>`` line markers; markers are removed, HTML
  entities decoded (CleanPortalEval writes ``&#8217;``) and HTML comments
  dropped; the URL line becomes the page URL;
* ``html`` — the gold is HTML (Mozilla Readability's expected output); its
  visible text is the gold text.

Gold files are decoded as pages are (:func:`evalkit.core.page.decode_gold`: a
byte-order mark, a declared charset, the NUL pattern of UTF-16/32, UTF-8, then
detection), except that Windows-1252 is taken over a detected encoding whose
reading is not clearly foreign: it is the encoding of every non-UTF-8 gold
file in the shared sets (its 0x85 is the "…" that ``file`` reports as a NEL
line end). A gold file that decodes to mostly U+FFFD or control characters is
skipped with the reason, never scored as empty gold.

``category_pattern`` and ``site_pattern`` are regular expressions matched
against the file stem; the named group ``category`` (or ``site``), else group
1, gives the page's category or site group. Without a site pattern the site
is the URL's host (without ``www.``) when the gold names a URL. Pages come
grouped by site (sites in the order of their first file, each site's pages in
stem order), decided from the file names and, for CleanEval gold without a
site pattern, the gold files' URL lines, before any page is read.

A page whose gold text is empty is kept (CleanEval marks index pages with no
article that way) unless ``keep_empty_gold`` is false; a page without a gold
file, a gold file without a page and an empty page are skipped with the reason. Two page
files of one stem (``p1.htm`` beside ``p1.html``) are both skipped, each with one line naming
the two: which of them the gold ``p1.txt`` describes cannot be told from the names.
"""

from __future__ import annotations

import html as html_lib
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from evalkit.core.domains import host_of, site_key
from evalkit.core.elements import Element, marked_elements
from evalkit.core.method import param_names
from evalkit.core.page import Gold, Page, PageError, decode_gold, parse_html, undecodable
from evalkit.core.text import strip_cleaneval_markup
from evalkit.core.validate import ParamError, check_bool, check_choice
from evalkit.readers.base import Dataset, DatasetMissingError, FileTooLarge, group_by_site

__all__ = [
    "GOLD_FORMATS",
    "HTML_SUFFIXES",
    "PairsDataset",
    "decode_text",
    "gold_to_text",
    "gold_url",
]

GOLD_FORMATS = ("text", "cleaneval", "html")
#: page file suffixes; a stem with two page files (``p1.htm`` and ``p1.html``) is ambiguous:
#: both are skipped with the reason, never one of them paired with the gold by chance
HTML_SUFFIXES = (".html", ".htm")
GOLD_SUFFIX = ".txt"
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_URL_LINE = re.compile(r"^URL:[ \t]*(\S*)", re.IGNORECASE)


def decode_text(raw: bytes) -> str:
    """Decode a gold file (:func:`evalkit.core.page.decode_gold`; a byte-order mark is dropped)."""
    return decode_gold(raw)[0]


def gold_to_text(gold: str, gold_format: str, source: str = "<gold>") -> tuple[str, str | None]:
    """``(plain gold text, url or None)`` from a decoded gold file in ``gold_format``."""
    gold = gold.replace("\r\n", "\n").replace("\r", "\n")
    if gold_format == "text":
        return gold.strip(), None
    if gold_format == "cleaneval":
        url, body = _split_url(gold)
        text = strip_cleaneval_markup(_COMMENT.sub("", body))
        return html_lib.unescape(text), url
    if gold_format == "html":
        from evalkit.core.visible import visible_text

        if not gold.strip():
            return "", None
        return visible_text(parse_html(gold, source=source)), None
    raise ValueError(f"unknown gold_format {gold_format!r}; known: {GOLD_FORMATS}")


def gold_elements(gold: str, gold_format: str) -> list[Element] | None:
    """The structure a decoded gold file marks (CleanEval's ``<h>/<l>/<p>``:
    :func:`evalkit.core.elements.marked_elements`); None for formats that mark none."""
    if gold_format != "cleaneval":
        return None
    body = _split_url(gold.replace("\r\n", "\n").replace("\r", "\n"))[1]
    return marked_elements(body)


def _split_url(gold: str) -> tuple[str | None, str]:
    """``(url or None, the rest)`` of a CleanEval gold text (line ends already ``\\n``)."""
    body = gold.lstrip()  # CleanPortalEval puts a blank line before the URL line
    url = None
    m = _URL_LINE.match(body)
    if m:
        body = body.partition("\n")[2]
        url = m.group(1) or None
        if url is None and re.match(r"\s*https?://", body):  # "URL:" then the URL alone
            url, _, body = body.strip().partition("\n")
            url = url.strip()
    return url, body


def gold_url(raw: bytes, gold_format: str) -> str | None:
    """The page URL a gold file names (the CleanEval ``URL:`` line), without the text work
    of :func:`gold_to_text`: what a reader needs to order its pages by site."""
    if gold_format != "cleaneval":
        return None
    gold = decode_text(raw).replace("\r\n", "\n").replace("\r", "\n")
    return _split_url(gold)[0]


def _match(pattern: str | None, stem: str, group: str) -> str | None:
    if not pattern:
        return None
    m = re.search(pattern, stem)
    if not m:
        return None
    value = m.groupdict().get(group) or (m.group(1) if m.groups() else m.group(0))
    return value.strip() or None


class PairsDataset(Dataset):
    """Pages ``<html_dir>/<stem>.htm[l]`` with gold ``<gold_dir>/<stem>.txt`` (module docstring).

    ``html_dir=gold_dir="."``: pages and gold files side by side in ``path``."""

    def __init__(
        self,
        path: str | None = None,
        limit: int | None = None,
        html_dir: str = "html",
        gold_dir: str = "gold",
        gold_format: str = "text",
        category_pattern: str | None = None,
        site_pattern: str | None = None,
        keep_empty_gold: bool = True,
        name: str = "pairs",
    ):
        super().__init__(path=path, limit=limit)
        check_choice("gold_format", gold_format, GOLD_FORMATS)
        for key, folder in (("html_dir", html_dir), ("gold_dir", gold_dir)):
            if not isinstance(folder, str) or not folder:
                raise ParamError(key, folder, "must be a folder name inside path")
        check_bool("keep_empty_gold", keep_empty_gold)
        for key, pattern in (
            ("category_pattern", category_pattern),
            ("site_pattern", site_pattern),
        ):
            if pattern is None:
                continue
            try:  # a bad pattern fails at construction, not mid-run
                re.compile(pattern)
            except (re.error, TypeError) as exc:
                raise ParamError(
                    key, pattern, f"must be a regular expression or null ({exc})"
                ) from None
        self.html_dir = html_dir
        self.gold_dir = gold_dir
        self.gold_format = gold_format
        self.category_pattern = category_pattern
        self.site_pattern = site_pattern
        self.keep_empty_gold = keep_empty_gold
        self.name = name

    @property
    def fetch_hint(self) -> str:
        folder = Path(self.path).name if self.path else "NAME"
        return f"fetch it with `python -m evalkit.readers.download {folder}`"

    def get_params(self) -> dict:
        return {k: getattr(self, k) for k in param_names(type(self))}

    def _count_pages(self) -> int:
        # page files with a gold file of the same stem, as _pairs pairs them (nothing recorded)
        root = self.root()
        html_root, gold_root = root / self.html_dir, root / self.gold_dir
        golds = {f.stem for f in gold_root.iterdir() if f.suffix.lower() == GOLD_SUFFIX}
        stems = Counter(
            f.stem
            for f in html_root.iterdir()
            if f.suffix.lower() in HTML_SUFFIXES and f.stem in golds
        )
        return sum(1 for n in stems.values() if n == 1)  # an ambiguous stem is no page

    def _pairs(self, root: Path) -> Iterator[tuple[Path, Path | None]]:
        """(page file, gold file or None) in sorted stem order; orphan gold files are skipped."""
        html_root, gold_root = root / self.html_dir, root / self.gold_dir
        for folder in (html_root, gold_root):
            if not folder.is_dir():
                raise DatasetMissingError(
                    f"dataset {self.name!r}: folder {folder} does not exist; {self.fetch_hint}"
                )
        found: dict[str, list[Path]] = {}
        for file in sorted(html_root.iterdir()):
            if not file.is_file():
                continue
            if file.suffix.lower() == GOLD_SUFFIX and html_root == gold_root:
                continue  # pages and gold in one folder: a gold file is not a stray file
            if file.suffix.lower() not in HTML_SUFFIXES:
                self.skip(file, f"not a page file (expected {'/'.join(HTML_SUFFIXES)})")
            else:
                found.setdefault(file.stem, []).append(file)
        pages: dict[str, Path] = {}
        for stem, files in found.items():
            if len(files) == 1:
                pages[stem] = files[0]
                continue
            # p1.htm beside p1.html: which one the gold p1.txt describes is not ours to guess
            names = " and ".join(f.name for f in files)
            for file in files:
                self.skip(
                    file,
                    f"ambiguous page: {names} share the stem {stem!r} of one gold "
                    f"file; rename or remove all but one",
                )
        golds = {
            f.stem: f
            for f in sorted(gold_root.iterdir())
            if f.is_file() and f.suffix.lower() == GOLD_SUFFIX
        }
        for stem in sorted(set(golds) - set(pages)):
            self.skip(
                golds[stem],
                "gold file of an ambiguous page" if stem in found else "gold file without a page",
            )
        for stem in sorted(pages):
            yield pages[stem], golds.get(stem)

    def _site(self, file: Path, gold_file: Path | None) -> str | None:
        """The site the page of ``file`` gets, from its name or its gold's URL line only."""
        site = _match(self.site_pattern, file.stem, "site")
        if site is None and gold_file is not None and self.gold_format == "cleaneval":
            try:
                url = gold_url(self.read_gold_file(gold_file), self.gold_format)
            except FileTooLarge:
                return None  # skipped with its reason when its page is read
            return site_key(host_of(url), url)
        return site

    def _iter_pages(self) -> Iterator[Page]:
        # by site before any page is read; only CleanEval gold files without a site pattern
        # are opened for it (their URL line), and only their sites are kept
        pairs = group_by_site(self._pairs(self.root()), lambda pair: self._site(*pair))
        for file, gold_file in pairs:
            if gold_file is None:
                self.skip(file, "no gold file for this page")
                continue
            try:  # sizes checked before either file is read (runner.max_*_bytes)
                raw = self.read_page_file(file)
                gold_raw = self.read_gold_file(gold_file)
            except FileTooLarge as exc:
                self.skip(file, str(exc))
                continue
            if not raw.strip():
                self.skip(file, "empty page")
                continue
            decoded = decode_text(gold_raw)
            reason = undecodable(decoded)
            if reason is not None:
                self.skip(gold_file, f"unreadable gold: {reason}")
                continue
            try:
                text, url = gold_to_text(decoded, self.gold_format, source=str(gold_file))
            except PageError as exc:
                if self.keep_empty_gold and "empty" in exc.reason:
                    text, url = "", None
                else:
                    self.skip(gold_file, f"unreadable gold: {exc.reason}")
                    continue
            if not text and not self.keep_empty_gold:
                self.skip(gold_file, "empty gold text")
                continue
            site = _match(self.site_pattern, file.stem, "site") or host_of(url)
            yield Page(
                id=file.stem,
                dataset=self.name,
                raw=raw,
                url=url,
                source=str(file),
                site=site,
                gold=Gold(
                    text=text,
                    category=_match(self.category_pattern, file.stem, "category"),
                    extra={"gold_source": str(gold_file)},
                    elements=gold_elements(decoded, self.gold_format) if text else None,
                ),
            )
