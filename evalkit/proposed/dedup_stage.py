"""Stage 1.3 of the proposed method as an object: near-duplicate blocks (``dedup`` group);
see :mod:`evalkit.proposed.stages` for the other stages and how a config group becomes one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalkit.core.domains import site_of
from evalkit.core.fingerprint import within
from evalkit.core.method import Detector
from evalkit.core.stoplists import stoplist_modules
from evalkit.core.text import STEMMERS, STOPLISTS, terms_many
from evalkit.core.validate import (
    ParamError,
    check_bool,
    check_choice,
    check_int,
)
from evalkit.proposed.dedup import (
    COMPARE_WITH,
    DEFAULT_BITS,
    DEFAULT_K,
    DUPLICATE_KEEPS,
    PROXIMITY,
    SUPPORTED_BITS,
    ModifiedSimhash,
    match_ordered,
)
from evalkit.proposed.stage import Stage
from evalkit.proposed.state import PageState

__all__ = ["OWN_DETECTOR", "SCOPES", "DedupStage"]

#: the detector stage 1.3 builds itself (every other one comes from the harness)
OWN_DETECTOR = "modified_simhash"
SCOPES = ("page", "site")


class DedupStage(Stage):
    """Stage 1.3, secondary noise removal: near-duplicate blocks (``dedup``).

    Parameters
    ----------
    enabled : bool
        Run the stage.
    stoplist, stemmer : str
        Term preprocessing of stages 1.3 and 1.4.
    bits, k : int
        Modified simhash width and Hamming threshold (used when ``detector`` is
        ``modified_simhash``; ``detector_params`` may override them).
    scope : {"page", "site"}
        Compare blocks within a page, or also against earlier pages of the same site
        (``site_fingerprints_``; :meth:`reset` forgets them).
    detector : str or Detector
        ``modified_simhash``, any other name in ``evalkit.harness.registry.DETECTORS`` (built by
        the harness: :meth:`bind`), or a detector object.
    detector_params : dict
        Keyword arguments for a named detector.
    duplicate_keeps : {"first", "last", "longest"}
        Which member of a near-duplicate pair stays. The paper: "one of the block is
        considered as the near duplicate and can be eliminated"; §4: "Block b7 is labeled
        as the near duplicate block" (b7 comes after b2). ``first`` (default): blocks are
        taken in document order and the later one goes; ``last``: in reverse order, the
        earlier one goes; ``longest``: by decreasing word count (ties in document order),
        the shorter one goes (:func:`~evalkit.proposed.dedup.match_ordered`).
    compare_with : {"kept", "all"}
        What a block is compared with. The paper compares every pair (Table 3) and says
        "presents only the distinct blocks present in a web page". ``kept`` (default): the
        blocks taken before it and kept, so of a chain A~B~C with A and C apart, A and C
        stay; ``all``: every block taken before it, duplicates too (C goes with B).
    proximity : {"pointer", "nearest"}
        The TWC-PFM pair rule of the modified simhash (``ModifiedSimhash.proximity``;
        only with ``detector=modified_simhash``). The paper: "When more than one t_j
        occurs near t_i or more than one t_i occurs near t_j, the one with the smallest
        distance is taken into account for computing the proximity score" and Algorithm
        1's "If ((*ptr_i < *ptr_j) and (*ptr_(i+1) > *ptr_j))". ``pointer`` (default):
        the pseudocode's walk; ``nearest``: every occurrence of t_i counts its nearest
        following t_j, even when t_i recurs first
        (:func:`~evalkit.proposed.term_weights.twc_pfm_nearest`).
    """

    group = "dedup"

    def __init__(
        self,
        enabled: bool = True,
        stoplist: str = "english",
        stemmer: str = "porter",
        bits: int = DEFAULT_BITS,
        k: int = DEFAULT_K,
        scope: str = "page",
        detector: str | Detector = OWN_DETECTOR,
        detector_params: dict[str, Any] | None = None,
        duplicate_keeps: str = "first",
        compare_with: str = "kept",
        proximity: str = "pointer",
    ):
        self.enabled = enabled
        self.stoplist = stoplist
        self.stemmer = stemmer
        self.bits = bits
        self.k = k
        self.scope = scope
        self.detector = detector
        self.detector_params = detector_params
        self.duplicate_keeps = duplicate_keeps
        self.compare_with = compare_with
        self.proximity = proximity
        self.validate()
        #: the detector in use: built here unless the harness must build it (:meth:`bind`)
        self.detector_: Detector | None = None
        if isinstance(detector, Detector):
            self.detector_ = detector
        elif detector == OWN_DETECTOR:
            self.detector_ = self._made(
                ModifiedSimhash,
                {
                    "bits": bits,
                    "k": int(k),
                    "stoplist": stoplist,
                    "stemmer": stemmer,
                    "proximity": proximity,
                    **(detector_params or {}),
                },
            )
        self.reset()

    def _check(self) -> None:
        check_bool("enabled", self.enabled)
        check_choice("stoplist", self.stoplist, STOPLISTS)
        check_choice("stemmer", self.stemmer, STEMMERS)
        check_choice("bits", self.bits, SUPPORTED_BITS)
        check_int("k", self.k, low=0)
        check_choice("scope", self.scope, SCOPES)
        if not isinstance(self.detector, (str, Detector)):
            raise ParamError(
                "detector",
                self.detector,
                "must be a detector name (e.g. modified_simhash, jaccard) or a Detector object",
            )
        if self.detector_params is not None and not isinstance(self.detector_params, Mapping):
            raise ParamError(
                "detector_params",
                self.detector_params,
                "must be a mapping of detector keyword arguments, e.g. {k: 4}",
            )
        if isinstance(self.detector, Detector) and self.detector_params:
            raise ParamError(
                "detector_params",
                self.detector_params,
                "must be empty when the detector is an object (set its own parameters)",
            )
        check_choice("duplicate_keeps", self.duplicate_keeps, DUPLICATE_KEEPS)
        check_choice("compare_with", self.compare_with, COMPARE_WITH)
        check_choice("proximity", self.proximity, PROXIMITY)
        if self.proximity != "pointer" and self.detector != OWN_DETECTOR:
            raise ParamError(
                "proximity",
                self.proximity,
                f"is a setting of the modified simhash: use {PROXIMITY[0]} with another detector",
            )

    def _made(self, make, params: dict[str, Any]) -> Detector:
        """``make(**params)``, checked, with any bad parameter named as a key of this group."""
        try:
            det = make(**params)
        except (TypeError, ValueError) as exc:
            if isinstance(exc, ParamError):
                raise ParamError(
                    [f"{self.group}.detector_params.{n}" for n in exc.names],
                    exc.values,
                    exc.allowed,
                ) from None
            raise ParamError(
                f"{self.group}.detector_params", self.detector_params or {}, str(exc)
            ) from None
        try:
            det.validate()
        except ParamError as exc:
            raise ParamError(
                [f"{self.group}.detector_params.{n}" for n in exc.names], exc.values, exc.allowed
            ) from None
        return det

    def bind(self, detectors) -> DedupStage:
        """Build a detector named in ``detector`` from the harness's registry (``create``,
        ``names``, ``in``); the modified simhash and detector objects need none."""
        if self.detector_ is not None:
            return self
        name = self.detector
        if name not in detectors:
            raise ParamError(
                f"{self.group}.detector", name, f"must be one of {', '.join(detectors.names())}"
            )
        self.detector_ = self._made(
            lambda **p: detectors.create(name, **p), dict(self.detector_params or {})
        )
        return self

    def _detector(self) -> Detector:
        if self.detector_ is None:
            raise ParamError(
                f"{self.group}.detector",
                self.detector,
                "is built by the harness: make the method with "
                "evalkit.harness.registry.METHODS.create, or pass a Detector object",
            )
        return self.detector_

    @property
    def detector_name(self) -> str:
        """The detector's name as records and ``resolved_params`` give it."""
        if isinstance(self.detector, str):
            return self.detector
        return self.detector.name or type(self.detector).__name__

    def resolved_params(self) -> dict[str, Any]:
        """The settings with the detector's name and its parameters as it was built (its
        own defaults filled in; for the modified simhash, ``bits``/``k``/``stoplist``/
        ``stemmer`` passed down)."""
        return {
            **self.get_params(),
            "detector": self.detector_name,
            "detector_params": self._detector().resolved_params(),
        }

    def runtime_modules(self) -> list[str]:
        """The module of the detector in use (the cache key follows its code) and the
        optional packages of the stop lists in use (stage 1.3's and the detector's)."""
        det = self._detector()
        return list(
            dict.fromkeys(
                [type(det).__module__, *det.runtime_modules(), *stoplist_modules(self.stoplist)]
            )
        )

    def _in_order(self) -> bool:
        """Whether the detector's own matching applies (document order, kept blocks)."""
        return self.duplicate_keeps == "first" and self.compare_with == "kept"

    def _match(self, sigs, same, det: Detector, alive, texts, seen) -> list[int | None]:
        """:func:`~evalkit.proposed.dedup.match_ordered` in the order ``duplicate_keeps``
        names."""
        n = len(alive)
        if self.duplicate_keeps == "last":
            order = list(range(n - 1, -1, -1))
        elif self.duplicate_keeps == "longest":
            words = [len(texts[b.index].split()) for b in alive]
            order = sorted(range(n), key=lambda i: (-words[i], i))
        else:
            order = list(range(n))
        return match_ordered(
            sigs, same, order=order, compare_with=self.compare_with, seen=seen, similar=det.similar
        )

    def reset(self) -> DedupStage:
        """Forget the fingerprints remembered for site scope."""
        #: site -> fingerprints of the blocks kept on its earlier pages (site scope)
        self.site_fingerprints_: dict[str, list[Any]] = {}
        return self

    def run(self, state: PageState) -> None:
        """Remove the near duplicates among the alive blocks (and, with site scope, of the
        blocks kept on the site's earlier pages); leave the terms made on the way in
        ``state.block_terms`` when they are the ones stage 1.4 uses."""
        alive, texts = state.alive(), state.texts
        det, name = self._detector(), self.detector_name
        site = site_of(state.page) if self.scope == "site" else None
        seen = self.site_fingerprints_.get(site, []) if site is not None else None
        block_terms: dict[int, list[str]] = {}
        fps = None
        if isinstance(det, ModifiedSimhash) and (det.stoplist, det.stemmer) == (
            self.stoplist,
            self.stemmer,
        ):
            # the detector's terms are the scoring's: make them once
            lists = terms_many([texts[b.index] for b in alive], self.stoplist, self.stemmer)
            block_terms = {b.index: t for b, t in zip(alive, lists)}
            fps = det.fingerprint_many(lists)  # the page's blocks at once
            if self._in_order():
                matches = det.match_fingerprints(fps, seen=seen)
            else:
                matches = self._match(fps, within(det.k), det, alive, texts, seen)
        elif self._in_order():
            matches = det.find_duplicates([texts[b.index] for b in alive], seen=seen)
        else:
            fps = [det.fingerprint(texts[b.index]) for b in alive]
            matches = self._match(fps, det.similar, det, alive, texts, seen)
        for b, m in zip(alive, matches):
            if m is None:
                continue
            if m >= 0:
                b.remove(
                    "dedup", "near_duplicate", f"near duplicate of block b{alive[m].index} ({name})"
                )
                b.extra["duplicate_of"] = alive[m].index
            else:
                b.remove(
                    "dedup",
                    "site_duplicate",
                    f"near duplicate of a block kept earlier on {site} ({name})",
                )
        if site is not None:
            if fps is not None:
                kept = [f for b, f in zip(alive, fps) if b.alive]
            else:
                kept = [det.fingerprint(texts[b.index]) for b in alive if b.alive]
            self.site_fingerprints_.setdefault(site, []).extend(f for f in kept if f is not None)
        state.block_terms = block_terms
