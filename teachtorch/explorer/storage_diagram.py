"""Renderer 1: tensors drawn over their storage, the picture behind sizes, strides and offsets.

A tensor is a window onto a flat storage. Its element at index (i, j, ...) lives in storage cell

    storage_offset + i * stride[0] + j * stride[1] + ...

and this module draws exactly that. For each storage, the logical grid of every tensor (view) that uses it
sits above the flat strip of storage cells. Each element prints the cell it lives in (`→5`) and carries it as
`data-cell`; each storage cell carries a coloured bar for every view that reads it. So you can see a
transpose read the same cells in another order, a slice with a step skip cells, an offset start further
along, and `expand` (stride 0) read one cell many times.

    storage_svg(x, x.t(), x[1:, ::2], labels=["x", "x.t()", "x[1:, ::2]"])

The work is done in two steps: `storage_scene()` decides what to draw (plain data: which elements, which
cells, which values, what was left out) and `storage_svg()` lays it out and draws it.

Big tensors are cut, never drawn in full: at most `max_rows` x `max_cols` elements of each 2-D slice,
`max_slices` slices of a >2-D tensor and `max_cells` storage cells, with an ellipsis (class tt-ellipsis)
where something was left out and a note (class tt-note) saying what. Many tensors are cut too: at most
`max_tensors` tensors are drawn, and about `max_elements` elements in all their views together (and as
many storage cells in all the strips together): each tensor gets a fair share of what is left, fewer
slices if it needs more (but always one), and when nothing is left the tensors after are left out, with a
note under the picture: "… and 984 more tensors not drawn". Labels are cut to `MAX_LABEL` characters.
So a picture has at most a few thousand elements (about a megabyte of SVG) whatever it is given. The
work is proportional to what is drawn, never to the size or number of the tensors, and values are read
only for the cells that are drawn.

The SVG is the contract with the tests and the widget front end (widgets/storage_view.js):
    <svg class="tt-storage">
      <g class="tt-view" data-view="k" data-storage="SID" data-label data-sizes="3,4" data-strides="4,1"
         data-offset data-dtype data-contiguous="true|false">
        <rect class="tt-elem" data-view="k" data-index="i,j" data-cell="c"/>   (0-d: data-index="")
      <g class="tt-strip" data-storage="SID">
        <rect class="tt-cell" data-storage="SID" data-cell="c" data-views="0 2"/>
      <text class="tt-ellipsis">, <text class="tt-note">
SID is `id(tensor.untyped_storage())`, the storage id the dispatch trace records for every tensor
(teachtorch/dispatch/trace.py), so a trace row and a storage picture name a storage the same way.

PyTorch draws nothing like this; its docs and Edward Yang's "PyTorch internals" talk draw it by hand.
"""

import math

import numpy as np

from .svg import PALETTE, Svg
from ..backends import ARRAY_MODULES
from ..backends.differences import to_host

# Sizes in pixels. The font is monospace, so a text's width is its length times about 0.6 em.
CHAR_W = 0.61
VALUE_SIZE, SMALL_SIZE, CAPTION_SIZE = 11, 9, 12
CELL_H = 34                 # an element or a storage cell: the value on top, the cell number below
STEP = 3                    # the gap between two cells
LINE_H = 16                 # one caption line
PAD = 14                    # around the picture
VIEW_GAP = 36               # between two views side by side
SLICE_GAP = 18              # between two 2-D slices of a >2-D tensor
MAX_WIDTH = 1150            # views, slices and the storage strip wrap to a new line beyond this
INK = "currentColor"        # text outside cells follows the page's colour (light and dark themes)
NOTE_INK = "#c0392b"
MAX_LABEL = 80              # characters of a label drawn (the rest becomes "…")
MIN_STRIP = 8               # the fewest cells a storage strip shows, even when the picture's budget is spent


def storage_id(t):
    """The id of a tensor's storage, as dispatch traces record it: equal ids mean shared memory."""
    return str(id(t.untyped_storage()))


def _text_w(s, size):
    return len(str(s)) * size * CHAR_W


# ---- the scene: what to draw -------------------------------------------------------------------------------

