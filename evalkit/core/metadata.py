"""A page's metadata record: title, authors and publication date.

Methods that find metadata return it in ``Extraction.metadata``; readers whose gold carries
it (WCXB: ``title``, ``author``, ``publish_date``) put it in ``Gold.metadata``;
evalkit.metrics.metadata scores one against the other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["PageMetadata"]

_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True, slots=True)
class PageMetadata:
    """Title, authors and date of a page; a field the source does not give is None / empty.

    ``date`` is an ISO day (``YYYY-MM-DD``): the publication date, as htmldate and WCXB's
    gold give it; a longer ISO timestamp is cut to its day at construction.
    """

    title: str | None = None
    authors: tuple[str, ...] = ()
    date: str | None = None

    def __post_init__(self):
        if self.date is not None:
            day = _DAY.match(self.date.strip())
            if not day:
                raise ValueError(f"date must start with an ISO day YYYY-MM-DD, not {self.date!r}")
            object.__setattr__(self, "date", day.group(0))
        object.__setattr__(self, "authors", tuple(a for a in self.authors if a and a.strip()))

    def to_dict(self) -> dict[str, Any]:
        return {"title": self.title, "authors": list(self.authors), "date": self.date}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PageMetadata:
        return cls(data.get("title"), tuple(data.get("authors") or ()), data.get("date"))
