"""File names that are not UTF-8: the page id is the surrogate-escaped name (os.fsdecode), the
run finishes, and every file of the run folder shows the byte readably (``\\xe9``)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir
from omegaconf import open_dict

from evalkit.experiments import run_experiment
from evalkit.harness.config import register_resolvers
from evalkit.readers.pairs import PairsDataset
from evalkit.report.results import readable
from evalkit.report.tables import to_latex
from evalkit.shell.cli import CONFIG_DIR

register_resolvers()

GOLD = b"The council approved the new budget on Tuesday after a long debate."
PAGE = b"<html><body><nav>Home News</nav><p>" + GOLD + b"</p></body></html>"


def _write(folder: Path, name: bytes, data: bytes) -> None:
    with open(os.path.join(os.fsencode(folder), name), "wb") as fh:
        fh.write(data)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("names")
    (root / "html").mkdir()
    (root / "gold").mkdir()
    try:
        _write(root / "html", b"caf\xe9.html", PAGE)
    except OSError:
        pytest.skip("this file system refuses file names that are not UTF-8")
    _write(root / "gold", b"caf\xe9.txt", GOLD)
    _write(root / "html", b"plain.html", PAGE)
    _write(root / "gold", b"plain.txt", GOLD)
    _write(root / "gold", b"orphan\xff.txt", GOLD)  # a gold file without a page
    return root


def test_the_page_id_is_the_surrogate_escaped_name(data):
    ds = PairsDataset(path=str(data))
    assert [p.id for p in ds.pages()] == ["caf\udce9", "plain"]
    assert os.fsencode(ds.skipped[0].file).endswith(b"/orphan\xff.txt")


def test_a_run_finishes_and_shows_the_bytes_readably(data, tmp_path):
    overrides = [
        "experiment=extraction",
        f"paths.results={tmp_path / 'results'}",
        "runner.n_jobs=1",
        "runner.progress=false",
        "extraction.n_boot=20",
        "method=fulltext",
    ]
    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        cfg = compose(config_name="config", overrides=overrides)
    with open_dict(cfg):
        cfg.dataset = {"names": {"_name_": "pairs", "path": str(data)}}
    out = run_experiment(cfg, tmp_path / "run")
    for file in out.rglob("*"):  # every file is UTF-8 without surrogates
        if file.is_file() and file.suffix in (".csv", ".json", ".md", ".tex"):
            file.read_bytes().decode("utf-8")
    per_page = pd.read_csv(out / "per_page.csv")
    scored = per_page[per_page["skipped_file"].isna()].set_index("page_id")
    assert sorted(scored.index) == ["caf\\xe9", "plain"]
    assert scored["error"].isna().all()
    # fulltext returns "Home News" + the 12 gold words: word P = 12/14, R = 1
    assert scored.loc["caf\\xe9", "word_precision"] == pytest.approx(12 / 14)
    assert scored.loc["caf\\xe9", "word_recall"] == 1.0
    (skipped_file,) = per_page["skipped_file"].dropna()
    assert skipped_file.endswith("/orphan\\xff.txt")
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert run["datasets"]["names"]["skipped"] == [
        {"file": skipped_file, "reason": "gold file without a page"}
    ]
    assert f"| {skipped_file} | gold file without a page |" in (out / "report.md").read_text()


def test_readable_writes_out_lone_surrogates():
    assert readable("plain café") == "plain café"
    assert readable("caf\udce9 \udcff") == "caf\\xe9 \\xff"  # bytes from os.fsdecode
    assert readable("x\ud800y") == "x\\ud800y"  # any other lone surrogate
    tex = to_latex(pd.DataFrame({"page": ["caf\udce9"]}))
    assert "caf\\textbackslash{}xe9" in tex
