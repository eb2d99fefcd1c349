"""One line per sweep job as it ends: a Hydra callback (configs/hydra/default.yaml).

A sweep (``evalkit -m ...``) otherwise prints nothing between its jobs' own progress bars, so
a person cannot tell how far it is. Each job that ends prints to stderr
``evalkit: sweep job 3 ended (completed) in 12.4 s: method.proposed.k=5`` — its number, its
status, its wall time and its overrides; ``runner.progress=false`` silences it, as it
silences every bar. Nothing of it goes into a file.
"""

from __future__ import annotations

import time
from typing import Any

from hydra.experimental.callback import Callback
from omegaconf import DictConfig

from evalkit.report.progress import line

__all__ = ["JobLine"]


def _quiet(config: DictConfig) -> bool:
    runner = config.get("runner") if hasattr(config, "get") else None
    return runner is not None and runner.get("progress", True) is False


class JobLine(Callback):
    """Prints a line when a sweep job ends (Hydra calls it for multirun jobs)."""

    def __init__(self) -> None:
        self._started: dict[int, float] = {}

    def on_job_start(self, config: DictConfig, **kwargs: Any) -> None:
        self._started[id(config)] = time.perf_counter()

    def on_job_end(self, config: DictConfig, job_return: Any, **kwargs: Any) -> None:
        if _quiet(config):
            return
        hydra = config.get("hydra") if hasattr(config, "get") else None
        job = hydra.get("job") if hydra is not None else None
        if hydra is None or str(hydra.get("mode", "")) != "RunMode.MULTIRUN":
            return  # a single run prints its own bars and its results folder
        num = job.get("num", "?") if job is not None else "?"
        overrides = " ".join(job.get("override_dirname", "").split(",")) if job else ""
        started = self._started.pop(id(config), None)
        took = f" in {time.perf_counter() - started:.1f} s" if started is not None else ""
        status = getattr(getattr(job_return, "status", None), "name", "ended").lower()
        line(
            f"evalkit: sweep job {num} ended ({status}){took}: {overrides or '(no overrides)'}",
            show=True,
        )
