"""Name -> class registries for datasets, methods (extractors) and detectors.

Entries are written out by hand as ``"module:Class"`` strings, modules named as in
a checkout (``baselines.cetd``; :mod:`evalkit.core.layout` maps them in the wheel), and
imported on first use, so a registry never scans globals and a slow or optional import
(a peer library) costs nothing until it is asked for. An unknown name raises
a ``KeyError`` whose message lists the known names.
"""

from __future__ import annotations

import difflib
from typing import Any

from evalkit.core.layout import import_module, module_name

__all__ = ["DATASETS", "DETECTORS", "METHODS", "Registry", "UnknownNameError", "instantiate"]


class UnknownNameError(KeyError):
    """An unknown registry name; the message lists the valid choices."""

    def __str__(self) -> str:  # KeyError quotes its message; we want it plain
        return str(self.args[0])


class Registry:
    """A named, ordered mapping from registry names to lazily imported classes."""

    def __init__(self, kind: str, entries: dict[str, str]):
        self.kind = kind
        self._entries = dict(entries)

    def names(self) -> list[str]:
        return list(self._entries)

    def __contains__(self, name: str) -> bool:
        return name in self._entries

    def module_of(self, name: str) -> str:
        """The module that defines ``name``, without importing it (the cache key reads its
        source: evalkit.harness.cache), by its import name in this layout (``baselines.cetd`` in a
        checkout, ``evalkit.baselines.cetd`` in the wheel: evalkit.core.layout)."""
        if name not in self._entries:
            raise UnknownNameError(
                f"unknown {self.kind} {name!r}; known {self.kind}s: {', '.join(self._entries)}"
            )
        return module_name(self._entries[name].partition(":")[0])

    def get(self, name: str) -> type:
        module = self.module_of(name)
        return getattr(import_module(module), self._entries[name].partition(":")[2])

    def only(self, name: str) -> Registry:
        """A registry of ``name`` alone (same kind and entry): what a page worker process is
        sent, so it builds exactly the class this process would (evalkit.harness.page_worker)."""
        self.module_of(name)  # an unknown name raises here, listing the known ones
        return Registry(self.kind, {name: self._entries[name]})

    def create(self, name: str, /, **params: Any):
        """Instantiate ``name`` with keyword parameters; a misspelt parameter is a clear error."""
        return instantiate(self.get(name), self.kind, name, params)


def instantiate(cls: type, kind: str, name: str, params: dict[str, Any]):
    """``cls(**params)``, a misspelt parameter named in one line (``method 'x' has no parameter
    ...; closest: ...``), and the detector registry handed to a method that names a detector.
    Registry entries and methods from outside the registry (Hydra's ``_target_``, an object of
    the Python API: evalkit.harness.runner.MethodSpec) are built alike."""
    try:
        obj = cls(**params)
    except TypeError as exc:
        from evalkit.core.method import param_names

        valid = param_names(cls)
        unknown = sorted(set(params) - set(valid))
        if unknown:
            near = difflib.get_close_matches(unknown[0], valid, n=3)
            hint = f"closest: {', '.join(near)}; " if near else ""
            raise ValueError(
                f"{kind} {name!r} has no parameter {', '.join(unknown)}; "
                f"{hint}valid: {', '.join(valid)}"
            ) from exc
        raise
    bind = getattr(obj, "bind_detectors", None)
    if bind is not None:  # a method that names a detector builds it from here
        bind(DETECTORS)
    return obj


DATASETS = Registry(
    "dataset",
    {
        "synthetic": "evalkit.readers.synthetic:SyntheticDataset",
        "l3s_gn1": "evalkit.readers.l3s:L3SGN1Dataset",
        "cleaneval": "evalkit.readers.cleaneval:CleanEvalDataset",
        "readability": "evalkit.readers.readability:ReadabilityDataset",
        "aeb": "evalkit.readers.aeb:AEBDataset",
        "pairs": "evalkit.readers.pairs:PairsDataset",
        "wcxb": "evalkit.readers.wcxb:WCXBDataset",
        "trafilatura_eval": "evalkit.readers.trafilatura_eval:TrafilaturaEvalDataset",
        "webmainbench": "evalkit.readers.webmainbench:WebMainBenchDataset",
        "wceb": "evalkit.readers.wceb:WcebDataset",
        "warc": "evalkit.readers.warc:WarcDataset",
    },
)

METHODS = Registry(
    "method",
    {
        "fulltext": "baselines.reference:FullText",
        "empty": "baselines.reference:Empty",
        "proposed": "evalkit.proposed.pipeline:Proposed",
        "cetd": "baselines.cetd:CETD",
        "cectd_s": "baselines.cectd_s:CECTDS",
        "ecectd_s": "baselines.ecectd_s:ECECTDS",
        "eniw": "baselines.eniw:ENIW",
        "pab": "baselines.pab:PAB",
        "justext_style": "baselines.justext_style:JustextStyle",
        "san_aye": "baselines.san_aye:SanAye",
        "target_entities": "baselines.target_entities:TargetEntities",
        "coreex": "baselines.coreex:CoreEx",
        "econ": "baselines.econ:ECON",
        "tag_based": "baselines.tag_based:TagBased",
        "gold": "baselines.reference:GoldText",
        "trafilatura": "baselines.peers:Trafilatura",
        "justext": "baselines.peers:Justext",
        "readability_lxml": "baselines.peers:ReadabilityLxml",
        "resiliparse": "baselines.peers:Resiliparse",
        "boilerpy3": "baselines.peers:Boilerpy3",
        "goose3": "baselines.peers:Goose3",
        "html_text": "baselines.peers:HtmlText",
        "chromerag": "baselines.chromerag_peer:ChromeRAG",
        "inscriptis": "baselines.inscriptis_peer:Inscriptis",
        "newspaper4k": "baselines.newspaper4k_peer:Newspaper4k",
        "meta_tags": "baselines.meta_tags:MetaTags",
        "trafilatura_meta": "baselines.metadata_peers:TrafilaturaMeta",
        "goose3_meta": "baselines.metadata_peers:Goose3Meta",
        "htmldate": "baselines.metadata_peers:Htmldate",
        "newspaper4k_meta": "baselines.metadata_peers:Newspaper4kMeta",
        "stored": "baselines.stored:Stored",
        "existing1": "baselines.existing1:Existing1",
        "existing2": "baselines.existing2:Existing2",
        "vwrapper": "baselines.vwrapper:VWrapper",
    },
)

DETECTORS = Registry(
    "detector",
    {
        "modified_simhash": "evalkit.proposed.dedup:ModifiedSimhash",
        "simhash": "baselines.simhash:Simhash",
        "jaccard": "baselines.jaccard:Jaccard",
        "minhash": "baselines.minhash:MinHash",
        "hybridhash": "baselines.hybridhash:Hybridhash",
    },
)
