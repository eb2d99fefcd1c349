"""A WARC folder's pass-1 index: runs of one site's records, sites in order of first record."""

from __future__ import annotations

from array import array

__all__ = ["SiteRuns"]


class SiteRuns:
    """Runs ``(site, file numbers, offsets)``: every record of a site joins its run, a record
    without a site (None) is a run of its own; runs in the order of their first record."""

    def __init__(self) -> None:
        self.runs: list[tuple[str | None, array, array]] = []
        self._by_site: dict[str, tuple] = {}

    def run(self, site: str | None) -> tuple[str | None, array, array]:
        """The run the next record of ``site`` is appended to."""
        run = self._by_site.get(site) if site is not None else None
        if run is None:
            run = (site, array("I"), array("q"))
            self.runs.append(run)
            if site is not None:
                self._by_site[site] = run
        return run
