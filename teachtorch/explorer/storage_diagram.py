"""Renderer 1: tensors drawn over their storage, the picture behind strides.

A tensor is a window onto a flat storage: its element at index (i, j, ...) lives in storage cell

    storage_offset + i * stride[0] + j * stride[1] + ...

This module draws exactly that. For each storage, the logical grid of every tensor (view) that uses it sits
above the flat strip of storage cells; each element carries the number of the cell it lives in (`→5`), and
the cells a view uses are marked in the view's colour, so you can see a transpose read the same cells in
another order, a slice skip cells, and `expand` (stride 0) read one cell many times.

    storage_svg(x, x.t(), x[1:, ::2], labels=["x", "x.t()", "x[1:, ::2]"])

Big tensors are cut: at most `max_rows` x `max_cols` elements of each 2-D slice, `max_slices` slices of a
>2-D tensor and `max_cells` storage cells are drawn, with an ellipsis where something was left out and a
note saying what. The work is proportional to what is drawn, never to the tensor's size.

The SVG is the contract with the tests and the widget (widgets/storage_view.js): g.tt-view[data-storage]
holds rect.tt-elem[data-index][data-cell]; g.tt-strip holds rect.tt-cell[data-storage][data-cell][data-views].
Storage ids are `id(tensor.untyped_storage())`, as in dispatch traces.

PyTorch draws nothing; its docs and ezyang's "PyTorch internals" talk draw this picture by hand.
"""

import numpy as np

from .svg import PALETTE, Svg

CELL_W, CELL_H = 44, 26
STRIP_PER_ROW = 24
GAP = 28


def storage_id(t):
    return id(t.untyped_storage())


def _slices(sizes, max_slices):
    """The leading indices of the 2-D slices of a >2-D tensor ([()] for 0-, 1- and 2-D), and how many exist."""
    lead = sizes[:-2]
    total = int(np.prod(lead)) if lead else 1
    shown = [tuple(int(i) for i in np.unravel_index(k, lead)) if lead else () for k in range(min(total, max_slices))]
    return shown, total


def _view_scene(t, k, label, max_rows, max_cols, max_slices):
    sizes, strides, offset = tuple(t.shape), tuple(t.stride()), t.storage_offset()
    ndim = len(sizes)
    rows_n = sizes[-2] if ndim >= 2 else 1
    cols_n = sizes[-1] if ndim >= 1 else 1
    empty = t.numel() == 0
    slices = []
    lead_idx, n_slices = _slices(sizes, max_slices)
    for lead in lead_idx:
        base = offset + sum(i * s for i, s in zip(lead, strides))
        elems = []
        if not empty:
            for r in range(min(rows_n, max_rows)):
                for c in range(min(cols_n, max_cols)):
                    if ndim == 0:
                        idx, cell = (), offset
                    elif ndim == 1:
                        idx, cell = (c,), base + c * strides[-1]
                    else:
                        idx = lead + (r, c)
                        cell = base + r * strides[-2] + c * strides[-1]
                    elems.append((r, c, idx, cell))
        slices.append({"lead": lead, "elems": elems})
    base_label = None
    if t._base is not None:
        base_label = "view of a tensor of shape " + str(list(t._base.shape))
    return {
        "view": k, "label": label, "sizes": sizes, "strides": strides, "offset": offset,
        "dtype": t.dtype.name, "contiguous": t.is_contiguous(), "base": base_label,
        "expanded": [d for d in range(ndim) if strides[d] == 0 and sizes[d] > 1],
        "rows": min(rows_n, max_rows), "cols": min(cols_n, max_cols),
        "more_rows": rows_n > max_rows, "more_cols": cols_n > max_cols,
        "slices": slices, "more_slices": n_slices - len(slices), "empty": empty, "ndim": ndim,
    }


def _strip_cells(used, n_cells, max_cells):
    """Which storage cells to draw: all if few; else the used ones first, with their neighbours, in order."""
    if n_cells <= max_cells:
        return list(range(n_cells))
    chosen = set()
    for c in sorted(used):
        if len(chosen) >= max_cells:
            break
        chosen.add(c)
    c = 0
    while len(chosen) < min(max_cells, n_cells) and c < n_cells:   # fill up with the first cells
        chosen.add(c)
        c += 1
    return sorted(chosen)


