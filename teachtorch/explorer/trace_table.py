"""Renderer 3: a dispatch trace as a table, one row per op call, with the loops of a training run folded.

A `dispatch.trace` records *hops*: each time the dispatcher runs one kernel at one dispatch key. A call
from your code, `a * b` say, makes several hops: the AutogradCPU kernel records a graph node and hands the
call on (redispatches) to the CPU kernel, which computes. This module groups hops back into calls:

    row = {op: "aten.mul.Tensor", path: [AutogradCPU -> VariableType::mul.Tensor, CPU -> mul_kernel],
           inputs/outputs: sizes, strides, dtype, device, storage, ...}

and folds loops: the ops of a loop body repeat with the same shapes each time round, so a body of p calls
repeated k times becomes p rows, each counted `k` times (their times summed). Folding looks only at a
call's *signature*: section (forward or backward), op, the node it ran for, and the sizes, strides and
dtypes of its tensors, never at names ($3) or values.

    trace_rows(t)      JSON-able rows (what the widget draws and the tests read)
    trace_text(t)      the same in PyTorch's LoggingTensor format, `$2: f32[3] = aten.mul.Tensor($0, $1)`
    trace_svg(t)       a static table, for nbconvert output and slides

PyTorch's nearest tools print text only: LoggingTensorMode (torch/testing/_internal/logging_tensor.py),
whose format trace_text copies, and DebugMode (torch.utils._debug_mode).
"""

from ..dispatch.trace import TensorInfo, _logging_line
from .svg import Svg

MAX_PERIOD = 64          # the longest loop body folding looks for


# ---- grouping hops into calls ----------------------------------------------------------------------------

def _events(trace_or_events):
    return list(getattr(trace_or_events, "events", trace_or_events))


def calls(trace_or_events):
    """Group hops into calls: [(first hop, [hops of its path], [ops it called])] for each call from user code.

    A hop's `parent` is the index of the hop that made it. A child with the same op continues the call at a
    lower key (its path); a child with another op is a call the kernel made (an op inside an op)."""
    events = _events(trace_or_events)
    by_index = {e.index: e for e in events}
    groups, top_of = [], {}
    for e in events:
        if e.depth == 0 or e.parent not in by_index:
            top_of[e.index] = len(groups)
            groups.append((e, [e], []))
            continue
        g = top_of.get(e.parent)
        if g is None:
            continue
        top_of[e.index] = g
        first, path, inner = groups[g]
        if e.op == by_index[e.parent].op and by_index[e.parent] in path:
            path.append(e)
        elif e.op != first.op and e.aten_name not in inner:
            inner.append(e.aten_name)
    return groups


def _tensors(values):
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


def _signature(first):
    ts = _tensors(first.inputs) + _tensors(first.outputs)
    return (first.backward_node is not None, first.op, first.backward_node,
            tuple((t.sizes, t.strides, t.dtype) for t in ts))


def _row(first, path, inner):
    ins, outs = _tensors(first.inputs), _tensors(first.outputs)
    return {
        "section": "forward" if first.backward_node is None else "backward",
        "op": first.aten_name,
        "path": [{"key": h.key, "kernel": h.kernel, "us": round(h.duration_ns / 1000, 1)} for h in path]
        + [{"key": key, "kernel": kernel, "us": round(ns / 1000, 1)} for key, kernel, ns in first.lower or ()],
        "calls": inner,
        "inputs": [_tensor_dict(t) for t in ins],
        "outputs": [_tensor_dict(t) for t in outs],
        "storages": sorted({str(t.storage_id) for t in ins + outs}),
        "backward_node": first.backward_node,
        "backward_node_id": None if first.backward_node_id is None else f"n{first.backward_node_id}",
        "time_us": round(first.duration_ns / 1000, 1),
        "count": 1,
        "fold": None,
        "text": _logging_line(first),
        "error": first.error,
    }


# ---- folding loops --------------------------------------------------------------------------------------

