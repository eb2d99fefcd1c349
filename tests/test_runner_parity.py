"""runner=dask gives the local runner's summary.csv for every experiment and every study.

Each of the six experiment configs (configs/experiment/: extraction, dedup,
classification, units, speed and the aggregate ``all``) and each of the five studies
runs twice with small limits: on the local runner in this process, and on a Dask
cluster of two worker processes (started once for the module and given by
``runner.scheduler``, so the tasks and their arguments cross process boundaries as on
a real cluster). The summaries must be byte-identical, apart from the values of the
``speed`` rows, which are timings (their keys and page counts must still agree).
"""

from __future__ import annotations

import io

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from evalkit.experiments import run_experiment
from evalkit.harness.config import register_resolvers
from evalkit.shell.cli import CONFIG_DIR

pytest.importorskip("distributed")
register_resolvers()

_SYNTH = ["dataset=synthetic", "dataset.synthetic.limit=20"]
_CLASSIFY = [
    "classification.test_fractions=[0.2,0.4]",
    "classification.repeats=2",
    "classification.n_boot=50",
]
_UNITS = ["units.folds=2", "units.n_boot=50"]
_SPEED = ["speed.micro.lengths=[300]", "speed.micro.repeat=1", "speed.n_boot=50"]
_SMALL = ["extraction.n_boot=50", "dedup.n_boot=50"]
#: name -> (overrides, real data sets it reads)
CASES = {
    "extraction": (
        [
            "experiment=extraction",
            *_SYNTH,
            "extraction.n_boot=50",
            "method=[proposed,cetd,fulltext]",
        ],
        [],
    ),
    "dedup": (["experiment=dedup", *_SYNTH, "dedup.n_boot=50"], []),
    "classification": (["experiment=classification", *_SYNTH, *_CLASSIFY, "method=[cetd]"], []),
    "units": (["experiment=units", *_SYNTH, *_UNITS], []),
    "speed": (
        [
            "experiment=speed",
            "dataset=synthetic",
            "dataset.synthetic.limit=6",
            "method=[cetd,fulltext]",
            *_SPEED,
        ],
        [],
    ),
    "all": (
        ["experiment=all", *_SYNTH, "method=[cetd,pab]", *_SMALL, *_CLASSIFY, *_UNITS, *_SPEED],
        [],
    ),
    "kabir2015": (
        [
            "study=kabir2015",
            "dataset.chaos.limit=20",
            "method=[pab]",
            *_CLASSIFY,
            "kabir_blocks.n_boot=50",
        ],
        ["chaos"],
    ),
    "kaur2015": (
        [
            "study=kaur2015",
            "dataset.big5_2017.limit=4",
            "dataset.chaos.limit=4",
            "extraction.n_boot=50",
        ],
        ["big5-2017", "chaos"],
    ),
    "kaur2017": (
        ["study=kaur2017", "kaur2017.pages=4", "method=[cetd,fulltext]", "kaur2017.n_boot=50"],
        ["big5-2017"],
    ),
    "san_aye": (["study=san_aye", "dataset.l3s_gn1.limit=6", *_UNITS], ["l3s-gn1"]),
    # V-Wrapper learns from 10 rendered L3S-GN1 pages, not 120: each run renders them afresh
    "saravanan2020": (
        [
            "study=saravanan2020",
            *_SYNTH,
            "study.page_counts=[10,20]",
            "study.n_boot=50",
            "method.vwrapper.train.pages=10",
        ],
        ["l3s-gn1"],
    ),
    "readings": (
        [
            "study=readings",
            *_SYNTH,
            "readings.max_pages=12",
            "readings.switch_pages=3",
            "study.n_boot=50",
        ],
        [],
    ),
}


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        yield cluster


def _tasks_run(cluster) -> int:
    # every task the scheduler has seen, whatever state it is in now
    return sum(sum(p.state_counts.values()) for p in cluster.scheduler.task_prefixes.values())


def _compose(overrides):
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return compose(config_name="config", overrides=overrides)


def _split(summary: bytes) -> tuple[list[str], pd.DataFrame]:
    """Non-timing lines as they are; the speed rows without their values."""
    lines = summary.decode().splitlines()
    keep = [ln for ln in lines if not ln.startswith("speed,")]
    timing = pd.read_csv(io.StringIO(summary.decode()))
    timing = timing[timing["experiment"] == "speed"]
    return keep, timing[["dataset", "method", "metric", "n_pages"]].reset_index(drop=True)


#: the cases of the default run (CI); the studies' cases, minutes each, run nightly (.ci/nightly)
IN_CI = ("extraction", "dedup", "classification", "units", "kaur2017")


@pytest.mark.parametrize(
    "name",
    [
        n if n in IN_CI else pytest.param(n, marks=[pytest.mark.nightly, pytest.mark.slow])
        for n in CASES
    ],
)
def test_dask_summary_equals_the_local_one(name, cluster, tmp_path, shared, shared_root):
    overrides, sets = CASES[name]
    for folder in sets:
        shared(folder)  # skips, saying why, when the set is absent
    common = [
        *overrides,
        f"paths.shared_data={shared_root}",
        "runner.cache=false",
        "runner.progress=false",
    ]
    local = run_experiment(_compose([*common, "runner.n_jobs=1"]), tmp_path / "local")
    before = _tasks_run(cluster)
    dask = run_experiment(
        _compose(
            [
                *common,
                "runner=dask",
                "runner.n_workers=2",
                f"runner.scheduler={cluster.scheduler_address}",
            ]
        ),
        tmp_path / "dask",
    )
    assert _tasks_run(cluster) > before  # the work went to the cluster, not this process
    a, a_timing = _split((local / "summary.csv").read_bytes())
    b, b_timing = _split((dask / "summary.csv").read_bytes())
    assert len(a) + len(a_timing) > 10  # a real summary, not an empty one
    assert a == b
    pd.testing.assert_frame_equal(a_timing, b_timing)
