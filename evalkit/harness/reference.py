"""Regenerate ``results/reference/`` (every study and the extraction experiment on every
shared set) and check that the committed numbers still come out.

    python -m evalkit.reference            # all of it (about 25 minutes on 2 cores)
    python -m evalkit.reference --only extraction_all,speed_aeb runner.n_jobs=2
    python -m evalkit.reference --list
    python -m evalkit.reference --check            # recompute every entry, compare
    python -m evalkit.reference --check --quick    # the subset CI runs (QUICK)

Extra ``key=value`` arguments are passed to every command. Each entry is an
ordinary ``evalkit`` command; its run folder's tables,
figures, ``summary.csv``, ``run.json``, ``report.md`` and the extraction experiment's
``pairwise.csv`` and ``buckets.csv`` are copied to
``results/reference/<entry>/`` (per-page records stay in the run folder, they
are large and reproducible). ``results/reference/INDEX.md`` records the
commands and the date, and the README quotes the tables from there.
``results/reference/constraints.txt`` pins the installed versions that made them
(:mod:`evalkit.harness.constraints`), rewritten on every regeneration.

``--check`` runs each entry again from an empty cache into a temporary folder and
compares every number file of it -- ``summary.csv``, ``buckets.csv``, ``pairwise.csv`` and
each csv of ``tables/`` -- with the committed one (:mod:`evalkit.harness.reference_check`;
timings are checked for presence only): one line per difference, exit status 1 on any.
See docs/reference.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from evalkit.harness.config import project_root
from evalkit.harness.reference_check import compare_files, read_csv, read_summary
from evalkit.report.progress import steps

__all__ = [
    "COSTS",
    "ENTRIES",
    "OWN_METHODS",
    "PEERS",
    "QUICK",
    "RENDERED_SYSTEMS",
    "SHARED_SETS",
    "SMALL_LIMIT",
    "check_entry",
    "main",
    "missing_data",
    "run_entry",
    "write_constraints",
]

SHARED_SETS = [
    "l3s_gn1",
    "cleaneval_dev",
    "cleanportaleval",
    "readability",
    "aeb",
    "chaos",
    "big5_2017",
]
OWN_METHODS = [
    "proposed",
    "proposed_primary",
    "proposed_dedup",
    "cetd",
    "cetd_ds",
    "pab",
    "justext_style",
    "fulltext",
]
#: the seed papers' other systems (issues 25 and 26): in the extraction reference beside the
#: own methods, and not in the CI subset (quick), whose cost stays as it was
SEED_SYSTEMS = [
    "coreex",
    "econ",
    "tag_based",
    "existing1",
    "existing2",
    "eniw",
    "cectd_s",
    "ecectd_s",
    "san_aye",
    "target_entities",
]
#: the seed papers' systems that read the page as a browser lays it out (issue 27): the
#: layouts come from the layout cache (every change to the renderer's source renders the
#: shared pages again: experiments/speed/README.md measures that)
RENDERED_SYSTEMS = ["vwrapper"]
#: every extractor of the extraction entries
ALL_EXTRACTORS = OWN_METHODS + SEED_SYSTEMS + RENDERED_SYSTEMS
PEERS = [
    "trafilatura",
    "justext",
    "readability_lxml",
    "resiliparse",
    "boilerpy3",
    "goose3",
    "html_text",
]
#: the shared sets and page limit of the ``quick`` entry: the legacy-charset set, a
#: CleanEval set and two article sets, enough pages for every metric to be non-trivial
QUICK_SETS = ["l3s_gn1", "cleaneval_dev", "aeb", "chaos"]
QUICK_LIMIT = 25
#: pages per shared set of the ``*_small`` entries (CI's variants of the slow entries)
SMALL_LIMIT = 4
#: V-Wrapper's rendered training pages in ``extraction_small`` (120 in extraction_all): CI
#: renders every one from an empty layout cache
SMALL_TRAIN_PAGES = 20
#: pages of the WCXB and trafilatura-eval studies' small entries (a few of each page type)
BENCH_LIMIT = 24
#: the data sets of ``study=leaderboard`` (configs/study/leaderboard.yaml)
LEADERBOARD_SETS = [
    "aeb",
    "wcxb_dev",
    "trafilatura_eval",
    "wceb_readability",
    "wceb_l3s_gn1",
    "wceb_cleanportaleval",
]
#: the data sets of ``study=wceb`` (configs/study/wceb.yaml)
WCEB_SETS = ["wceb_scrapinghub", "wceb_readability", "wceb_l3s_gn1", "wceb_cleanportaleval"]


def _list(names):
    return "[" + ",".join(names) + "]"


#: entry name -> evalkit overrides (one command each)
ENTRIES: dict[str, list[str]] = {
    "extraction_all": [
        "experiment=extraction",
        f"dataset={_list(SHARED_SETS)}",
        f"method={_list(ALL_EXTRACTORS + PEERS)}",
    ],
    "dedup_real": ["experiment=dedup", "dataset=[cleanportaleval,big5_2017]"],
    "speed_aeb": [
        "experiment=speed",
        "dataset=aeb",
        f"method={_list(OWN_METHODS + SEED_SYSTEMS + ['trafilatura'])}",
    ],
    "saravanan2020": ["study=saravanan2020"],
    "kabir2015": ["study=kabir2015"],
    "san_aye": ["study=san_aye"],
    "kaur2017": ["study=kaur2017"],
    "kaur2015": ["study=kaur2015"],
    "all_synthetic": [],
    # every stage-1.4 reading (10,368) and the stage 1-3 switches one at a time, on the first
    # 60 pages of each shared set and 60 synthetic pages (readings.max_pages; configs/study/readings.yaml)
    "readings": ["study=readings"],
    # the gold audit of every shared set (docs/audit.md): cetd, justext_style, trafilatura
    "audit": ["experiment=audit", f"dataset={_list(SHARED_SETS)}"],
    # small enough to recompute whole in CI (--check --quick): extraction and dedup on the
    # first pages of four shared sets and a small synthetic set, every own method, two peers
    "quick": [
        "experiment=all",
        "experiment.parts=[extraction,dedup]",
        f"dataset={_list(QUICK_SETS + ['synthetic'])}",
        *[f"dataset.{name}.limit={QUICK_LIMIT}" for name in QUICK_SETS],
        "dataset.synthetic.n_sites=10",
        f"method={_list(OWN_METHODS + ['trafilatura', 'readability_lxml'])}",
    ],
    # the CI variants (--check --quick) of the entries too slow to recompute whole there:
    # the same commands on the first pages of each set, so every kind of entry -- every
    # experiment and study, every method and every shared reader -- runs in CI
    "extraction_small": [
        "experiment=extraction",
        f"dataset={_list(SHARED_SETS)}",
        *[f"dataset.{name}.limit={SMALL_LIMIT}" for name in SHARED_SETS],
        f"method={_list(ALL_EXTRACTORS + PEERS)}",
        f"method.vwrapper.train.pages={SMALL_TRAIN_PAGES}",
    ],
    "speed_small": [
        "experiment=speed",
        "dataset=aeb",
        f"dataset.aeb.limit={SMALL_LIMIT}",
        "method=[proposed,cetd,fulltext,trafilatura]",
    ],
    "kabir2015_small": ["study=kabir2015", "dataset.chaos.limit=72"],
    "san_aye_small": ["study=san_aye", "dataset.l3s_gn1.limit=30"],
    "readings_small": [
        "study=readings",
        f"readings.max_pages={SMALL_LIMIT}",
        "readings.switch_pages=2",
    ],
    "audit_small": [
        "experiment=audit",
        f"dataset={_list(SHARED_SETS)}",
        *[f"dataset.{name}.limit={SMALL_LIMIT}" for name in SHARED_SETS],
    ],
    # the field's other benchmarks (docs/benchmarks.md), each study on its first pages
    "wcxb_small": ["study=wcxb", f"dataset.wcxb_dev.limit={BENCH_LIMIT}"],
    "trafilatura_eval_small": [
        "study=trafilatura_eval",
        f"dataset.trafilatura_eval.limit={BENCH_LIMIT}",
    ],
    "wceb_small": ["study=wceb", *[f"dataset.{name}.limit={SMALL_LIMIT}" for name in WCEB_SETS]],
    # the leaderboard (experiments/leaderboard): the whole study, and its first pages for CI
    # (2 timed pages per set: the cost rows are timings, checked for presence only)
    "leaderboard": ["study=leaderboard"],
    "leaderboard_small": [
        "study=leaderboard",
        *[f"dataset.{name}.limit={SMALL_LIMIT}" for name in LEADERBOARD_SETS],
        "leaderboard.n_boot=200",
        "leaderboard.cost.pages=2",
    ],
    # structure and metadata (docs/metrics.md): the whole study, and its first pages for CI
    "structure": ["study=structure"],
    "structure_small": [
        "study=structure",
        f"dataset.wcxb_dev.limit={BENCH_LIMIT}",
        f"dataset.cleaneval_dev.limit={SMALL_LIMIT * 3}",
    ],
}

#: what an entry costs, measured, written into its INDEX.md row (entries not listed: see
#: docs/reference.md)
COSTS: dict[str, str] = {
    "readings": "about 4 min on 2 cores",
    "audit": "80 s of CPU from an empty cache, 2 min wall on 2 busy cores; 26 s warm",
}

#: the entries ``--check --quick`` recomputes (CI): measured in docs/reference.md
QUICK = [
    "quick",
    "kaur2017",
    "kaur2015",
    "dedup_real",
    "all_synthetic",
    "saravanan2020",
    "extraction_small",
    "speed_small",
    "kabir2015_small",
    "san_aye_small",
    "readings_small",
    "audit_small",
    "wcxb_small",
    "trafilatura_eval_small",
    "wceb_small",
    "structure_small",
    "leaderboard_small",
]

#: overrides that change how a command runs, never its numbers (left out of comparisons)
_RUN_ONLY = re.compile(
    r"^(runner\.(n_jobs|progress|cache|max_failure_share)|paths\.(results|cache))="
)
#: added to every entry's command: the reference records every method, one that fails on
#: most pages included (target_entities has no template for most sets: run.json lists why);
#: runner.max_failure_share is the user's alarm (exit 1 after writing everything), not a
#: reason to lose an entry
ENTRY_SETTINGS = ["runner.max_failure_share=1"]
_RESULTS_LINE = re.compile(r"evalkit: results in (.+)$", re.MULTILINE)
CONSTRAINTS = "constraints.txt"


def run_entry(name: str, dest_root: Path, extra: list[str] | None = None) -> Path:
    """Run one entry's command and copy its run folder's outputs to ``dest_root/name``."""
    cmd = [sys.executable, "-m", "evalkit", *ENTRIES[name], *ENTRY_SETTINGS, *(extra or [])]
    print(f"[reference] {name}: {' '.join(cmd[2:])}", flush=True)
    proc = subprocess.run(cmd, check=False, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{name} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    match = _RESULTS_LINE.search(proc.stdout)
    if match is None:
        raise RuntimeError(f"{name}: no results folder in the output:\n{proc.stdout[-2000:]}")
    run_dir = Path(match.group(1).strip())
    dest = dest_root / name
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for sub in ("tables", "figures"):
        if (run_dir / sub).is_dir():
            shutil.copytree(run_dir / sub, dest / sub)
    for f in ("summary.csv", "run.json", "report.md", "pairwise.csv", "buckets.csv"):
        if (run_dir / f).is_file():
            shutil.copy2(run_dir / f, dest / f)
    return dest


def current_pins() -> dict[str, str]:
    """The installed versions of everything that can move a number (evalkit.harness.constraints)."""
    from evalkit.harness.constraints import pins, root_requirements

    return pins(root_requirements(Path(project_root()) / "pyproject.toml"))


def write_constraints(dest_root: Path, pinned: dict[str, str]) -> Path:
    """Write ``dest_root/constraints.txt`` from the versions that just made the entries."""
    from evalkit.harness.constraints import render

    path = dest_root / CONSTRAINTS
    path.write_text(render(pinned, dt.date.today().isoformat()), encoding="utf-8")
    return path


def _pin_drift(old: dict[str, str], new: dict[str, str]) -> list[str]:
    return [
        f"{n} {new.get(n, 'not installed')} installed, {CONSTRAINTS} has {v}"
        for n, v in old.items()
        if new.get(n) != v
    ] + [f"{n} {v} installed, not in {CONSTRAINTS}" for n, v in new.items() if n not in old]


def _index_lines(index: Path) -> list[str]:
    return (
        index.read_text().splitlines()
        if index.exists()
        else [
            "# Reference results",
            "",
            "Made by `python -m evalkit.reference`; one folder per entry.",
            "",
            "| entry | command | made |",
            "|---|---|---|",
        ]
    )


def _regenerate(names: list[str], dest_root: Path, extra: list[str], all_entries: bool) -> int:
    from evalkit.harness.constraints import read_constraints

    pinned = current_pins()
    old = read_constraints(dest_root / CONSTRAINTS)
    drift = _pin_drift(old, pinned)
    # a package pinned for the first time (the pinned closure grew) moved none of the
    # committed numbers' recorded versions: it is written with a note, not refused
    added = [line for line in drift if line.endswith(f"not in {CONSTRAINTS}")]
    drift = [line for line in drift if line not in added]
    if added and old:
        print(
            f"[reference] pinned for the first time: {len(added)} packages "
            f"({'; '.join(added[:3])}{' ...' if len(added) > 3 else ''})",
            file=sys.stderr,
        )
    if drift and (dest_root / CONSTRAINTS).is_file() and not all_entries:
        # the constraints file speaks for every committed entry: a subset made with other
        # versions would make it lie about the rest
        print(
            f"[reference] installed versions differ from {dest_root / CONSTRAINTS} "
            f"({'; '.join(drift[:5])}{' ...' if len(drift) > 5 else ''}): regenerate every "
            "entry (no --only), or install with -c " + str(dest_root / CONSTRAINTS),
            file=sys.stderr,
        )
        return 2
    done = []
    for name in steps(names, len(names), "[reference] entry"):
        run_entry(name, dest_root, extra)
        done.append(name)
    write_constraints(dest_root, pinned)
    index = dest_root / "INDEX.md"
    lines = _index_lines(index)
    today = dt.date.today().isoformat()
    rows = {ln.split("]", 1)[0][3:]: ln for ln in lines if ln.startswith("| [")}
    for name in done:
        made = f"{today} ({COSTS[name]})" if name in COSTS else today
        command = " ".join(ENTRIES[name] + extra)
        rows[name] = f"| [{name}]({name}/report.md) | `evalkit {command}` | {made} |"
    head = [ln for ln in lines if not ln.startswith("| [")]
    order = [n for n in ENTRIES if n in rows] + [n for n in rows if n not in ENTRIES]
    index.write_text("\n".join(head + [rows[n] for n in order]) + "\n")  # in ENTRIES' order
    print(f"[reference] wrote {', '.join(done)} and {CONSTRAINTS} to {dest_root}")
    return 0


# --- the check ---------------------------------------------------------------------------


def missing_data(overrides: list[str]) -> str | None:
    """The first data folder an entry's command would read that does not exist, else None."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from evalkit.harness.config import CONFIG_DIR, register_resolvers

    register_resolvers()
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose("config", overrides=[o for o in overrides if not o.startswith("hydra")])
    # the data sets scored, and those a learned method trains on (V-Wrapper: train.dataset)
    paths = [OmegaConf.select(ds, "path") for ds in (cfg.get("dataset") or {}).values()]
    paths += [OmegaConf.select(m, "train.dataset.path") for m in (cfg.get("method") or {}).values()]
    for path in paths:
        if path is not None and not Path(str(path)).exists():
            return str(Path(str(path)).resolve())
    return None


