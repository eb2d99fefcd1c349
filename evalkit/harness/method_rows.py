"""One method config that stands for several rows: ``method.stored.path=output/*.json``.

A method class says through :meth:`evalkit.core.method.Extractor.split_rows` that one
config of it is several methods (the ``stored`` method with a glob or a folder of tool
files: one row per file, named after its stem). :func:`split_specs` replaces such a spec
by one spec per row before anything is built, so each row is checked, cached, scored and
reported as any method (issue 29: the ScrapingHub benchmark's 32 tools in one command).
"""

from __future__ import annotations

from evalkit.core.validate import ParamError
from evalkit.harness.config import ConfigError
from evalkit.harness.registry import DETECTORS, METHODS
from evalkit.harness.specs import MethodSpec

__all__ = ["split_specs"]


def split_specs(specs: list[MethodSpec]) -> list[MethodSpec]:
    """``specs`` with every spec whose class splits it replaced by one spec per row, in
    place and in the class's order; a bad value is a ConfigError naming the key."""
    out: list[MethodSpec] = []
    for spec in specs:
        rows = _rows(spec)
        if rows is None:
            out.append(spec)
            continue
        out.extend(
            MethodSpec(label=label, registry=spec.registry, params=params, kind=spec.kind)
            for label, params in rows.items()
        )
    return out


def _rows(spec: MethodSpec) -> dict[str, dict] | None:
    if spec.origin != "registry":
        return None
    registry = METHODS if spec.kind == "method" else DETECTORS
    split = getattr(registry.get(spec.registry), "split_rows", None)
    if split is None:
        return None
    try:
        return split(dict(spec.params))
    except ParamError as exc:  # method.stored.path=out/*.json: no file or folder matches
        raise ConfigError(exc.under(f"{spec.kind}.{spec.label}")) from exc
