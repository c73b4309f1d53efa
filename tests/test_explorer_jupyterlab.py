"""End to end: the explorer in a real JupyterLab 4 and Notebook 7, driven by Debian's Chromium through Playwright.

A notebook cell runs a loop under `teachtorch.explore()`; the test watches the widget's `data-seq` (the
number of pictures the kernel has pushed) grow *while the cell is still running*, which is the point of a
live explorer, then checks the final picture. Screenshots go to $TT_ARTIFACTS or test-artifacts/ (see browser/harness.py).
"""

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from browser.harness import artifacts_dir as _artifacts_dir, launch_chromium

LOCAL = ("http://127.0.0.1", "http://localhost", "data:", "blob:", "about:")


def artifacts_dir():
    return _artifacts_dir(Path(__file__).resolve().parent.parent / "test-artifacts")

CELL = """\
import time
import teachtorch as tt
from teachtorch import nn
tt.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))   # the teacher's 2-8-1 MLP
opt = tt.optim.SGD(model.parameters(), lr=0.1)
x, y = tt.randn(64, 2), tt.randn(64, 1)
with tt.explore(model) as ex:
    for i in range(30):
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        time.sleep(0.1)
print("cell done", model[0].weight.grad.shape)
"""


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_jupyterlab(runtime, cwd, workspaces, config="", args=()):
    """A JupyterLab server on a free local port with no token, its state in `runtime`; yields its URL and
    stops it afterwards. `config` adds lines to its config file, `args` command-line flags."""
    port = _free_port()
    config_file = runtime / "jupyter_config.py"
    config_file.write_text(
        f"c.ServerApp.port = {port}\nc.ServerApp.port_retries = 0\nc.ServerApp.open_browser = False\n"
        "c.IdentityProvider.token = ''\nc.ServerApp.password = ''\nc.ServerApp.disable_check_xsrf = True\n"
        f"c.ServerApp.allow_root = True\nc.LabApp.workspaces_dir = {str(workspaces)!r}\n" + config)
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(runtime / "config"), JUPYTER_RUNTIME_DIR=str(runtime / "runtime"))
    log = open(runtime / "server.log", "w")
    proc = subprocess.Popen([sys.executable, "-m", "jupyterlab", f"--config={config_file}", *args], stdout=log,
                            stderr=subprocess.STDOUT, env=env, cwd=cwd)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 90
    while True:
        try:
            urllib.request.urlopen(url + "/api/status", timeout=2)
            break
        except OSError:
            if proc.poll() is not None or time.time() > deadline:
                proc.kill()
                raise RuntimeError("jupyter lab did not start:\n" + (runtime / "server.log").read_text()[-3000:])
            time.sleep(0.5)
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="module")
def jupyter_server(tmp_path_factory):
    root = tmp_path_factory.mktemp("lab")
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "id": "c1", "metadata": {}, "outputs": [],
                     "source": CELL}],
          "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
          "nbformat": 4, "nbformat_minor": 5}
    for name in ("live.ipynb", "live7.ipynb"):      # one per front end: each gets its own kernel
        (root / name).write_text(json.dumps(nb))
    with running_jupyterlab(root, root, tmp_path_factory.mktemp("workspaces"),
                            config=f"c.ServerApp.root_dir = {str(root)!r}\nc.LabApp.expose_app_in_browser = True\n") as url:
        yield url


def _seq(page):
    return page.evaluate("() => { const w = document.querySelector('.tt-widget.tt-explorer');"
                         " return w ? Number(w.dataset.seq) : null; }")


def _done(page):
    """The cell printed its last line (in the output area, not the source, which says it too)."""
    return page.locator(".jp-OutputArea-output", has_text="cell done").count() > 0


def _dismiss_dialogs(page, name, dialogs):
    """Close a modal dialog JupyterLab put over the notebook (seen once on a fresh CI machine, where it blocked
    every click): screenshot it, note its text, and press its default button. A dialog that reports an error
    fails the test with its text instead of being dismissed."""
    dialog = page.locator(".jp-Dialog")
    if dialog.count() == 0 or not dialog.first.is_visible():
        return
    text = dialog.first.inner_text()
    dialogs.append(text)
    page.screenshot(path=str(artifacts_dir() / f"{name}_dialog{len(dialogs)}.png"), full_page=True)
    assert "error" not in text.lower(), f"JupyterLab showed an error dialog: {text}"
    buttons = dialog.first.locator(".jp-Dialog-footer button")
    if buttons.count():
        buttons.last.click()               # JupyterLab puts the default (accept) button last
    else:
        page.keyboard.press("Escape")
    page.wait_for_timeout(500)