def find_runs(signatures, max_period=MAX_PERIOD):
    """Split a sequence into runs: [(start, period, times)], where signatures[start:start + period] repeats
    `times` times in a row. Greedy, left to right: at each position take the period that covers the most
    calls (shorter periods win ties, so `a a a a` is a x4, not (a a) x2). Each position tries each period
    once, comparing whole blocks by their precomputed hashes, so this is O(n * max_period)."""
    n = len(signatures)
    codes = [hash(s) for s in signatures]
    runs, i = [], 0
    while i < n:
        best_p, best_k = 1, 1
        for p in range(1, min(max_period, (n - i) // 2) + 1):
            if codes[i + p] != codes[i]:
                continue              # cheap test first: the block cannot start again p calls later
            block = codes[i:i + p]
            k = 1
            while i + (k + 1) * p <= n and codes[i + k * p:i + (k + 1) * p] == block:
                k += 1
            if k > 1 and p * k > best_p * best_k:
                best_p, best_k = p, k
        runs.append((i, best_p, best_k))
        i += best_p * best_k
    return runs


def trace_rows(trace_or_events, fold=True, max_rows=500):
    """One row per call (or per call of a folded loop body); at most `max_rows` rows, then a note row."""
    groups = calls(trace_or_events)
    rows = []
    if fold:
        runs = find_runs([_signature(g[0]) for g in groups])
    else:
        runs = [(i, 1, 1) for i in range(len(groups))]
    for block, (start, period, times) in enumerate(runs):
        for j in range(period):
            row = _row(*groups[start + j])
            if times > 1:
                row["count"] = times
                row["fold"] = {"block": block, "len": period, "times": times, "position": j}
                row["time_us"] = round(sum(groups[start + r * period + j][0].duration_ns
                                           for r in range(times)) / 1000, 1)
            rows.append(row)
    if len(rows) > max_rows:
        left = len(rows) - max_rows
        rows = rows[:max_rows]
        rows.append({"section": "note", "op": "", "count": 0, "note": f"… {left:,} more rows",
                     "text": f"# … {left:,} more rows", "storages": [], "path": [], "inputs": [],
                     "outputs": [], "backward_node": None, "backward_node_id": None, "time_us": 0,
                     "fold": None, "calls": [], "error": None})
    return rows



# ---- text -----------------------------------------------------------------------------------------------

def trace_text(trace_or_events, fold=True, max_rows=500):
    """The trace in PyTorch's LoggingTensor format, with `# forward` / `# backward` section lines.

    A folded loop body is printed once, its first time round, between `# repeated 30 times {` and `# }`."""
    lines, section, block = [], None, None
    for row in trace_rows(trace_or_events, fold=fold, max_rows=max_rows):
        if row["section"] == "note":
            lines.append(row["text"])
            continue
        f = row["fold"]
        if block is not None and (f is None or f["block"] != block):
            lines.append("# }")
            block = None
        if row["section"] != section:
            section = row["section"]
            lines.append(f"# {section}")
        if f is not None and f["block"] != block:
            block = f["block"]
            lines.append(f"# repeated {f['times']} times {{")
        lines.append(("  " if block is not None else "") + row["text"])
    if block is not None:
        lines.append("# }")
    return "\n".join(lines)


# ---- static SVG table -----------------------------------------------------------------------------------

COLUMNS = [("op", 190), ("path", 250), ("shapes", 170), ("strides", 150), ("dtype", 70), ("device", 55),
           ("storages", 90), ("time", 80), ("count", 50)]
ROW_H = 18


def _shapes(row):
    ins = ", ".join("[" + ",".join(map(str, t["sizes"])) + "]" for t in row["inputs"])
    outs = ", ".join("[" + ",".join(map(str, t["sizes"])) + "]" for t in row["outputs"])
    return f"{ins} → {outs}" if outs else ins


def _short_storages(rows):
    """Storage ids are large numbers; the table names them s0, s1, ... in order of appearance."""
    names = {}
    for row in rows:
        for s in row["storages"]:
            names.setdefault(s, f"s{len(names)}")
    return names


def cells(row, storage_names):
    ts = row["inputs"] + row["outputs"]
    return {
        "op": row["op"] + (f"  ({row['backward_node']})" if row["backward_node"] else ""),
        "path": " → ".join(h["key"] for h in row["path"]),
        "shapes": _shapes(row),
        "strides": " ".join("(" + ",".join(map(str, t["strides"])) + ")" for t in ts),
        "dtype": ",".join(sorted({t["dtype"] for t in ts})),
        "device": ",".join(sorted({t["device"] for t in ts})),
        "storages": " ".join(storage_names[s] for s in row["storages"]),
        "time": f"{row['time_us']:,.1f} us",
        "count": f"×{row['count']}" if row["count"] > 1 else "",
    }


def _clip(text, width):
    chars = int(width / 7)
    return text if len(text) <= chars else text[:chars - 1] + "…"


def trace_svg(rows_or_trace, max_rows=200):
    """The rows as an SVG table (forward and backward sections), for outputs without JavaScript."""
    rows = rows_or_trace if isinstance(rows_or_trace, list) and (not rows_or_trace or isinstance(
        rows_or_trace[0], dict)) else trace_rows(rows_or_trace, max_rows=max_rows)
    note = None
    if len(rows) > max_rows:
        note = f"… {len(rows) - max_rows:,} more rows"
        rows = rows[:max_rows]
    names = _short_storages(rows)
    width = sum(w for _, w in COLUMNS) + 10
    sections = sum(1 for i, r in enumerate(rows) if i == 0 or r["section"] != rows[i - 1]["section"])
    height = ROW_H * (len(rows) + sections + 2) + 10
    doc = Svg(width, height, cls="tt-trace", data={"rows": len(rows)})
    x = 5
    for name, w in COLUMNS:
        doc.text(x, ROW_H, name, size=11, anchor="start", font_weight="bold")
        x += w
    y = ROW_H * 2
    section = None
    for i, row in enumerate(rows):
        if row["section"] == "note":
            doc.text(5, y + 12, row["note"], cls="tt-note", size=11, anchor="start")
            y += ROW_H
            continue
        if row["section"] != section:
            section = row["section"]
            with doc.group(cls="tt-section", data={"section": section}):
                doc.text(5, y + 12, f"— {section} —", size=11, anchor="start", font_style="italic")
            y += ROW_H
        data = {"row": i, "op": row["op"], "section": row["section"], "count": row["count"],
                "storages": " ".join(row["storages"])}
        if row["backward_node_id"]:
            data["node"] = row["backward_node_id"]
        with doc.group(cls="tt-row", data=data):
            doc.rect(0, y, width, ROW_H, fill="#f4f6fa" if i % 2 else "#ffffff")
            x, texts = 5, cells(row, names)
            for name, w in COLUMNS:
                doc.text(x, y + 13, _clip(texts[name], w - 8), size=11, anchor="start")
                x += w
        y += ROW_H
    if note:
        doc.text(5, y + 12, note, cls="tt-note", size=11, anchor="start")
    return doc.to_string()
