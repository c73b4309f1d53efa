"""A very small SVG writer shared by the three renderers.

The renderers return SVG as a string, so their output can be checked in tests with `xml.etree` and shown
anywhere (a notebook output, nbconvert HTML, a slide, a file). Elements carry `class="tt-..."` and `data-*`
attributes: they are the contract between a renderer, its tests and the widget front ends in `widgets/`,
which find elements by them to add hover and highlight.

    doc = Svg(200, 100)
    doc.rect(0, 0, 20, 20, cls="tt-cell", data={"cell": 3}, fill="#eee")
    doc.text(10, 14, "3.0", cls="tt-value")
    doc.to_string()

There is nothing like this in PyTorch; torchviz builds its pictures with Graphviz.
"""

from xml.sax.saxutils import escape, quoteattr

FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"

# One colour per view (views of one storage in one picture); torchviz's colours for graph nodes.
PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
           "#9c755f", "#bab0ac"]


def _attrs(cls=None, data=None, **attrs):
    parts = []
    if cls:
        parts.append(f"class={quoteattr(cls)}")
    for k, v in (data or {}).items():
        parts.append(f"data-{k}={quoteattr(str(v))}")
    for k, v in attrs.items():
        if v is None:
            continue
        parts.append(f"{k.rstrip('_').replace('_', '-')}={quoteattr(str(v))}")
    return (" " + " ".join(parts)) if parts else ""


class Svg:
    """An SVG document built element by element; `group()` nests (use it as a context manager)."""

    def __init__(self, width, height, cls=None, data=None, title=None):
        self.width, self.height = width, height
        self._root_attrs = _attrs(cls, data)
        self._parts = []
        if title:
            self._parts.append(f"<title>{escape(title)}</title>")

    def rect(self, x, y, w, h, cls=None, data=None, **attrs):
        self._parts.append(f"<rect x='{x:g}' y='{y:g}' width='{w:g}' height='{h:g}'{_attrs(cls, data, **attrs)}/>")

    def line(self, x1, y1, x2, y2, cls=None, data=None, **attrs):
        self._parts.append(f"<line x1='{x1:g}' y1='{y1:g}' x2='{x2:g}' y2='{y2:g}'{_attrs(cls, data, **attrs)}/>")

    def path(self, d, cls=None, data=None, **attrs):
        self._parts.append(f"<path d={quoteattr(d)}{_attrs(cls, data, **attrs)}/>")

    def text(self, x, y, s, cls=None, data=None, size=12, anchor="middle", **attrs):
        self._parts.append(f"<text x='{x:g}' y='{y:g}' font-size='{size:g}' text-anchor='{anchor}'"
                           f"{_attrs(cls, data, **attrs)}>{escape(str(s))}</text>")

    def raw(self, markup):
        self._parts.append(markup)

    def group(self, cls=None, data=None, **attrs):
        return _Group(self, _attrs(cls, data, **attrs))

    def to_string(self):
        return (f"<svg xmlns='http://www.w3.org/2000/svg' width='{self.width:g}' height='{self.height:g}' "
                f"viewBox='0 0 {self.width:g} {self.height:g}' font-family={quoteattr(FONT)}{self._root_attrs}>"
                + "".join(self._parts) + "</svg>")

    __str__ = to_string

    def _repr_svg_(self):
        return self.to_string()


class _Group:
    def __init__(self, doc, attrs):
        self.doc, self.attrs = doc, attrs

    def __enter__(self):
        self.doc._parts.append(f"<g{self.attrs}>")
        return self.doc

    def __exit__(self, *exc):
        self.doc._parts.append("</g>")
        return False
