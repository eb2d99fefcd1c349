"""Start-up: seconds from typing the command to its first page (issue 29, item 8).

The real command is launched, as a user types it: ``python -m evalkit experiment=extraction
dataset=<set> dataset.<set>.limit=1 method=<method>`` (one page, one method), first once to
warm its cache, then ``repeat`` times on that warm cache. This process watches each launch
from outside (every :data:`POLL_S` seconds) and notes when it reaches each milestone:

* ``folder``: Hydra made the run folder. Before it: the interpreter, the command's re-run of
  itself with a pinned string-hash seed (evalkit.shell.entry), the imports, the config
  composed and its overrides checked.
* ``first_page``: the run opened its first records file, the moment before the runner is
  handed the first page. Between ``folder`` and it: the methods built and checked
  (evalkit.harness.preflight), the data set opened, the extraction's modules imported.
* ``exit``: the command ended. After ``first_page``: the page (from the cache), the
  bootstrap intervals, tables, figures, report.md and report.html.

Each milestone's median over the repeats is reported; the issue's target is a first page in
under :data:`STARTUP_TARGET_S` seconds. Off by default (``speed.startup.enabled=true``): it
launches the command ``repeat + 1`` times, about 6 s each on 2 cores.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from evalkit.experiments import Context
from evalkit.harness.summary import summary_row
from evalkit.report.sections import Heading, Table
from evalkit.report.tables import write_table

__all__ = [
    "MILESTONES",
    "POLL_S",
    "STARTUP_DATASET",
    "STARTUP_TARGET_S",
    "launch",
    "startup_benchmark",
    "startup_outputs",
    "startup_rows",
]

#: the issue's bound: seconds from the command's start to its first page
STARTUP_TARGET_S = 3.0
#: seconds between two looks at a launched command
POLL_S = 0.005
#: what is noted of each launch, in order
MILESTONES = ("folder", "first_page", "exit")
#: data-set label of the rows in summary.csv
STARTUP_DATASET = "startup"


def launch(command: list[str], run_dir: Path, timeout: float = 600.0) -> dict[str, float]:
    """Run ``command`` (which writes its run to ``run_dir``) and return the seconds from its
    start to each of :data:`MILESTONES` (NaN for one it never reached) and its exit status."""
    seen: dict[str, float] = {}
    t0 = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while proc.poll() is None:
        now = time.monotonic() - t0
        if now > timeout:
            proc.kill()
            break
        if "folder" not in seen and run_dir.is_dir():
            seen["folder"] = now
        if "first_page" not in seen and any(run_dir.glob(".records-*")):
            seen["first_page"] = now
        time.sleep(POLL_S)
    seen["exit"] = time.monotonic() - t0
    return {**{m: seen.get(m, float("nan")) for m in MILESTONES}, "returncode": float(proc.wait())}


def startup_benchmark(
    dataset: str = "synthetic", method: str = "cetd", repeat: int = 3
) -> pd.DataFrame:
    """One row per launch on a warm cache (a first, warming launch is left out)."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="evalkit-startup-") as tmp:
        base = [
            sys.executable,
            "-m",
            "evalkit",
            "experiment=extraction",
            f"dataset={dataset}",
            f"dataset.{dataset}.limit=1",
            f"method={method}",
            "runner.progress=false",
            f"paths.cache={Path(tmp) / 'cache'}",
        ]
        for i in range(repeat + 1):
            run_dir = Path(tmp) / f"run{i}"
            got = launch(base + [f"hydra.run.dir={run_dir}"], run_dir)
            if i:  # the first launch fills the cache
                rows.append({"launch": i, **got})
    return pd.DataFrame(rows)


def startup_rows(bench: pd.DataFrame, command: str) -> list[dict]:
    """summary.csv rows: each milestone's median seconds, the target and whether it is met."""
    n = len(bench)
    med = {m: statistics.median(bench[m]) for m in MILESTONES}
    rows = [
        summary_row(STARTUP_DATASET, command, f"startup_{m}_s", med[m], n_pages=n)
        for m in MILESTONES
    ]
    rows += [
        summary_row(STARTUP_DATASET, command, "target_s", STARTUP_TARGET_S, n_pages=n),
        summary_row(
            STARTUP_DATASET,
            command,
            "meets_target",
            float(med["first_page"] < STARTUP_TARGET_S),
            n_pages=n,
        ),
        summary_row(
            STARTUP_DATASET,
            command,
            "failed_launches",
            float((bench["returncode"] != 0).sum()),
            n_pages=n,
        ),
    ]
    return rows


def startup_outputs(ctx: Context, bench: pd.DataFrame, command: str) -> None:
    med = {m: statistics.median(bench[m]) for m in MILESTONES}
    parts = {
        "to the run folder": med["folder"],
        "folder to first page": med["first_page"] - med["folder"],
        "first page to exit": med["exit"] - med["first_page"],
    }
    table = pd.DataFrame(
        {
            "part": [*parts, "first page", "whole command"],
            "s": [f"{v:.2f}" for v in (*parts.values(), med["first_page"], med["exit"])],
        }
    )
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    caption = (
        f"Start-up of `{command}` on a warm cache: median wall seconds of {len(bench)} "
        f"launches, load average {load:.1f}; target: first page in under "
        f"{STARTUP_TARGET_S:g} s"
    )
    write_table(table, ctx.out / "tables" / "speed_startup", caption=caption)
    ctx.report += [Heading("Start-up"), Table(table, lead=f"**{caption}**", gap=False)]