def _run_live_cell(page, url, path, name):
    page.goto(url + path)
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    dialogs = []
    # Run the first cell; a keystroke sent before the kernel is connected can be lost, so try again
    # until the widget appears.
    for attempt in range(6):
        _dismiss_dialogs(page, name, dialogs)
        try:        # a dialog that opens between the check and the click blocks it: the next try closes it
            page.locator(".jp-Cell").first.locator(".jp-InputArea-editor").click(timeout=15_000)
            page.keyboard.press("Shift+Enter")
            page.wait_for_selector(".tt-widget.tt-explorer", timeout=15_000)
            break
        except Exception:
            if attempt == 5:
                page.screenshot(path=str(artifacts_dir() / f"{name}_failed.png"), full_page=True)
                raise AssertionError(f"the explorer widget never appeared (dialogs dismissed: {dialogs})")
    seen = []
    running_while_seen = []
    deadline = time.time() + 60
    while time.time() < deadline:
        seq = _seq(page)
        done = _done(page)
        if seq is not None:
            seen.append(seq)
            running_while_seen.append(not done)
        if done:
            break
        time.sleep(0.2)
    page.screenshot(path=str(artifacts_dir() / f"{name}.png"), full_page=True)
    return seen, running_while_seen


@pytest.mark.parametrize("frontend,path", [("jupyterlab", "/lab/tree/live.ipynb"),
                                           ("notebook7", "/notebooks/live7.ipynb")])
def test_explorer_updates_while_the_cell_runs(jupyter_server, frontend, path):
    with launch_chromium() as browser:
        # JupyterLab talks to its own server on this machine; any other request is aborted
        browser.route("**/*", lambda route: route.continue_() if route.request.url.startswith(LOCAL)
                      else route.abort())
        page = browser.new_page()
        page.set_viewport_size({"width": 1400, "height": 1000})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        seen, running = _run_live_cell(page, jupyter_server, path, f"explorer_{frontend}")
        assert _done(page), "the cell did not finish"
        # several distinct pictures arrived while the cell was still running
        live = sorted({s for s, r in zip(seen, running) if r})
        assert len(live) >= 3, f"data-seq seen while running: {live}"
        # the final picture: the graph of the last step's loss, the storage diagram and the trace table
        widget = page.locator(".tt-widget.tt-explorer")
        assert widget.locator("svg .node").count() >= 8
        graph_text = widget.locator(".tt-graph-canvas").inner_text()
        assert "MseLossBackward0" in graph_text and "0.weight" in graph_text and "2.bias" in graph_text
        assert widget.locator("svg.tt-storage .tt-elem").count() >= 1
        assert widget.locator(".tt-trace-table .tt-row").count() >= 10
        # the folded loop: every call of a step shows up once, counted x30 (the first step's too)
        assert widget.locator(".tt-trace-table .tt-row[data-count='30']").count() >= 10
        # the stepper works on the last backward after the cell ended
        label = widget.locator(".tt-step-label").inner_text()
        assert label.startswith("step ") and not label.startswith("step 0 / 0"), label
        # nothing is cut off at the right: every graph node and the xcount cells lie inside their panes, in
        # a wide window and in a narrow one (the panes stack)
        for width in (1400, 760):
            page.set_viewport_size({"width": width, "height": 1000})
            page.wait_for_timeout(800)
            page.screenshot(path=str(artifacts_dir() / f"explorer_{frontend}_{width}.png"), full_page=True)
            for pane, items in ((".tt-graph-canvas", "svg g.node"), (".tt-trace-canvas", "td.tt-col-count")):
                canvas = widget.locator(pane)
                box = canvas.bounding_box()
                # in a narrow window the graph keeps its text legible and the pane pans instead: then every
                # node must be within the pane's scrollable width
                room = box["width"] if width == 1400 or "trace" in pane else canvas.evaluate("e => e.scrollWidth")
                for item in widget.locator(f"{pane} {items}").all():
                    b = item.bounding_box()
                    # (3 px: a box's outline is drawn half outside Graphviz's bounding box)
                    assert b["x"] >= box["x"] - 3 and b["x"] + b["width"] <= box["x"] + room + 3, \
                        (width, pane, b, box)
        assert page.locator("text=IOPub message rate exceeded").count() == 0
        assert not [e for e in errors if "teachtorch" in e or "tt-" in e], errors
