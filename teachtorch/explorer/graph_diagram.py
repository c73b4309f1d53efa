"""Renderer 2: the autograd graph, as Graphviz DOT laid out by Graphviz's `dot`, and backward walking it.

When ops run on tensors that require grad, autograd records a graph of backward nodes (`grad_fn`s); each
node points to the nodes of its inputs (`next_functions`). This module draws that graph. What is drawn
(torchviz's colours, which many students have seen):

    lightblue box        a leaf tensor that requires grad ("leaf", or a parameter's name), above the
                         AccumulateGrad node that adds gradients into its .grad
    grey box             a backward node (grad_fn): MulBackward0, ... and its hooks, if any
    orange box           a tensor a node saved for backward: its shape, dtype and version; "v0, now v1"
                         when it was changed in place since (backward would fail), "freed" after backward
    green box            an output (the tensors you asked to draw)

Edges go the way data flowed in forward (inputs above, outputs below); backward runs them upwards. After
(or during) a backward run watched by a `BackwardState`, the nodes that ran are filled green and each edge
a gradient flowed along is drawn bold and labelled with the gradient's shape.

    state = BackwardState()
    with teachtorch.autograd.graph.listen(state):
        loss.backward()
    svg = graph_svg(loss, params={"w": w}, state=state)

Ids are stable, so a growing graph keeps its shape and the widget can find things: backward node
`n<id>`, leaf tensor `t<id>`, output `o<id>`, saved tensor `s<node id>_<name>`, edge
`e<node>_<next node>_<output_nr>` (the autograd edge along which a node sends its output_nr-th gradient
to the next node; drawn pointing the other way, as data flowed in forward). Graphviz (checked with
Debian's 2.42) copies a node's or edge's `id` attribute to the id of its SVG <g> and puts our `class`
attribute after its own: <g id="n123" class="node tt-fn tt-ran">. It writes "-" as "&#45;" there, which
XML parsers and browsers read back as "-". Our classes: tt-fn, tt-leaf, tt-param, tt-output, tt-saved,
tt-more, tt-empty on nodes; tt-edge, tt-flowed, tt-cut, tt-leaf-edge, tt-saved-edge, tt-output-edge on
edges; tt-ran on nodes that ran. Nodes are written in the order they were made (sequence_nr), so a graph
that grows only adds at the end, and each node's inputs are kept left to right in argument order.

Big graphs: at most `max_nodes` backward nodes are drawn, the nearest to the outputs (breadth-first);
the rest become one "… N more nodes" box. Saved tensors are drawn as boxes only up to `saved_limit`
nodes, and counted in their node's label above that.

Names come from the student's code (parameter names, Function and node class names) and may hold any
character: every label and id is cleaned (svg.clean: control characters written as `\x01`), its backslashes
escaped, and marked as plain text, never an HTML-like label, so any name makes valid DOT and valid SVG.

If Graphviz's `dot` program is missing, fails, takes too long or writes something that is not valid XML,
`render_svg` returns a picture that says so, with the DOT text, and never raises: the graph is drawn while
the student's code runs (the live explorer), and a picture must never break that code. torchviz
(pytorchviz's make_dot) draws the same picture with the same tools; PyTorch itself has no drawing, only
`grad_fn.next_functions` to walk.
"""

import re
import shutil
import subprocess
import threading
import xml.etree.ElementTree as ET
import zlib

import graphviz

from ..autograd import graph as autograd_graph
from ..autograd.node import GraphRoot
from .svg import Svg, clean

COLOURS = {"fn": "lightgrey", "leaf": "lightblue", "saved": "orange", "output": "darkolivegreen1",
           "ran": "#a5d6a7", "flowed": "#2e7d32", "more": "white"}
INSTALL = ("Graphviz's dot was not found; install it: apt-get install graphviz / brew install graphviz / "
           "conda install graphviz")


def graphviz_available():
    return shutil.which("dot") is not None


# ---- watching backward ----------------------------------------------------------------------------------

def _nid(node):
    return f"n{autograd_graph.node_id(node)}"


