"""Find the widgets' browser code (the top-level `widgets/` folder) and join it into one ES module per widget.

anywidget sends each widget's front end to the browser as one ES module (its `_esm`) and its styles as
one CSS text (`_css`). Our front end is a few plain script files, read in this order:

    _common.js        the widget root (data-seq), listening to trait changes, lighting elements
    storage_view.js   storagePane / mountStorage: the storage SVG and its hover
    graph_view.js     graphPane / mountGraph: the graph SVG and the stepper through backward
    trace_view.js     tracePane / mountTrace: the trace table and row selection
    explorer.js       mountExplorer: the three panes together
    monitor.js        mountMonitor: the TrainMonitor (monitor.py), curves, norms, histograms, ...
                      (only in the monitor's module: the other widgets do not need it)

A module cannot import its neighbours without a bundler (and npm, and a build step), so instead each file
only defines functions, and esm_source() joins them and adds the single line that exports:

    export default { render({ model, el }) { return mountGraph(el, model); } };

Nothing is ever loaded from the internet. In a checkout the files are in `<repo>/widgets`; an installed
wheel carries them in `teachtorch/explorer/_widgets` (pyproject.toml force-includes them there).
This module imports no Jupyter package: the browser tests use it without anywidget.
"""

from pathlib import Path

FILES = ["_common.js", "storage_view.js", "graph_view.js", "trace_view.js", "explorer.js"]
MOUNT = {"storage": "mountStorage", "graph": "mountGraph", "trace": "mountTrace", "explorer": "mountExplorer",
         "monitor": "mountMonitor"}
EXTRA_FILES = {"monitor": ["monitor.js"]}        # read after FILES, for that kind only
CSS_FILES = ["explorer.css", "monitor.css"]


def widgets_dir():
    """The folder holding the scripts: the wheel's copy inside the package, else the checkout's widgets/."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "_widgets", here.parent.parent / "widgets"):
        if (candidate / "explorer.js").exists():
            return candidate
    raise FileNotFoundError("teachtorch's widget scripts (widgets/*.js) were not found next to the package")


def esm_source(kind):
    """The ES module of one widget kind: "storage", "graph", "trace", "explorer" or "monitor"."""
    if kind not in MOUNT:
        raise ValueError(f"unknown widget kind {kind!r}; expected one of {', '.join(MOUNT)}")
    folder = widgets_dir()
    names = FILES + EXTRA_FILES.get(kind, [])
    body = "\n".join(f"// ---- {name} ----\n" + (folder / name).read_text(encoding="utf-8") for name in names)
    return body + f"\nexport default {{ render({{ model, el }}) {{ return {MOUNT[kind]}(el, model); }} }};\n"


def css_source():
    """The styles of every widget (anywidget's `_css`): explorer.css, then monitor.css."""
    return "\n".join((widgets_dir() / name).read_text(encoding="utf-8") for name in CSS_FILES)
