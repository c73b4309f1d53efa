"""CONTRIBUTING.md's "Adding an op" runs exactly as written.

The walkthrough's code blocks (```python walkthrough-ops, walkthrough-derivatives, walkthrough-test) are
taken from CONTRIBUTING.md as they are, put in a scratch module in a fresh interpreter (the ops they define
must not exist in teachtorch, so nothing here can collide with the real ones), and the test block runs under
pytest with the suite's own conftest, on the cpu and on the fake CUDA backend. The only thing this harness
adds is what ops/__init__.py does for a real family file: re-export the module's `__all__` as
`teachtorch.<name>`. If the walkthrough needs any other step, this test fails.
"""

import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _blocks(kind):
    text = (ROOT / "CONTRIBUTING.md").read_text()
    return re.findall(rf"```python {kind}\n(.*?)```", text, flags=re.S)


PLUGIN = '''
import importlib

import teachtorch

# what teachtorch/ops/__init__.py does for every family file: re-export its __all__
_module = importlib.import_module("walkthrough_ops")
for _name in _module.__all__:
    setattr(teachtorch, _name, getattr(_module, _name))
'''


def test_the_walkthrough_has_its_three_parts():
    assert len(_blocks("walkthrough-ops")) == 2          # an elementwise op, an op of its own shape
    assert len(_blocks("walkthrough-derivatives")) == 1
    assert len(_blocks("walkthrough-test")) == 1


def test_the_walkthrough_ops_are_not_in_teachtorch_yet():
    """The walkthrough adds ops teachtorch does not have; once someone adds them for real, pick others."""
    import teachtorch as tt
    for name in ("logit", "bucketize"):
        assert not hasattr(tt, name), (f"teachtorch now has `{name}`: the CONTRIBUTING walkthrough must add "
                                       f"two other ops")


def test_the_add_an_op_walkthrough_runs_as_written(tmp_path):
    (tmp_path / "walkthrough_ops.py").write_text("\n\n".join(_blocks("walkthrough-ops")
                                                             + _blocks("walkthrough-derivatives")))
    (tmp_path / "walkthrough_plugin.py").write_text(PLUGIN)
    (tmp_path / "test_walkthrough.py").write_text(_blocks("walkthrough-test")[0])
    env = dict(os.environ, TEACHTORCH_TEST_CUDA="fake",
               PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT / "tests"), str(ROOT)]))
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "conftest", "-p",
         "walkthrough_plugin", "-o", "addopts=", "--rootdir", str(tmp_path), str(tmp_path / "test_walkthrough.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert "PytestUnknownMarkWarning" not in result.stdout, result.stdout[-3000:]
    assert re.fullmatch(r"\d+ passed(, \d+ warnings?)? in .*", summary), summary   # no skip, no failure
    assert int(summary.split()[0]) == 2 * (3 * 5 + 2 * 5)          # (eps x layout + right x layout) x devices
