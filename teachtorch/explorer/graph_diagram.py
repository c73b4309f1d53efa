"""Renderer 2: the autograd graph, as Graphviz DOT laid out by Graphviz's `dot`, and backward walking it.

What is drawn (torchviz's colours, which many students have seen):

    lightblue box        a leaf tensor that requires grad (a parameter shows its name), above its
                         AccumulateGrad node
    grey box             a backward node (grad_fn): MulBackward0, ... with its hooks, if any
    orange box           a tensor a node saved for backward: its shape, dtype and version; "v0, now v1"
                         when it was changed in place since (backward would fail), "freed" after backward
    green box            an output (the tensors you asked to draw)

Edges go the way data flows in forward (inputs above, outputs below); backward runs them upwards. After (or
during) a backward run watched by a `BackwardState`, the nodes that ran are filled green and each edge a
gradient flowed along is drawn bold and labelled with the gradient's shape.

Ids are stable, so a growing graph keeps its shape and the widget can find things: node `n<id>`, leaf
tensor `t<id>`, output `o<id>`, saved tensor `s<node id>_<name>`, edge `e<node>_<next node>_<output_nr>`
(an autograd edge from a node to the next node it sends its output_nr-th gradient to). Graphviz copies them
into the SVG as element ids, with our classes (tt-fn, tt-leaf, tt-param, tt-output, tt-saved, tt-ran,
tt-flowed, tt-more) next to its own "node"/"edge".

Big graphs: at most `max_nodes` backward nodes are drawn (the nearest to the outputs), the rest become one
"… N more nodes" box; saved tensors are drawn as boxes only for graphs of up to `saved_limit` nodes, and
counted in the node's label above that.

If Graphviz's `dot` program is missing, `render_svg` returns a picture saying how to install it, with the
DOT text, so everything else still works. torchviz (pytorchviz) draws the same picture with the same tools.
"""

import shutil
import subprocess

import graphviz

from ..autograd import graph as autograd_graph
from .svg import Svg

COLOURS = {"fn": "lightgrey", "leaf": "lightblue", "saved": "orange", "output": "darkolivegreen1",
           "ran": "#a5d6a7", "flowed": "#2e7d32", "more": "white"}
INSTALL = ("Graphviz's dot program was not found, so the graph cannot be laid out; install it with "
           "'apt-get install graphviz' (or 'brew install graphviz', 'conda install graphviz'). DOT source:")


def graphviz_available():
    return shutil.which("dot") is not None


# ---- watching backward ----------------------------------------------------------------------------------

class BackwardState:
    """What one backward run did, in order; use it as a listener: `with autograd.graph.listen(state): ...`.

    `steps` is the list the widget steps through: {"kind": "node", "id", "name"} when a node starts,
    {"kind": "gradient", "edge", "from", "to", "shape"} for each gradient passed on, {"kind":
    "accumulated", "id", "leaf"} when a leaf's .grad is updated."""

    def __init__(self):
        self.steps = []
        self.ran = set()              # node ids
        self.flowed = {}              # edge id -> gradient shape
        self.accumulated = set()      # ids of the AccumulateGrad nodes that updated a leaf
        self.finished = False

    def __call__(self, ev):
        if ev.kind == "node_started":
            nid = f"n{autograd_graph.node_id(ev.node)}"
            self.ran.add(nid)
            self.steps.append({"kind": "node", "id": nid, "name": ev.node_name})
        elif ev.kind == "gradient":
            src, dst = autograd_graph.node_id(ev.node), autograd_graph.node_id(ev.next_node)
            edge = f"e{src}_{dst}_{ev.output_nr}"
            shape = None if ev.grad is None else list(ev.grad.shape)
            self.flowed[edge] = shape
            self.steps.append({"kind": "gradient", "edge": edge, "from": f"n{src}", "to": f"n{dst}",
                               "shape": shape})
        elif ev.kind == "accumulated":
            nid = f"n{autograd_graph.node_id(ev.node)}"
            self.accumulated.add(nid)
            self.steps.append({"kind": "accumulated", "id": nid, "leaf": f"t{id(ev.tensor)}"})
        elif ev.kind == "backward_finished":
            self.finished = True


# ---- building DOT ---------------------------------------------------------------------------------------

def _param_names(params):
    if params is None:
        return {}
    items = params.named_parameters() if hasattr(params, "named_parameters") else params.items()
    return {id(t): name for name, t in items}


def _shape(shape):
    return "(" + ", ".join(map(str, shape)) + ")" if shape is not None else "?"


def _keep(info, max_nodes):
    """The ids of the nodes to draw: the first max_nodes met walking breadth-first from the roots."""
    if len(info.nodes) <= max_nodes:
        return {n.id for n in info.nodes}
    nexts = {n.id: [e[0] for e in n.next if e is not None] for n in info.nodes}
    kept, frontier = [], list(dict.fromkeys(info.roots))
    seen = set(frontier)
    while frontier and len(kept) < max_nodes:
        nxt = []
        for nid in frontier:
            if len(kept) >= max_nodes:
                break
            kept.append(nid)
            for m in nexts.get(nid, ()):
                if m not in seen:
                    seen.add(m)
                    nxt.append(m)
        frontier = nxt
    return set(kept)


