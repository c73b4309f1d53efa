"""The class hub (deploy/jupyterhub/): a real JupyterHub from its config, three students logging in at once.

The hub runs from deploy/jupyterhub/jupyterhub_config.py in a temporary folder, with DummyAuthenticator,
SimpleLocalProcessSpawner (each student's JupyterLab a separate process) and configurable-http-proxy from
deploy/jupyterhub/node_modules; deploy/jupyterhub/loadtest.py then logs three students in, and each must find
their copy of the course, open lesson 1 as a notebook and run it end to end on a kernel of their own.

It needs jupyterhub and jupyterhub-idle-culler (the `test` extra) and node with configurable-http-proxy
(`npm ci --prefix deploy/jupyterhub`). Missing ones fail the test with the command that installs them: a
contributor who skips them would never see the hub break.
"""

import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HUB_DIR = ROOT / "deploy" / "jupyterhub"
CONFIG = HUB_DIR / "jupyterhub_config.py"
LOADTEST = HUB_DIR / "loadtest.py"
PROXY = HUB_DIR / "node_modules" / ".bin" / "configurable-http-proxy"
STUDENTS = 3
PREFIX = "hubtest-"


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _require_tools():
    """The hub's Python packages and the npm proxy; pytest.fail with the fix when one is missing."""
    missing = [name for name in ("jupyterhub", "jupyterhub_idle_culler", "psutil")
               if importlib.util.find_spec(name) is None]
    if missing:
        pytest.fail(f"{', '.join(missing)} missing from {sys.executable}; install the test tools with: "
                    f"{sys.executable} -m pip install -c requirements/constraints.txt -e '.[lab,test]'",
                    pytrace=False)
    hub = Path(sys.executable).parent / "jupyterhub"
    if not hub.exists():
        pytest.fail(f"{hub} is missing (jupyterhub installed without its scripts?); reinstall with: "
                    f"{sys.executable} -m pip install -c requirements/constraints.txt -e '.[lab,test]'",
                    pytrace=False)
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("node and npm are missing (the hub's proxy, configurable-http-proxy, is a node program); "
                    "install them with: sudo apt-get install -y nodejs npm && npm ci --prefix deploy/jupyterhub",
                    pytrace=False)
    if not PROXY.exists():
        pytest.fail(f"configurable-http-proxy is not installed in {PROXY.parent.parent}; install it with: "
                    "npm ci --prefix deploy/jupyterhub", pytrace=False)
    version = subprocess.run([str(PROXY), "--version"], capture_output=True, text=True, timeout=60)
    if version.returncode != 0:
        pytest.fail(f"configurable-http-proxy does not run ({version.stderr.strip()[-300:]}); reinstall it "
                    "with: npm ci --prefix deploy/jupyterhub (it needs node >= 18)", pytrace=False)
    return hub


def _wait_for_hub(url, process, log, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the hub exited ({process.returncode}):\n{log.read_text()[-3000:]}", pytrace=False)
        try:
            with urllib.request.urlopen(url + "/hub/api", timeout=5) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    pytest.fail(f"the hub did not answer in {timeout} s:\n{log.read_text()[-3000:]}", pytrace=False)


def _stop(process, timeout=60):
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)     # the hub stops its proxy, services and students' servers
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # whatever is left of its session
    except (ProcessLookupError, PermissionError):
        pass


def test_three_students_log_in_and_run_lesson_1(tmp_path):
    hub = _require_tools()
    homes, state = tmp_path / "homes", tmp_path / "state"
    # The kernels' Unix sockets must stay under 108 bytes: a short runtime folder, not one under tmp_path.
    runtime = Path(tempfile.mkdtemp(prefix="tt-hub-"))
    # A student who already has a file keeps it: the course is copied around it, never over it.
    mine = homes / f"{PREFIX}01" / "lessons" / "00_start.py"
    mine.parent.mkdir(parents=True)
    mine.write_text("# my own notes\n")
    port, token = _free_port(), os.urandom(16).hex()
    env = dict(os.environ,
               TEACHTORCH_HUB_COURSE_DIR=str(ROOT), TEACHTORCH_HUB_STATE_DIR=str(state),
               TEACHTORCH_HUB_HOMES=str(homes), TEACHTORCH_HUB_RUNTIME_DIR=str(runtime),
               TEACHTORCH_HUB_PORT=str(port), TEACHTORCH_HUB_API_PORT=str(_free_port()),
               TEACHTORCH_HUB_PROXY_API_PORT=str(_free_port()), TEACHTORCH_HUB_AUTHENTICATOR="dummy",
               TEACHTORCH_HUB_SPAWNER="simple", TEACHTORCH_HUB_ADMIN_TOKEN=token,
               TEACHTORCH_HUB_START_TIMEOUT="240")
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "hub.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([str(hub), "-f", str(CONFIG)], cwd=tmp_path, env=env, stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    try:
        _wait_for_hub(url, process, log)
        figures = tmp_path / "loadtest.json"
        run = subprocess.run(
            [sys.executable, str(LOADTEST), "-n", str(STUDENTS), "--url", url, "--token", token,
             "--prefix", PREFIX, "--time-limit", "360", "--per-student-timeout", "300", "--json", str(figures)],
            capture_output=True, text=True, timeout=480, env=env)
        report = f"{run.stdout}\n{run.stderr[-2000:]}\nhub log:\n{log.read_text()[-3000:]}"
        assert run.returncode == 0, report
        results = json.loads(figures.read_text())["results"]
        assert [r["name"] for r in results if r["ok"]] == [f"{PREFIX}{i:02d}" for i in range(1, STUDENTS + 1)], report
        assert all(r["cells"] > 0 and r["first_cell_s"] <= r["lesson_s"] for r in results), report
        assert "login to first cell: median" in run.stdout
    finally:
        _stop(process)
        shutil.rmtree(runtime, ignore_errors=True)
    # Each student got the course in the student's form (stubs, no solutions), and kept their own file.
    for i in range(1, STUDENTS + 1):
        lesson = (homes / f"{PREFIX}{i:02d}" / "lessons" / "01_storage.py").read_text()
        assert "NotImplementedError" in lesson and "### BEGIN SOLUTION" not in lesson
        assert (homes / f"{PREFIX}{i:02d}" / "examples" / "digits_mlp.py").exists()
    assert mine.read_text() == "# my own notes\n"
    assert "idle-culler" in log.read_text()        # the culler ran as a hub service
