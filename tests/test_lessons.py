"""Lessons run as real notebooks, in a kernel, without errors, and print what their text says they print.

(Lesson 02, the explorer, has its own test with its pictures: test_explorer_notebook.py.)"""

from pathlib import Path

import jupytext
from nbclient import NotebookClient

LESSONS = Path(__file__).resolve().parent.parent / "lessons"


def _run(name, tmp_path):
    nb = jupytext.read(LESSONS / name)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    return "".join(o.get("text", "") for o in outputs if o.output_type == "stream")


def test_backends_lesson_finds_the_lost_writeback(tmp_path):
    text = _run("03_backends.py", tmp_path)
    assert "CUDA: DeviceCheck(mm_kernel) [kernel]" in text
    assert "disagrees with cpu first at op" in text and "aten.addcmul_.default" in text
    assert "input 0 (Linear) weight after fn" in text
    # contiguous parameters hide the bug; the fixed kernel agrees
    assert text.count("True") >= 2