class BackwardState:
    """What backward runs did, in order; use it as a listener: `with autograd.graph.listen(state): ...`.

    `steps` is the list the widget steps through: {"kind": "node", "id", "name"} when a node starts,
    {"kind": "gradient", "edge", "from", "to", "shape"} for each gradient passed on, {"kind":
    "accumulated", "id", "leaf"} when a leaf's .grad is updated. The GraphRoot node that starts a backward
    from several tensors at once is not part of the drawn graph, so its steps are left out."""

    def __init__(self):
        self._events = []             # what happened, as plain tuples: turned into steps when drawn
        self._built = None            # (number of events, steps, ran, flowed, accumulated) last built
        self.finished = False

    def __call__(self, ev):
        # Called for every event of the engine while a training loop runs: keep only ids and shapes here
        # (no node, gradient or tensor is kept alive), and leave the dicts to when a picture is drawn.
        kind = ev.kind
        if kind == "node_finished" or isinstance(ev.node, GraphRoot):
            return
        fields = ev.fields
        if kind == "node_started":
            self._events.append((kind, autograd_graph.node_id(ev.node), ev.node_name))
        elif kind == "gradient":
            grad = fields["grad"]
            self._events.append((kind, autograd_graph.node_id(ev.node), autograd_graph.node_id(fields["next_node"]),
                                 fields["output_nr"], None if grad is None else tuple(grad.shape)))
        elif kind == "accumulated" and ev.node is not None:
            self._events.append((kind, autograd_graph.node_id(ev.node), id(fields["tensor"])))
        elif kind == "backward_finished":
            self.finished = True

    def _build(self):
        if self._built is None or self._built[0] != len(self._events):
            steps, ran, flowed, accumulated = [], set(), {}, set()
            for e in self._events:
                if e[0] == "node_started":
                    ran.add(f"n{e[1]}")
                    steps.append({"kind": "node", "id": f"n{e[1]}", "name": clean(e[2])})
                elif e[0] == "gradient":
                    edge = f"e{e[1]}_{e[2]}_{e[3]}"
                    shape = None if e[4] is None else list(e[4])
                    flowed[edge] = shape
                    steps.append({"kind": "gradient", "edge": edge, "from": f"n{e[1]}", "to": f"n{e[2]}",
                                  "shape": shape})
                else:
                    accumulated.add(f"n{e[1]}")
                    steps.append({"kind": "accumulated", "id": f"n{e[1]}", "leaf": f"t{e[2]}"})
            self._built = (len(self._events), steps, ran, flowed, accumulated)
        return self._built

    @property
    def steps(self):
        return self._build()[1]

    @property
    def ran(self):
        """Ids of the nodes that ran: "n123"."""
        return self._build()[2]

    @property
    def flowed(self):
        """Edge id -> gradient shape (a list, or None for no gradient)."""
        return self._build()[3]

    @property
    def accumulated(self):
        """Ids of the AccumulateGrad nodes that updated a leaf's .grad."""
        return self._build()[4]


# ---- choosing and ordering the nodes --------------------------------------------------------------------

def _param_names(params):
    """id(tensor) -> name, from a dict {name: tensor} or anything with .named_parameters() (a Module)."""
    if params is None:
        return {}
    items = params.named_parameters() if hasattr(params, "named_parameters") else params.items()
    return {id(t): name for name, t in items}


def _keep(info, max_nodes):
    """The ids of the nodes to draw: the first max_nodes met walking breadth-first from the roots."""
    if len(info.nodes) <= max_nodes:
        return {n.id for n in info.nodes}
    nexts = {n.id: [e[0] for e in n.next if e is not None] for n in info.nodes}
    kept, frontier, seen = [], list(dict.fromkeys(info.roots)), set(info.roots)
    while frontier and len(kept) < max_nodes:
        following = []
        for nid in frontier[:max_nodes - len(kept)]:
            kept.append(nid)
            for m in nexts[nid]:
                if m not in seen:
                    seen.add(m)
                    following.append(m)
        frontier = following
    return set(kept)


def _in_creation_order(info, keep):
    """The kept nodes in the order they were made, so that a graph that grows only adds at the end.

    A node's sequence_nr counts up as nodes are made. An AccumulateGrad has the largest possible one
    (so that the engine runs it as soon as it can), so it is placed instead just before the first node
    that used its leaf, which is when the leaf joined the graph."""
    first_use = {}
    for n in info.nodes:
        if n.id in keep:
            for output_nr, e in enumerate(n.next):
                if e is not None:
                    first_use[e[0]] = min(first_use.get(e[0], (n.sequence_nr, output_nr)),
                                          (n.sequence_nr, output_nr))

    def key(n):
        if n.variable is not None and n.id in first_use:
            seq, output_nr = first_use[n.id]
            return (seq, 0, output_nr)               # before its user; several leaves in input order
        return (n.sequence_nr, 1, 0)
    return sorted((n for n in info.nodes if n.id in keep), key=key)


