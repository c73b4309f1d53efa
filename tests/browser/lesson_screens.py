"""Screenshots of lessons as they look in JupyterLab, for a person to look at (not a test): each lesson is
built in one form (the teacher's by default, `--student` for the student's), opened in JupyterLab, run
with Run > Run All Cells, and then each live picture (every `.tt-widget` output) is scrolled to and shot at
1400 px and at 760 px wide. Errors in outputs are printed. The pictures go to test-artifacts/lessons/.

    .venv/bin/python tests/browser/lesson_screens.py lessons/02_views.py lessons/03_broadcasting.py
    .venv/bin/python tests/browser/lesson_screens.py --student lessons/01_storage.py
"""

import copy
import os
import sys
import tempfile
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))

from browser.harness import launch_chromium                                     # noqa: E402
from test_explorer_jupyterlab import LOCAL, _dismiss_dialogs, running_jupyterlab  # noqa: E402

OUT = TESTS.parent / "test-artifacts" / "lessons"


def _notebook(source, form, folder):
    import jupytext

    from teachtorch.exercises import course
    student, teacher = course.notebooks(source)
    nb = copy.deepcopy(student if form == "student" else teacher)
    nb.metadata.get("jupytext", {}).pop("formats", None)
    path = folder / f"{Path(source).stem}_{form}.ipynb"
    jupytext.write(nb, path)
    return path, sum(c.cell_type == "code" for c in nb.cells)


def _run_all(page, name):
    dialogs = []
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", state="attached", timeout=90_000)
    page.wait_for_function("document.body.innerText.includes('| Idle')", timeout=90_000)
    for attempt in range(4):
        _dismiss_dialogs(page, name, dialogs)
        try:
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click(timeout=10_000)
            page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click(timeout=10_000)
            page.wait_for_function("/\\[(\\d+|\\*)\\]/.test("
                                   "document.querySelector('.jp-CodeCell .jp-InputPrompt').innerText)", timeout=60_000)
            break
        except Exception as e:
            print(f"  Run All, try {attempt + 1}: {str(e).splitlines()[0]}")
            page.keyboard.press("Escape")
    # done when the kernel has been idle for 3 s running and no cell's prompt says [*] (windowing is off, so
    # every cell is in the page). The status alone is not enough: a widget's message handled while a long
    # cell runs can leave it at "Idle" until that cell ends.
    idle_since, deadline = None, time.time() + 180
    running = "[...document.querySelectorAll('.jp-InputPrompt')].some((p) => p.innerText.includes('[*]'))"
    while time.time() < deadline:
        idle = "| Idle" in page.locator(".jp-StatusBar-Widget").all_inner_texts().__str__()
        idle = idle and not page.evaluate(running)
        idle_since = (idle_since or time.time()) if idle else None
        if idle_since and time.time() - idle_since > 3:
            break
        page.wait_for_timeout(250)
    else:
        page.screenshot(path=str(OUT / f"{name}_stuck.png"))
        raise RuntimeError(f"{name}: the kernel was still busy after 180 s")
    page.wait_for_timeout(3000)


def _shut_kernels(url):
    import json
    import urllib.request
    for session in json.load(urllib.request.urlopen(f"{url}/api/sessions")):
        urllib.request.urlopen(urllib.request.Request(f"{url}/api/sessions/{session['id']}", method="DELETE"))


def shoot(sources, form="teacher"):
    OUT.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="lesson-screens-"))
    # every cell drawn, on screen or not, so that every picture can be found and scrolled to
    settings = root / ".settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    os.environ["JUPYTERLAB_SETTINGS_DIR"] = str(root / ".settings")
    books = [_notebook(s, form, root) for s in sources]
    runtime = root / ".runtime"
    runtime.mkdir()
    with running_jupyterlab(runtime, root, runtime / "workspaces") as url, launch_chromium() as browser:
        browser.route("**/*", lambda route: route.continue_() if route.request.url.startswith(LOCAL)
                      else route.abort())
        for path, _ in books:
            page = browser.new_page()
            page.set_viewport_size({"width": 1400, "height": 1000})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            start = time.time()
            page.goto(f"{url}/lab/tree/{path.name}")
            _run_all(page, path.stem)
            print(f"{path.name}: ran in the browser in {time.time() - start:.0f} s")
            failed = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
            for k in range(failed.count()):
                text = failed.nth(k).inner_text()
                if "Error" in text or "Traceback" in text:
                    print("  ERROR OUTPUT:", text[:600])
            for width in (1400, 760):
                page.set_viewport_size({"width": width, "height": 1000})
                page.wait_for_timeout(800)
                widgets = page.locator(".jp-OutputArea-output .tt-widget")
                for k in range(widgets.count()):
                    # (a cell far off screen is not drawn: scroll in steps until the widget is)
                    for _ in range(4):
                        widgets.nth(k).evaluate("e => e.scrollIntoView({block: 'center'})")
                        page.wait_for_timeout(400)
                    page.wait_for_timeout(700)
                    shot = OUT / f"{path.stem}_w{k + 1}_{width}.png"
                    page.screenshot(path=str(shot))
                    print("  ", shot.relative_to(TESTS.parent))
            if errors:
                print("  PAGE ERRORS:", errors)
            page.close()
            _shut_kernels(url)          # one kernel at a time: the next lesson gets the machine to itself


if __name__ == "__main__":
    args = sys.argv[1:]
    form = "student" if "--student" in args else "teacher"
    for source in [a for a in args if a != "--student"]:
        shoot([source], form)           # a JupyterLab of its own for each lesson: a second one in the same
                                        # browser sometimes never starts Run All
