"""A very small SVG writer shared by the three renderers.

The renderers return SVG as a string, so their output can be checked in tests with `xml.etree` and shown
anywhere (a notebook output, nbconvert HTML, a slide, a file). Elements carry `class="tt-..."` and `data-*`
attributes: they are the contract between a renderer, its tests and the widget front ends in `widgets/`,
which find elements by them to add hover and highlight.

    doc = Svg(200, 100)
    doc.rect(0, 0, 20, 20, cls="tt-cell", data={"cell": 3}, fill="#eee")
    doc.text(10, 14, "3.0", cls="tt-value")
    doc.to_string()

Every text and attribute value goes through `clean()`, so a picture is always valid XML whatever the names
in it (a tensor, a parameter, an op or a Function may be named with any string). `tooltip()` adds an SVG
<title>; `raw()` is the one way around the writer, for markup that is already valid.

There is nothing like this in PyTorch; torchviz builds its pictures with Graphviz.
"""

import re
from xml.sax.saxutils import escape as _escape, quoteattr as _quoteattr

FONT = "DejaVu Sans Mono, Menlo, Consolas, monospace"

# One colour per view (views of one storage in one picture); torchviz's colours for graph nodes.
PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
           "#9c755f", "#bab0ac"]

# The characters XML 1.0 does not allow in a document (the C0 controls but tab, newline and carriage return,
# lone surrogates, U+FFFE and U+FFFF), and those it allows but discourages and browsers show as nothing
# (DEL and the C1 controls). A lone surrogate cannot even be encoded as UTF-8, so Jupyter could not send it.
_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _show(match):
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def clean(s):
    """The text `s` with every character XML cannot carry written as Python writes it: "a\\x00b" for a
    NUL between a and b, "\\ud800" for a lone surrogate. Tab and newline stay. Safe to put in any picture,
    trait or DOT label."""
    s = str(s)
    return _UNSAFE.sub(_show, s) if _UNSAFE.search(s) else s


def escape(s):
    """Text content: cleaned, then &, < and > escaped, and a carriage return written &#13; (an XML parser
    would read it as a newline)."""
    return _escape(clean(s), {"\r": "&#13;"})


def quoteattr(s):
    """An attribute value: cleaned, escaped and quoted."""
    return _quoteattr(clean(s))


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

    def tooltip(self, s):
        """An SVG <title>: what a browser shows when the pointer rests on the enclosing group."""
        self._parts.append(f"<title>{escape(s)}</title>")

    def raw(self, markup):
        """Markup appended as it is: it must already be valid XML (nothing here cleans it)."""
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
