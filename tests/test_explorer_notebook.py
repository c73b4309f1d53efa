"""The explorer lesson as a real notebook: it runs in a kernel, and its HTML export (nbconvert, what GitHub and
the slides show) carries the static pictures even though the widgets' JavaScript is gone."""

from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient
from nbconvert import HTMLExporter

LESSON = Path(__file__).resolve().parent.parent / "lessons" / "explorer_tour.py"


def test_lesson_runs_in_a_kernel_and_exports_its_pictures(tmp_path):
    nb = jupytext.read(LESSON)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}},
                   store_widget_state=False).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    widget_outputs = [o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert len(widget_outputs) >= 4             # three views and the live explorer
    for o in widget_outputs:
        assert "<svg" in o["data"]["text/html"]
    # the live explorer's saved copy is its final picture, not the empty one it had when the block began
    live = [o["data"]["text/html"] for o in widget_outputs if "teachtorch explorer" in o["data"]["text/html"]]
    assert len(live) == 1
    assert "no ops traced" not in live[0] and "MeanBackward0" in live[0] and "TanhBackward0" in live[0]
    assert "tt-view" in live[0] and "aten.tanh.default" in live[0] and "×10" in live[0]
    html, _ = HTMLExporter().from_notebook_node(nbformat.from_dict(nb))
    for cls in ("tt-storage", "tt-graph", "tt-trace"):
        assert f'class="{cls}' in html or f"class='{cls}" in html
    assert "aten.mul.Tensor" in html            # the trace text printed by the lesson
    assert "no ops traced" not in html          # the export shows the explorer's final picture


def test_a_widget_updated_later_saves_its_final_picture(tmp_path):
    """A StorageView shown in one cell and updated in a later one: the saved output (what nbconvert and
    GitHub show) is the updated picture, in the cell where the widget is."""
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("import teachtorch as tt\nfrom teachtorch.explorer import StorageView\n"
                                  "v = StorageView(tt.ones(2), title='v')\nv"),
        nbformat.v4.new_code_cell("v.update(tt.arange(7.))"),
    ])
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}},
                   store_widget_state=False).execute()
    outputs = nb.cells[0].outputs
    assert len(outputs) == 1 and not nb.cells[1].outputs
    static = outputs[0]["data"]["text/html"]
    assert static.count("tt-elem") == 7 and "application/vnd.jupyter.widget-view+json" in outputs[0]["data"]