# ---- labels ---------------------------------------------------------------------------------------------

def _shape(shape):
    return "(" + ", ".join(map(str, shape)) + ")"


def _label(*lines):
    """A multi-line DOT label: Graphviz reads \\n as a line break (and any other backslash as an escape).

    Each line is cleaned (no control characters: they are not valid XML in the SVG), its & written &amp;
    (Graphviz copies "&name;" and "&#1;" into the SVG as they are, where they may not be valid XML), and the
    label is marked nohtml: a name like "<lambda>" is text, not one of Graphviz's HTML-like labels."""
    return graphviz.nohtml("\\n".join(clean(line).replace("\\", "\\\\").replace("&", "&amp;")
                                      for line in lines))


def _saved_id(node_id, name):
    """`s<node id>_<name>`. A name with characters an id should not have (none of teachtorch's own names
    has any) gets them replaced by "_" and a checksum of the name added, so that two such names stay two."""
    safe = re.sub(r"[^A-Za-z0-9_.\[\]-]", "_", name)
    if safe == name:
        return f"s{node_id}_{name}"
    return f"s{node_id}_{safe}_{zlib.crc32(name.encode('utf-8', 'surrogatepass')):08x}"


def _hooks_line(hooks):
    parts = [f"{kind} {count}" for kind, count in hooks.items() if count and kind != "retains_grad"]
    if hooks.get("retains_grad"):
        parts.append("retains_grad")
    return "hooks: " + ", ".join(parts) if parts else None


def _saved_label(s):
    name = s["name"].removeprefix("_saved_")
    if s.get("freed"):
        return _label(name, "freed")
    if s.get("shape") is None:                       # not a tensor: a number, None, ...
        return _label(name, repr(s.get("value")))
    lines = [name, f"{_shape(s['shape'])} {s['dtype'].replace('torch.', '')}", f"v{s['saved_version']}"]
    if s["version"] != s["saved_version"]:           # changed in place since: backward would fail
        lines[-1] += f", now v{s['version']}"
        lines.append("(modified in place)")
    return _label(*lines)


def _new_digraph():
    # Small monospace boxes, ranks close together: a 20-node graph fits a notebook cell's width.
    # ordering=in keeps each node's inputs left to right in argument order: the picture reads like the code.
    return graphviz.Digraph(
        graph_attr={"ranksep": "0.35", "nodesep": "0.25", "bgcolor": "transparent", "ordering": "in"},
        node_attr={"shape": "box", "style": "filled", "fontname": "monospace", "fontsize": "11",
                   "height": "0.3", "margin": "0.08,0.04"},
        edge_attr={"arrowsize": "0.6", "fontname": "monospace", "fontsize": "9"})


# ---- building DOT ---------------------------------------------------------------------------------------

def graph_dot(roots, params=None, state=None, max_nodes=400, show_saved=True, saved_limit=60):
    """The DOT source of the graph behind `roots` (a tensor, a Node, or a list of them).

    params: {name: tensor} or an object with .named_parameters(), to name the leaves that are parameters.
    state: a BackwardState that watched a backward run, to mark what ran and where gradients flowed."""
    from .._tensor import Tensor
    roots = list(roots) if isinstance(roots, (list, tuple)) else [roots]
    info = autograd_graph.walk(roots)
    names = _param_names(params)
    keep = _keep(info, max_nodes)
    draw_saved = show_saved and len(keep) <= saved_limit
    ran = state.ran if state is not None else set()
    flowed = state.flowed if state is not None else {}

    dot = _new_digraph()
    if len(keep) < len(info.nodes):                  # the nodes left out, as one box
        dot.node("more", _label(f"… {len(info.nodes) - len(keep):,} more nodes"), id="more",
                 **{"class": "tt-more"}, fillcolor=COLOURS["more"], style="dashed")
    for n in _in_creation_order(info, keep):         # each node, then the edges from its inputs
        _add_node(dot, n, ran, names, draw_saved)
        _add_input_edges(dot, n, keep, flowed)
    drawn = set()
    for t in roots:                                  # the outputs, below their grad_fn
        if (isinstance(t, Tensor) and t.grad_fn is not None and id(t) not in drawn
                and autograd_graph.node_id(t.grad_fn) in keep):
            drawn.add(id(t))
            oid = f"o{id(t)}"
            shape = f"{_shape(t.shape)} {t.dtype.name}"
            label = _label(names[id(t)], shape) if id(t) in names else _label(shape)      # "loss", if named
            dot.node(oid, label, id=oid, **{"class": "tt-output"},
                     fillcolor=COLOURS["output"])
            dot.edge(_nid(t.grad_fn), oid, id=f"r{id(t)}", **{"class": "tt-output-edge"})
    if not info.nodes:
        dot.node("empty", _label("no autograd graph: nothing here requires grad"), id="empty",
                 **{"class": "tt-empty"}, shape="plaintext", style="")
    return dot.source


