"""Loud failures (issue 29, item 1): what is checked before the first page and said after the last.

Before any page runs, every method is built and the modules it imports by name are looked
up (:meth:`evalkit.core.method.BaseMethod.runtime_modules`: a peer's library, an optional
stop list's package). A method that cannot run here stops the run with one line naming
the method, the cause and the fix (``method 'trafilatura': trafilatura is not installed:
pip install "evalkit[peers]"``), before a run folder is made; with
``runner.skip_unavailable=true`` such methods are dropped instead, and the run says so on
the console, in the report's head and under every table. A method given as a dotted path
or a Python object (code evalkit has not checked) also extracts one small built-in page
first, so a bad constructor value (``method.mine.n=abc``) stops the run there instead of
failing every page. A reader meets the same check: the modules of optional packages it
declares (``Dataset.requires``: the wceb reader's resiliparse) are looked up before any page,
and a missing one stops the run in one line (:func:`check_readers`). A run whose every method
was dropped by ``runner.skip_unavailable`` stops too (:func:`check_methods`): it would run
every page doing nothing.

After the last page, :func:`failure_lines` lists the failures of every method with its
first error, and :func:`over_share` names the methods whose failures exceed
``runner.max_failure_share`` of a data set's pages: the command then exits non-zero
(:class:`FailureShareError`), after everything is written.
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from typing import Any

from evalkit.core.page import Gold, Page
from evalkit.core.validate import ParamError, check_bool, check_share
from evalkit.harness.config import ConfigError
from evalkit.harness.specs import MethodSpec
from evalkit.harness.summary import alike_key

__all__ = [
    "DEFAULT_MAX_FAILURE_SHARE",
    "TELL_KEYS",
    "FailureShareError",
    "Settings",
    "Unavailable",
    "check_methods",
    "check_readers",
    "failure_lines",
    "over_share",
    "preflight_specs",
    "reader_unavailable",
    "skipped_note",
    "trial_run",
    "unavailable",
]

#: the share of a data set's pages a method may fail on before the command exits non-zero
DEFAULT_MAX_FAILURE_SHARE = 0.5
#: the ``runner`` keys read here (and by the console table), not by the runner itself
TELL_KEYS = ("skip_unavailable", "max_failure_share", "quiet", "cache_report_mb")
#: the ``runner.cache_report_mb`` default: the end of a run prints the cache's size past it
DEFAULT_CACHE_REPORT_MB = 500
#: the fix printed for a missing module that no method names an install command for
GENERIC_FIX = "pip install {package}"
#: a small page every method can read: a title, a menu and two paragraphs of text
TRIAL_HTML = (
    b"<html><head><title>Preflight</title></head><body><nav><a href='/'>Home</a> "
    b"<a href='/news'>News</a></nav><article><h1>River otters return</h1><p>After "
    b"an absence of more than forty years, river otters have been seen again in the "
    b"upper valley, according to a survey published by the regional wildlife trust."
    b"</p><p>The animals were recorded on camera traps at six sites along the river, "
    b"and volunteers found tracks near the old mill.</p></article>"
    b"<footer>Copyright 2026</footer></body></html>"
)


class FailureShareError(RuntimeError):
    """Methods failed on more than ``runner.max_failure_share`` of a data set's pages; raised
    after the run folder is complete. ``lines``: one per such (method, data set)."""

    def __init__(self, out, lines: list[str]):
        self.out = out
        self.lines = lines
        super().__init__("; ".join(lines))


@dataclass(frozen=True)
class Settings:
    """The ``runner`` settings of this module (and of the console table)."""

    skip_unavailable: bool = False
    max_failure_share: float = DEFAULT_MAX_FAILURE_SHARE
    quiet: bool = False
    cache_report_mb: float | None = DEFAULT_CACHE_REPORT_MB

    @classmethod
    def from_runner(cls, runner: dict[str, Any] | None) -> Settings:
        """The settings of a ``cfg.runner`` mapping; a bad value is a ConfigError naming it."""
        runner = runner or {}
        made = cls(**{k: runner[k] for k in TELL_KEYS if runner.get(k) is not None})
        try:
            check_bool("skip_unavailable", made.skip_unavailable)
            check_bool("quiet", made.quiet)
            check_share("max_failure_share", made.max_failure_share)
            if made.cache_report_mb is not None and (
                isinstance(made.cache_report_mb, bool)
                or not isinstance(made.cache_report_mb, (int, float))
                or made.cache_report_mb < 0
            ):
                raise ParamError(
                    "cache_report_mb",
                    made.cache_report_mb,
                    "must be a number of megabytes >= 0, or null",
                )
        except ParamError as exc:
            raise ConfigError(exc.under("runner")) from exc
        return made


@dataclass(frozen=True)
class Unavailable:
    """A method that cannot run here: its label, why, and how to fix it."""

    label: str
    cause: str
    fix: str

    def line(self) -> str:
        return f"method {self.label!r}: {self.cause}: {self.fix}"


def _importable(module: str) -> bool:
    if sys.modules.get(module) is not None:  # imported already (find_spec then raises for a
        return True  # module loaded without a spec)
    try:
        if importlib.util.find_spec(module) is not None:
            return True
        if importlib.util.find_spec(module.split(".")[0]) is None:
            return False
    except (ImportError, ValueError):  # a parent package that is missing or blocked
        return False
    # the package is there but finds no spec for the submodule: some register their compiled
    # submodules only when the package is imported (resiliparse 2's extract.html2text)
    try:
        importlib.import_module(module)
    except Exception:  # noqa: BLE001 - any failure to import means it cannot run here
        return False
    return True


def unavailable(spec: MethodSpec) -> Unavailable | None:
    """Why ``spec`` cannot run here (a module it imports by name is missing), else None.

    A method that cannot be built is left to :func:`evalkit.harness.config.check_specs`,
    which names the bad value. A ``_target_`` method is the user's code: it is not built
    here (nor while the overrides are checked, docs/security.md); :func:`trial_run` tries it
    in the run."""
    if spec.origin == "target":
        return None
    try:
        method = spec.build()
        modules = method.runtime_modules()
    except Exception:  # noqa: BLE001 - check_specs reports it, naming the key
        return None
    missing = [m for m in modules if not _importable(m)]
    if not missing:
        return None
    package = getattr(method, "package", "") or missing[0].split(".")[0]
    fix = getattr(method, "install_hint", "") or GENERIC_FIX.format(package=package)
    return Unavailable(spec.label, f"{package} is not installed", fix)


def reader_unavailable(label: str, dataset: Any) -> Unavailable | None:
    """Why data set ``label``'s reader cannot read pages here (a module it declares in
    ``requires`` is missing), else None; ``label`` of the result is the data set's."""
    missing = [m for m in getattr(dataset, "requires", ()) if not _importable(m)]
    if not missing:
        return None
    package = missing[0].split(".")[0]
    fix = getattr(dataset, "install_hint", "") or GENERIC_FIX.format(package=package)
    return Unavailable(label, f"its reader needs {package}, which is not installed", fix)


