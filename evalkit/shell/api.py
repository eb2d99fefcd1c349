"""The Python API: ``evalkit.evaluate(...)`` for notebooks and scripts (README "Python API").

:func:`evaluate` composes the config the ``evalkit`` command composes (from evalkit's own
config folder, wherever Python was started), checks the overrides as the command does,
and runs :func:`evalkit.experiments.run_experiment`, the command's execution path. It adds
only what a config cannot hold: pages in memory and methods given as Python objects
(an :class:`~evalkit.core.method.Extractor` object or class, or a function ``html -> text``).
The run folder is the command's (``results/runs/extraction/<time>_<suffix>/``), and
:class:`Result` reads its files back, so ``Result.summary`` is ``summary.csv``.

String-hash seed: the command runs under ``PYTHONHASHSEED=0`` (evalkit.shell.entry), because
some peer libraries decide by the order of a set of strings. An interpreter's own seed
cannot change once it runs, so :func:`evaluate` sets the variable for the worker
processes it starts (joblib's, a local Dask cluster's, the page workers) and puts it
back afterwards: with ``runner.n_jobs`` of 2 or more its numbers equal the command's.
With ``runner.n_jobs=1`` the work runs in this interpreter; when its seed is not the
command's, ``Result.hash_seed_note`` says so (and one line is printed): start Python
with ``PYTHONHASHSEED=0`` to match the command exactly.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

__all__ = ["Result", "evaluate", "to_overrides"]

_PROG = "evalkit"


@dataclass
class Result:
    """A finished run: its folder and the tables in it.

    ``summary`` is ``summary.csv`` (long format: ``experiment, dataset, method, metric,
    value, ci_low, ci_high, n_pages``) and ``per_page`` is ``per_page.csv``, both read on
    first use. ``hash_seed_note`` is None when the numbers are the command's, else why
    they may not be (see the module docstring).
    """

    run_dir: Path
    hash_seed_note: str | None = None

    @property
    def same_as_cli(self) -> bool:
        """Whether the run's work ran under the string-hash seed the command uses."""
        return self.hash_seed_note is None

    @cached_property
    def summary(self):
        from evalkit.report.results import read_summary

        return read_summary(self.run_dir)

    @cached_property
    def per_page(self):
        import pandas as pd

        from evalkit.report.per_page_csv import read_per_page

        path = self.run_dir / "per_page.csv"  # the same column types in every run
        return read_per_page(path) if path.is_file() else pd.DataFrame()

    @property
    def report_path(self) -> Path:
        return self.run_dir / "report.md"

    def report(self) -> str:
        """The run's report (markdown: tables, failures, links to the figures)."""
        return self.report_path.read_text(encoding="utf-8")

    def plot(self, metric: str = "shingle") -> dict[str, Any]:
        """Data set -> a matplotlib figure of ``metric``'s precision, recall and F1 per method
        with their intervals (the run's ``figures/extraction_<set>_shingle_prf``)."""
        from evalkit.report.plots import prf_figure

        valid = self.plot_metrics()
        if metric not in valid:
            raise ValueError(
                f"no metric {metric!r} in this run to plot; valid: "
                f"{', '.join(valid) or 'none (the run has no P/R/F1 rows)'}"
            )
        names = tuple(f"{metric}_{k}" for k in ("precision", "recall", "f1"))
        rows = self.summary[self.summary["metric"].isin(names)]
        return {
            str(ds): prf_figure(rows, str(ds), metrics=names)
            for ds in dict.fromkeys(rows["dataset"])
        }

    def plot_metrics(self) -> list[str]:
        """The metrics :meth:`plot` can draw: those with precision, recall and F1 rows."""
        have = set(self.summary["metric"]) if len(self.summary) else set()
        found = (
            [
                m[: -len("_f1")]
                for m in dict.fromkeys(self.summary.get("metric", []))
                if m.endswith("_f1")
            ]
            if len(self.summary)
            else []
        )
        return [m for m in found if f"{m}_precision" in have and f"{m}_recall" in have]

    @cached_property
    def texts(self):
        """Each page's extracted text per method: a frame ``dataset, page, method, text``
        read from the run's kept extractions (``extractions.jsonl.gz``, evalkit.harness.kept),
        not from the cache. Empty when the run kept none (``runner.cache=false``)."""
        from evalkit.harness.kept import read_kept, texts_table

        return texts_table(read_kept(self.run_dir))

    def text(self, page: str, method: str, dataset: str | None = None) -> str:
        """The text ``method`` extracted from ``page`` (KeyError naming them when not kept)."""
        t = self.texts
        hit = t[(t["page"] == str(page)) & (t["method"] == method)] if len(t) else t
        if dataset is not None and len(hit):
            hit = hit[hit["dataset"] == dataset]
        if hit.empty:
            raise KeyError(f"no kept text of page {page!r} by method {method!r} in {self.run_dir}")
        return str(hit.iloc[0]["text"])

    def __repr__(self) -> str:
        return f"Result(run_dir={str(self.run_dir)!r})"


