"""The Dask runner: same records, same order and same summary.csv as the local runner."""

from __future__ import annotations

import pytest
from hydra import compose, initialize_config_dir

from evalkit.core.page import Gold, Page
from evalkit.experiments import run_experiment
from evalkit.harness.config import register_resolvers
from evalkit.harness.dask_runner import DaskBackend
from evalkit.harness.errors import RunnerError
from evalkit.harness.runner import Runner, run_pages, run_pages_dask
from evalkit.harness.specs import MethodSpec
from evalkit.shell.cli import CONFIG_DIR

pytest.importorskip("distributed")
register_resolvers()


def _page(i, html, site=None):
    return Page(id=f"p{i}", dataset="t", raw=html.encode(), gold=Gold(text="x"), site=site)


def _score(page, method, ext):
    return {"page_id": page.id, "method": method, "error": ext.error, "text": ext.text}


# seven pages over three sites and none, one of them empty (fulltext fails on it)
PAGES = [
    _page(i, f"<html><body><p>Page {i} text.</p><div>more {i}</div></body></html>", site)
    for i, site in enumerate(["a", "a", "b", None, None, "c", "c"])
]
PAGES[4] = _page(4, "", None)
SPECS = [MethodSpec("fulltext", "fulltext"), MethodSpec("empty", "empty")]


def test_records_match_the_local_runner_in_order_with_failures_kept():
    local = run_pages(PAGES, SPECS, score=_score, n_jobs=1, progress=False)
    # a window of one task in flight and of many must give the same order
    for window in (1, 8):
        dask = run_pages_dask(
            PAGES,
            SPECS,
            score=_score,
            n_workers=2,
            processes=False,
            window_per_worker=window,
            progress=False,
        )
        assert dask == local
    assert [r["page_id"] for r in local[::2]] == [f"p{i}" for i in range(7)]
    assert local[8]["error"].startswith("PageError: p4: empty document")
    assert local[0]["text"] == "Page 0 text.\nmore 0"


def test_cache_is_shared_with_the_local_runner(tmp_path):
    run_pages(PAGES[:3], SPECS, score=_score, cache_root=str(tmp_path), progress=False)
    again = run_pages_dask(
        PAGES[:3],
        SPECS,
        score=_score,
        n_workers=1,
        processes=False,
        cache_root=str(tmp_path),
        progress=False,
    )
    assert [r["cached"] for r in again] == [True] * 6


def test_the_runner_config_picks_the_backend_and_binds_cluster_settings():
    local = Runner.from_config({"name": "local", "n_jobs": 2, "cache": False}, "/c")
    assert (local.name, local.n_jobs, local.cache_root, local.on_failure) == (
        "local",
        2,
        None,
        "empty",
    )
    dask = Runner.from_config(
        {
            "name": "dask",
            "scheduler": "tcp://h:8786",
            "n_workers": 3,
            "processes": False,
            "on_failure": "drop",
        },
        "/c",
    )
    assert dask.cache_root == "/c" and dask.on_failure == "drop"
    backend = DaskBackend(**dask.dask)
    assert (backend.scheduler, backend.n_workers, backend.processes) == ("tcp://h:8786", 3, False)
    with pytest.raises(RunnerError, match="unknown runner 'slurm'; valid runners: local, dask"):
        Runner.from_config({"name": "slurm"})
    with pytest.raises(RunnerError, match="runner.on_failure must be one of empty, drop, got 'x'"):
        Runner.from_config({"on_failure": "x"})


def test_an_unreachable_scheduler_is_one_line_naming_it():
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        runner = Runner(name="dask", dask={"scheduler": "tcp://127.0.0.1:9"})
        with pytest.raises(RunnerError) as err:
            runner.open()
    msg = str(err.value)
    assert msg.startswith("cannot reach the Dask scheduler tcp://127.0.0.1:9 (runner.scheduler)")
    assert "\n" not in msg


def _compose(overrides):
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return compose(config_name="config", overrides=overrides)


def test_extraction_summary_is_byte_identical_to_the_local_runners(tmp_path):
    common = [
        "experiment=extraction",
        "dataset.synthetic.limit=20",
        "runner.cache=false",
        "runner.progress=false",
        "extraction.n_boot=50",
        "method=[proposed,cetd,justext_style,fulltext]",
    ]
    local = run_experiment(_compose(common + ["runner.n_jobs=1"]), tmp_path / "local")
    dask = run_experiment(
        _compose(common + ["runner=dask", "runner.processes=false"]), tmp_path / "dask"
    )
    a = (local / "summary.csv").read_bytes()
    b = (dask / "summary.csv").read_bytes()
    assert a.count(b"\n") > 40  # 4 methods x many metrics: a real summary, not an empty one
    assert a == b


def test_a_running_scheduler_is_used_by_address():
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        recs = run_pages_dask(
            PAGES, SPECS, score=_score, scheduler=cluster.scheduler_address, progress=False
        )
        # that cluster ran the five tasks: sites a, b, c and the two site-less pages
        counts = cluster.scheduler.task_prefixes["run_page_task"].state_counts
        assert counts["memory"] == 5
    assert recs == run_pages(PAGES, SPECS, score=_score, progress=False)
