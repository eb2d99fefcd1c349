"""Regenerate ``results/reference/``: every study and the extraction experiment on every shared set.

    python -m evalkit.reference            # all of it (about 20 minutes on 2 cores)
    python -m evalkit.reference --only extraction_all,speed_aeb runner.n_jobs=2
    python -m evalkit.reference --list

Extra ``key=value`` arguments are passed to every command. Each entry is an
ordinary ``evalkit`` command; its run folder's tables,
figures, ``summary.csv``, ``run.json`` and ``report.md`` are copied to
``results/reference/<entry>/`` (per-page records stay in the run folder, they
are large and reproducible). ``results/reference/INDEX.md`` records the
commands and the date, and the README quotes the tables from there.
"""

from __future__ import annotations

import argparse
import datetime as dt
import re
import shutil
import subprocess
import sys
from pathlib import Path

from evalkit.config import project_root

__all__ = ["ENTRIES", "SHARED_SETS", "OWN_METHODS", "PEERS", "run_entry", "main"]

SHARED_SETS = ["l3s_gn1", "cleaneval_dev", "cleanportaleval", "readability", "aeb", "chaos",
               "big5_2017"]
OWN_METHODS = ["proposed", "proposed_primary", "proposed_dedup", "cetd", "cetd_ds", "pab",
               "justext_style", "fulltext"]
PEERS = ["trafilatura", "justext", "readability_lxml", "resiliparse", "boilerpy3", "goose3",
         "html_text"]


def _list(names):
    return "[" + ",".join(names) + "]"


#: entry name -> evalkit overrides (one command each)
ENTRIES: dict[str, list[str]] = {
    "extraction_all": ["experiment=extraction", f"dataset={_list(SHARED_SETS)}",
                       f"method={_list(OWN_METHODS + PEERS)}"],
    "dedup_real": ["experiment=dedup", "dataset=[cleanportaleval,big5_2017]"],
    "speed_aeb": ["experiment=speed", "dataset=aeb", f"method={_list(OWN_METHODS + ['trafilatura'])}"],
    "saravanan2020": ["study=saravanan2020"],
    "kabir2015": ["study=kabir2015"],
    "san_aye": ["study=san_aye"],
    "kaur2017": ["study=kaur2017"],
    "kaur2015": ["study=kaur2015"],
    "all_synthetic": [],
}

_RESULTS_LINE = re.compile(r"evalkit: results in (.+)$", re.MULTILINE)


def run_entry(name: str, dest_root: Path, extra: list[str] | None = None) -> Path:
    """Run one entry's command and copy its run folder's outputs to ``dest_root/name``."""
    cmd = [sys.executable, "-m", "evalkit", *ENTRIES[name], *(extra or [])]
    print(f"[reference] {name}: {' '.join(cmd[2:])}", flush=True)
    proc = subprocess.run(cmd, capture_output=True, text=True)
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
    for f in ("summary.csv", "run.json", "report.md"):
        if (run_dir / f).is_file():
            shutil.copy2(run_dir / f, dest / f)
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evalkit.reference", description=__doc__.split("\n")[0])
    ap.add_argument("--only", default=None,
                    help=f"comma-separated entries to run (default all: {','.join(ENTRIES)})")
    ap.add_argument("--list", action="store_true", help="print the entries and their commands")
    ap.add_argument("--dest", default=None, help="output folder (default results/reference)")
    args, extra = ap.parse_known_args(argv)
    if args.list:
        for name, overrides in ENTRIES.items():
            print(f"{name}: evalkit {' '.join(overrides)}")
        return 0
    dest_root = Path(args.dest) if args.dest else Path(project_root()) / "results" / "reference"
    dest_root.mkdir(parents=True, exist_ok=True)
    names = args.only.split(",") if args.only else list(ENTRIES)
    unknown = [n for n in names if n not in ENTRIES]
    if unknown:
        ap.error(f"unknown entries {unknown}; known: {', '.join(ENTRIES)}")
    done = []
    for name in names:
        run_entry(name, dest_root, extra)
        done.append(name)
    index = dest_root / "INDEX.md"
    lines = index.read_text().splitlines() if index.exists() else [
        "# Reference results", "", "Made by `python -m evalkit.reference`; one folder per entry.",
        "", "| entry | command | made |", "|---|---|---|"]
    today = dt.date.today().isoformat()
    for name in done:
        row = f"| [{name}]({name}/report.md) | `evalkit {' '.join(ENTRIES[name] + extra)}` | {today} |"
        lines = [ln for ln in lines if not ln.startswith(f"| [{name}]")] + [row]
    index.write_text("\n".join(lines) + "\n")
    print(f"[reference] wrote {', '.join(done)} to {dest_root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
