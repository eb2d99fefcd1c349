"""The shared sets as Bevendorff et al.'s web-content-extraction benchmark (WCEB) reads them.

Bevendorff, Gupta, Kiesel & Stein (SIGIR 2023), GitHub
``chatnoir-eu/web-content-extraction-benchmark``, its ``dataset_readers.py``: the benchmark names
every page by the sha256 of its file's bytes and converts each set's gold to plain text its own
way. This reader gives the shared copies the same ids and the same gold, so the benchmark's
stored outputs (``outputs/<set>/<tool>.jsonl``, ``page_id`` + ``plaintext``) pair with the
pages by id under ``method=stored`` as they are. ``set`` names the shared set:

* ``scrapinghub``: ``html/<id>.html.gz``; id = sha256 of the gunzipped HTML; gold = the
  ``articleBody`` of ``ground-truth.json``, verbatim.
* ``readability``: ``input/<case>.html`` + ``GoldStandard/<case>.txt`` (Mozilla's
  ``source.html`` and ``expected.html``); id = sha256 of the input file; gold = the text of
  the body of the expected HTML as Resiliparse gives it (``HTMLTree.parse(...).body.text``),
  the HTML decoded as UTF-8 (WCEB's charset detection takes one gold, ``webmd-2``, for
  cp1250; its published scores match UTF-8), other encodings by detection.
* ``l3s-gn1``: ``original/<uuid>.html`` + ``annotated/<uuid>.html``; id = sha256 of the
  original; gold = the text of the leaf elements of classes ``x-nc-sel1``, ``x-nc-sel2`` and
  ``x-nc-sel3`` (headline, full text, supplemental), **class by class** (all sel1, then sel2,
  then sel3: the order Resiliparse 0.14 returned WCEB's selector in), each leaf's text
  stripped and followed by a space, a line break before a leaf whose parent is a block
  element (WCEB's ``_extract_with_css_selector``).
* ``cleanportaleval``: ``input/<name>.html`` + ``GoldStandard/<name>.txt``; id = sha256 of the
  input; gold = CleanEval's conversion (the body text of the gold file, spaces after a line
  break dropped, the ``URL:`` line removed). WCEB read a ``ConvertedGoldStandard`` folder the
  shared copy does not have: a gold may differ (no per-page scores were published for it).

Files may be plain or gzipped (``<name>.gz``); the id is always of the uncompressed bytes.
Resiliparse (extra ``peers``) converts the HTML gold: the reader declares it (``requires``), so a
run without it stops before any page with one line (evalkit.harness.preflight.check_readers).
Departure: the shared ``readability`` copy holds Mozilla's 2023 revision of the ``qq`` gold
where WCEB used an older one, and 8 of the 621 L3S-GN1 originals have other bytes than WCEB's
copy, so their ids pair with no stored output (docs/benchmarks.md).
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Iterator
from pathlib import Path

from evalkit.core.domains import host_of, url_site
from evalkit.core.method import param_names
from evalkit.core.page import Gold, Page
from evalkit.core.validate import check_choice
from evalkit.readers.base import Dataset, FileTooLarge, group_by_site, read_json

__all__ = ["L3S_CLASSES", "SETS", "WcebDataset", "l3s_gold", "sha256_id"]

#: the shared sets WCEB also scored
SETS = ("scrapinghub", "readability", "l3s-gn1", "cleanportaleval")
#: the L3S-GN1 classes WCEB counts as content, in the order their texts are joined
L3S_CLASSES = ("x-nc-sel1", "x-nc-sel2", "x-nc-sel3")
#: parents after which WCEB starts a leaf's text on a new line
_BLOCKS = frozenset(
    (
        "address article aside blockquote canvas dd div dl dt fieldset figcaption figure footer "
        "form h1 h2 h3 h4 h5 h6 header hr li main nav noscript ol p pre section table tfoot ul "
        "video"
    ).split()
)
_URL_LINE = re.compile(r"^\s*URL: (https?://.+)")


def sha256_id(data: bytes) -> str:
    """WCEB's page id: the sha256 of the (uncompressed) file bytes, hex."""
    return hashlib.sha256(data).hexdigest()


def _resiliparse():
    try:
        from resiliparse.parse.encoding import bytes_to_str, detect_encoding
        from resiliparse.parse.html import HTMLTree, NodeType
    except ImportError as exc:
        raise ImportError(
            "the wceb reader converts HTML gold with Resiliparse, which is not "
            "installed (pip install 'evalkit[peers]')"
        ) from exc
    return HTMLTree, NodeType, detect_encoding, bytes_to_str


def _decode(raw: bytes, utf8_first: bool = False) -> str:
    # WCEB's _read_file: the detected encoding, else utf-8, falling back to utf-8 and cp1252
    _, _, detect_encoding, bytes_to_str = _resiliparse()
    if utf8_first:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            pass
    enc = detect_encoding(raw, max_len=100000, html5_compatible=False) or "utf-8"
    return bytes_to_str(raw, encoding=enc, fallback_encodings=["utf-8", "cp1252"])


def _body_text(html: str) -> str:
    HTMLTree = _resiliparse()[0]
    body = HTMLTree.parse(html).body
    return body.text if body is not None else ""