def evaluate(
    dataset: Any = None, methods: Any = None, metrics: list[str] | None = None, **overrides: Any
) -> Result:
    """Run the extraction experiment and return its :class:`Result`.

    ``dataset``: a data set name (``"aeb"``, a file of configs/dataset/), a folder of pages
    (``html/<id>.html`` and ``gold/<id>.txt``, or both side by side: the ``pairs`` reader),
    an iterable of ``(html, gold text)`` pairs, a list of names or folders, or a mapping
    label -> any of these. None: the config's default.

    ``methods``: a list (or a mapping label -> method) of method names (configs/method/),
    :class:`~evalkit.core.method.Extractor` objects, Extractor classes and functions
    ``html -> text``. Objects are labelled by their class's ``name`` or their function's
    name. None: the config's default methods.

    ``metrics``: ``extraction.metrics`` (which metrics to compute), when given.

    ``overrides``: any setting of the command line, as keyword arguments: a key with dots
    as ``**{"runner.n_jobs": 1, "dataset.aeb.limit": 20}``, a section as a dict
    (``runner={"n_jobs": 1}``) or a group option as a string (``runner="dask"``).
    ``experiment`` defaults to ``extraction``.

    Raises :class:`evalkit.harness.config.ConfigError` (or the reader's, registry's or runner's
    error) with the command's one-line message for a configuration mistake.
    """
    from omegaconf import OmegaConf, open_dict

    from evalkit.experiments import run_experiment, runner_from_config
    from evalkit.harness.config import ConfigError, register_resolvers
    from evalkit.harness.errors import RunnerError
    from evalkit.harness.registry import UnknownNameError
    from evalkit.harness.rundir import discard, mark_failed, one_line
    from evalkit.readers.base import DatasetMissingError

    started = time.time()
    register_resolvers()
    names = _options("dataset")
    ds_over, memory, ds_labels = _datasets(dataset, names)
    m_over, specs, m_labels = _methods(methods)
    argv = ([] if "experiment" in overrides else ["experiment=extraction"]) + ds_over + m_over
    if metrics is not None:
        argv.append(f"extraction.metrics={_value(list(metrics))}")
    argv += to_overrides(overrides)
    argv = _checked(argv)
    cfg = _compose(argv)
    with open_dict(cfg):
        run_dir = str(cfg.hydra.run.dir)  # reserves the folder (evalkit.harness.rundir)
        del cfg["hydra"]
        # a mapping's keys are the labels, for configured names as for objects
        for section, labels in (("dataset", ds_labels), ("method", m_labels)):
            if labels:
                cfg[section] = {labels.get(k, k): v for k, v in cfg[section].items()}
    out = Path(run_dir)
    (out / ".hydra").mkdir(parents=True, exist_ok=True)
    (out / ".hydra" / "config.yaml").write_text(OmegaConf.to_yaml(cfg), encoding="utf-8")
    (out / ".hydra" / "overrides.yaml").write_text(OmegaConf.to_yaml(argv), encoding="utf-8")
    note = _seed_note(runner_from_config(cfg))
    if note:
        print(f"{_PROG}: {note}", file=sys.stderr)
    extra = {"api": {"evaluate": True, "hash_seed_note": note}}
    try:
        with _workers_hash_seed():
            run_experiment(cfg, out, datasets=memory, methods=specs, extra=extra)
    except (UnknownNameError, DatasetMissingError, ConfigError, RunnerError) as exc:
        discard(out)  # a folder that is not empty stays: marked
        mark_failed(out, str(exc), since=started)
        raise
    except KeyboardInterrupt:
        raise  # run_experiment marked the folder interrupted
    except BaseException as exc:  # run.json says the run failed, and why (docs/security.md)
        mark_failed(out, one_line(exc), since=started)
        raise
    return Result(run_dir=out, hash_seed_note=note)