def storage_scene(*tensors, labels=None, values=True, max_cells=256, max_rows=16, max_cols=16, max_slices=8,
                  max_tensors=16, max_elements=2048):
    """The picture as plain data (JSON-able): per storage, its views and the strip of cells to draw.

    {"storages": [{"id", "dtype", "itemsize", "n_cells", "nbytes", "views": [view, ...],
                   "strip": [cell, ...] (in storage order), "readers": {cell: [view numbers]},
                   "values": {cell: "1.5"}, "notes": [...]}],
     "tensors": how many tensors were given, "drawn": how many are drawn, "notes": [...]}
    A view: its "view" number k (the k-th tensor), label, sizes, strides, offset, dtype, contiguous, base,
    expanded dims, and "slices": the 2-D slices drawn, each {"lead": [leading index], "elems":
    [{"index": [...], "cell": c, "row": r, "col": c, "value": "1.5" or None}]}.
    """
    # Over 60 lines: builds the whole picture's data in one pass: storages, then their views, then the cells.
    labels = list(labels or [])
    labels += [None] * (len(tensors) - len(labels))
    labels = [_clip(lab) if lab is not None else f"t{k}" for k, lab in enumerate(labels[:len(tensors)])]
    label_of = {id(t): lab for t, lab in zip(tensors, labels)}        # to say "view of x" when x is drawn
    limits = dict(max_rows=max_rows, max_cols=max_cols, max_slices=max_slices)

    storages, budget, drawn = {}, max_elements, 0
    n_drawable = min(len(tensors), max_tensors)
    for k, (t, label) in enumerate(zip(tensors, labels)):
        if k >= max_tensors or budget <= 0:          # the rest are left out, and said so
            break
        share = budget // (n_drawable - k)           # a fair share of what is left (small tensors leave some)
        view = _view_scene(t, k, label, label_of, max_elements=share, **limits)
        budget -= sum(len(sl["elems"]) for sl in view["slices"])
        drawn += 1
        sid = storage_id(t)
        if sid not in storages:      # grouped by storage, in the order the tensors were given
            st = t.untyped_storage()
            storages[sid] = {"id": sid, "dtype": t.dtype.name, "itemsize": t.dtype.itemsize,
                             "n_cells": st.nbytes() // t.dtype.itemsize, "nbytes": st.nbytes(), "views": [],
                             "_storage": st, "_dtype": t.dtype}
        storages[sid]["views"].append(view)

    strip_budget = max_elements
    for s in storages.values():
        readers = {}
        for v in s["views"]:
            for sl in v["slices"]:
                for e in sl["elems"]:
                    readers.setdefault(e["cell"], set()).add(v["view"])
        s["readers"] = {c: sorted(ks) for c, ks in readers.items()}
        s["strip"] = _strip_window(readers, s["n_cells"], max(MIN_STRIP, min(max_cells, strip_budget)))
        strip_budget -= len(s["strip"])
        s["notes"] = []
        if len(s["strip"]) < s["n_cells"]:
            s["notes"].append(f"showing {len(s['strip']):,} of {s['n_cells']:,} storage elements")
        st, dtype = s.pop("_storage"), s.pop("_dtype")
        s["values"] = {}
        if values:
            wanted = set(s["strip"]) | set(readers)
            s["values"] = {c: _fmt(v, dtype) for c, v in _read_cells(st, dtype, wanted).items()}
        for v in s["views"]:
            for sl in v["slices"]:
                for e in sl["elems"]:
                    e["value"] = s["values"].get(e["cell"])
    notes = []
    if drawn < len(tensors):
        left = len(tensors) - drawn
        notes.append(f"… and {left:,} more tensor{'s' if left > 1 else ''} not drawn "
                     f"(showing the first {drawn:,} of {len(tensors):,})")
    return {"storages": list(storages.values()), "tensors": len(tensors), "drawn": drawn, "notes": notes}


def _clip(label):
    label = str(label)
    return label if len(label) <= MAX_LABEL else label[:MAX_LABEL - 1] + "…"


