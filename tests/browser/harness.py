"""A plain web page that runs one widget's front end with a fake model, in Debian's Chromium, offline.

What anywidget does in Jupyter, done by hand: the page imports the widget's ES module (exactly the text
`frontend.esm_source(kind)` that anywidget would send) from a blob: URL, builds a fake model
(fake_model.js) holding the traits Python would sync, and calls `render({model, el})`. A test then pushes
trait changes as the kernel would (`window.__model.set(name, value)` fires "change:<name>"), and drives
hover, clicks and keys with Playwright.

    with launch_chromium() as context:
        w = mount_widget(context, "storage", {"seq": 1, "title": "", "storage_svg": svg})
        w.page.hover("rect.tt-elem")

Nothing is served and nothing may be fetched: every request that is not data:, blob: or about: is aborted
and recorded (`w.blocked`); console errors and uncaught exceptions are recorded (`w.errors`). Tests assert
both stay empty.

Playwright's own browser download does not work on these machines, so Debian's Chromium is launched
(`apt-get install chromium`) with the flags that keep it off the network. A missing Chromium or Playwright
makes the tests fail with the command to fix it, never skip: CI installs both.
"""

import contextlib
import json
import os
from pathlib import Path

import pytest

from teachtorch.explorer import frontend

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--no-first-run", "--disable-sync"]
ALLOWED = ("data:", "blob:", "about:")
HERE = Path(__file__).resolve().parent

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>teachtorch widget: {kind}</title>
<style>body {{ margin: 12px; background: #fff; }}</style>
<style>{css}</style></head>
<body><div id="host"></div>
<script type="text/plain" id="tt-esm">{esm}</script>
<script type="application/json" id="tt-traits">{traits}</script>
<script>{fake_model}</script>
<script type="module">
  // What anywidget does: import the widget's module and call its render() with the model.
  try {{
    const esm = document.getElementById("tt-esm").textContent;
    const widget = await import(URL.createObjectURL(new Blob([esm], {{ type: "text/javascript" }})));
    window.__model = makeFakeModel(JSON.parse(document.getElementById("tt-traits").textContent));
    window.__events = [];
    const host = document.getElementById("host");
    host.addEventListener("tt-select", (event) => window.__events.push(event.detail));
    window.__cleanup = await widget.default.render({{ model: window.__model, el: host }});
    window.__mounted = "yes";
  }} catch (error) {{
    window.__mounted = "failed";
    throw error;                           // reported as a page error
  }}
</script>
</body></html>
"""


def harness_html(kind, traits):
    """The page (one HTML string, no other files) that mounts widget `kind` on a fake model with `traits`."""
    esm = frontend.esm_source(kind)
    # Both go inside <script> elements, whose text ends at the first "</script": keep them from containing it.
    assert "</script" not in esm.lower() and "<!--" not in esm
    traits_json = json.dumps(traits).replace("</", "<\\/")       # "<\/" is the same string to JSON.parse
    return PAGE.format(kind=kind, css=frontend.css_source(), esm=esm, traits=traits_json,
                       fake_model=(HERE / "fake_model.js").read_text())


def artifacts_dir(default):
    """Where screenshots go: $TT_ARTIFACTS if set (CI keeps it), else `default` (a test's tmp_path)."""
    path = Path(os.environ.get("TT_ARTIFACTS") or default)
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextlib.contextmanager
def launch_chromium(executable=CHROMIUM):
    """A headless Chromium browser context whose pages cannot reach the network."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("Playwright for Python is missing: pip install playwright (make test installs it); "
                    "the browser tests need it and do not skip", pytrace=False)
    if not Path(executable).exists():
        pytest.fail(f"Chromium was not found at {executable}: apt-get install -y chromium (make test does, as "
                    "root); Playwright's own browser download is not used", pytrace=False)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, headless=True, args=FLAGS)
        context = browser.new_context(service_workers="block")
        try:
            yield context
        finally:
            context.close()
            browser.close()


def guard(page, allowed=ALLOWED):
    """Keep `page` off the network and listen to it: every request whose URL does not start with one of
    `allowed` is aborted and noted. Returns (blocked, errors), two lists that fill while the page runs: the
    URLs refused, and the script errors and console errors."""
    blocked, errors = [], []

    def route(r):
        if r.request.url.startswith(allowed):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    return blocked, errors


class WidgetPage:
    """A page with one mounted widget: `page` (Playwright), `errors`, `blocked`, and helpers."""

    def __init__(self, page):
        self.page = page
        # requests that tried to leave the machine; console errors and uncaught exceptions
        self.blocked, self.errors = guard(page)

    def set(self, name, value):
        """Push a trait as the kernel would, and wait until the widget has redrawn."""
        self.page.evaluate("([name, value]) => window.__model.set(name, value)", [name, value])
        self.settle()

    def settle(self):
        """Wait two animation frames: the widget redraws at the next one after a change."""
        self.page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")

    def events(self):
        """The details of the tt-select events the widget dispatched so far."""
        return self.page.evaluate("() => window.__events")

    def attrs(self, selector, attribute="id"):
        """`attribute` of every element matching `selector` (e.g. the ids of the lit graph nodes)."""
        return self.page.eval_on_selector_all(selector, f"els => els.map((e) => e.getAttribute({attribute!r}))")


def mount_widget(context, kind, traits, width=1280, height=860, save_page_to=None):
    """Open a page that mounts widget `kind` with `traits`; waits until render() returned."""
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": height})
    w = WidgetPage(page)
    html = harness_html(kind, traits)
    if save_page_to is not None:               # the same page, to open by hand when a test fails
        Path(save_page_to).write_text(html)
    page.set_content(html)
    page.wait_for_function("() => window.__mounted !== undefined", timeout=30_000)
    if page.evaluate("() => window.__mounted") != "yes":
        raise AssertionError(f"the {kind} widget did not mount: {w.errors}")
    w.settle()
    return w