def graph_dot(roots, params=None, state=None, max_nodes=400, show_saved=True, saved_limit=60):
    """The DOT source of the graph behind `roots` (tensors or nodes); see the module docstring."""
    from .._tensor import Tensor
    roots = list(roots) if isinstance(roots, (list, tuple)) else [roots]
    info = autograd_graph.walk(roots)
    names = _param_names(params)
    keep = _keep(info, max_nodes)
    draw_saved = show_saved and len(keep) <= saved_limit
    ran = state.ran if state is not None else set()
    flowed = state.flowed if state is not None else {}

    dot = graphviz.Digraph(graph_attr={"ranksep": "0.35", "nodesep": "0.25", "bgcolor": "transparent"},
                           node_attr={"shape": "box", "style": "filled", "fontname": "monospace",
                                      "fontsize": "11", "height": "0.3", "margin": "0.08,0.04"},
                           edge_attr={"arrowsize": "0.6", "fontname": "monospace", "fontsize": "9"})
    # Leaves first, then nodes in the order they were made: a graph that grows only adds at the end.
    order = sorted((n for n in info.nodes if n.id in keep),
                   key=lambda n: (n.variable is None, n.sequence_nr, n.id))
    for n in order:
        nid = f"n{n.id}"
        lines = [n.name]
        hooks = [f"{k} {v}" for k, v in n.hooks.items() if v]
        if hooks:
            lines.append("hooks: " + ", ".join(hooks))
        if n.saved and not draw_saved:
            lines.append(f"saves {len(n.saved)}")
        cls = "tt-fn" + (" tt-ran" if nid in ran else "")
        dot.node(nid, "\n".join(lines), id=nid, **{"class": cls},
                 fillcolor=COLOURS["ran"] if nid in ran else COLOURS["fn"])
        if n.variable is not None:                   # AccumulateGrad: draw the leaf above it
            t = n.variable
            tid = f"t{id(t)}"
            name = names.get(id(t))
            label = f"{name}\n" if name else ""
            extra = " tt-param" if name else ""
            dot.node(tid, f"{label}{_shape(tuple(t.shape))} {t.dtype.name}", id=tid,
                     **{"class": "tt-leaf" + extra}, fillcolor=COLOURS["leaf"])
            dot.edge(tid, nid, id=f"l{n.id}", **{"class": "tt-leaf-edge"}, style="dashed", arrowhead="none")
        if draw_saved:
            for s in n.saved:
                sid = f"s{n.id}_{s['name'].removeprefix('_saved_')}"
                dot.node(sid, _saved_label(s), id=sid, **{"class": "tt-saved"}, fillcolor=COLOURS["saved"],
                         fontsize="9")
                dot.edge(sid, nid, id=f"x{sid}", dir="none", style="dotted", **{"class": "tt-saved-edge"})
    more = 0
    for src, dst, output_nr, _input_nr in info.edges:
        if src not in keep:
            continue
        eid = f"e{src}_{dst}_{output_nr}"
        if dst not in keep:
            more += 1
            dot.edge("more", f"n{src}", id=eid, style="dashed")
            continue
        attrs = {"id": eid, "class": "tt-edge"}
        if eid in flowed:
            attrs.update({"class": "tt-edge tt-flowed", "penwidth": "2.2", "color": COLOURS["flowed"],
                          "label": _shape(flowed[eid]), "fontcolor": COLOURS["flowed"]})
        dot.edge(f"n{dst}", f"n{src}", **attrs)    # drawn the way data flowed in forward
    if more or len(keep) < len(info.nodes):
        dot.node("more", f"… {len(info.nodes) - len(keep):,} more nodes", id="more",
                 **{"class": "tt-more"}, fillcolor=COLOURS["more"], style="dashed")
    for t in roots:                                  # the outputs, below their grad_fn
        if isinstance(t, Tensor) and t.grad_fn is not None:
            oid = f"o{id(t)}"
            dot.node(oid, f"{_shape(tuple(t.shape))} {t.dtype.name}", id=oid, **{"class": "tt-output"},
                     fillcolor=COLOURS["output"])
            dot.edge(f"n{autograd_graph.node_id(t.grad_fn)}", oid, id=f"r{id(t)}")
    return dot.source


def _saved_label(s):
    name = s["name"].removeprefix("_saved_")
    if s.get("freed"):
        return f"{name}\nfreed"
    if s.get("shape") is None:
        return f"{name}\n{s.get('value')!r}"
    version = f"v{s['saved_version']}"
    if s["version"] != s["saved_version"]:
        version += f", now v{s['version']}\n(modified in place)"
    return f"{name}\n{_shape(s['shape'])} {s['dtype'].replace('torch.', '')}\n{version}"


# ---- rendering ------------------------------------------------------------------------------------------

def render_svg(dot_source, timeout=30):
    """Lay the graph out with Graphviz's dot and return the SVG (or, without dot, a picture that says so)."""
    exe = shutil.which("dot")
    if exe is None:
        return _missing_svg(dot_source)
    out = subprocess.run([exe, "-Tsvg"], input=dot_source.encode(), capture_output=True, timeout=timeout)
    if out.returncode != 0:
        raise RuntimeError(f"Graphviz's dot failed: {out.stderr.decode(errors='replace')[:500]}")
    svg = out.stdout.decode()
    svg = svg[svg.index("<svg"):]                    # drop the XML prolog and doctype: it is embedded in HTML
    return svg.replace("<svg ", "<svg class=\"tt-graph\" ", 1)


def graph_svg(roots, params=None, state=None, **options):
    return render_svg(graph_dot(roots, params=params, state=state, **options))


def _missing_svg(dot_source):
    lines = dot_source.splitlines()
    doc = Svg(900, 20 * (len(lines) + 2) + 10, cls="tt-graph tt-graph-missing")
    doc.text(8, 18, INSTALL, cls="tt-missing", size=12, anchor="start", fill="#a33")
    for i, line in enumerate(lines):
        doc.text(8, 40 + 14 * i, line, cls="tt-dot-source", size=10, anchor="start", xml_space="preserve")
    return doc.to_string()


