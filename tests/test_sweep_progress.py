"""The sweep job line (evalkit.shell.sweep_progress): one line per ended job, silenced with
runner.progress=false."""

from types import SimpleNamespace

from hydra.types import RunMode
from omegaconf import OmegaConf

from evalkit.shell.sweep_progress import JobLine


def _config(progress: bool, mode=RunMode.MULTIRUN):
    return OmegaConf.create(
        {
            "runner": {"progress": progress},
            "hydra": {
                "mode": mode,
                "job": {"num": 3, "override_dirname": "method.proposed.k=5,seed=1"},
            },
        }
    )


def test_a_sweep_job_that_ends_prints_its_line(capsys):
    cb, cfg = JobLine(), _config(True)
    cb.on_job_start(cfg)
    cb.on_job_end(cfg, SimpleNamespace(status=SimpleNamespace(name="COMPLETED")))
    err = capsys.readouterr().err
    assert err.startswith("evalkit: sweep job 3 ended (completed) in ")
    assert err.rstrip().endswith(" s: method.proposed.k=5 seed=1")


def test_no_line_without_progress_or_outside_a_sweep(capsys):
    done = SimpleNamespace(status=SimpleNamespace(name="COMPLETED"))
    JobLine().on_job_end(_config(False), done)
    JobLine().on_job_end(_config(True, RunMode.RUN), done)
    assert capsys.readouterr().err == ""
