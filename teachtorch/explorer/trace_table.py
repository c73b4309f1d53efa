"""Renderer 3: a dispatch trace as a table, one row per op call, with the loops of a training run folded.

A `dispatch.trace` records *hops*: each time the dispatcher runs one kernel at one dispatch key. A call
from your code, `a * b` say, makes several hops: the AutogradCPU kernel records a graph node and hands the
call on (redispatches) to the CPU kernel, which computes. This module groups hops back into calls:

    row = {op: "aten.mul.Tensor",
           path: [AutogradCPU: autograd_kernel, CPU: PointwiseKernel(pointwise_math.mul).functional],
           inputs/outputs: sizes, strides, dtype, device, storage, ...}

and folds loops: the ops of a loop body repeat with the same shapes each time round, so a body of p calls
repeated k times becomes p rows, each counted `k` times (their times summed). Folding looks only at a
call's *signature*: section (forward or backward), op, the autograd node it ran for, and the sizes,
strides, dtypes and devices of its tensors, never at names ($3) or values. Folding is lossless: repeating
each folded block `times` times gives back the sequence of signatures the trace had.

    trace_rows(t)      JSON-able rows (what the widget draws and the tests read)
    trace_text(t)      the same in PyTorch's LoggingTensor format, `$2: f32[3] = aten.mul.Tensor($0, $1)`
    trace_svg(t)       a static table, for nbconvert output and slides

PyTorch's nearest tools print text only: LoggingTensorMode (torch/testing/_internal/logging_tensor.py),
whose format trace_text copies, and DebugMode (torch.utils._debug_mode). Neither folds loops.
"""

import re

import numpy as np

from ..dispatch.trace import DTYPE_ABBRS, TensorInfo, _logging_line
from .svg import Svg, clean

MAX_PERIOD = 64          # the longest loop body (in calls) folding looks for


# ---- grouping hops into calls ----------------------------------------------------------------------------

def _events(trace_or_events):
    return list(getattr(trace_or_events, "events", trace_or_events))


def calls(trace_or_events):
    """Group hops into calls: [(first hop, [hops of its path], [ops it called])], one per call from user code
    (or from the autograd engine, during backward).

    A hop's `parent` is the `index` of the hop that made it (not its position in the list: a bounded trace
    drops old hops). A child with its parent's op continues the call at a lower key: it is on the path.
    A child with another op is a call the kernel made (an op inside an op), listed by name in `calls`."""
    groups = []
    where = {}           # hop index -> (its group, is it on the group's path, its op)
    for e in _events(trace_or_events):
        parent = where.get(e.parent)
        if parent is None:                 # a call from user code, or its parent hop was dropped
            where[e.index] = (len(groups), True, e.op)
            groups.append((e, [e], []))
            continue
        g, on_path, parent_op = parent
        first, path, inner = groups[g]
        same_call = e.op == parent_op      # the dispatcher's own rule for "a redispatch of the same call"
        if on_path and same_call:
            path.append(e)
        elif not same_call and e.aten_name not in inner:
            inner.append(e.aten_name)
        where[e.index] = (g, on_path and same_call, e.op)
    return groups


def _tensors(values):
    """The TensorInfos among a call's inputs or outputs (also those inside a list: cat, split)."""
    out = []
    for v in values:
        if isinstance(v, TensorInfo):
            out.append(v)
        elif isinstance(v, list):
            out.extend(x for x in v if isinstance(x, TensorInfo))
    return out


def _tensor_dict(t):
    return {"name": t.name, "sizes": list(t.sizes), "strides": list(t.strides), "offset": t.storage_offset,
            "dtype": t.dtype, "device": t.device, "storage": str(t.storage_id)}


def _layout(values):
    """(sizes, strides, dtype, device) of each tensor among a call's inputs or outputs."""
    out = []
    for v in values:
        for t in (v if isinstance(v, list) else (v,)):
            if isinstance(t, TensorInfo):
                out.append((t.sizes, t.strides, t.dtype, t.device))
    return tuple(out)


