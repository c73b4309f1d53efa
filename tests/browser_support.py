"""Shared by the browser tests: Debian's Chromium driven by Playwright for Python, offline.

Playwright's own browser download does not work on these machines, so the tests launch the system Chromium
(`apt-get install chromium`, done by `make test` as root) with the flags that keep it off the network.
A missing browser or Playwright is a failure with the command to fix it, never a skip: CI installs both.
Screenshots go to $TT_ARTIFACTS (default: test-artifacts/ at the repository root).
"""

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

CHROMIUM = os.environ.get("TT_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--no-first-run", "--disable-sync", "--disable-quic"]
LOCAL = ("http://127.0.0.1", "http://localhost", "file:", "data:", "blob:", "about:")


def artifacts_dir():
    path = Path(os.environ.get("TT_ARTIFACTS", Path(__file__).resolve().parent.parent / "test-artifacts"))
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextlib.contextmanager
def launch_chromium():
    """A headless Chromium whose pages may only reach this machine (other requests are aborted)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise AssertionError("Playwright for Python is missing: pip install playwright (make test does)") from None
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        raise AssertionError(f"Chromium not found at {CHROMIUM}: apt-get install -y chromium (make test does)")
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=FLAGS)
        context.route("**/*", lambda route: route.continue_() if route.request.url.startswith(LOCAL)
                      else route.abort())
        try:
            yield context
        finally:
            context.close()
