"""Lessons run as real notebooks, in a kernel, without errors, and print what their text says they print.
Every lesson runs in both forms `make course` builds: the teacher's (every exercise check passes) and the
student's (every check says "not solved yet", and nothing else fails).

(The explorer tour, lessons/explorer_tour.py, has its own test with its pictures: test_explorer_notebook.py.)"""

import re
import time
from pathlib import Path

import jupytext
import pytest
from nbclient import NotebookClient

from browser.course_pages import inspect_page, picture_outputs
from browser.harness import artifacts_dir, launch_chromium
from teachtorch.exercises import course, course_html

LESSONS = Path(__file__).resolve().parent.parent / "lessons"


def _run(name, tmp_path):
    nb = jupytext.read(LESSONS / name)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    return "".join(o.get("text", "") for o in outputs if o.output_type == "stream")


def test_backends_lesson_finds_the_lost_writeback(tmp_path):
    text = _run("06_devices.py", tmp_path)
    # one kernel under two keys; the stand-in array module refuses NumPy's own functions
    assert "CUDA: DeviceCheck(mm_kernel) [kernel]" in text and "CPU: mm_kernel [kernel]" in text
    assert "TypeError: operand 'DeviceArray' does not support ufuncs" in text
    # .to keeps shape, strides and dtype, and returns the tensor itself when nothing changes
    assert "same device, no copy: True" in text and "meta copy: meta (4, 3) (1, 4) torch.float32 ToCopyBackward0" in text
    # compare_backends names the broken op
    assert "disagrees with cpu first at op" in text and "aten.addcmul_.default" in text
    assert "input 0 (Linear) weight after fn" in text
    # what really happens with only addcmul_ broken: v stays 0, and the weight runs away (division by eps)
    broken = re.search(r"^broken +exp_avg_sq max (\S+) .*weight moved by up to (\S+) +last grad max (\S+)", text, re.M)
    assert broken and float(broken[1]) == 0 and float(broken[2]) > 1e4 and float(broken[3]) == 0, text[-3000:]
    right = re.search(r"^right +exp_avg_sq max (\S+) .*weight moved by up to (\S+) ", text, re.M)
    assert right and float(right[1]) > 0 and float(right[2]) < 0.1
    # with addcdiv_ broken too, the freeze seen on MPS: m != 0, v == 0, the weight never moves
    frozen = re.search(r"^exp_avg_sq max (\S+) +exp_avg max (\S+) +weight moved by up to (\S+)$", text, re.M)
    assert frozen and float(frozen[1]) == 0 and float(frozen[2]) > 0 and float(frozen[3]) == 0
    # contiguous parameters hide the bug; the student's write-back kernel agrees
    assert "contiguous parameters agree: True" in text and "your addcmul_ agrees: True" in text


def _execute(nb, tmp_path):
    """Run a notebook; (its outputs' text, stream and displayed values alike, seconds it took)."""
    start = time.perf_counter()
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    took = time.perf_counter() - start
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    errors = [o for o in outputs if o.output_type == "error"]
    assert not errors, [(e.ename, e.evalue) for e in errors]
    text = "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in outputs)
    return text, took


@pytest.mark.parametrize("name", [p.name for p in sorted(LESSONS.glob("[0-9][0-9]_*.py"))])
def test_every_lesson_runs_as_teacher_and_as_student(name, tmp_path):
    source = (LESSONS / name).read_text()
    checks = re.findall(r'^check\("([^"]+)"', source, flags=re.M)
    student, teacher = course.notebooks(LESSONS / name)
    taught, took = _execute(teacher, tmp_path)
    assert took < 60, f"{name} took {took:.0f} s as the teacher's notebook"
    for exercise in checks:
        assert f"✓ {exercise}: passed" in taught, (exercise, taught[-2000:])
    learnt, _ = _execute(student, tmp_path)
    for exercise in checks:
        assert f"… {exercise}: not solved yet" in learnt
    assert "passed" not in learnt or not checks
    # the run's reading copy (make course-html), as a reader's browser shows it
    _check_page(course_html.reading_copy(teacher, course.notebooks(LESSONS / name)[0]), name, tmp_path)


def _check_page(nb, name, tmp_path):
    """The static page of an executed notebook loads offline in Chromium with every picture and formula."""
    pictures = picture_outputs(nb)
    formulas = sum(len(course_html.markdown_with_mathml(c.source)[1]) for c in nb.cells if c.cell_type == "markdown")
    page = tmp_path / (Path(name).stem + ".html")
    page.write_text(course_html.page_html(nb, course_html.course_bar([("index.html", "index"), (page.name, name)], 1)))
    with launch_chromium() as context:
        report = inspect_page(context, page, screenshot=artifacts_dir(tmp_path) / (page.stem + "_page.png"))
    assert report["outside"] == [] and report["errors"] == [] and report["broken"] == [], report
    assert report["pictures"] == pictures, (report["pictures"], pictures)
    assert report["formulas"] == formulas and report["empty_formulas"] == 0, report
    pages = {p.stem + ".html" for p in course_html.pages(LESSONS)}
    assert set(report["links"]) <= pages | {"index.html"}, set(report["links"]) - pages


def test_lesson_1_checks_and_names_what_it_says():
    source = (LESSONS / "01_storage.py").read_text()
    assert re.findall(r'^check\("([^"]+)"', source, flags=re.M) == ["L01.contiguous_strides", "L01.index_to_offset"]
    assert len(course.solution_blocks(source)) == 2
