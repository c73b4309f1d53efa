"""The TrainMonitor's static copy: its panels drawn with matplotlib into one inline PNG, plus the norms as
an HTML table. This is what nbconvert, GitHub and a notebook opened without its kernel show of a monitor
(monitor.py); the live view is widgets/monitor.js. TensorBoard's nearest equivalent is exporting its charts
as images by hand.
"""

import base64
import html
import io

import numpy as np

def static_html(title, snap):
    """The snapshot as HTML with no script: a PNG of the panels (inline, base64) and the norms as a table."""
    parts = [f"<div class='tt-static tt-monitor-static'><h4 style='margin:4px 0'>{html.escape(title)}</h4>"]
    summary = _summary(snap)
    if summary:
        parts.append(f"<div class='tt-monitor-summary' style='font:12px monospace'>{html.escape(summary)}</div>")
    try:
        png = figure_png(snap)
        if png:
            data = base64.b64encode(png).decode("ascii")
            parts.append(f"<img class='tt-monitor-figure' alt='{html.escape(summary or title)}' "
                         f"style='max-width:100%' src='data:image/png;base64,{data}'>")
    except Exception as e:                  # no matplotlib, or it failed: the text still says where we are
        parts.append(f"<div style='color:#c62828'>(the figure could not be drawn: {html.escape(str(e))})</div>")
    parts.append(_norms_table(snap.get("norms") or {}))
    for message in snap.get("errors") or []:
        parts.append(f"<div class='tt-monitor-error' style='color:#c62828;font:12px monospace'>"
                     f"{html.escape(message)}</div>")
    parts.append("</div>")
    return "".join(parts)


def _summary(snap):
    """"step 99: loss 0.1234, acc 0.98": the last value of every curve."""
    values = [f"{s['name']} {_fmt(s['last'])}" for p in snap.get("curves") or [] for s in p["series"]]
    if snap.get("step") is None:
        return ", ".join(values)
    return f"step {snap['step']}: " + ", ".join(values)


def _fmt(x):
    return "—" if x is None else f"{x:.4g}"


def _norms_table(norms):
    rows = norms.get("rows") or []
    if not rows:
        return ""
    head = ("<tr><th align=left>parameter</th><th align=left>shape</th><th>‖p‖</th><th>‖grad‖</th>"
            "<th>update / weight</th></tr>")
    body = "".join(
        f"<tr><td>{html.escape(r['name'])}</td><td>{'×'.join(map(str, r['shape']))}</td>"
        f"<td align=right>{_fmt(r['param'])}</td><td align=right>{_fmt(r['grad'])}</td>"
        f"<td align=right>{_fmt(r['ratio'])}</td></tr>" for r in rows)
    note = f"<div style='font-style:italic'>{html.escape(norms['note'])}</div>" if norms.get("note") else ""
    return (f"<table class='tt-monitor-norms' style='font:11px monospace;border-collapse:collapse'>"
            f"<caption style='text-align:left'>norms at step {norms.get('step')}</caption>{head}{body}</table>{note}")


def figure_png(snap, dpi=80):
    """The panels drawn with matplotlib (Agg, no screen), as PNG bytes; None when there is nothing to draw."""
    draws = [(lambda ax, p=p: _draw_curves(ax, p)) for p in snap.get("curves") or []]
    norms, hist = snap.get("norms") or {}, snap.get("histograms") or {}
    if any(r.get("ratio") for r in norms.get("rows") or []):
        draws.append(lambda ax: _draw_ratios(ax, norms))
    for key in ("activation", "gradient"):
        if hist.get(key, {}).get("counts"):
            draws.append(lambda ax, key=key: _draw_histogram(ax, hist, key))
    if snap.get("confusion"):
        draws.append(lambda ax: _draw_confusion(ax, snap["confusion"]))
    samples = snap.get("samples") or {}
    if samples.get("images"):
        draws.append(lambda ax: _draw_images(ax, samples["images"]))
    if samples.get("text"):
        draws.append(lambda ax: _draw_text(ax, samples["text"]))
    if not draws:
        return None

    from matplotlib.figure import Figure       # a Figure without pyplot: no global state, no screen
    columns = min(3, len(draws))
    rows = -(-len(draws) // columns)
    fig = Figure(figsize=(4.2 * columns, 3.1 * rows))
    for i, draw in enumerate(draws):
        draw(fig.add_subplot(rows, columns, i + 1))
    fig.tight_layout()
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=dpi)
    return out.getvalue()