def _committed_command(index: Path, name: str) -> list[str] | None:
    for line in _index_lines(index):
        if line.startswith(f"| [{name}]"):
            m = re.search(r"`evalkit ?([^`]*)`", line)
            return m.group(1).split() if m else None
    return None


def _numbers_only(overrides: list[str]) -> list[str]:
    return [o for o in overrides if not _RUN_ONLY.match(o)]


def _not_comparable_entry(name: str, committed: Path, fresh: Path, why: str):
    """Every row of an entry reported not comparable (``why``), each number file checked for
    its presence and shape (the same files, the same rows)."""
    from evalkit.harness.reference_check import Comparison, number_files

    out = Comparison(name, reasons={"(every method)": why})
    old, new = number_files(committed), number_files(fresh)
    for rel in sorted(set(old) ^ set(new)):
        side = (
            "committed, not made by the recomputed run"
            if rel in old
            else "made by the recomputed run, not committed"
        )
        out.differences.append(f"{name}: {rel} {side}")
    for rel in sorted(set(old) & set(new)):
        a, b = read_csv(committed / rel), read_csv(fresh / rel)
        if a.shape != b.shape or list(a.columns) != list(b.columns):
            out.differences.append(
                f"{name}: {rel}: committed {a.shape[0]} rows x {a.shape[1]} "
                f"columns, recomputed {b.shape[0]} x {b.shape[1]}"
            )
        out.not_comparable["(every method)"] = out.not_comparable.get("(every method)", 0) + len(a)
        out.files += 1
    return out