def _add_node(dot, n, ran, names, draw_saved):
    """One backward node, with its leaf (for AccumulateGrad) and its saved tensors."""
    nid = f"n{n.id}"
    lines = [n.name]
    if _hooks_line(n.hooks):
        lines.append(_hooks_line(n.hooks))
    if n.saved and not draw_saved:
        lines.append(f"saves {len(n.saved)}")
    dot.node(nid, _label(*lines), id=nid, **{"class": "tt-fn tt-ran" if nid in ran else "tt-fn"},
             fillcolor=COLOURS["ran"] if nid in ran else COLOURS["fn"])
    if n.variable is not None:                       # AccumulateGrad: its leaf tensor above it
        t, tid = n.variable, f"t{id(n.variable)}"
        name = names.get(id(t))
        dot.node(tid, _label(name or "leaf", f"{_shape(t.shape)} {t.dtype.name}"), id=tid,
                 **{"class": "tt-leaf tt-param" if name else "tt-leaf"}, fillcolor=COLOURS["leaf"])
        dot.edge(tid, nid, id=f"l{n.id}", **{"class": "tt-leaf-edge"}, style="dashed", arrowhead="none")
    if draw_saved:
        for s in n.saved:
            sid = _saved_id(n.id, s["name"].removeprefix("_saved_"))
            dot.node(sid, _saved_label(s), id=sid, **{"class": "tt-saved"}, fillcolor=COLOURS["saved"],
                     fontsize="9")
            dot.edge(sid, nid, id=f"x{sid}", **{"class": "tt-saved-edge"}, dir="none", style="dotted")


def _add_input_edges(dot, n, keep, flowed):
    """The edges into node n's box from the nodes of its inputs (its next edges, drawn the way data
    flowed in forward). Those from nodes left out become one edge from the "more" box."""
    cut = 0
    for output_nr, edge in enumerate(n.next):
        if edge is None:                             # that input needs no gradient
            continue
        if edge[0] not in keep:
            cut += 1
            continue
        eid = f"e{n.id}_{edge[0]}_{output_nr}"
        attrs = {"id": eid, "class": "tt-edge"}
        if eid in flowed:
            shape = flowed[eid]                      # bold, green, labelled with the gradient's shape
            attrs.update({"class": "tt-edge tt-flowed", "penwidth": "2.2", "color": COLOURS["flowed"],
                          "fontcolor": COLOURS["flowed"],
                          "label": "None" if shape is None else _shape(shape)})
        dot.edge(f"n{edge[0]}", f"n{n.id}", **attrs)
    if cut:
        label = {"label": f"×{cut:,}"} if cut > 1 else {}
        dot.edge("more", f"n{n.id}", id=f"e{n.id}_more", **{"class": "tt-edge tt-cut"}, style="dashed",
                 **label)


# ---- rendering ------------------------------------------------------------------------------------------

def render_svg(dot_source, timeout=30, wait=True):
    """Lay the graph out with Graphviz's dot and return the SVG.

    A training loop draws the same graph every step, with new nodes: the same DOT but for the ids (Python's
    id() of each node and tensor, long numbers). So the layout is kept for the DOT with its ids numbered in
    order of appearance (`_canonical`), and a graph seen before costs a text substitution instead of a run
    of dot (about 50 ms for a small MLP's step).

    `wait=False` (the live explorer, inside a training loop): a graph not laid out yet is laid out by a
    thread, while dot runs in its own process on another core, and None is returned; a later call finds
    the layout. The loop does not wait for Graphviz.

    Never raises: without dot, or when dot fails, takes more than `timeout` seconds, or writes something
    that is not valid XML, the picture says what went wrong and shows the DOT text instead."""
    canonical, ids = _canonical(dot_source)
    svg = _LAYOUTS.get(canonical)
    if svg is None and not wait:
        _lay_out_later(canonical, timeout)
        return None
    if svg is None:
        try:
            svg = _run_dot(canonical, timeout)
        except _DotFailed as e:
            return _fallback_svg(str(e), dot_source)
        except Exception as e:                       # anything else: still a picture, never an exception
            return _fallback_svg(f"Graphviz's dot could not draw this graph ({type(e).__name__}: {e})",
                                 dot_source)
        _keep_layout(canonical, svg)
    return _PLACEHOLDER.sub(lambda m: ids[int(m.group(1))], svg)


