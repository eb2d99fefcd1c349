"""Own methods do not depend on what else is installed (issue 29, item 2).

Every own method (tests/conftest.py OWN) gives the same outputs and the same cache key
with the optional peers importable and with them absent. Absent is simulated in a
subprocess that imports tests/block_peers.py first (every import of a peer library fails
there, as without the package; nothing is uninstalled). Both are compared with the
golden digests of tests/golden_outputs.json, recorded with the peers installed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent
HANG = 900  # seconds: only to detect a hang
MARK = "OUTPUTS:"

#: run in the subprocess: the golden test's own digests and every own method's cache key
SCRIPT = f"""
import json, sys
from pathlib import Path
blocked = sys.argv[3] == "blocked"
if blocked:
    import block_peers
    block_peers.install()
import test_golden_outputs as g
from evalkit.harness.config import method_specs
cfg = g._config(sys.argv[1], Path(sys.argv[2]))
outputs = g._outputs(cfg)
keys = {{s.label: s.key() for s in method_specs(cfg.method)}}
try:
    import justext  # noqa: F401
    peers = True
except ImportError:
    peers = False
print("{MARK}" + json.dumps({{"outputs": outputs, "keys": keys, "peers": peers}}))
"""


def _run(label: str, shared_root: Path, mode: str) -> dict:
    env = {
        **os.environ,
        "PYTHONHASHSEED": "0",
        "EVALKIT_ROOT": str(ROOT),
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(TESTS)]),
    }
    res = subprocess.run(
        [sys.executable, "-c", SCRIPT, label, str(shared_root), mode],
        cwd=TESTS,
        env=env,
        check=False,
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert res.returncode == 0, res.stderr[-2000:]
    line = next(ln for ln in res.stdout.splitlines() if ln.startswith(MARK))
    return json.loads(line[len(MARK) :])


@pytest.mark.slow
@pytest.mark.parametrize("label", ["synthetic", "aeb"])
def test_own_methods_are_the_same_with_and_without_the_peers(label, shared, shared_root):
    if label != "synthetic":
        shared("scrapinghub-aeb")  # skips, saying why, when the set is absent
    pytest.importorskip("justext")  # "present" must really have the peers
    present = _run(label, shared_root, "present")
    absent = _run(label, shared_root, "blocked")
    assert present["peers"] is True and absent["peers"] is False
    assert absent["keys"] == present["keys"]  # no cache key moves with the extra
    assert absent["outputs"] == present["outputs"]  # nor any output, page for page
    golden = json.loads((TESTS / "golden_outputs.json").read_text())["sets"][label]
    assert absent["outputs"] == golden  # recorded with the peers installed
    n = sum(len(v) for v in golden.values())
    assert n == 12 * len(next(iter(golden.values())))  # 12 pages, every own method


def test_no_own_method_names_a_peer_package_in_its_key():
    """The cache key holds the versions of the packages a method's code imports: none of
    the peers' (pab and proposed held justext's before: the stop list imported it)."""
    from block_peers import PEER_MODULES
    from conftest import OWN

    from evalkit.harness.cache_keys import method_facts
    from evalkit.harness.specs import MethodSpec

    peers = {m.replace("_", "-") for m in PEER_MODULES} | {"readability-lxml", "html-text"}
    for name, (label, registry, params) in OWN.items():
        facts = method_facts(MethodSpec(label, registry, params))
        assert not peers & set(facts.packages), (name, sorted(peers & set(facts.packages)))
        assert facts.resolved_params.get("stoplist", "english") != "auto", name