def check_entry(name: str, ref_root: Path, extra: list[str], work: Path, constraints):
    """Recompute one entry from an empty cache under ``work`` and compare it."""
    from evalkit.harness.reference_check import (
        Comparison,
        comparability,
        compare_summaries,
        scoring_difference,
    )

    committed = ref_root / name
    if not (committed / "summary.csv").is_file():
        out = Comparison(name)
        out.differences.append(
            f"{name}: no committed reference ({committed / 'summary.csv'} "
            f"missing); make it with python -m evalkit.reference --only {name}"
        )
        return out
    made_with = _committed_command(ref_root / "INDEX.md", name)
    stale = made_with is not None and _numbers_only(made_with) != _numbers_only(ENTRIES[name])
    run = [
        f"paths.results={work / 'results'}",
        f"paths.cache={work / 'cache'}",
        "runner.progress=false",
    ]
    try:
        fresh = run_entry(name, work / "out", [*extra, *run])
    except RuntimeError as exc:  # the command itself failed: one finding, the rest goes on
        out = Comparison(name)
        last = [ln for ln in str(exc).splitlines() if ln.strip()][-1]
        out.differences.append(f"{name}: the command failed, so nothing was compared: {last}")
        return out
    old_run = json.loads((committed / "run.json").read_text())
    new_run = json.loads((fresh / "run.json").read_text())
    scoring = scoring_difference(old_run, new_run)
    if scoring:  # the scorer's own inputs moved: nothing of the entry is comparable
        return _not_comparable_entry(name, committed, fresh, scoring)
    reasons = comparability(old_run, new_run, constraints)
    result = compare_summaries(name, read_summary(committed), read_summary(fresh), reasons)
    compare_files(result, name, committed, fresh, reasons)
    if stale:  # the tool no longer makes what is committed: a finding, not a note
        result.differences.insert(
            0,
            f"{name}: INDEX.md says the reference was made by "
            f"`evalkit {' '.join(made_with)}`, the entry is now "
            f"`evalkit {' '.join(ENTRIES[name])}` (regenerate it)",
        )
    for what in ("python", "lxml"):  # on every method's cache key; context for a difference
        if what in old_run and old_run[what] != new_run.get(what):
            result.notes.append(
                f"{name}: {what} {new_run.get(what)} here, reference made with {old_run[what]}"
            )
    for ds, info in (old_run.get("datasets") or {}).items():
        new_fp = ((new_run.get("datasets") or {}).get(ds) or {}).get("fingerprint")
        if isinstance(info, dict) and info.get("fingerprint") not in (None, new_fp):
            result.notes.append(
                f"{name}: data set {ds} is not the one the reference was made "
                f"from (fingerprint {str(new_fp)[:12]}, reference "
                f"{info['fingerprint'][:12]})"
            )
    return result


