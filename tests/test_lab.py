"""What a student sees after `make lab`: JupyterLab on their own copy of the course (work/), open at the
course map (lessons/index.py), a jupytext .py file shown as a notebook, whose links open the lessons, in the
student's form; running it works, saving writes the .py in
work/ (no .ipynb appears beside it) and never touches the shipped lessons/. Driven by Debian's Chromium
through Playwright, as in test_explorer_jupyterlab.py; screenshots go to test-artifacts/."""

import hashlib
import shutil
import subprocess
import time
from pathlib import Path

import jupytext
import pytest

from browser.harness import artifacts_dir as _artifacts_dir, launch_chromium
from test_explorer_jupyterlab import LOCAL, _dismiss_dialogs, running_jupyterlab

ROOT = Path(__file__).resolve().parent.parent
START = "lessons/index.py"


def artifacts_dir():
    return _artifacts_dir(ROOT / "test-artifacts")


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def student_lab(tmp_path_factory):
    """`make work` in a copy of the checkout, then JupyterLab started as `make lab` starts it."""
    checkout = tmp_path_factory.mktemp("checkout")
    shutil.copy(ROOT / "Makefile", checkout / "Makefile")
    (checkout / "teachtorch" / "exercises").mkdir(parents=True)
    shutil.copy(ROOT / "teachtorch" / "exercises" / "course.py", checkout / "teachtorch" / "exercises" / "course.py")
    for folder in ("lessons", "examples", "slides"):
        shutil.copytree(ROOT / folder, checkout / folder)
    subprocess.run(["make", "-s", "work"], cwd=checkout, check=True)
    work = checkout / "work"
    runtime = tmp_path_factory.mktemp("runtime")
    # the same flags as the Makefile's `lab` target
    with running_jupyterlab(runtime, checkout, runtime / "workspaces",
                            args=(f"--ServerApp.root_dir={work}", f"--LabApp.default_url=/lab/tree/{START}")) as url:
        yield url, checkout, work


def _output_text(page):
    return "\n".join(page.locator(".jp-OutputArea-output").all_inner_texts())


def test_make_lab_opens_the_first_lesson_as_a_notebook_and_saves_into_work(student_lab):
    url, checkout, work = student_lab
    shipped = _digest(checkout / START)
    cells = jupytext.read(checkout / START).cells
    with launch_chromium() as browser:
        browser.route("**/*", lambda route: route.continue_() if route.request.url.startswith(LOCAL)
                      else route.abort())
        page = browser.new_page()
        page.set_viewport_size({"width": 1400, "height": 1000})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url + "/")                    # `make lab` opens the browser here: it redirects to the lesson
        try:
            page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell", timeout=90_000)
        except Exception:
            page.screenshot(path=str(artifacts_dir() / "lab_student_failed.png"), full_page=True)
            raise
        # the lesson is a notebook: one cell per jupytext cell, markdown rendered
        page.wait_for_function(f"document.querySelectorAll('.jp-NotebookPanel .jp-Cell').length >= {len(cells)}",
                               timeout=30_000)
        assert page.locator(".jp-NotebookPanel .jp-Cell").count() == len(cells)
        page.wait_for_selector(".jp-NotebookPanel .jp-MarkdownCell .jp-RenderedHTMLCommon h1", timeout=30_000)
        assert page.locator(".lm-TabBar-tab.jp-mod-current .lm-TabBar-tabLabel").inner_text() == "index.py"
        # the file browser shows the lessons, and one level up the whole course: examples, talk decks
        page.wait_for_selector(".jp-DirListing-item", timeout=30_000)
        names = [n.strip() for n in page.locator(".jp-DirListing-itemName").all_inner_texts()]
        assert names == sorted(p.name for p in (work / "lessons").glob("*.py")), names
        page.locator(".jp-BreadCrumbs-home").click()
        page.wait_for_function("[...document.querySelectorAll('.jp-DirListing-itemName')]"
                               ".some(e => e.innerText.trim() == 'examples')", timeout=30_000)
        names = [n.strip() for n in page.locator(".jp-DirListing-itemName").all_inner_texts()]
        assert {"lessons", "examples", "slides"} <= set(names), names

        # run the code cells (up to two): the set-up check prints a tensor
        code = page.locator(".jp-NotebookPanel .jp-CodeCell")
        first_cells = range(min(2, sum(c.cell_type == "code" for c in cells)))
        dialogs = []
        for attempt in range(6):       # a keystroke sent before the kernel is up can be lost
            _dismiss_dialogs(page, "lab_student", dialogs)
            try:
                for i in first_cells:
                    code.nth(i).locator(".jp-InputArea-editor").click(timeout=15_000)
                    page.keyboard.press("Shift+Enter")
                page.wait_for_function("[...document.querySelectorAll('.jp-OutputArea-output')]"
                                       ".some(e => e.innerText.includes('tensor('))", timeout=20_000)
                break
            except Exception:
                if attempt == 5:
                    page.screenshot(path=str(artifacts_dir() / "lab_student_failed.png"), full_page=True)
                    raise
        assert "tensor(" in _output_text(page) and "Error" not in _output_text(page)

        # the student edits a cell and saves: the .py in work/ changes, nothing else
        code.nth(0).locator(".jp-InputArea-editor").click()
        page.keyboard.press("End")
        page.keyboard.type("  # my note")
        page.keyboard.press("Control+s")
        # the tab's dirty mark goes when the save is done (jupyter_server rewrites the file in place, so a
        # read in the middle of a write can see it empty: read until two reads agree)
        page.wait_for_function("!document.querySelector('.lm-TabBar-tab.jp-mod-current.jp-mod-dirty')",
                               timeout=60_000)
        saved, deadline = None, time.time() + 60
        while time.time() < deadline:
            first = (work / START).read_text()
            time.sleep(0.5)
            if "# my note" in first and (work / START).read_text() == first:
                saved = first
                break
        page.screenshot(path=str(artifacts_dir() / "lab_student.png"))
        assert saved is not None, "the edit never reached work/" + START
        kept = jupytext.reads(saved, fmt="py:percent").cells
        if len(kept) == len(cells) + 1 and not kept[-1].source.strip():
            kept = kept[:-1]                  # Shift+Enter on the last cell adds an empty one below, as in Jupyter
        assert [c.cell_type for c in kept] == [c.cell_type for c in cells]
        assert not list(work.rglob("*.ipynb")), "saving made an .ipynb beside the lesson"
        assert _digest(checkout / START) == shipped, "the shipped lesson was changed"
        # the map's link opens lesson 1 as a notebook, in the student's form (the exercises are stubs)
        page.locator(".jp-NotebookPanel .jp-RenderedHTMLCommon a", has_text="A tensor is a view of a storage").click()
        page.wait_for_function("[...document.querySelectorAll('.lm-TabBar-tab .lm-TabBar-tabLabel')]"
                               ".some(e => e.innerText == '01_storage.py')", timeout=30_000)
        page.wait_for_function("[...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell')]"
                               ".some(e => e.innerText.includes('your turn: write this'))", timeout=30_000)
        page.screenshot(path=str(artifacts_dir() / "lab_student_lesson1.png"))
        assert not errors, errors
