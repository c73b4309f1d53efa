"""A picture that steps, as a row of still frames: what a slide deck reveals one key press at a time.

    step_through(GraphView().backward(loss))    # frame k: the first k steps of the backward, lit
    step_through(StorageView(x.t()))             # frame k: element k of the first tensor and the cell it reads

In a notebook, `step_through(view)` shows the live widget itself, with its own stepper or hover. When a deck is
built (slides/build.py sets TEACHTORCH_SLIDES=1 in the kernel), its output also carries the frames, as
`application/vnd.teachtorch.frames+json`: a list of {"html", "caption"}, which the builder turns into reveal.js
fragments stacked in one place. The frames are the explorer's own SVG with the classes the widget's script
would set (widgets/graph_view.js `show`, widgets/storage_view.js's hover), so the deck and the widget draw the
same picture from the same code.

PyTorch has nothing like it; the nearest are animated slides drawn by hand.
"""

import html
import os
import re

FRAMES_MIME = "application/vnd.teachtorch.frames+json"
MAX_FRAMES = 40          # a slide is not a film: longer walks are cut (the last frame is always kept)


def step_through(view):
    """The view, displayed with its frames when a deck is being built; see the module docstring."""
    return Steps(view)


class Steps:
    """Displays as `view` does, plus the frames for a deck builder."""

    def __init__(self, view):
        self.view = view

    def frames(self):
        return view_frames(self.view)

    def _repr_mimebundle_(self, **kwargs):
        bundle = self.view._repr_mimebundle_(**kwargs)
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        if os.environ.get("TEACHTORCH_SLIDES"):
            data = dict(data, **{FRAMES_MIME: self.frames()})
        return data, metadata


def view_frames(view):
    """[{"html", "caption"}] for a GraphView (its backward steps) or a StorageView (its first tensor's
    elements); TypeError for anything else."""
    if hasattr(view, "graph_steps"):
        return _cut(graph_frames(view.graph_svg, view.graph_steps))
    if hasattr(view, "storage_svg"):
        return _cut(storage_frames(view.storage_svg))
    raise TypeError(f"step_through: a GraphView or a StorageView steps, not {type(view).__name__}")


def _cut(frames):
    return frames if len(frames) <= MAX_FRAMES else frames[:MAX_FRAMES - 1] + frames[-1:]


def _add_class(svg, pattern, cls):
    """Add `cls` to the class attribute of the first element matching `pattern` (which captures up to the
    class attribute's opening quote)."""
    return re.sub(pattern, lambda m: m.group(0) + cls + " ", svg, count=1)


def describe(step):
    """What a backward step did, in words (as the widget's stepper says it)."""
    if step.get("text"):
        return step["text"]
    if step["kind"] == "gradient":
        shape = "no gradient" if step.get("shape") is None else f"gradient of shape {tuple(step['shape'])}"
        return f"{shape} passed on"
    if step["kind"] == "accumulated":
        return "added to a leaf's .grad"
    return f"{step.get('name', 'a node')} runs"


def graph_frames(svg, steps):
    """Frame 0: the graph before the backward; frame k: steps 1..k lit, step k in red."""
    frames = [{"html": f"<div class='tt-graph-canvas tt-stepping'>{svg}</div>", "caption": "before backward"}]
    for k in range(1, len(steps) + 1):
        lit, current = svg, None
        for step in steps[:k]:
            target = step["edge"] if step["kind"] == "gradient" else step["id"]
            cls = "tt-step-flowed" if step["kind"] == "gradient" else "tt-step-ran"
            lit = _add_class(lit, rf'<g id="{re.escape(target)}" class="', cls)
            current = target
            if step["kind"] == "accumulated" and step.get("leaf"):
                lit = _add_class(lit, rf'<g id="{re.escape(step["leaf"])}" class="', "tt-step-grad")
        if current is not None:
            lit = _add_class(lit, rf'<g id="{re.escape(current)}" class="', "tt-step-current")
        stepping = " tt-stepping" if k < len(steps) else ""
        frames.append({"html": f"<div class='tt-graph-canvas{stepping}'>{lit}</div>",
                       "caption": f"step {k} / {len(steps)}: {html.escape(describe(steps[k - 1]))}"})
    return frames


def storage_frames(svg):
    """Frame k: element k of the first tensor drawn (in the order it is drawn: row-major) and the storage cell
    it reads, lit."""
    elements = re.findall(r'<rect [^>]*class="tt-elem" data-view="0" data-index="([^"]*)" data-cell="(\d+)"', svg)
    frames = []
    for index, cell in elements:
        lit = _add_class(svg, rf'<rect [^>]*class="(?=tt-elem" data-view="0" data-index="{re.escape(index)}")', "tt-hot")
        lit = _add_class(lit, rf'<rect [^>]*class="(?=tt-cell" data-storage="\d+" data-cell="{cell}" '
                              rf'data-views="[^"]*\b0\b)', "tt-hot")
        frames.append({"html": f"<div class='tt-storage-canvas'>{lit}</div>",
                       "caption": f"element ({index}) reads storage cell {cell}"})
    return frames
