"""Where each downloadable data set comes from (``python -m evalkit.readers.download``):
the archive's address, which of its paths make up the set, its licence, and the config
names that alias the folder names."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ALIASES", "SOURCES", "Source"]


@dataclass(frozen=True)
class Source:
    """Where a set comes from and which archive paths make it up.

    ``layout`` maps a path prefix inside the archive (after its top folder)
    to a prefix in the laid-out set; a prefix ending in ``/`` is a folder,
    anything else a single file.
    """

    url: str
    layout: tuple[tuple[str, str], ...]
    licence: str = ""


_MERGED = "https://github.com/j-szulc/html-cleaning-dataset-merged/archive/HEAD.tar.gz"
_IR_DATA = (
    "https://github.com/MSVCode/ir-research-data/archive/"
    "bfa0cfe6010ac2e104ab56a3b0223ce9f074a07f.tar.gz"
)
_L3S = "L3S-GN1-20100130203947-00001/"

SOURCES: dict[str, Source] = {
    "l3s-gn1": Source(
        url=(
            "https://github.com/geodrome/page-signal/archive/"
            "6dfcfb806886e3ea8e886acce94b0357e7469597.tar.gz"
        ),
        layout=(
            (_L3S + "original/", "original/"),
            (_L3S + "annotated/", "annotated/"),
            (_L3S + "url-mapping.txt", "url-mapping.txt"),
            (_L3S + "Readme-L3S-GN1.txt", "Readme-L3S-GN1.txt"),
        ),
        licence="L3S research-use licence (Readme-L3S-GN1.txt)",
    ),
    "cleaneval-dev": Source(
        url=_MERGED,
        layout=(
            ("cleaneval-dev/input/", "input/"),
            ("cleaneval-dev/GoldStandard/", "GoldStandard/"),
        ),
        licence="CleanEval 2007 (ACL SIGWAC), research use",
    ),
    "cleanportaleval": Source(
        url=_MERGED,
        layout=(
            ("CleanPortalEval-master/input/", "input/"),
            ("CleanPortalEval-master/GoldStandard/", "GoldStandard/"),
        ),
        licence="CleanPortalEval (PPKE NLPG), see its repository",
    ),
    "readability": Source(
        url=_MERGED,
        layout=(("readability/input/", "input/"), ("readability/GoldStandard/", "GoldStandard/")),
        licence="Apache-2.0 (Mozilla Readability test pages)",
    ),
    "scrapinghub-aeb": Source(
        url="https://github.com/scrapinghub/article-extraction-benchmark/archive/HEAD.tar.gz",
        layout=(
            ("html/", "html/"),
            ("output/", "output/"),
            ("ground-truth.json", "ground-truth.json"),
            ("LICENSE", "LICENSE"),
        ),
        licence="MIT",
    ),
    "chaos": Source(
        url=_IR_DATA,
        layout=(("Extraction/chaos-all/html/", "html/"), ("Extraction/chaos-all/gold/", "gold/")),
        licence="no licence stated; research use",
    ),
    "big5-2017": Source(
        url=_IR_DATA,
        layout=(("Extraction/big5-17/html/", "html/"), ("Extraction/big5-17/gold/", "gold/")),
        licence="no licence stated; research use",
    ),
}
#: config names (configs/dataset/*.yaml) -> folder names
ALIASES = {
    "l3s_gn1": "l3s-gn1",
    "cleaneval_dev": "cleaneval-dev",
    "aeb": "scrapinghub-aeb",
    "big5_2017": "big5-2017",
}
