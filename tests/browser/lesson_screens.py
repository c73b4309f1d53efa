"""Screenshots of lessons as they look in JupyterLab, for a person to look at (not a test): each lesson is
built in one form (the teacher's by default, `--student` for the student's), opened in JupyterLab, run
with Run > Run All Cells, and then each live picture (every `.tt-widget` output) is scrolled to and shot at
1400 px and at 760 px wide. Errors in outputs are printed. The pictures go to test-artifacts/lessons/.

    .venv/bin/python tests/browser/lesson_screens.py lessons/02_views.py lessons/03_broadcasting.py
    .venv/bin/python tests/browser/lesson_screens.py --student lessons/01_storage.py
"""

import copy
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
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=90_000)
    page.wait_for_function("document.body.innerText.includes('| Idle')", timeout=90_000)
    for attempt in range(4):
        _dismiss_dialogs(page, name, dialogs)
        try:
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click(timeout=10_000)
            page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click(timeout=10_000)
            page.wait_for_function("document.querySelector('.jp-InputPrompt') && "
                                   "![...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]"
                                   ".some(e => e.innerText.includes('[ ]'))", timeout=20_000)
            break
        except Exception:
            page.keyboard.press("Escape")
    try:
        page.wait_for_function("![...document.querySelectorAll('.jp-CodeCell .jp-InputPrompt')]"
                               ".some(e => e.innerText.includes('[*]') || e.innerText.includes('[ ]'))",
                               timeout=180_000)
    except Exception:
        prompts = page.locator(".jp-CodeCell .jp-InputPrompt").all_inner_texts()
        page.screenshot(path=str(OUT / f"{name}_stuck.png"))
        raise RuntimeError(f"{name}: the cells did not all run: {prompts}") from None
    page.wait_for_timeout(3000)


def shoot(sources, form="teacher"):
    OUT.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="lesson-screens-"))
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
                    widgets.nth(k).scroll_into_view_if_needed()
                    page.wait_for_timeout(700)
                    shot = OUT / f"{path.stem}_w{k + 1}_{width}.png"
                    page.screenshot(path=str(shot))
                    print("  ", shot.relative_to(TESTS.parent))
            if errors:
                print("  PAGE ERRORS:", errors)
            page.close()


if __name__ == "__main__":
    args = sys.argv[1:]
    form = "student" if "--student" in args else "teacher"
    shoot([a for a in args if a != "--student"], form)