def _view_scene(t, k, label, label_of, max_rows, max_cols, max_slices, max_elements=None):
    """One tensor: the elements to draw (at most max_rows x max_cols per 2-D slice, and at most
    max_elements in all, though always one slice) and their cells."""
    sizes, strides, offset = tuple(t.shape), tuple(t.stride()), t.storage_offset()
    ndim = len(sizes)
    n_rows = sizes[-2] if ndim >= 2 else 1           # 0-d and 1-D tensors are one row
    n_cols = sizes[-1] if ndim >= 1 else 1
    rows, cols = min(n_rows, max_rows), min(n_cols, max_cols)
    empty = 0 in sizes
    lead_sizes = sizes[:-2]
    n_slices = math.prod(lead_sizes)                  # 1 for 0-, 1- and 2-D tensors
    if max_elements is not None:                      # what is left of the picture's budget
        max_slices = max(1, min(max_slices, max_elements // max(rows * cols, 1)))

    slices = []
    for lead in ([] if empty else _first_indices(lead_sizes, max_slices)):
        start = offset + sum(i * s for i, s in zip(lead, strides))
        elems = []
        for r in range(rows):
            for c in range(cols):
                # the stride formula, split into the slice's start and its last two dims
                if ndim == 0:
                    index, cell = [], offset
                elif ndim == 1:
                    index, cell = [c], start + c * strides[-1]
                else:
                    index, cell = [*lead, r, c], start + r * strides[-2] + c * strides[-1]
                elems.append({"index": index, "cell": cell, "row": r, "col": c})
        slices.append({"lead": list(lead), "elems": elems})

    base = None
    if t._base is not None:
        base = (f"view of {label_of[id(t._base)]}" if id(t._base) in label_of
                else f"_base: shape {list(t._base.shape)}")
    notes = []
    if ndim == 1 and n_cols > cols:
        notes.append(f"showing {cols} of {n_cols:,} elements")
    elif n_rows > rows or n_cols > cols:
        notes.append(f"showing {rows} × {cols} of {n_rows:,} × {n_cols:,} elements"
                     + (" per slice" if ndim > 2 else ""))
    if n_slices > len(slices) and not empty:
        notes.append(f"showing {len(slices)} of {n_slices:,} slices")
    return {"view": k, "label": label, "sizes": list(sizes), "strides": list(strides), "offset": offset,
            "dtype": t.dtype.name, "contiguous": t.is_contiguous(), "base": base, "ndim": ndim,
            "expanded": [d for d in range(ndim) if strides[d] == 0 and sizes[d] > 1],
            "empty": empty, "rows": rows, "cols": cols, "more_rows": n_rows > rows, "more_cols": n_cols > cols,
            "slices": slices, "more_slices": 0 if empty else n_slices - len(slices), "notes": notes}


def _first_indices(sizes, limit):
    """The first `limit` indices of a grid of `sizes`, in row-major order ([()] for no dims)."""
    out, index = [], [0] * len(sizes)
    for _ in range(min(limit, math.prod(sizes))):
        out.append(tuple(index))
        for d in reversed(range(len(sizes))):        # count up like an odometer
            index[d] += 1
            if index[d] < sizes[d]:
                break
            index[d] = 0
    return out


def _strip_window(used, n_cells, max_cells):
    """The storage cells to draw, in order: all of them if few; else the used ones and some around them.

    When cells must be left out, the window holds the used cells (at most max_cells) and fills up to
    max(64, 2 x used) cells with their neighbours: from the first used cell on, then the cells before it,
    so the gaps a step or a stride leaves between used cells show too. A 10,000,000-element tensor of which
    16 elements are drawn shows 64 cells, not 10,000,000.
    """
    if n_cells <= max_cells:
        return list(range(n_cells))
    chosen = set(sorted(used)[:max_cells])
    budget = min(max_cells, max(64, 2 * len(chosen)))
    first = min(used) if used else 0
    for c in range(first, n_cells):
        if len(chosen) >= budget:
            break
        chosen.add(c)
    for c in range(first - 1, -1, -1):
        if len(chosen) >= budget:
            break
        chosen.add(c)
    return sorted(chosen)


def _read_cells(storage, dtype, cells):
    """{cell: value} for these storage cells, read straight from the storage's bytes; nothing else copied."""
    if storage.device.type == "meta" or not cells:   # a meta tensor has a layout but no values
        return {}
    flat = storage.bytes()                            # a flat uint8 view of the buffer
    n = flat.shape[0] // dtype.itemsize
    cells = sorted(c for c in cells if 0 <= c < n)
    typed = flat[:n * dtype.itemsize].view(dtype.numpy)
    index = np.array(cells, dtype=np.int64)
    if storage.device.type != "cpu":                  # a GPU storage is indexed with a GPU array
        index = ARRAY_MODULES[storage.device.type].asarray(index)
    picked = to_host(typed[index])                    # one gather of just these cells, then one copy to the host
    return dict(zip(cells, picked.tolist()))


def _fmt(v, dtype):
    """A value, short enough for a cell: True/False, integers in full, floats like PyTorch prints them
    ("2." for a whole number) or with 3 significant digits ("0.333", "1.23e5")."""
    if dtype.name == "bool":
        return "True" if v else "False"
    if not dtype.is_floating_point:
        return str(int(v))
    if not math.isfinite(v):
        return str(v)
    if v == int(v) and abs(v) < 1e5:
        return f"{int(v)}." if v or math.copysign(1, v) > 0 else "-0."
    s = f"{v:.3g}"
    if "e" in s:
        mantissa, exp = s.split("e")
        s = f"{mantissa}e{int(exp)}"
    return s


def _caption(v):
    """The lines under a view's label: its layout, then what is special about it."""
    lines = [f"sizes {v['sizes']}  strides {v['strides']}",
             f"offset {v['offset']} · {v['dtype']} · {'contiguous' if v['contiguous'] else 'not contiguous'}"]
    special = []
    if v["ndim"] == 0:
        special.append("0-d: one element")
    if v["empty"]:
        special.append("empty: no elements")
    if v["expanded"]:
        special.append("expanded: dim " + ", ".join(map(str, v["expanded"])) + " (stride 0)")
    if v["base"]:
        special.append(v["base"])
    if special:
        lines.append(" · ".join(special))
    return lines


# ---- layout and drawing --------------------------------------------------------------------------------

def storage_svg(*tensors, labels=None, values=True, max_cells=256, max_rows=16, max_cols=16, max_slices=8,
                max_tensors=16, max_elements=2048):
    """The storage picture of these tensors as an SVG string (see the module docstring)."""
    scene = storage_scene(*tensors, labels=labels, values=values, max_cells=max_cells, max_rows=max_rows,
                          max_cols=max_cols, max_slices=max_slices, max_tensors=max_tensors,
                          max_elements=max_elements)
    cell_w = _cell_width(scene, values)
    blocks, y = [], PAD
    for s in scene["storages"]:                       # measure everything first, then draw
        block = _layout_storage(s, cell_w, PAD, y)
        blocks.append(block)
        y += block["h"] + 2 * PAD
    notes_w = max((_text_w(note, CAPTION_SIZE) for note in scene["notes"]), default=0)
    width = max([PAD + b["w"] for b in blocks] + [200, PAD + notes_w]) + PAD
    height = max(y - PAD, 2 * PAD) + LINE_H * len(scene["notes"])
    doc = Svg(width, height, cls="tt-storage", data={"storages": len(blocks)})
    for n, block in enumerate(blocks):
        if n:                                         # a line between two storages
            doc.line(PAD, block["y"] - PAD, width - PAD, block["y"] - PAD, stroke="#999",
                     stroke_dasharray="4 4")
        _draw_storage(doc, block, cell_w, values)
    ny = max(y - PAD, 2 * PAD)
    for note in scene["notes"]:                       # what was left out of the whole picture
        doc.text(PAD, ny + 12, note, cls="tt-note", size=CAPTION_SIZE, anchor="start", fill=NOTE_INK)
        ny += LINE_H
    return doc.to_string()


def _cell_width(scene, values):
    """One width for every element and cell of the picture: wide enough for the longest value or number."""
    longest_value = max((len(x) for s in scene["storages"] for x in s["values"].values()), default=0)
    longest_cell = max((len(str(c)) + 1 for s in scene["storages"]
                        for c in list(s["readers"]) + s["strip"][-1:]), default=1)
    w = max(40, longest_cell * SMALL_SIZE * CHAR_W + 10)
    if values:
        w = max(w, longest_value * VALUE_SIZE * CHAR_W + 10)
    return math.ceil(w)


def _layout_storage(s, cell_w, x0, y0):
    """Positions for one storage: its views in lines (wrapping at MAX_WIDTH), then its strip below."""
    views, x, y, line_h, right = [], x0, y0, 0, x0
    for v in s["views"]:
        box = _layout_view(v, cell_w)
        if x > x0 and x + box["w"] > x0 + MAX_WIDTH:  # no room left on this line
            x, y, line_h = x0, y + line_h + VIEW_GAP, 0
        views.append((v, box, x, y))
        x += box["w"] + VIEW_GAP
        right = max(right, x - VIEW_GAP)
        line_h = max(line_h, box["h"])
    strip_y = y + line_h + 30
    pitch = cell_w + STEP
    per_line = max(8, min(32, int(max(right - x0, 16 * pitch) // pitch)))
    slots = _strip_slots(s)
    strip_lines = max(1, math.ceil(len(slots) / per_line))
    strip_h = strip_lines * (CELL_H + 18) + LINE_H * len(s["notes"]) + 4
    w = max(right - x0, min(len(slots), per_line) * pitch, _legend_w(s))
    return {"storage": s, "views": views, "x": x0, "y": y0, "w": w, "h": strip_y - y0 + strip_h,
            "strip_y": strip_y, "per_line": per_line, "slots": slots}


def _slice_size(v, cell_w):
    header = LINE_H if v["ndim"] > 2 else 0
    w = v["cols"] * (cell_w + STEP) + (22 if v["more_cols"] else 0)
    h = header + v["rows"] * (CELL_H + STEP) + (20 if v["more_rows"] else 0)
    return w, h


def _layout_view(v, cell_w):
    """A view's box: caption lines, then its 2-D slices in lines, then its notes."""
    caption = [v["label"]] + _caption(v)
    if v["empty"]:
        grid_w, grid_h, per_line = 3 * (cell_w + STEP), CELL_H, 1
    else:
        sw, sh = _slice_size(v, cell_w)
        n = len(v["slices"]) + (1 if v["more_slices"] else 0)     # "… 16 more" takes a slice's place
        per_line = max(1, min(n, int((MAX_WIDTH + SLICE_GAP) // (sw + SLICE_GAP))))
        n_lines = math.ceil(n / per_line)
        grid_w = per_line * (sw + SLICE_GAP) - SLICE_GAP
        grid_h = n_lines * (sh + SLICE_GAP) - SLICE_GAP
    caption_w = max(_text_w(line, CAPTION_SIZE) for line in caption)
    notes_h = LINE_H * len(v["notes"]) + (4 if v["notes"] else 0)
    return {"w": max(grid_w, caption_w), "h": LINE_H * len(caption) + 8 + grid_h + notes_h,
            "caption": caption, "per_line": per_line}


def _strip_slots(s):
    """The strip, left to right: ("cell", c) for each drawn cell, ("gap", None) where cells were left out."""
    slots, prev = [], -1
    for c in s["strip"]:
        if c != prev + 1:
            slots.append(("gap", None))
        slots.append(("cell", c))
        prev = c
    if s["strip"] and prev != s["n_cells"] - 1:
        slots.append(("gap", None))
    return slots


def _legend_w(s):
    """The width of the strip's title line: the title, then a coloured mark and the label of each view."""
    return _text_w(_strip_title(s), CAPTION_SIZE) + 10 + sum(28 + _text_w(v["label"], CAPTION_SIZE)
                                                            for v in s["views"])


def _strip_title(s):
    size = f"{s['nbytes']:,} byte" + ("" if s["nbytes"] == 1 else "s")
    return f"storage: {s['n_cells']:,} × {s['dtype']} ({size}), read by"


def _draw_storage(doc, block, cell_w, values):
    s = block["storage"]
    for v, box, x, y in block["views"]:
        _draw_view(doc, v, box, s["id"], x, y, cell_w, values)
    _draw_strip(doc, block, cell_w, values)


def _colour(k):
    return PALETTE[k % len(PALETTE)]


def _tint(hex_colour, amount=0.8):
    """The colour mixed with white: a light fill that dark text stays readable on, in any theme."""
    rgb = [int(hex_colour[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(c + (255 - c) * amount):02x}" for c in rgb)


def _draw_view(doc, v, box, sid, x, y, cell_w, values):
    colour = _colour(v["view"])
    data = {"view": v["view"], "storage": sid, "label": v["label"], "sizes": ",".join(map(str, v["sizes"])),
            "strides": ",".join(map(str, v["strides"])), "offset": v["offset"], "dtype": v["dtype"],
            "contiguous": str(v["contiguous"]).lower()}
    with doc.group(cls="tt-view", data=data):
        for i, line in enumerate(box["caption"]):
            doc.text(x, y + 12 + LINE_H * i, line, size=CAPTION_SIZE, anchor="start",
                     fill=colour if i == 0 else INK, font_weight="bold" if i == 0 else None)
        top = y + LINE_H * len(box["caption"]) + 8
        if v["empty"]:
            doc.rect(x, top, 3 * (cell_w + STEP) - STEP, CELL_H, fill="none", stroke=colour,
                     stroke_dasharray="4 3")
            doc.text(x + 8, top + 21, "empty", cls="tt-note", size=VALUE_SIZE, anchor="start", fill=INK)
            grid_h = CELL_H
        else:
            grid_h = _draw_slices(doc, v, box, x, top, cell_w, values, colour)
        ny = top + grid_h + 4
        for note in v["notes"]:
            doc.text(x, ny + 12, note, cls="tt-note", size=SMALL_SIZE + 1, anchor="start", fill=NOTE_INK)
            ny += LINE_H


def _draw_slices(doc, v, box, x, top, cell_w, values, colour):
    """Draw the 2-D slices in lines of box["per_line"]; returns the height used."""
    sw, sh = _slice_size(v, cell_w)
    header = LINE_H if v["ndim"] > 2 else 0
    n = len(v["slices"])
    for k, sl in enumerate(v["slices"]):
        sx = x + (k % box["per_line"]) * (sw + SLICE_GAP)
        sy = top + (k // box["per_line"]) * (sh + SLICE_GAP)
        if header:
            doc.text(sx, sy + 11, "[" + ", ".join(map(str, sl["lead"])) + ", :, :]", size=SMALL_SIZE + 1,
                     anchor="start", fill=INK)
        _draw_elements(doc, v, sl["elems"], sx, sy + header, cell_w, values, colour)
        gy = sy + header
        if v["more_cols"]:          # more columns to the right, more rows below
            doc.text(sx + v["cols"] * (cell_w + STEP) + 9, gy + CELL_H / 2 + 5, "…", cls="tt-ellipsis",
                     size=14, fill=INK)
        if v["more_rows"]:
            doc.text(sx + cell_w / 2, gy + v["rows"] * (CELL_H + STEP) + 14, "⋮", cls="tt-ellipsis",
                     size=14, fill=INK)
    if v["more_slices"]:
        sx = x + (n % box["per_line"]) * (sw + SLICE_GAP)
        sy = top + (n // box["per_line"]) * (sh + SLICE_GAP)
        doc.text(sx, sy + header + CELL_H / 2 + 5, f"… {v['more_slices']:,} more", cls="tt-ellipsis",
                 size=CAPTION_SIZE, anchor="start", fill=INK)
    lines = math.ceil((n + (1 if v["more_slices"] else 0)) / box["per_line"])
    return lines * (sh + SLICE_GAP) - SLICE_GAP


def _draw_elements(doc, v, elems, x, y, cell_w, values, colour):
    """One 2-D slice: a box per element, its value, and the storage cell it lives in ("→5").

    What all boxes (or all texts) share is set once on a group: SVG children inherit fill and stroke."""
    at = [(x + e["col"] * (cell_w + STEP), y + e["row"] * (CELL_H + STEP), e) for e in elems]
    with doc.group(fill=_tint(colour), stroke=colour, stroke_width=1.2):
        for ex, ey, e in at:
            doc.rect(ex, ey, cell_w, CELL_H, cls="tt-elem", rx=3,
                     data={"view": v["view"], "index": ",".join(map(str, e["index"])), "cell": e["cell"]})
    shown = values and any(e["value"] is not None for e in elems)
    if shown:
        with doc.group(fill="#222"):
            for ex, ey, e in at:
                if e["value"] is not None:
                    doc.text(ex + cell_w / 2, ey + 15, e["value"], size=VALUE_SIZE)
    with doc.group(fill="#555"):    # the cell number: under the value, or alone in the middle
        for ex, ey, e in at:
            doc.text(ex + cell_w / 2, ey + (28 if shown else 21), f"→{e['cell']}",
                     size=SMALL_SIZE if shown else SMALL_SIZE + 1)


def _draw_strip(doc, block, cell_w, values):
    s = block["storage"]
    x0, y = block["x"], block["strip_y"]
    # the title, then a legend: one coloured mark per view that reads this storage
    title = _strip_title(s)
    doc.text(x0, y - 8, title, size=CAPTION_SIZE, anchor="start", fill=INK, font_weight="bold")
    lx = x0 + _text_w(title, CAPTION_SIZE) + 10
    for v in s["views"]:
        doc.rect(lx, y - 17, 10, 10, fill=_colour(v["view"]), rx=2)
        doc.text(lx + 14, y - 8, v["label"], size=CAPTION_SIZE, anchor="start", fill=INK)
        lx += 14 + _text_w(v["label"], CAPTION_SIZE) + 14
    pitch, per_line = cell_w + STEP, block["per_line"]
    top = y + 4
    at = [(x0 + (n % per_line) * pitch, top + (n // per_line) * (CELL_H + 18), kind, c)
          for n, (kind, c) in enumerate(block["slots"])]
    cells = [(cx, cy, c, s["readers"].get(c, [])) for cx, cy, kind, c in at if kind == "cell"]
    with doc.group(cls="tt-strip", data={"storage": s["id"]}):
        with doc.group(stroke="#666", stroke_width=1):
            for cx, cy, c, readers in cells:
                doc.rect(cx, cy, cell_w, CELL_H, cls="tt-cell",
                         data={"storage": s["id"], "cell": c, "views": " ".join(map(str, readers))},
                         fill="#ffffff" if readers else "#e8e8e8")
        for cx, cy, c, readers in cells:       # a bar per view that reads the cell, in the view's colour
            bar_w = (cell_w - 6) / max(len(readers), 1)
            gap = 1 if len(readers) > 1 else 0
            for j, k in enumerate(readers):
                doc.rect(cx + 3 + j * bar_w, cy + CELL_H - 7, bar_w - gap, 4, fill=_colour(k))
        if values:
            with doc.group(fill="#222"):
                for cx, cy, c, _ in cells:
                    if c in s["values"]:
                        doc.text(cx + cell_w / 2, cy + 17, s["values"][c], size=VALUE_SIZE)
        with doc.group(fill="#888"):           # the cell numbers, under the cells
            for cx, cy, c, _ in cells:
                doc.text(cx + cell_w / 2, cy + CELL_H + 12, c, size=SMALL_SIZE)
        for cx, cy, kind, _ in at:
            if kind == "gap":
                doc.text(cx + cell_w / 2, cy + CELL_H / 2 + 5, "…", cls="tt-ellipsis", size=14, fill=INK)
        if not block["slots"]:
            doc.text(x0, top + 16, "(no cells)", size=VALUE_SIZE, anchor="start", fill=INK)
    ny = top + max(1, math.ceil(len(block["slots"]) / per_line)) * (CELL_H + 18) + 8
    for note in s["notes"]:
        doc.text(x0, ny, note, cls="tt-note", size=SMALL_SIZE + 2, anchor="start", fill=NOTE_INK)
        ny += LINE_H
