"""The visual internals explorer: storage diagrams, autograd graphs and dispatch traces, drawn while code runs.

    with teachtorch.explore() as ex:       # in a notebook: one widget with three panes, updating live
        x = tt.arange(12.).reshape(3, 4)
        ex.show(x, x.t())                  # the storage pane draws these (default: the last op's tensors)
        loss = (x.t() * 2).sum()
        loss.backward()                    # the graph pane lights nodes as backward runs them

Reading order:
    svg.py                  a tiny SVG writer; every picture is an SVG string with class="tt-..." and data-*
                            attributes that tests and the front ends read; svg.clean makes any name safe
                            for XML (and for Jupyter to send), whatever characters it holds
    storage_diagram.py      renderer 1: tensors over their flat storage (sizes, strides, offset, views)
    graph_diagram.py        renderer 2: the autograd graph as Graphviz DOT, laid out by Graphviz's `dot`
    trace_table.py          renderer 3: the dispatch trace as a table, loops folded, and as text
    names.py                names for tensors as the code names them: `x`, `x.t()`, `W.grad`, `0.weight`
    live_trace.py           the recorder's dispatch trace: bounded; a loop's repeats are counted, not recorded
    recorder.py             the live part: listens to the core's events and decides when to redraw
    frontend.py             finds and assembles the browser code in the top-level widgets/ folder
    widgets.py              the Jupyter widgets (anywidget): StorageView, GraphView, TraceView, Explorer
    monitor.py              TrainMonitor: loss and metric curves, per-layer norms, histograms, a confusion
                            matrix and samples of a training run, live in a notebook (widgets/monitor.js)
    monitor_static.py       the monitor's static copy, drawn with matplotlib

The explorer is the top layer: it reads the core through documented interfaces (`dispatch.trace` events,
`autograd.graph.walk` and `autograd.graph.listen`) and the core never imports it. The renderers need no
Jupyter at all (nbconvert output, slides and tests use them directly); only widgets.py imports anywidget.

PyTorch has no live explorer; its nearest tools are torchviz (a Graphviz picture of `grad_fn`),
LoggingTensorMode / DebugMode (a text log of ATen calls) and the memory visualiser.
"""


def __getattr__(name):
    # Imported on first use, so `import teachtorch.explorer` works without Jupyter installed.
    if name in ("StorageView", "GraphView", "TraceView", "Explorer", "explore"):
        from . import widgets
        return getattr(widgets, name)
    if name in ("storage_svg", "storage_scene"):
        from . import storage_diagram
        return getattr(storage_diagram, name)
    if name in ("graph_dot", "graph_svg", "render_svg", "graphviz_available", "BackwardState"):
        from . import graph_diagram
        return getattr(graph_diagram, name)
    if name in ("trace_rows", "trace_text", "trace_svg"):
        from . import trace_table
        return getattr(trace_table, name)
    if name == "TrainMonitor":
        from .monitor import TrainMonitor
        return TrainMonitor
    if name == "Recorder":
        from .recorder import Recorder
        return Recorder
    raise AttributeError(f"module 'teachtorch.explorer' has no attribute {name!r}")
