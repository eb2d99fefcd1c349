"""The reports of a run: ``report.md`` and ``report.html``, two renderers of the same sections.

The run's head (data, methods, failures, skipped files) and the sections the experiments
appended to ``ctx.report`` are kept as ``report_sections.json`` (evalkit.report.store) and
rendered by evalkit.report.markdown and evalkit.report.html; the ``report`` config section
says what the HTML holds (docs/report.md).
"""

from __future__ import annotations

import dataclasses
import sys
from typing import TYPE_CHECKING, Any

import pandas as pd
from omegaconf import DictConfig

from evalkit.harness.config import RunConfig
from evalkit.harness.preflight import skipped_note
from evalkit.harness.summary import failure_table
from evalkit.report.build import write_html
from evalkit.report.markdown import render
from evalkit.report.pages import DEFAULT_MAX_PAGES
from evalkit.report.per_page_parquet import DEFAULT_PARQUET_ROWS
from evalkit.report.results import atomic_write_text
from evalkit.report.sections import Heading, Section, Table, Text
from evalkit.report.store import SECTIONS_FILE, dump_sections
from evalkit.report.style import set_default_order

if TYPE_CHECKING:
    from evalkit.experiments import Context

__all__ = ["REPORT_DEFAULTS", "configure", "report_settings", "skipped", "write_reports"]

#: the ``report`` section's keys and their defaults (configs/config.yaml)
REPORT_DEFAULTS: dict[str, Any] = {
    "html": True,
    "max_pages": DEFAULT_MAX_PAGES,
    "keep_extractions": True,
    "method_order": "score",
    "parquet_rows": DEFAULT_PARQUET_ROWS,
}


def report_settings(cfg: DictConfig | RunConfig) -> dict[str, Any]:
    return {**REPORT_DEFAULTS, **RunConfig.of(cfg).section("report")}


def configure(cfg: DictConfig | RunConfig) -> None:
    """What the report settings change before any figure is drawn (the method order)."""
    set_default_order(str(report_settings(cfg)["method_order"]))


def skipped(ctx: Context) -> list[dict[str, str]]:
    return [s for info in ctx.dataset_info.values() for s in info.get("skipped", [])]


def _head(cfg: RunConfig, ctx: Context) -> list[Section]:
    """The run's head: data, methods, failures, skipped files."""
    skips = skipped(ctx)
    # a study that makes its own methods (study=wceb: one per stored tool) names them by its records
    methods = (
        ", ".join(s.label for s in ctx.specs)
        or ", ".join(dict.fromkeys(m for _, m in ctx.n_records))
        or "none"
    )
    head: list[Section] = [
        Heading(f"evalkit run: {cfg.experiment}", level=1),
        Text(
            f"Datasets: {', '.join(ctx.datasets)}. Methods: {methods}."
            f" Seed {ctx.seed}. Failures: {len(ctx.failures)} (page, method, error in run.json)."
            f" Skipped files: {len(skips)}."
        ),
    ]
    if ctx.failures:
        how = {
            "empty": "scored as an empty extraction (`runner.on_failure=empty`)",
            "drop": "left out of that method's scores (`runner.on_failure=drop`), so its "
            "means cover fewer pages than the other methods'",
        }[ctx.on_failure]
        head += [
            Text(
                f"Pages on which a method failed are {how}; every page is listed in "
                "run.json and per_page.csv."
            ),
            Table(failure_table(ctx.failures)),
        ]
    if skips:
        rows = [(s["file"], s["reason"]) for s in skips[:50]]
        if len(skips) > 50:
            rows.append(("...", f"{len(skips) - 50} more in run.json"))
        head.append(Table(pd.DataFrame(rows, columns=["skipped file", "reason"]), gap=False))
    return head


def write_reports(cfg: RunConfig, ctx: Context) -> None:
    """Write report.md, report_sections.json and (``report.html``) report.html."""
    head, body = _head(cfg, ctx), list(ctx.report)
    if (
        ctx.unavailable
    ):  # methods dropped by runner.skip_unavailable: in the head, under every table
        note = skipped_note(ctx.unavailable)
        head.append(Text(note))
        body = [
            dataclasses.replace(s, lead=f"{s.lead} {note}" if s.lead else note)
            if isinstance(s, Table)
            else s
            for s in body
        ]
    sections = head + body
    title = f"evalkit run: {cfg.experiment}"
    atomic_write_text(ctx.out / "report.md", render(sections))
    dump_sections(sections, ctx.out / SECTIONS_FILE, title)
    settings = report_settings(cfg)
    if settings["html"]:
        try:
            write_html(ctx.out, sections, title, settings["max_pages"], ctx.seed)
        except Exception as exc:  # noqa: BLE001 - the run's numbers are written: say, go on
            print(f"evalkit: report.html not written: {type(exc).__name__}: {exc}", file=sys.stderr)