def l3s_gold(annotated_html: str, classes: tuple[str, ...] = L3S_CLASSES) -> str:
    """The L3S-GN1 gold as WCEB builds it (module docstring), class by class."""
    HTMLTree, NodeType, _, _ = _resiliparse()
    body = HTMLTree.parse(annotated_html).body
    if body is None:
        return ""
    content = ""
    for cls in classes:
        for e in body.query_selector_all(f".{cls}"):
            if len(e.child_nodes) != 1 or e.first_child.type != NodeType.TEXT:
                continue  # leaves only, so no text is taken twice
            if e.parent is not None and e.parent.tag in _BLOCKS:
                content += "\n"
            content += e.text.strip() + " "
    return content.strip()


def _cleaneval_gold(text: str) -> tuple[str, str | None]:
    m = _URL_LINE.search(text)
    body = _body_text(text)
    body = re.sub(r"\n +", "\n", body)
    body = re.sub(r"^\s*URL:[^\n]+\s*", "", body)
    return body, (m.group(1) if m else None)


def _pair(folder: Path, suffix: str) -> dict[str, Path]:
    return {
        f.name.removesuffix(".gz").removesuffix(suffix): f
        for f in sorted(folder.iterdir())
        if f.name.removesuffix(".gz").endswith(suffix)
    }


class WcebDataset(Dataset):
    """One shared set with WCEB's page ids and gold (module docstring)."""

    fetch_hint = "see datasets/README.md (the shared sets scrapinghub-aeb, readability, l3s-gn1, cleanportaleval)"
    requires = ("resiliparse.parse.encoding", "resiliparse.parse.html")
    install_hint = 'pip install "evalkit[peers]"'

    def __init__(
        self,
        path: str | None = None,
        limit: int | None = None,
        set: str = "scrapinghub",
        name: str | None = None,
    ):
        super().__init__(path=path, limit=limit)
        check_choice("set", set, SETS)
        self.set = set
        self.name = name or f"wceb_{set.replace('-', '_')}"

    def get_params(self) -> dict:
        return {k: getattr(self, k) for k in param_names(type(self))}

    def _count_pages(self) -> int:
        """The page files of the set, from names alone (the total of the progress bar)."""
        root = self.root()
        if self.set == "scrapinghub":
            return len(_pair(root / "html", ".html"))
        html_dir, gold_dir, suffix = (
            ("original", "annotated", ".html")
            if self.set == "l3s-gn1"
            else ("input", "GoldStandard", ".txt")
        )
        return len(set(_pair(root / html_dir, ".html")) & set(_pair(root / gold_dir, suffix)))

    def _iter_pages(self) -> Iterator[Page]:
        root = self.root()
        _resiliparse()  # missing: one line before any page
        yield from getattr(self, "_" + self.set.replace("-", "_"))(root)

    def _page(
        self, raw: bytes, gold: str, source: Path, url: str | None = None, case: str = ""
    ) -> Page:
        return Page(
            id=sha256_id(raw),
            dataset=self.name,
            raw=raw,
            url=url,
            source=str(source),
            site=host_of(url),
            gold=Gold(text=gold, extra={"wceb_case": case}),
        )

    def _scrapinghub(self, root: Path) -> Iterator[Page]:
        truth = read_json(root / "ground-truth.json", self.max_gold_bytes, root)
        files = _pair(root / "html", ".html")
        # by site before any page is read (docs/sites.md)
        order = group_by_site(files, lambda k: url_site((truth.get(k) or {}).get("url")))
        for key, file in ((k, files[k]) for k in order):
            rec = truth.get(key)
            if rec is None:
                self.skip(file, "no ground-truth record for this page")
                continue
            raw = self.page_or_skip(file)
            if raw is not None:
                yield self._page(raw, rec.get("articleBody") or "", file, rec.get("url"), key)

    def _with_gold(
        self, root: Path, html_dir: str, gold_dir: str, gold_suffix: str, convert
    ) -> Iterator[Page]:
        pages = _pair(root / html_dir, ".html")
        golds = _pair(root / gold_dir, gold_suffix)
        for key in sorted(set(golds) - set(pages)):
            self.skip(golds[key], "gold without a page file")
        for key, file in pages.items():
            if key not in golds:
                self.skip(file, "no gold file for this page")
                continue
            raw = self.page_or_skip(file)
            if raw is None:
                continue
            try:
                gold_bytes = self.read_gold_file(golds[key])
            except FileTooLarge as exc:
                self.skip(golds[key], str(exc))
                continue
            except (OSError, EOFError, zlib.error) as exc:
                self.skip(golds[key], f"not a readable gold file ({exc})")
                continue
            gold, url = convert(gold_bytes)
            yield self._page(raw, gold, file, url, key)

    def _readability(self, root: Path) -> Iterator[Page]:
        yield from self._with_gold(
            root,
            "input",
            "GoldStandard",
            ".txt",
            lambda b: (_body_text(_decode(b, utf8_first=True)), None),
        )

    def _cleanportaleval(self, root: Path) -> Iterator[Page]:
        yield from self._with_gold(
            root, "input", "GoldStandard", ".txt", lambda b: _cleaneval_gold(_decode(b))
        )

    def _l3s_gn1(self, root: Path) -> Iterator[Page]:
        yield from self._with_gold(
            root, "original", "annotated", ".html", lambda b: (l3s_gold(_decode(b)), None)
        )