def signature(first):
    """What folding compares: everything about a call except tensor names, values and times."""
    return (first.backward_node is not None, first.op, first.backward_node,
            _layout(first.inputs), _layout(first.outputs))


def _hop(key, kernel, ns):
    return {"key": key, "kernel": clean(kernel), "us": round(ns / 1000, 1)}


def _path(path):
    """Each hop's key, kernel and time. A hop's time includes the hops below it (like a profiler's "total"
    time), so the first hop's time is the call's. The live trace notes lower hops in `ev.lower`."""
    hops = []
    for h in path:
        hops.append(_hop(h.key, h.kernel, h.duration_ns))
        hops.extend(_hop(*low) for low in h.lower or ())
    return hops


def _row(first, path, inner):
    """One call as a row. Names from the student's code (ops registered with teachtorch.library, kernels,
    custom Functions' nodes, argument reprs, error messages) may hold any character: every text is cleaned
    (svg.clean), so that the rows are valid in an SVG and can be sent to the browser as they are."""
    ins, outs = _tensors(first.inputs), _tensors(first.outputs)
    return {
        "section": "forward" if first.backward_node is None else "backward",
        "op": clean(first.aten_name),
        "path": _path(path),
        "calls": [clean(c) for c in inner],
        "inputs": [_tensor_dict(t) for t in ins],
        "outputs": [_tensor_dict(t) for t in outs],
        "storages": sorted({str(t.storage_id) for t in ins + outs}),
        "backward_node": None if first.backward_node is None else clean(first.backward_node),
        "backward_node_id": None if first.backward_node_id is None else f"n{first.backward_node_id}",
        "time_us": round(first.duration_ns / 1000, 1),
        "count": 1,
        "fold": None,
        "text": clean(_logging_line(first)),
        "error": None if first.error is None else clean(first.error),
    }


def _note_row(left):
    """The last row when rows were left out; the front ends show it as a note, not as a call."""
    note = f"… {left:,} more rows"
    return {"section": "note", "op": "", "note": note, "more": left, "text": f"# {note}", "count": 0,
            "path": [], "calls": [], "inputs": [], "outputs": [], "storages": [], "backward_node": None,
            "backward_node_id": None, "time_us": 0, "fold": None, "error": None}


# ---- folding loops --------------------------------------------------------------------------------------

def _run_lengths(same):
    """For a boolean array, how many True values start at each position (0 where it is False)."""
    m = len(same)
    positions = np.arange(m)
    stops = np.where(same, m, positions)                  # a False value stops a run where it is
    next_stop = np.minimum.accumulate(stops[::-1])[::-1]  # the first stop at or after each position
    return next_stop - positions


