"""Progress a person can trust: the one place evalkit draws progress (issue 28).

Every long loop (a data set's pages, the bootstrap draws of a summary, a download, the
entries of ``python -m evalkit.reference``) goes through :func:`bar`, :func:`track` or (a
loop whose steps print their own bars) :func:`steps`, and a sweep's per-job lines through
:func:`line`, so all of it looks the same and one switch silences it:

* a bar has a total, a count, the rate and the time left (ETA), e.g.
  ``extraction aeb: 100%|██████████| 1378/1378 [02:11<00:00, 10.5page/s]``, and stays on
  screen as a final line when its loop ends (``leave=True``);
* ``runner.progress=false`` (:func:`set_enabled`, called once per run by
  ``evalkit.experiments.run_experiment``) silences every bar and line of the run;
* it is written to the terminal's stderr only, never into a file evalkit writes (run
  folders, logs): evalkit's Hydra logging is off (configs/hydra/default.yaml), and no bar
  is handed a file. When stderr is not a terminal (a log the user redirects), a bar
  redraws at most every :data:`REDIRECTED_INTERVAL` seconds so the log holds a few lines,
  not thousands.

tqdm draws the bars (a dependency of evalkit since its first runs).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, TypeVar

__all__ = ["REDIRECTED_INTERVAL", "bar", "enabled", "line", "set_enabled", "steps", "track"]

T = TypeVar("T")

#: seconds between redraws of a bar whose stream is not a terminal
REDIRECTED_INTERVAL = 30.0

_state = {"enabled": True}


def set_enabled(flag: bool) -> None:
    """Turn every bar and line on or off (``runner.progress``) for what follows."""
    _state["enabled"] = bool(flag)


def enabled() -> bool:
    """Whether bars and lines are drawn now."""
    return _state["enabled"]


def _stream(stream: IO[str] | None) -> IO[str]:
    return sys.stderr if stream is None else stream  # looked up now: a captured stderr works


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def bar(
    total: int | None,
    desc: str,
    unit: str = "it",
    *,
    show: bool | None = None,
    stream: IO[str] | None = None,
    unit_scale: bool = False,
) -> Any:
    """A progress bar of ``total`` steps (a tqdm object: ``update(n)``, ``close()``, or use
    it as a context manager). ``show`` overrides :func:`enabled` for this bar; a bar left
    without a total shows its count and rate only, so give one wherever it is known."""
    from tqdm.auto import tqdm

    out = _stream(stream)
    drawn = enabled() if show is None else bool(show)
    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        unit_scale=unit_scale,
        file=out,
        disable=not drawn,
        leave=True,
        dynamic_ncols=_is_terminal(out),
        mininterval=0.1 if _is_terminal(out) else REDIRECTED_INTERVAL,
    )


def track(
    items: Iterable[T],
    total: int | None,
    desc: str,
    unit: str = "it",
    *,
    count: Callable[[T], int] | None = None,
    show: bool | None = None,
    stream: IO[str] | None = None,
) -> Iterator[T]:
    """``items`` as they come, each moving a :func:`bar` by ``count(item)`` (default 1); the
    bar is closed (and stays as the final line) when the items end or the loop is left."""
    progress = bar(total, desc, unit, show=show, stream=stream)
    try:
        for item in items:
            progress.update(count(item) if count else 1)
            yield item
    finally:
        progress.close()


def _clock(seconds: float) -> str:
    seconds = round(seconds)
    hours, rest = divmod(seconds, 3600)
    return (
        f"{hours}:{rest // 60:02d}:{rest % 60:02d}"
        if hours
        else f"{rest // 60:02d}:{rest % 60:02d}"
    )


def steps(
    items: Iterable[T],
    total: int,
    desc: str,
    *,
    name: Callable[[T], str] = str,
    show: bool | None = None,
    stream: IO[str] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[T]:
    """``items`` for a loop whose every step prints its own bars (a reference entry runs a
    whole experiment): after each step one :func:`line`, ``desc 2/5 (name) done in 01:40;
    02:30 elapsed, about 03:45 left`` (the time left is the mean step's times the steps to
    go). A bar cannot stay on screen across the steps' own output; these lines do."""
    start = clock()
    for done, item in enumerate(items, 1):
        began = clock()
        yield item
        now = clock()
        left = (now - start) / done * (total - done) if total >= done else 0.0
        line(
            f"{desc} {done}/{total} ({name(item)}) done in {_clock(now - began)}; "
            f"{_clock(now - start)} elapsed, about {_clock(left)} left",
            show=show,
            stream=stream,
        )


def line(text: str, *, show: bool | None = None, stream: IO[str] | None = None) -> None:
    """One line of progress (a sweep job that ended, a reference entry done): to stderr,
    unless progress is off."""
    if enabled() if show is None else show:
        print(text, file=_stream(stream), flush=True)