def _check(names: list[str], ref_root: Path, extra: list[str]) -> int:
    from evalkit.harness.constraints import read_constraints

    constraints = read_constraints(ref_root / CONSTRAINTS)
    drift = _pin_drift(constraints, current_pins()) if constraints else []
    for line in drift:
        print(f"note: {line}")
    if not constraints:
        print(f"note: no {ref_root / CONSTRAINTS}; versions are taken from each run.json")
    n_rows = n_timing = n_diff = 0
    not_comparable: dict[str, int] = {}
    skipped = []
    for name in steps(names, len(names), "[check] entry"):
        missing = missing_data(ENTRIES[name] + extra)
        if missing is not None:
            print(f"[check] {name}: skipped, its data {missing} is absent")
            skipped.append(name)
            continue
        start = time.monotonic()
        with tempfile.TemporaryDirectory(prefix=f"evalkit-check-{name}-") as tmp:
            result = check_entry(name, ref_root, extra, Path(tmp), constraints)
        print(
            f"[check] {name}: {result.compared} rows compared in {result.files} number "
            f"files, {len(result.differences)} differences "
            f"({time.monotonic() - start:.0f} s)"
        )
        for line in result.notes:
            print(f"note: {line}")
        for line in result.differences:
            print(f"DIFF {line}")
        for label, n in result.not_comparable.items():
            print(
                f"NOT COMPARABLE {name}: {label}, {n} rows: not comparable: "
                f"{result.reasons.get(label, 'a method of its table is not comparable')}"
            )
            not_comparable[f"{name}/{label}"] = n
        n_rows += result.compared
        n_timing += result.timing
        n_diff += len(result.differences)
    checked = len(names) - len(skipped)
    print(
        f"[check] {checked} entries checked{f', {len(skipped)} skipped (no data)' if skipped else ''}, "
        f"{n_rows} rows compared, {n_timing} timing rows present, {n_diff} differences, "
        f"{sum(not_comparable.values())} rows not comparable "
        f"({len(not_comparable)} methods): {'FAIL' if n_diff else 'ok'}"
    )
    return 1 if n_diff else 0