def _loop_candidates(codes, max_period):
    """Every place a loop body can start: arrays (start, period) where codes[start:start + period] is
    followed by a second copy of itself.

    Block i..i+p repeats k times iff codes[j] == codes[j + p] for the (k - 1) * p positions j from i on, so
    one comparison of the sequence with itself shifted by p finds every repeat of period p at once. A block
    that is itself a repeat (abab, period 4) is left out: its smaller period (ab) covers the same calls."""
    n = len(codes)
    runs, starts_of = {}, []
    for p in range(1, min(max_period, n // 2) + 1):
        run = _run_lengths(codes[p:] == codes[:-p])       # run[i]: matching positions from i, at shift p
        runs[p] = run
        starts = np.nonzero(run >= p)[0]                  # a second copy follows the block at start
        for d in range(1, p):
            if p % d == 0 and len(starts):                # the block has period d: not a new loop body
                starts = starts[runs[d][starts] < p - d]
        starts_of.append((starts, np.full(len(starts), p)))
    if not starts_of:
        return [], []
    starts, periods = (np.concatenate(parts) for parts in zip(*starts_of))
    order = np.lexsort((periods, -starts))                # from the last start back, shorter bodies first
    return starts[order].tolist(), periods[order].tolist()


def find_runs(signatures, max_period=MAX_PERIOD):
    """Split a sequence into runs [(start, period, times)]: signatures[start:start + period] repeated `times`
    times in a row (times 1: a call that is not folded). Of all the ways to split it, this picks one with
    the fewest rows (a folded run costs `period` rows), by dynamic programming from the end:

        rows[i] = min(1 + rows[i + 1],                       call i on its own row
                      period + rows[i + k * period])         a loop body starting at i, repeated k >= 2 times

    so `a a a a` is a x4 (1 row), not (a a) x2, and nested loops fold at the loop that saves the most.
    Ties go to folding, and to the shorter body. The best k for a body at i comes from the same body one
    repetition later (`after`), so each candidate body costs one step: O(n * max_period) numpy work to
    find the candidates, then a Python step per call and per candidate."""
    n = len(signatures)
    ids = {}
    codes = np.array([ids.setdefault(s, len(ids)) for s in signatures], dtype=np.int64)  # exact, no hashing
    starts, periods = _loop_candidates(codes, max_period)
    rows = [0] * (n + 1)              # rows[i]: fewest rows for signatures[i:]
    choice = [(1, n)] * (n + 1)       # (period, end) of the run chosen at i
    after = {}                        # (p, i) -> the best (rows, end) over ends i + k * p, k >= 1
    c = 0
    for i in range(n - 1, -1, -1):
        best, pick = 1 + rows[i + 1], (1, i + 1)
        while c < len(starts) and starts[c] == i:
            p = periods[c]
            c += 1
            # ends after two or more copies: the best end of the copy starting at i + p (if that copy is
            # followed by a third, it is a candidate too, already seen), else right after the second copy
            later = after.get((p, i + p), (rows[i + 2 * p], i + 2 * p))
            if p + later[0] < best or (p + later[0] == best and pick[0] == 1):
                best, pick = p + later[0], (p, later[1])
            here = (rows[i + p], i + p)                   # ending after one copy (for the copy before)
            after[(p, i)] = here if here[0] < later[0] else later       # a tie: fold more copies
        rows[i], choice[i] = best, pick
    runs, i = [], 0
    while i < n:
        period, end = choice[i]
        runs.append((i, period, (end - i) // period))
        i = end
    return runs


def trace_rows(trace_or_events, fold=True, max_rows=500, repetition="first"):
    """One row per call (or per call of a folded loop body); at most `max_rows` rows (None: all), then one
    note row (section "note", "more": how many rows were left out).

    A row: section ("forward" / "backward"), op ("aten.mul.Tensor"), path [{key, kernel, us}], calls (ops
    its kernels called), inputs / outputs [{name, sizes, strides, offset, dtype, device, storage}],
    storages (sorted ids), backward_node ("MulBackward0") and backward_node_id ("n<id>", as in the graph
    diagram), time_us, count, fold ({block, len, times, position} in a folded loop body, else None),
    text (the LoggingTensor line) and error. A folded row shows its first repetition (`repetition="last"`:
    its latest, whose tensors the code still holds, as the live explorer shows it); its time_us is the sum
    over all repetitions."""
    groups = calls(trace_or_events)
    if fold:
        runs = find_runs([signature(g[0]) for g in groups])
    else:
        runs = [(i, 1, 1) for i in range(len(groups))]
    total = sum(period for _, period, _ in runs)
    limit = total if max_rows is None else min(total, max_rows)
    rows, blocks = [], 0
    for start, period, times in runs:
        if len(rows) >= limit:
            break
        folded = False
        for j in range(min(period, limit - len(rows))):
            shown = start + j + (period * (times - 1) if repetition == "last" else 0)
            row = _row(*groups[shown])
            # a live trace counts the calls that repeated a recorded one without recording them (`repeats`)
            firsts = [groups[start + r * period + j][0] for r in range(times)]
            count = times + sum(e.repeats for e in firsts)
            if count > 1:
                folded = True
                row["count"] = count
                row["fold"] = {"block": blocks, "len": period, "times": count, "position": j}
                # the folded row's time is the time of all its repetitions
                row["time_us"] = round(sum(e.duration_ns + e.repeats_ns for e in firsts) / 1000, 1)
            rows.append(row)
        blocks += folded
    _same_data_same_name(rows)
    if total > len(rows):
        rows.append(_note_row(total - len(rows)))
    return rows


def _same_data_same_name(rows):
    """A tensor seen first as an input, with exactly the data of an earlier output (the same storage, offset,
    sizes, strides): a saved tensor that backward unpacked, a new Python object for the same data. It takes
    that output's name, so that no row reads a `$n` that no row made."""
    made = {}                          # (storage, offset, sizes, strides) -> the name of the output
    seen = set()
    for row in rows:
        swaps = {}
        for t in row["inputs"]:
            key = (t["storage"], t["offset"], tuple(t["sizes"]), tuple(t["strides"]))
            if t["name"] not in seen and key in made and made[key] != t["name"]:
                swaps[t["name"]] = t["name"] = made[key]
            seen.add(t["name"])
        for t in row["outputs"]:
            made[(t["storage"], t["offset"], tuple(t["sizes"]), tuple(t["strides"]))] = t["name"]
            seen.add(t["name"])
        if swaps:
            row["text"] = _TRACE_NAME.sub(lambda m: swaps.get(m.group(), m.group()), row["text"])


def _made_outside(rows):
    """[(name, "f32[3, 4]")] of the `$n` tensors the rows read before any row made them."""
    made, outside = set(), {}
    for row in rows:
        for t in row["inputs"]:
            if t["name"].startswith("$") and t["name"] not in made and t["name"] not in outside:
                short = DTYPE_ABBRS.get(t["dtype"], t["dtype"])
                outside[t["name"]] = f"{short}[{', '.join(map(str, t['sizes']))}]"
        made.update(t["name"] for t in row["outputs"])
    return list(outside.items())


def rename(rows, names):
    """The rows with tensors called by `names` ({"$3": "x"}, the names the student's code has for them,
    explorer/names.py) instead of their trace numbers, in the tensor lists and in the text."""
    if not names:
        return rows
    swap = lambda m: names.get(m.group(), m.group())          # noqa: E731
    for row in rows:
        for t in row["inputs"] + row["outputs"]:
            t["name"] = names.get(t["name"], t["name"])
        row["text"] = _TRACE_NAME.sub(swap, row["text"])
    return rows


_TRACE_NAME = re.compile(r"\$\d+")


# ---- text -----------------------------------------------------------------------------------------------

def trace_text(trace_or_events, fold=True, max_rows=None):
    """The trace in PyTorch's LoggingTensor format (`$2: f32[3, 4] = aten.add.Tensor($0, $1)`), one line per
    call, under `# forward` / `# backward` section lines.

    A folded loop body is printed once, as its first time round ran, indented between `# x10 {` (it ran
    10 times) and `# }`. The $names inside are those of the first time round; later rounds made new ones."""
    lines, section, block = [], None, None
    rows = trace_rows(trace_or_events, fold=fold, max_rows=max_rows)
    outside = _made_outside(rows)
    if outside:                        # every $n a line reads was made by an earlier line, or is listed here
        lines.append("# made before the trace: " + ", ".join(f"{name} {shape}" for name, shape in outside))
    for row in rows:
        if row["section"] == "note":
            lines.append(row["text"])
            continue
        f = row["fold"]
        if block is not None and (f is None or f["block"] != block):
            lines.append("# }")
            block = None
        indent = "  " if block is not None else ""
        if row["section"] != section:
            section = row["section"]
            lines.append(f"{indent}# {section}")
        if f is not None and f["block"] != block:
            block = f["block"]
            lines.append(f"# x{f['times']} {{  loop body of {f['len']} calls, ran {f['times']} times")
        lines.append(("  " if block is not None else "") + row["text"])
    if block is not None:
        lines.append("# }")
    return "\n".join(lines)


# ---- static SVG table -----------------------------------------------------------------------------------

COLUMNS = ["op", "path", "shapes", "strides", "dtype", "device", "storages", "time", "count"]
MAX_CHARS = {"op": 50, "path": 52, "shapes": 40, "strides": 40, "dtype": 16, "device": 10, "storages": 24,
             "time": 12, "count": 8}
FONT_SIZE = 11
CHAR_W = 6.7             # the advance of an 11 px monospace character (DejaVu Sans Mono: 0.6 em)
ROW_H = 18
FOLD = "#f28e2b"         # the colour of folded loop bodies (the front end's too)
BACKWARD = "#b34700"


def _arrow(row, fmt):
    """"[3, 4], [4] → [3, 4]": inputs, then outputs."""
    ins = ", ".join(fmt(t) for t in row["inputs"])
    outs = ", ".join(fmt(t) for t in row["outputs"])
    return f"{ins} → {outs}" if outs else ins


def _storage_names(rows):
    """Storage ids are long numbers; the table names them s0, s1, ... in order of first use."""
    names = {}
    for row in rows:
        for s in row["storages"]:
            names.setdefault(s, f"s{len(names)}")
    return names


def cells(row, storage_names):
    """The text of each column of a row (the front end's trace_view.js shows the same)."""
    ts = row["inputs"] + row["outputs"]
    distinct = lambda values: ", ".join(dict.fromkeys(values))   # noqa: E731  (in order, no repeats)
    return {
        "op": row["op"] + (f" ({row['backward_node']})" if row["backward_node"] else ""),
        "path": " → ".join(h["key"] for h in row["path"]) + _called(row["calls"]),
        "shapes": _arrow(row, lambda t: "[" + ", ".join(map(str, t["sizes"])) + "]"),
        "strides": _arrow(row, lambda t: "(" + ", ".join(map(str, t["strides"])) + ")"),
        "dtype": distinct(t["dtype"] for t in ts),
        "device": distinct(t["device"] for t in ts),
        "storages": " ".join(sorted((storage_names[s] for s in row["storages"]), key=lambda n: int(n[1:]))),
        "time": f"{row['time_us']:,.1f} µs",
        "count": f"×{row['count']}" if row["count"] > 1 else "",
    }


def _called(ops):
    """ "  (calls mm, t)": the ops a kernel called, short names (aten.mm.default -> mm)."""
    if not ops:
        return ""
    short = [op.removeprefix("aten.").removesuffix(".default") for op in ops]
    return f"  (calls {', '.join(short)})"


def _tooltip(row, storage_names):
    lines = [row["text"]]
    if row["backward_node"]:
        lines.append(f"in backward, for {row['backward_node']} ({row['backward_node_id']})")
    lines += [f"  {h['key']}: {h['kernel']} ({h['us']} µs)" for h in row["path"]]
    lines += [f"  calls {c}" for c in row["calls"]]
    lines += [f"  {storage_names[s]} = storage {s}" for s in row["storages"]]
    if row["fold"]:
        f = row["fold"]
        lines.append(f"loop body of {f['len']} calls, ran {f['times']} times")
    return "\n".join(lines)


def _clip(text, chars):
    return text if len(text) <= chars else text[:chars - 1] + "…"


def _same_block(row, other):
    return bool(row["fold"] and other["fold"] and row["fold"]["block"] == other["fold"]["block"])


def _is_rows(x):
    return isinstance(x, list) and (not x or isinstance(x[0], dict))


def trace_svg(rows_or_trace, max_rows=200):
    """The rows as an SVG table with forward and backward sections, for outputs without JavaScript.

    Accepts rows from trace_rows, or a trace / list of events (then folded). Shows at most `max_rows`
    calls and a note (class tt-note) for the rest. A folded loop body has an orange bar on its left and
    its count in bold; hovering a row shows its LoggingTensor line and every hop (an SVG <title>)."""
    rows = rows_or_trace if _is_rows(rows_or_trace) else trace_rows(rows_or_trace, max_rows=max_rows)
    calls_ = [r for r in rows if r["section"] != "note"]
    left = sum(r.get("more", 0) for r in rows if r["section"] == "note") + max(0, len(calls_) - max_rows)
    rows = calls_[:max_rows]
    names = _storage_names(rows)
    texts = [cells(r, names) for r in rows]
    widths = {c: CHAR_W * max(len(c), min(MAX_CHARS[c], max((len(t[c]) for t in texts), default=0))) + 14
              for c in COLUMNS}
    width = sum(widths.values()) + 8
    n_sections = sum(1 for i, r in enumerate(rows) if i == 0 or r["section"] != rows[i - 1]["section"])
    height = ROW_H * (len(rows) + n_sections + 1 + (left > 0) + (not rows)) + 12
    doc = Svg(width, height, cls="tt-trace", data={"rows": len(rows)})
    doc.rect(0, 0, width, height, fill="#ffffff")         # readable on dark notebook themes too
    x = 8
    for c in COLUMNS:
        doc.text(x, ROW_H - 4, "×count" if c == "count" else c, size=FONT_SIZE, anchor="start",
                 font_weight="bold", fill="#222")
        x += widths[c]
    doc.line(0, ROW_H + 1, width, ROW_H + 1, stroke="#999", stroke_width=1)
    y, section = ROW_H + 3, None
    for i, (row, text) in enumerate(zip(rows, texts)):
        if row["section"] != section:
            section = row["section"]
            with doc.group(cls="tt-section", data={"section": section}):
                doc.rect(0, y, width, ROW_H, fill="#e8ebf2")
                if i and _same_block(row, rows[i - 1]):
                    doc.rect(0, y, 4, ROW_H, fill=FOLD)   # the loop body goes on in the new section
                label = "backward (run by loss.backward())" if section == "backward" else section
                doc.text(8, y + 13, label, size=FONT_SIZE, anchor="start", font_style="italic", fill="#333")
            y += ROW_H
        _svg_row(doc, i, row, text, widths, y, width, names)
        y += ROW_H
    if not rows:
        doc.text(8, y + 13, "no ops traced", cls="tt-note", size=FONT_SIZE, anchor="start", fill="#666")
        y += ROW_H
    if left:
        doc.text(8, y + 13, f"… {left:,} more rows", cls="tt-note", size=FONT_SIZE, anchor="start",
                 fill="#a33")
    return doc.to_string()


def _svg_row(doc, i, row, text, widths, y, width, names):
    data = {"row": i, "op": row["op"], "section": row["section"], "count": row["count"],
            "storages": " ".join(row["storages"])}
    if row["backward_node_id"]:
        data["node"] = row["backward_node_id"]
    if row["fold"]:
        data["fold"] = row["fold"]["block"]
    with doc.group(cls="tt-row", data=data):
        doc.tooltip(_tooltip(row, names))
        doc.rect(0, y, width, ROW_H, fill="#f4f6fa" if i % 2 else "#ffffff")
        if row["fold"]:
            doc.rect(0, y, 4, ROW_H, fill=FOLD)       # the bar that brackets a folded loop body
        x = 8
        for c in COLUMNS:
            style = {"fill": "#222"}
            if c == "op" and row["section"] == "backward":
                style = {"fill": BACKWARD}
            if c == "count":
                style = {"fill": FOLD, "font_weight": "bold"}
            if row["error"]:
                style = {"fill": "#c62828"}
            doc.text(x, y + 13, _clip(text[c], MAX_CHARS[c]), size=FONT_SIZE, anchor="start", **style)
            x += widths[c]