def storage_scene(*tensors, labels=None, max_cells=256, max_rows=16, max_cols=16, max_slices=8):
    """The picture as data: per storage, its views (elements and the cells they live in) and drawn cells."""
    labels = list(labels) if labels else []
    labels += [None] * (len(tensors) - len(labels))
    storages = {}
    for k, (t, label) in enumerate(zip(tensors, labels)):
        sid = storage_id(t)
        if sid not in storages:
            st = t.untyped_storage()
            storages[sid] = {"id": str(sid), "storage": st, "itemsize": t.dtype.itemsize,
                             "dtype": t.dtype, "n_cells": st.nbytes() // t.dtype.itemsize, "views": []}
        label = label if label is not None else f"t{k}"
        storages[sid]["views"].append(_view_scene(t, k, label, max_rows, max_cols, max_slices))
    for s in storages.values():
        used = {}
        for v in s["views"]:
            for sl in v["slices"]:
                for *_, cell in sl["elems"]:
                    used.setdefault(cell, set()).add(v["view"])
        s["used"] = used
        s["cells"] = _strip_cells(used, s["n_cells"], max_cells)
        s["notes"] = []
        if len(s["cells"]) < s["n_cells"]:
            s["notes"].append(f"showing {len(s['cells']):,} of {s['n_cells']:,} storage elements")
    return list(storages.values())


def _values(storage, dtype, cells):
    """The values in these storage cells, read straight from the storage's bytes (nothing else is copied)."""
    data = getattr(storage, "_data", None)
    if data is None or not cells or storage.device.type != "cpu":
        return {}
    flat = data.reshape(-1).view(np.uint8)
    flat = flat[:len(flat) - len(flat) % dtype.itemsize].view(dtype.numpy)
    return {c: flat[c] for c in cells if 0 <= c < len(flat)}


def _fmt(v):
    if isinstance(v, (bool, np.bool_)):
        return "T" if v else "F"
    if isinstance(v, (np.integer, int)):
        return str(int(v))
    return f"{float(v):.3g}"


def _caption(v):
    lines = [f"{v['label']}: sizes {list(v['sizes'])}, strides {list(v['strides'])}",
             f"offset {v['offset']}, {v['dtype']}, {'contiguous' if v['contiguous'] else 'not contiguous'}"]
    extra = []
    if v["expanded"]:
        extra.append("expanded (stride 0): dim " + ", ".join(map(str, v["expanded"])))
    if v["base"]:
        extra.append(v["base"])
    if v["empty"]:
        extra.append("empty: no elements")
    if extra:
        lines.append("; ".join(extra))
    return lines


def _view_size(v):
    n = max(len(v["slices"]), 1)
    w = n * (v["cols"] + v["more_cols"]) * CELL_W + (n - 1) * 16 + (40 if v["more_slices"] else 0)
    h = (v["rows"] + v["more_rows"]) * CELL_H + (16 if v["ndim"] > 2 else 0)
    return max(w, 300), 16 * len(_caption(v)) + 8 + h


def storage_svg(*tensors, labels=None, values=True, max_cells=256, max_rows=16, max_cols=16, max_slices=8):
    """The storage picture as an SVG string (see the module docstring)."""
    scene = storage_scene(*tensors, labels=labels, max_cells=max_cells, max_rows=max_rows, max_cols=max_cols,
                          max_slices=max_slices)
    # measure first, then draw
    blocks = []
    width, height = 10, 10
    for s in scene:
        sizes = [_view_size(v) for v in s["views"]]
        views_w = sum(w for w, _ in sizes) + GAP * (len(sizes) - 1)
        views_h = max(h for _, h in sizes)
        per_row = min(STRIP_PER_ROW, max(len(s["cells"]), 1))
        strip_rows = -(-max(len(s["cells"]), 1) // per_row)
        strip_w, strip_h = per_row * CELL_W, strip_rows * (CELL_H + 14) + 20 + 16 * len(s["notes"])
        blocks.append((s, sizes, height, views_h))
        width = max(width, views_w + 20, strip_w + 20)
        height += views_h + 30 + strip_h + 20
    doc = Svg(width, height, cls="tt-storage", data={"storages": len(scene)})
    for s, sizes, top, views_h in blocks:
        _draw_storage(doc, s, sizes, top, views_h, values)
    return doc.to_string()


def _draw_storage(doc, s, sizes, top, views_h, values):
    sid = s["id"]
    drawn_cells = s["cells"]
    vals = _values(s["storage"], s["dtype"], drawn_cells) if values else {}
    x = 10
    for v, (w, _) in zip(s["views"], sizes):
        _draw_view(doc, v, sid, x, top, vals)
        x += w + GAP
    # the storage strip
    y0 = top + views_h + 24
    doc.text(10, y0 - 6, f"storage: {s['n_cells']:,} × {s['dtype'].name} "
             f"(untyped_storage(): {s['n_cells'] * s['itemsize']:,} bytes)", size=11, anchor="start",
             cls="tt-strip-title")
    with doc.group(cls="tt-strip", data={"storage": sid}):
        prev = None
        for n, c in enumerate(drawn_cells):
            cx = 10 + (n % STRIP_PER_ROW) * CELL_W
            cy = y0 + (n // STRIP_PER_ROW) * (CELL_H + 14)
            if prev is not None and c != prev + 1:
                doc.text(cx + 2, cy + CELL_H + 11, "…", cls="tt-ellipsis", size=11, anchor="start")
            prev = c
            views = sorted(s["used"].get(c, ()))
            doc.rect(cx, cy, CELL_W - 2, CELL_H, cls="tt-cell",
                     data={"storage": sid, "cell": c, "views": " ".join(map(str, views))},
                     fill="#ffffff" if views else "#f2f2f2", stroke="#555", stroke_width=1)
            for j, k in enumerate(views[:4]):        # a colour mark per view that reads this cell
                doc.rect(cx + 2 + j * 9, cy + CELL_H - 5, 8, 3, fill=PALETTE[k % len(PALETTE)])
            if c in vals:
                doc.text(cx + CELL_W / 2 - 1, cy + 15, _fmt(vals[c]), size=10)
            doc.text(cx + CELL_W / 2 - 1, cy + CELL_H + 11, c, size=9, fill="#777")
        notes_y = y0 + (-(-max(len(drawn_cells), 1) // STRIP_PER_ROW)) * (CELL_H + 14) + 12
        for note in s["notes"]:
            doc.text(10, notes_y, note, cls="tt-note", size=11, anchor="start", fill="#a33")
            notes_y += 16


def _draw_view(doc, v, sid, x, top, vals):
    colour = PALETTE[v["view"] % len(PALETTE)]
    data = {"view": v["view"], "storage": sid, "label": v["label"],
            "sizes": ",".join(map(str, v["sizes"])), "strides": ",".join(map(str, v["strides"])),
            "offset": v["offset"], "dtype": v["dtype"], "contiguous": str(v["contiguous"]).lower()}
    with doc.group(cls="tt-view", data=data):
        caption = _caption(v)
        for i, line in enumerate(caption):
            doc.text(x, top + 12 + 16 * i, line, size=11, anchor="start",
                     fill=colour if i == 0 else "#333", font_weight="bold" if i == 0 else None)
        y = top + 16 * len(caption) + 8
        sx = x
        for sl in v["slices"]:
            if v["ndim"] > 2:
                doc.text(sx, y + 10, "[" + ", ".join(map(str, sl["lead"])) + ", :, :]", size=10,
                         anchor="start", fill="#555")
            gy = y + (16 if v["ndim"] > 2 else 0)
            for r, c, idx, cell in sl["elems"]:
                ex, ey = sx + c * CELL_W, gy + r * CELL_H
                doc.rect(ex, ey, CELL_W - 2, CELL_H - 2, cls="tt-elem",
                         data={"view": v["view"], "index": ",".join(map(str, idx)), "cell": cell},
                         fill=colour, fill_opacity=0.18, stroke=colour)
                if cell in vals:
                    doc.text(ex + 12, ey + 16, _fmt(vals[cell]), size=10)
                doc.text(ex + CELL_W - 5, ey + 16, f"→{cell}", size=8, anchor="end", fill="#666")
            if v["more_cols"]:
                doc.text(sx + v["cols"] * CELL_W + 8, gy + 16, "…", cls="tt-ellipsis", size=12)
            if v["more_rows"]:
                doc.text(sx + 10, gy + v["rows"] * CELL_H + 14, "⋮", cls="tt-ellipsis", size=12)
            sx += (v["cols"] + v["more_cols"]) * CELL_W + 16
        if v["more_slices"]:
            doc.text(sx + 10, y + 30, f"… {v['more_slices']:,} more", cls="tt-ellipsis", size=11,
                     anchor="start")
