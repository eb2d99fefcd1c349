"""Pages in tasks: one task per site, so site-scope methods see a site's pages in order."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator

from evalkit.core.domains import site_of
from evalkit.core.page import Page

__all__ = ["iter_tasks"]


def iter_tasks(
    pages: Iterable[Page], max_pages: int = 20, lazy: bool = False
) -> Iterator[list[Page]]:
    """One task per site (:func:`evalkit.core.domains.site_of`, within a data set) with all its
    pages, in order; pages without a site in tasks of at most ``max_pages``.

    Streams: readers hand out a site's pages next to each other
    (:func:`evalkit.readers.base.group_by_site`, docs/sites.md), so only the site names
    seen so far are kept. A site whose pages come in two runs raises ValueError: two
    tasks would give it two fresh memories, and its site scope would silently be
    partly page scope. ``lazy``: a task of site-less pages is an iterator that reads each
    page when it is reached, valid until the next task is asked for.
    """

    def key(page: Page) -> tuple[str, str] | None:
        site = site_of(page)
        return None if site is None else (page.dataset, site)

    done: set[tuple[str, str]] = set()
    for site, group in itertools.groupby(pages, key=key):
        if site is None:  # read max_pages at a time: a run of site-less pages can be a whole set
            if lazy:  # each page read when the task reaches it: the consumer must exhaust a
                for first in group:  # task before asking for the next (run_tasks does)
                    rest = itertools.islice(group, max_pages - 1)  # noqa: B031 - one pass
                    yield itertools.chain([first], rest)
                continue
            while chunk := list(itertools.islice(group, max_pages)):
                yield chunk
            continue
        group = list(group)
        if site in done:
            raise ValueError(
                f"data set {site[0]!r}: the pages of site {site[1]!r} come in two runs (page "
                f"{group[0].id!r} follows pages of other sites); a reader must hand out a "
                "site's pages together (evalkit.readers.base.group_by_site, docs/sites.md)"
            )
        done.add(site)
        yield group