def main(argv: list[str] | None = None) -> int:
    from evalkit.core.terminal import guard_console

    guard_console()  # data's control characters are shown, never obeyed

    ap = argparse.ArgumentParser(
        prog="python -m evalkit.reference", description=__doc__.split("\n")[0]
    )
    ap.add_argument(
        "--only",
        default=None,
        help=f"comma-separated entries to run (default all: {','.join(ENTRIES)})",
    )
    ap.add_argument("--list", action="store_true", help="print the entries and their commands")
    ap.add_argument("--dest", default=None, help="reference folder (default results/reference)")
    ap.add_argument(
        "--check",
        action="store_true",
        help="recompute the entries from an empty cache and compare with --dest",
    )
    ap.add_argument(
        "--quick", action="store_true", help=f"with --check: only the CI subset ({','.join(QUICK)})"
    )
    args, extra = ap.parse_known_args(argv)
    if args.list:
        for name, overrides in ENTRIES.items():
            print(f"{name}: evalkit {' '.join(overrides)}")
        return 0
    if project_root() is None:  # pyproject.toml's pins and results/reference/ live there
        ap.error(
            "the reference runs need an evalkit checkout (its pyproject.toml and "
            "results/reference/); this evalkit is an installed package"
        )
    if args.quick and not args.check:
        ap.error("--quick goes with --check")
    if args.quick and args.only:
        ap.error("--quick and --only both choose entries; use one")
    dest_root = Path(args.dest) if args.dest else Path(project_root()) / "results" / "reference"
    names = args.only.split(",") if args.only else list(QUICK if args.quick else ENTRIES)
    unknown = [n for n in names if n not in ENTRIES]
    if unknown:
        ap.error(f"unknown entries {unknown}; known: {', '.join(ENTRIES)}")
    if args.check:
        return _check(names, dest_root, extra)
    dest_root.mkdir(parents=True, exist_ok=True)
    return _regenerate(names, dest_root, extra, all_entries=set(names) == set(ENTRIES))


if __name__ == "__main__":
    sys.exit(main())