def check_readers(datasets: dict[str, Any]) -> None:
    """A ConfigError, one line, when a data set's reader cannot read pages here: every such
    data set named with the cause and the fix (e.g. ``datasets 'wceb_scrapinghub',
    'wceb_readability': their reader needs resiliparse, which is not installed: pip install
    "evalkit[peers]"``). No setting skips them: a run without its data has nothing to say."""
    gone = [u for u in (reader_unavailable(k, ds) for k, ds in datasets.items()) if u]
    if not gone:
        return
    if len(gone) == 1:
        raise ConfigError(f"dataset {gone[0].label!r}: {gone[0].cause}: {gone[0].fix}")
    causes = list(dict.fromkeys((u.cause, u.fix) for u in gone))
    if len(causes) == 1:
        cause = causes[0][0].replace("its reader needs", "their reader needs")
        raise ConfigError(
            f"datasets {', '.join(repr(u.label) for u in gone)}: {cause}: {causes[0][1]}"
        )
    raise ConfigError("; ".join(f"dataset {u.label!r}: {u.cause}: {u.fix}" for u in gone))


def check_methods(
    specs: list[MethodSpec], settings: Settings
) -> tuple[list[MethodSpec], list[Unavailable]]:
    """The specs that can run here and the ones dropped (``runner.skip_unavailable``).

    Without ``skip_unavailable`` a method that cannot run is a ConfigError: one line
    naming every such method, the cause and the fix. With it, a ConfigError too when no
    method is left (the run would read every page and score nothing)."""
    gone = [u for u in (unavailable(s) for s in specs) if u is not None]
    if gone and len(gone) == len(specs) and settings.skip_unavailable:
        fixes = list(dict.fromkeys(u.fix for u in gone))
        raise ConfigError(
            "no method can run here, and runner.skip_unavailable=true would "
            "leave nothing to run: "
            + ", ".join(f"{u.label!r} ({u.cause})" for u in gone)
            + f": {' and '.join(fixes)}"
        )
    if gone and not settings.skip_unavailable:
        if len(gone) == 1:
            raise ConfigError(
                f"{gone[0].line()} (or runner.skip_unavailable=true to run without it)"
            )
        fixes = list(dict.fromkeys(u.fix for u in gone))
        raise ConfigError(
            f"methods {', '.join(repr(u.label) for u in gone)} cannot run here "
            f"({'; '.join(u.cause for u in gone)}): {' and '.join(fixes)} (or "
            "runner.skip_unavailable=true to run without them)"
        )
    dropped = {u.label for u in gone}
    return [s for s in specs if s.label not in dropped], gone


