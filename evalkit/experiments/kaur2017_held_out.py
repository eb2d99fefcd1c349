"""Held-out pages of the target-entity templates, for the ``kaur2017`` experiment.

Kaur's (2017) scraper reads a site's pages with a template the user wrote for that
site. evalkit's templates (``target_entities``, docs/methods/target_entities.md) were
written from a fixed, seeded training split of each site's pages; each template file
records its split. The kaur2017 experiment scores ``target_entities`` only on the
other pages (``split.test``), and runs the other chosen methods on the same pages so
that the rows compare like with like. This module finds those pages and counts the
pages each template matched.
"""

from __future__ import annotations

import pandas as pd

from evalkit.core.entity_templates import Template, load_templates, resolve_folder

__all__ = ["TARGET_ENTITIES", "held_out_templates", "template_table"]

#: the registry name of Kaur's template method
TARGET_ENTITIES = "target_entities"


def held_out_templates(specs, dataset: str) -> dict[str, Template]:
    """``{site: template}`` of ``dataset`` for the template folder of the first
    ``target_entities`` spec (its ``templates`` setting); {} without such a spec."""
    spec = next((s for s in specs if s.registry == TARGET_ENTITIES), None)
    if spec is None:
        return {}
    folder = resolve_folder((spec.params or {}).get("templates"))
    return {site: t for (ds, site), t in load_templates(folder).items() if ds == dataset}


def template_table(
    templates: dict[str, Template], per_page: pd.DataFrame, labels: list[str]
) -> pd.DataFrame:
    """One row per template: its split (seed, train and test pages), the held-out pages
    scored, and for each ``target_entities`` label the pages its template matched (an
    extraction without error) and their mean word F1 (``kaur_f1``, percent)."""
    rows = []
    for site, t in sorted(templates.items()):
        row = {
            "template (site)": site,
            "seed": t.seed,
            "train pages": len(t.train),
            "test pages": len(t.test),
        }
        for label in labels:
            df = per_page[
                (per_page["method"] == label) & per_page["page_id"].astype(str).isin(t.test)
            ]
            ok = df[df["error"].isna()] if "error" in df else df
            row[f"{label} scored"] = len(df)
            row[f"{label} matched"] = len(ok)
            f1 = ok["kaur_f1"].astype(float) if "kaur_f1" in ok else pd.Series(dtype=float)
            row[f"{label} F1 (%)"] = round(100 * f1.mean(), 2) if len(f1) else float("nan")
        rows.append(row)
    return pd.DataFrame(rows)
