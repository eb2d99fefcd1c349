"""Methods that learn from labelled pages, fitted before a run (docs/rendering.md#training-on-rendered-pages).

A method class with ``trained_on_pages = True`` (baselines/vwrapper.py) says which labelled
pages it learns from (its ``train_`` settings: a data set's reader settings, a page count)
and fits itself with ``fit_model(pairs)`` on (page, layout) pairs. :func:`train_specs` does
that once per run, before any page is scored: it reads the training set, takes a seeded
sample of its pages (sorted by id first, so the sample does not depend on reading order),
renders them through the layout cache (evalkit.harness.render) and hands the fitted model to
the method as its ``model`` parameter, so the extraction cache keys on the learned weights.
How the method keeps a page away from a model trained on its site is the method's (V-Wrapper:
folds by site).
"""

from __future__ import annotations

import random
import sys
from typing import Any

from evalkit.harness.config import ConfigError
from evalkit.harness.render import RenderError, layout_for, render_settings
from evalkit.harness.specs import MethodSpec

__all__ = ["train_specs"]


def _reader(settings: dict[str, Any], shared_data: str | None):
    from evalkit.harness.registry import DATASETS

    settings = dict(settings)
    name = settings.pop("_name_")
    if settings.get("path") is None and shared_data:
        settings["path"] = f"{shared_data}/{name.replace('_', '-')}"
    ds = DATASETS.create(name, **settings)
    ds.name = name
    return ds


def train_specs(
    specs: list[MethodSpec], cache_root: str | None, shared_data: str | None = None
) -> list[MethodSpec]:
    """``specs`` with every method that learns from pages fitted (its ``model`` set)."""
    out = []
    for spec in specs:
        settings = render_settings(spec)
        method = spec.build() if settings is not None else None
        if (
            method is None
            or not getattr(method, "trained_on_pages", False)
            or method.model is not None
        ):
            out.append(spec)
            continue
        train = method.train_
        try:
            ds = _reader(train["dataset"], shared_data)
            ds.root()  # a missing folder: its fetch hint, now, not after the other methods
            pages = sorted(ds.pages(), key=lambda p: p.id)
        except (OSError, ValueError) as exc:  # DatasetMissingError, a bad reader setting
            raise ConfigError(
                f"{spec.kind}.{spec.label}.train.dataset: the training pages cannot be read: {exc}"
            ) from exc
        rng = random.Random(method.seed)
        chosen = sorted(rng.sample(range(len(pages)), min(train["pages"], len(pages))))
        print(
            f"evalkit: {spec.label}: training on {len(chosen)} of {len(pages)} "
            f"{ds.name} pages ({train['folds']} folds by site, seed {method.seed})",
            file=sys.stderr,
        )
        pairs, failed = [], 0
        for i in chosen:
            try:
                pairs.append((pages[i], layout_for(pages[i], settings, cache_root)[0]))
            except RenderError:
                failed += 1
        if failed:
            print(
                f"evalkit: {spec.label}: {failed} training pages could not be rendered "
                "and were left out",
                file=sys.stderr,
            )
        model = method.fit_model(pairs)
        model["dataset"] = ds.name
        out.append(
            MethodSpec(
                label=spec.label,
                registry=spec.registry,
                params={**spec.params, "model": model},
                kind=spec.kind,
                origin=spec.origin,
                obj=spec.obj,
                source=spec.source,
                closure=spec.closure,
            )
        )
    return out


def training_note(specs: list[MethodSpec]) -> str:
    """What a table's caption says of how its learned methods were trained ('' if none)."""
    notes = []
    for spec in specs:
        model = spec.params.get("model") if isinstance(spec.params, dict) else None
        if isinstance(model, dict) and "folds" in model and "dataset" in model:
            notes.append(
                f"{spec.label} trained on {model['pages']} {model['dataset']} pages "
                f"(seeded sample, seed {model['seed']}), {model['folds']} folds by "
                "site: each page scored by the model trained without its site"
            )
    return "; " + "; ".join(notes) if notes else ""