def _keep_layout(canonical, svg):
    if len(_LAYOUTS) >= LAYOUTS_KEPT:
        _LAYOUTS.pop(next(iter(_LAYOUTS)), None)     # the oldest layout goes
    _LAYOUTS[canonical] = svg


def _lay_out_later(canonical, timeout):
    """Run dot for `canonical` on a thread (one at a time), keeping the layout when it succeeds; a failure is
    left for a waiting render_svg to report."""
    if _LAYING_OUT:
        return
    _LAYING_OUT.append(canonical)

    def work():
        try:
            _keep_layout(canonical, _run_dot(canonical, timeout))
        except Exception:
            pass
        finally:
            _LAYING_OUT.clear()
    threading.Thread(target=work, name="teachtorch-graphviz", daemon=True).start()


LAYOUTS_KEPT = 16
_LAYOUTS = {}                    # canonical DOT -> its SVG, with placeholders for the ids
_LAYING_OUT = []                 # the canonical DOT a thread is laying out now (at most one)
_ID_NUMBER = re.compile(r"\d{9,}")     # id() numbers are addresses; no shape or label number is this long
_PLACEHOLDER = re.compile(r"QZ(\d+)ZQ")


def _canonical(dot_source):
    """The DOT with each id number written QZ<k>ZQ, k in order of first appearance; and the numbers."""
    ids = {}

    def number(m):
        k = ids.setdefault(m.group(), len(ids))
        return f"QZ{k}ZQ"
    canonical = _ID_NUMBER.sub(number, dot_source)
    return canonical, list(ids)


class _DotFailed(Exception):
    """What went wrong running dot, in a sentence for the fallback picture."""


def _run_dot(dot_source, timeout):
    exe = shutil.which("dot")
    if exe is None:
        raise _DotFailed(INSTALL)
    # DOT built by graph_dot is clean; text from elsewhere might hold a lone surrogate, which UTF-8 cannot encode
    source = dot_source.encode("utf-8", errors="backslashreplace")
    try:
        out = subprocess.run([exe, "-Tsvg"], input=source, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise _DotFailed(f"Graphviz's dot took more than {timeout:g} s to lay this graph out "
                         f"(draw fewer nodes: max_nodes=...)") from None
    except OSError as e:
        raise _DotFailed(f"Graphviz's dot could not be run: {e}") from None
    if out.returncode != 0:
        why = " ".join(out.stderr.decode(errors="replace").split())[:300] or "no message"
        raise _DotFailed(f"Graphviz's dot failed (exit status {out.returncode}): {why}")
    svg = out.stdout.decode(errors="replace")
    start = svg.find("<svg")
    if start < 0:
        raise _DotFailed("Graphviz's dot wrote no SVG")
    svg = svg[start:]                                # drop the XML prolog and doctype: it goes inside HTML
    try:
        ET.fromstring(svg)                           # a browser would refuse to show invalid XML
    except ET.ParseError as e:
        raise _DotFailed(f"Graphviz's dot wrote SVG that is not valid XML ({e})") from None
    return svg.replace("<svg ", "<svg class=\"tt-graph\" ", 1)


def graph_svg(roots, params=None, state=None, **options):
    """render_svg(graph_dot(...)): the picture of the graph behind `roots`."""
    return render_svg(graph_dot(roots, params=params, state=state, **options))


def _fallback_svg(message, dot_source):
    """One line saying what went wrong, then the DOT text, one <text> per line."""
    lines = dot_source.splitlines()
    width = 7 * max([len(message), *map(len, lines)]) + 16
    doc = Svg(width, 40 + 14 * len(lines), cls="tt-graph tt-graph-missing")
    doc.text(8, 18, message, cls="tt-missing", size=12, anchor="start", fill="#a33")
    for i, line in enumerate(lines):
        doc.text(8, 40 + 14 * i, line, cls="tt-dot-source", size=10, anchor="start", style="white-space: pre")
    return doc.to_string()