def preflight_specs(specs: list[MethodSpec], runner: Any = None) -> list[MethodSpec]:
    """The specs of a config's methods as a run gets them, before anything is written: one
    per row (evalkit.harness.method_rows), those that cannot run here dropped when
    ``runner.skip_unavailable`` (else a ConfigError). ``runner``: the run's ``runner`` section."""
    from evalkit.harness.method_rows import split_specs

    kept, _ = check_methods(split_specs(specs), Settings.from_runner(runner))
    return kept


def trial_run(specs: list[MethodSpec]) -> None:
    """Extract :data:`TRIAL_HTML` with every method given as a dotted path or an object
    (code evalkit has not checked): one that raises stops the run before any page, naming
    the method and the error (a constructor value of the wrong type, say)."""
    page = None
    for spec in specs:
        if spec.origin == "registry" or spec.kind != "method":
            continue
        page = page or Page(id="preflight", dataset="preflight", raw=TRIAL_HTML, gold=Gold(text=""))
        try:
            spec.build().extract(page)
        except Exception as exc:
            params = ", ".join(f"{k}={v!r}" for k, v in spec.params.items())
            raise ConfigError(
                f"method {spec.label!r} fails on a small test page before the "
                f"run: {type(exc).__name__}: {exc}"
                + (f" (its parameters: {params})" if params else "")
            ) from exc


def skipped_note(gone: list[Unavailable]) -> str:
    """The sentence the report and every table caption carry about dropped methods."""
    return (
        "Skipped (runner.skip_unavailable): "
        + "; ".join(f"{u.label} ({u.cause}: {u.fix})" for u in gone)
        + "."
    )


def _grouped(failures: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """Failures by (data set, method), each page once (several parts may record a page)."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    seen: set[tuple[str, str, str]] = set()
    for f in failures:
        key = (str(f["dataset"]), str(f["method"]), str(f.get("page")))
        if key not in seen:
            seen.add(key)
            out.setdefault(key[:2], []).append(f)
    return out


def failure_lines(
    failures: list[dict[str, Any]], pages: dict[tuple[str, str], int], limit: int = 160
) -> list[str]:
    """One line per (data set, method) with failures: count, share and first error.

    ``pages``: (data set, method) -> the method's records on that data set."""
    merged: dict[tuple, list] = {}  # methods failing alike share a line (alike_key)
    for (dataset, method), rows in _grouped(failures).items():
        n = pages.get((dataset, method)) or len(rows)
        first = str(rows[0]["error"]).replace("\n", " ")
        key = (*alike_key(dataset, method, len(rows), first), n)
        merged.setdefault(key, []).append((method, first))
    lines = []
    for (dataset, n_failed, _, n), members in merged.items():
        method, first = members[0]
        if len(members) > 1:
            method += f" and {len(members) - 1} more alike"
        each = " each" if len(members) > 1 else ""
        head = f"  {method} on {dataset}: {n_failed} of {n} pages failed{each}; first: "
        if len(head) + len(first) > limit:
            first = first[: max(20, limit - len(head) - 3)] + "..."
        lines.append(head + first)
    return lines


def over_share(
    failures: list[dict[str, Any]], pages: dict[tuple[str, str], int], share: float
) -> list[str]:
    """One line per (data set, method) whose failures exceed ``share`` of its pages."""
    lines = []
    for (dataset, method), rows in _grouped(failures).items():
        n = pages.get((dataset, method)) or len(rows)
        if len(rows) > share * n:
            lines.append(
                f"method {method!r} failed on {len(rows)} of {n} pages of {dataset} "
                f"(more than runner.max_failure_share={share:g}); first error: "
                f"{str(rows[0]['error']).splitlines()[0] if rows[0]['error'] else ''}"
            )
    return lines