# ---------------------------------------------------------------------------- overrides


def to_overrides(settings: Mapping[str, Any]) -> list[str]:
    """Keyword settings as command-line overrides: ``{"runner": {"n_jobs": 1}}`` and
    ``{"runner.n_jobs": 1}`` both give ``runner.n_jobs=1``; a string sets a value or
    chooses a group option (``runner="dask"``)."""
    out = []
    for key, value in settings.items():
        if isinstance(value, Mapping) and value:
            out += to_overrides({f"{key}.{k}": v for k, v in value.items()})
        else:
            out.append(f"{key}={_value(value)}")
    return out


def _value(value: Any) -> str:
    """A Python value in Hydra's override grammar (strings quoted, so ``"1"`` stays text)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if isinstance(value, str):
        if re.fullmatch(r"[A-Za-z_][\w.\-/]*", value) and value not in ("null", "true", "false"):
            return value  # a plain word (a group option) needs no quotes
        return _quote(value)
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{k}:{_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_value(v) for v in value) + "]"
    raise TypeError(f"cannot pass a {type(value).__name__} as a setting: {value!r}")


def _quote(text: str) -> str:
    # Hydra reads a backslash as an escape only before a quote: double the trailing ones
    tail = len(text) - len(text.rstrip("\\"))
    text = text + "\\" * tail
    if "'" not in text:
        return f"'{text}'"
    return "'" + text.replace("'", "\\'") + "'"


def _checked(argv: list[str]) -> list[str]:
    """The command's checks of its overrides (evalkit.shell.cli.main): ``_target_`` methods and
    renamed keys moved, then one line for a key, option or value that is wrong."""
    from evalkit.harness.config import ConfigError, warn_renamed
    from evalkit.shell.cli import check_overrides, upgrade_overrides

    argv, moved = upgrade_overrides(argv)  # the command's own two steps, as it calls them
    for old, new in moved:
        warn_renamed(old, new)
    from evalkit.harness.rundir import refused_folders

    msg = check_overrides(argv) or refused_folders(argv)  # never over an earlier run
    if msg:
        raise ConfigError(msg.removeprefix(f"{_PROG}: "))
    return argv


@contextlib.contextmanager
def _hydra() -> Iterator[Any]:
    from hydra.core.global_hydra import GlobalHydra

    from evalkit.harness.config import hydra_configs

    with hydra_configs(job_name=_PROG):  # the command's search path, checkout or wheel
        yield GlobalHydra.instance()


def _options(group: str) -> list[str]:
    with _hydra() as gh:
        return list(gh.config_loader().get_group_options(group))


def _compose(argv: list[str]):
    from hydra import compose

    with _hydra():
        return compose(config_name="config", overrides=argv, return_hydra_config=True)


# ---------------------------------------------------------------------------- data sets


def _datasets(dataset: Any, names: list[str]) -> tuple[list[str], dict[str, Any], dict[str, str]]:
    """(overrides, label -> in-memory reader, configured name -> mapping label) for the
    ``dataset`` argument."""
    if dataset is None:
        return [], {}, {}
    from evalkit.readers.base import Dataset

    if isinstance(dataset, (str, os.PathLike, Dataset)):
        items: list[tuple[str | None, Any]] = [(None, dataset)]
    elif isinstance(dataset, Mapping):
        items = [(str(k), v) for k, v in dataset.items()]
    elif (
        isinstance(dataset, (list, tuple))
        and dataset
        and all(isinstance(d, (str, os.PathLike)) for d in dataset)
    ):
        items = [(None, d) for d in dataset]
    else:
        items = [(None, dataset)]  # (html, gold) pairs
    chosen, adds, memory = [], [], {}
    renames: dict[str, str] = {}  # configured name -> the mapping's label
    taken = set()
    for label, source in items:
        if isinstance(source, str) and source in names:
            chosen.append(source)  # a configured set, named by its mapping key if given
            taken.add(source)
            if label and label != source:
                renames[source] = label
        elif (
            isinstance(source, os.PathLike)
            or isinstance(source, str)
            and (Path(source).expanduser().is_dir() or os.sep in source)
        ):
            from evalkit.shell.dataset_paths import folder_label, folder_overrides

            folder = Path(source).expanduser().resolve()
            label = _unique(label or folder_label(folder), taken)
            if not _KEY.fullmatch(label):  # v1.0, a/b, ../../x: no config key can hold it
                memory[label] = _folder_reader(label, folder, not (folder / "html").is_dir())
                continue
            adds += folder_overrides(label, folder)  # the command's dataset=FOLDER too
        elif isinstance(source, str):
            chosen.append(source)  # not a set: the check names the closest valid ones
            taken.add(source)
        elif isinstance(source, Dataset):
            memory[_unique(label or _label(source.name or "memory"), taken)] = source
        else:
            label = _unique(label or "memory", taken)
            memory[label] = _pairs(source, label)
    return [f"dataset={_value(chosen)}", *adds], memory, renames


#: a label that can be a key of an override (``dataset.<label>.path=...``): Hydra's ID. Any
#: other label (a dot would nest the key: ``dataset.v1.0``) is handed over as a reader object;
#: its file names come from evalkit.report.filenames either way
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")


def _folder_reader(label: str, folder: Path, flat: bool):
    """The ``pairs`` reader of ``folder``, built here for a label no override can name."""
    from evalkit.harness.config import ConfigError
    from evalkit.harness.registry import DATASETS
    from evalkit.readers.base import DatasetMissingError

    where = {"html_dir": ".", "gold_dir": "."} if flat else {}
    ds = DATASETS.create("pairs", path=str(folder), **where)
    try:
        ds.root()
    except DatasetMissingError as exc:
        raise ConfigError(f"dataset {label!r}: {folder}: no such folder") from exc
    return ds


def _pairs(items: Iterable, label: str):
    """An in-memory reader of ``(html, gold text)`` pairs; page ids ``1``, ``2``, ..."""
    from evalkit.core.page import Gold, Page
    from evalkit.harness.config import ConfigError
    from evalkit.readers.base import InMemoryDataset

    if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
        raise ConfigError(
            f"dataset {label!r}: expected a name, a folder or an iterable of "
            f"(html, gold text) pairs, got {type(items).__name__}"
        )
    pages = []
    items = list(items)
    if not items:  # an empty run would print an empty summary and say nothing
        raise ConfigError(f"dataset {label!r}: no (html, gold text) pairs to score")
    width = len(str(len(items)))
    for i, item in enumerate(items, 1):
        try:
            html, gold = item
        except (TypeError, ValueError):
            raise ConfigError(
                f"dataset {label!r}, item {i}: expected a pair (html, gold "
                f"text), got {type(item).__name__}"
            ) from None
        if not isinstance(html, (str, bytes)) or not isinstance(gold, str):
            raise ConfigError(
                f"dataset {label!r}, item {i}: html must be str or bytes and "
                f"the gold a str, got {type(html).__name__} and "
                f"{type(gold).__name__}"
            )
        raw = html if isinstance(html, bytes) else html.encode("utf-8", "surrogatepass")
        pages.append(
            Page(
                id=f"{i:0{width}d}",
                dataset=label,
                raw=raw,
                html="" if isinstance(html, bytes) else html,
                gold=Gold(text=gold),
            )
        )
    return InMemoryDataset(pages, name=label)


# ---------------------------------------------------------------------------- methods


def _methods(methods: Any) -> tuple[list[str], list, dict[str, str]]:
    """(overrides, specs of the methods given as objects, configured name -> mapping label)
    for the ``methods`` argument."""
    if methods is None:
        return [], [], {}
    from evalkit.harness.specs import MethodSpec

    if isinstance(methods, (str, os.PathLike)) or callable(methods) or hasattr(methods, "extract"):
        methods = [methods]
    items = (
        [(str(k), v) for k, v in methods.items()]
        if isinstance(methods, Mapping)
        else [(None, m) for m in methods]
    )
    names = [m for _, m in items if isinstance(m, str)]  # configured methods
    renames = {m: label for label, m in items if isinstance(m, str) and label and label != m}
    taken = set(names) | set(renames.values())
    specs = []
    for label, method in items:
        if isinstance(method, str):
            continue
        if isinstance(method, type):
            base = getattr(method, "name", "") or method.__name__
        elif hasattr(method, "extract"):
            base = getattr(method, "name", "") or type(method).__name__
        else:
            base = getattr(method, "__name__", "") or type(method).__name__
        label = _unique(label or _label(base), taken)
        specs.append(MethodSpec.from_object(label, method))
    return [f"method={_value(names)}"], specs, renames


def _label(text: str) -> str:
    """A name usable as a config key and a table label."""
    return re.sub(r"\W+", "_", text).strip("_").lower() or "method"


def _unique(label: str, taken: set[str]) -> str:
    out, n = label, 1
    while out in taken:
        n += 1
        out = f"{label}_{n}"
    taken.add(out)
    return out


# ---------------------------------------------------------------------------- hash seed


@contextlib.contextmanager
def _workers_hash_seed() -> Iterator[None]:
    """``PYTHONHASHSEED`` for the processes started meanwhile, as the command sets it for
    itself (evalkit.shell.entry.HASH_SEED); a value already set is kept, as the command keeps it."""
    from evalkit.shell.entry import HASH_SEED

    if "PYTHONHASHSEED" in os.environ:
        yield
        return
    os.environ["PYTHONHASHSEED"] = HASH_SEED
    try:
        yield
    finally:
        os.environ.pop("PYTHONHASHSEED", None)


def _seed_note(runner) -> str | None:
    """Why this run's numbers may differ from the command's, or None: its work runs in this
    interpreter, whose string-hash seed is not the one the command runs under."""
    from evalkit.report.results import interpreter_hash_seed
    from evalkit.shell.entry import HASH_SEED

    threads = (
        runner.name == "dask"
        and not runner.dask.get("processes", True)
        and not runner.dask.get("scheduler")
    )
    if not (runner.in_process or threads):
        return None
    command = os.environ.get("PYTHONHASHSEED", HASH_SEED)
    here = interpreter_hash_seed()
    if here == command:
        return None
    return (
        f"the work ran in this interpreter, whose string-hash seed is "
        f"{here or 'random'}, not the command's {command}: a method that depends on the "
        "order of a set of strings may give other numbers than `evalkit` (use "
        "runner.n_jobs=2, or start Python with PYTHONHASHSEED=0)"
    )
