"""Find the widgets' browser code (the top-level `widgets/` folder) and join it into one ES module per widget.

The front end is a few plain script files, read in this order:

    _common.js        the widget root (data-seq), listening to trait changes, lighting elements
    storage_view.js   mountStorage / mountStoragePane: the storage SVG and its hover
    graph_view.js     mountGraph / mountGraphPane: the graph SVG and the backward stepper
    trace_view.js     mountTrace / mountTracePane: the trace table and row selection
    explorer.js       mountExplorer: the three panes together

anywidget sends a widget one ES module; a module cannot import its neighbours without a bundler, so
instead of adding one (and npm) we join the files and add the single `export default` line. Nothing is
ever loaded from the internet. In a checkout the files are in `<repo>/widgets`; an installed wheel carries
them in `teachtorch/explorer/_widgets` (pyproject.toml's force-include).
"""

from pathlib import Path

FILES = ["_common.js", "storage_view.js", "graph_view.js", "trace_view.js", "explorer.js"]
MOUNT = {"storage": "mountStorage", "graph": "mountGraph", "trace": "mountTrace", "explorer": "mountExplorer"}


def widgets_dir():
    here = Path(__file__).resolve().parent
    for candidate in (here / "_widgets", here.parent.parent / "widgets"):
        if (candidate / "explorer.js").exists():
            return candidate
    raise FileNotFoundError("teachtorch's widget scripts (widgets/*.js) were not found next to the package")


def esm_source(kind):
    """The ES module of one widget kind: "storage", "graph", "trace" or "explorer"."""
    folder = widgets_dir()
    body = "\n".join(f"// ---- {name} ----\n" + (folder / name).read_text() for name in FILES)
    return body + f"\nexport default {{ render({{ model, el }}) {{ return {MOUNT[kind]}(el, model); }} }};\n"


def css_source():
    return (widgets_dir() / "explorer.css").read_text()