def _draw_curves(ax, panel):
    for s in panel["series"]:
        values = [np.nan if v is None else v for v in s["values"]]
        ax.plot(s["steps"], values, lw=1, marker="o" if len(values) < 30 else None, ms=3,
                label=f"{s['name']} {_fmt(s['last'])}")
    ax.set(title=panel["panel"], xlabel="step")
    ax.legend(fontsize=8)
    ax.grid(alpha=.3)


def _draw_ratios(ax, norms):
    rows = [r for r in norms["rows"] if r.get("ratio")]
    y = np.arange(len(rows))
    ax.barh(y, [r["ratio"] for r in rows], color="#4e79a7")
    ax.axvline(1e-3, ls="--", color="#888")          # the rule of thumb
    ax.set_xscale("log")
    ax.set_xlim(1e-6, 1)                             # the live view's scale: 1e-3 in the middle
    ax.set_yticks(y, [r["name"] for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set(title="update / weight per step", xlabel="ratio (dashed: 1e-3)")


def _draw_histogram(ax, hist, key):
    h = hist[key]
    edges = np.array(h["edges"], dtype=float)
    ax.bar(edges[:-1], h["counts"], width=np.diff(edges), align="edge",
           color="#59a14f" if key == "activation" else "#e15759")
    ax.set(title=f"layer {hist.get('layer')}: {key}s ({'after ' if h.get('after_step') else ''}step {h.get('step')})", ylabel="count")
    ax.locator_params(axis="x", nbins=4)             # gradients have long tick labels (-0.0025)


def _draw_confusion(ax, conf):
    counts = np.array(conf["counts"])
    ax.imshow(counts, cmap="Blues")
    n = len(conf["classes"])
    if n <= 20:
        ax.set_xticks(range(n), conf["classes"], fontsize=7)
        ax.set_yticks(range(n), conf["classes"], fontsize=7)
        for i in range(n):
            for j in range(n):
                if counts[i, j]:
                    ax.text(j, i, counts[i, j], ha="center", va="center", fontsize=6,
                            color="white" if counts[i, j] > counts.max() / 2 else "black")
    ax.set(title=f"confusion (accuracy {_fmt(conf.get('accuracy'))})", xlabel="predicted", ylabel="true")


def _draw_images(ax, images):
    columns = min(8, len(images))
    rows = -(-len(images) // columns)
    h, w = len(images[0]["pixels"]), len(images[0]["pixels"][0])
    gap = max(4, h // 2)                    # room under each image for its prediction
    sheet = np.ones((rows * (h + gap), columns * (w + 1)))
    ax.set_axis_off()
    for k, image in enumerate(images):
        r, c = divmod(k, columns)
        pixels = np.array(image["pixels"])
        if pixels.shape != (h, w):
            continue
        sheet[r * (h + gap):r * (h + gap) + h, c * (w + 1):c * (w + 1) + w] = 1 - pixels   # dark ink on white
        if image.get("prediction") is not None:
            wrong = image.get("label") is not None and image["label"] != image["prediction"]
            caption = f"{image['label']}→{image['prediction']}" if wrong else image["prediction"]
            ax.text(c * (w + 1) + w / 2, r * (h + gap) + h, caption, ha="center", va="top",
                    fontsize=7, color="#c62828" if wrong else "#2e7d32")
    ax.imshow(sheet, cmap="gray", vmin=0, vmax=1)
    ax.set_title("samples (prediction; red: wrong)")


def _draw_text(ax, text):
    import textwrap
    ax.set_axis_off()
    lines = textwrap.wrap(text.replace("\n", " ⏎ "), 60)[:14]
    ax.text(0, 1, "\n".join(lines), va="top", family="monospace", fontsize=7, transform=ax.transAxes)
    ax.set_title("sample text")


