// TrainMonitor: a training run drawn while it runs (teachtorch/explorer/monitor.py pushes the traits).
//
// Every picture here is plain SVG built element by element from JSON traits; nothing is an image sent
// from Python, and nothing is loaded from anywhere:
//
//   curves      [{panel, series: [{name, steps, values, last, last_step, count, width}]}]: one line chart
//               per panel ("loss" and "val_loss" share one); a value of null is a gap (nan or inf)
//   norms       {step, rows: [{name, shape, param, grad, ratio, ratio_steps}], note}: a table, with the
//               update/weight ratio as a bar on a log scale (the dashed mark is 1e-3)
//   histograms  {layer, activation: {edges, counts, n, mean, std, zeros, step}, gradient: {...}}
//   confusion   {classes, counts, accuracy}: a heat grid, rows true, columns predicted
//   samples     {images: [{pixels, label, prediction}], text}: grey pixel grids, or generated text
//   errors      what went wrong in Python (the monitor never raises into the training loop)
//   step        the latest step logged
//
// Each panel is a "pane" for watchTraits (_common.js): redrawn at the next animation frame after its
// traits change, however many pushes came in between.

// The SVG namespace, as the browser's HTML parser sets it on an <svg> (asked for, rather than written
// here: the widgets' code holds no URL at all, and a test checks it).
const SVG_NS = (() => {
  const holder = document.createElement("div");
  holder.innerHTML = "<svg></svg>";
  return holder.firstChild.namespaceURI;
})();
const CURVE_COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2"];

// A new SVG element with attributes: svg_("rect", {x: 0, y: 0, width: 4, height: 4}, parent).
function svg_(tag, attrs, parent) {
  const e = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs || {})) e.setAttribute(name, String(value));
  if (parent) parent.appendChild(e);
  return e;
}

// An <svg> that scales to its box: drawn in a width x height coordinate system, shown at the box's width.
function scalableSvg(width, height, cls) {
  return svg_("svg", { viewBox: `0 0 ${width} ${height}`, class: cls, preserveAspectRatio: "xMinYMin meet" });
}

// A number as people read it: 0.0123, 1.23e-5, 1234.
function fmt(x) {
  if (x === null || x === undefined) return "—";
  if (x === 0) return "0";
  const a = Math.abs(x);
  if (a >= 1e4 || a < 1e-3) return x.toExponential(2);
  return String(Number(x.toPrecision(4)));
}

// About n round numbers from lo to hi (1, 2 or 5 times a power of ten apart), for axis ticks.
function niceTicks(lo, hi, n) {
  if (!(hi > lo)) return [lo];
  const raw = (hi - lo) / n;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  const ticks = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(Number(t.toPrecision(12)));
  return ticks;
}

// The smallest and largest finite number in some lists (null when there is none).
function extent(lists) {
  let lo = Infinity, hi = -Infinity;
  for (const list of lists) {
    for (const v of list) {
      if (v === null || !Number.isFinite(v)) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  return lo <= hi ? [lo, hi] : null;
}

// ---- curves ---------------------------------------------------------------------------------------------

// One line chart: every series of a panel over the same step axis.
function lineChart(panel) {
  const W = 320, H = 190, left = 46, right = 8, top = 8, bottom = 22;
  const svg = scalableSvg(W, H, "tt-chart");
  svg.dataset.panel = panel.panel;
  const xs = extent(panel.series.map((s) => s.steps)) || [0, 1];
  let ys = extent(panel.series.map((s) => s.values)) || [0, 1];
  if (xs[0] === xs[1]) xs[1] = xs[0] + 1;
  if (ys[0] === ys[1]) ys = [ys[0] - 0.5, ys[1] + 0.5];
  const pad = (ys[1] - ys[0]) * 0.05;
  ys = [ys[0] - pad, ys[1] + pad];
  const X = (v) => left + ((v - xs[0]) / (xs[1] - xs[0])) * (W - left - right);
  const Y = (v) => top + (1 - (v - ys[0]) / (ys[1] - ys[0])) * (H - top - bottom);

  // axes: a light grid at round values, labelled on the left and at the bottom
  const axes = svg_("g", { class: "tt-axes" }, svg);
  for (const t of niceTicks(ys[0], ys[1], 4)) {
    svg_("line", { x1: left, x2: W - right, y1: Y(t), y2: Y(t), class: "tt-grid" }, axes);
    svg_("text", { x: left - 4, y: Y(t) + 3, "text-anchor": "end" }, axes).textContent = fmt(t);
  }
  for (const t of niceTicks(xs[0], xs[1], 4)) {
    svg_("line", { x1: X(t), x2: X(t), y1: top, y2: H - bottom, class: "tt-grid" }, axes);
    svg_("text", { x: X(t), y: H - bottom + 13, "text-anchor": "middle" }, axes).textContent = fmt(t);
  }
  svg_("rect", { x: left, y: top, width: W - left - right, height: H - top - bottom, class: "tt-frame" }, axes);

  panel.series.forEach((s, k) => {
    // "M x y L x y ...", starting again after each gap (a null value)
    let d = "", pen = "M";
    s.steps.forEach((step, i) => {
      const v = s.values[i];
      if (v === null || !Number.isFinite(v)) { pen = "M"; return; }
      d += `${pen}${X(step).toFixed(1)} ${Y(v).toFixed(1)} `;
      pen = "L";
    });
    const color = CURVE_COLORS[k % CURVE_COLORS.length];
    const line = svg_("path", { d, class: "tt-curve", stroke: color, "data-name": s.name,
                                "data-points": s.steps.length }, svg);
    svg_("title", {}, line).textContent =
      `${s.name}: ${s.count} values logged` + (s.width > 1 ? `, each point the mean of ${s.width}` : "");
    if (s.steps.length <= 30) {      // few points (an evaluation per epoch): mark each
      s.steps.forEach((step, i) => {
        if (s.values[i] !== null) svg_("circle", { cx: X(step), cy: Y(s.values[i]), r: 2.2, fill: color }, svg);
      });
    }
  });
  return svg;
}

// The legend of a chart: each series' colour, name and latest value.
function curveLegend(panel) {
  const legend = el_("div", "tt-legend");
  panel.series.forEach((s, k) => {
    const item = el_("span", "tt-legend-item");
    const swatch = el_("span", "tt-swatch");
    swatch.style.background = CURVE_COLORS[k % CURVE_COLORS.length];
    item.append(swatch, `${s.name} ${fmt(s.last)}`);
    item.title = `at step ${s.last_step}`;
    legend.appendChild(item);
  });
  return legend;
}

function curvesPane(box, model) {
  function draw() {
    const panels = model.get("curves") || [];
    if (!panels.length) {
      return box.replaceChildren(el_("div", "tt-empty", "nothing logged yet: call mon.log(step, loss=...)"));
    }
    box.replaceChildren(...panels.map((panel) => {
      const chart = el_("figure", "tt-chart-box");
      chart.append(el_("figcaption", "tt-heading", panel.panel), curveLegend(panel), lineChart(panel));
      return chart;
    }));
  }
  draw();
  return { traits: ["curves"], draw };
}

// ---- norms ----------------------------------------------------------------------------------------------

// The ratio on a log scale from 1e-6 (empty bar) to 1 (full bar); the rule of thumb 1e-3 is at half.
function ratioBar(ratio) {
  const bar = el_("div", "tt-ratio-bar");
  const fill = el_("span", "tt-ratio-fill");
  const at = ratio > 0 ? Math.min(1, Math.max(0, (Math.log10(ratio) + 6) / 6)) : 0;
  fill.style.width = `${(100 * at).toFixed(1)}%`;
  if (ratio !== null && (ratio < 1e-4 || ratio > 1e-2)) fill.classList.add("tt-ratio-off");
  bar.append(fill, el_("span", "tt-ratio-mark"));
  return bar;
}

function normsPane(box, model, root) {
  function draw() {
    const norms = model.get("norms") || {};
    const rows = norms.rows || [];
    box.closest("section").hidden = !rows.length;
    if (!rows.length) return box.replaceChildren();
    const table = el_("table", "tt-norms-table");
    const head = table.createTHead().insertRow();
    for (const name of ["parameter", "shape", "‖p‖", "‖grad‖", "update / weight"]) {
      head.appendChild(el_("th", "", name));
    }
    const body = table.createTBody();
    for (const r of rows) {
      const tr = body.insertRow();
      tr.className = "tt-norm-row";
      tr.dataset.name = r.name;
      const ratio = r.ratio === null ? "—" : r.ratio.toExponential(1);   // "7.2e-3": read on a log scale
      const cells = [r.name, r.shape.join("×"), fmt(r.param), fmt(r.grad), ratio];
      cells.forEach((text, i) => {
        const td = tr.insertCell();
        td.textContent = i === 0 ? `\u200e${text}\u200e` : text;   // marks: the name reads left to right
        if (i === 0) td.title = r.name;                                 // in its right-to-left cell (the CSS)
      });
      tr.cells[4].appendChild(ratioBar(r.ratio));
      if (r.ratio_steps) tr.cells[4].title = `between steps ${r.ratio_steps[0]} and ${r.ratio_steps[1]}`;
    }
    box.replaceChildren(table);
    if (norms.note) box.appendChild(el_("div", "tt-note", norms.note));
    root.querySelector(".tt-box-norms .tt-heading").textContent = `per-layer norms, step ${norms.step}`;
  }
  draw();
  return { traits: ["norms"], draw };
}

// ---- histograms -----------------------------------------------------------------------------------------

function histogramChart(h, cls) {
  const W = 300, H = 120, left = 6, right = 6, top = 6, bottom = 18;
  const svg = scalableSvg(W, H, `tt-hist ${cls}`);
  const n = h.counts.length;
  const most = Math.max(1, ...h.counts);
  const width = (W - left - right) / n;
  h.counts.forEach((count, i) => {
    const height = (count / most) * (H - top - bottom);
    const bar = svg_("rect", { x: left + i * width, y: H - bottom - height, width: Math.max(0.5, width - 0.6),
                               height, class: "tt-bar", "data-count": count }, svg);
    svg_("title", {}, bar).textContent = `[${fmt(h.edges[i])}, ${fmt(h.edges[i + 1])}): ${count}`;
  });
  svg_("line", { x1: left, x2: W - right, y1: H - bottom, y2: H - bottom, class: "tt-frame" }, svg);
  svg_("text", { x: left, y: H - 4 }, svg).textContent = fmt(h.edges[0]);
  svg_("text", { x: W - right, y: H - 4, "text-anchor": "end" }, svg).textContent = fmt(h.edges[n]);
  return svg;
}

function histogramsPane(box, model, root) {
  function draw() {
    const hist = model.get("histograms") || {};
    const parts = [];
    const labels = [["activation", "activations (the layer's output)"], ["gradient", "gradients arriving at it"]];
    for (const [key, label] of labels) {
      const h = hist[key];
      if (!h || !h.counts || !h.counts.length) continue;
      const figure = el_("figure", "tt-hist-box");
      const zeros = h.zeros ? `, ${(100 * h.zeros).toFixed(1)}% exactly 0` : "";
      const sampled = h.sampled < h.n ? ` (${h.sampled} sampled)` : "";
      const stats = `mean ${fmt(h.mean)}, std ${fmt(h.std)}${zeros}; ${h.n} values${sampled}`;
      const when = h.step == null ? "before the first step" : `${h.after_step ? "after " : ""}step ${h.step}`;
      figure.append(el_("figcaption", "", `${label}, ${when}`), el_("div", "tt-hist-stats", stats),
                    histogramChart(h, `tt-hist-${key}`));
      parts.push(figure);
    }
    box.closest("section").hidden = !parts.length;
    // the layer's name as written in Python ("mlp.1"), not in the heading's capitals
    root.querySelector(".tt-box-histograms .tt-heading").replaceChildren("layer ", el_("code", "tt-layer-name", hist.layer));
    box.replaceChildren(...parts);
  }
  draw();
  return { traits: ["histograms"], draw };
}

// ---- confusion matrix -----------------------------------------------------------------------------------

function confusionPane(box, model) {
  function draw() {
    const conf = model.get("confusion") || {};
    const classes = conf.classes || [];
    box.closest("section").hidden = !classes.length;
    if (!classes.length) return box.replaceChildren();
    const n = classes.length, cell = n <= 12 ? 22 : Math.max(6, Math.floor(264 / n)), label = 26;
    const size = label + n * cell;
    const svg = scalableSvg(size + 4, size + 14, "tt-confusion");
    svg.style.maxWidth = `${Math.max(size + 4, 220) * 1.3}px`;
    const most = Math.max(1, ...conf.counts.flat());
    conf.counts.forEach((row, i) => {
      row.forEach((count, j) => {
        // the colour grows with the square root of the count, so that a few mistakes still show
        const rect = svg_("rect", { x: label + j * cell, y: label + i * cell, width: cell - 1, height: cell - 1,
                                    class: `tt-cm-cell${!count ? "" : i === j ? " tt-cm-right" : " tt-cm-wrong"}`,
                                    "fill-opacity": count ? (0.12 + 0.88 * Math.sqrt(count / most)).toFixed(3) : 1,
                                    "data-true": i, "data-pred": j, "data-count": count }, svg);
        svg_("title", {}, rect).textContent = `true ${classes[i]}, predicted ${classes[j]}: ${count}`;
        if (count && cell >= 18) {
          svg_("text", { x: label + j * cell + cell / 2 - 0.5, y: label + i * cell + cell / 2 + 3,
                         "text-anchor": "middle", class: `tt-cm-count${count > most / 2 ? " tt-on-dark" : ""}` }, svg)
            .textContent = count;
        }
      });
      if (cell >= 12) {
        const middle = label + i * cell + cell / 2;          // row i's labels on the left, column i's on top
        svg_("text", { x: label - 4, y: middle + 3, "text-anchor": "end" }, svg).textContent = classes[i];
        svg_("text", { x: middle, y: label - 5, "text-anchor": "middle" }, svg).textContent = classes[i];
      }
    });
    svg_("text", { x: label, y: size + 12 }, svg).textContent = "rows: true class, columns: predicted";
    const accuracy = conf.accuracy == null ? "" : `accuracy ${(100 * conf.accuracy).toFixed(1)}%`;   // null or undefined
    box.replaceChildren(el_("div", "tt-readout", accuracy), svg);
  }
  draw();
  return { traits: ["confusion"], draw };
}

// ---- samples --------------------------------------------------------------------------------------------

// A sample with a label and a prediction that differ.
function isWrong(image) {
  return image.label !== null && image.prediction !== null && image.label !== image.prediction;
}

// One image as a grid of grey squares (1 = ink, drawn dark), with "label" or "label→prediction" under it.
function sampleImage(image) {
  const h = image.pixels.length, w = h ? image.pixels[0].length : 0;
  const px = Math.max(2, Math.floor(48 / Math.max(h, w, 1)));
  const svg = svg_("svg", { width: w * px, height: h * px + 14, class: "tt-sample" });
  image.pixels.forEach((row, y) => row.forEach((v, x) => {
    const grey = Math.round(255 * (1 - v));
    svg_("rect", { x: x * px, y: y * px, width: px, height: px, fill: `rgb(${grey},${grey},${grey})` }, svg);
  }));
  const wrong = isWrong(image);
  if (wrong) svg.classList.add("tt-sample-wrong");
  const caption = image.prediction === null ? (image.label ?? "") :
    (wrong ? `${image.label}→${image.prediction}` : image.prediction);
  svg_("text", { x: (w * px) / 2, y: h * px + 11, "text-anchor": "middle" }, svg).textContent = caption;
  return svg;
}

function samplesPane(box, model) {
  function draw() {
    const samples = model.get("samples") || {};
    const images = samples.images || [];
    box.closest("section").hidden = !images.length && !samples.text;
    const parts = [];
    if (images.length) {
      const wrong = images.filter(isWrong).length;
      const strip = el_("div", "tt-samples");
      strip.append(...images.map(sampleImage));
      parts.push(el_("div", "tt-readout", images[0].prediction === null ? `${images.length} images` :
        `${images.length} images, ${wrong} predicted wrong (red: true→predicted)`), strip);
    }
    if (samples.text) parts.push(el_("pre", "tt-sample-text", samples.text));
    box.replaceChildren(...parts);
  }
  draw();
  return { traits: ["samples"], draw };
}

// ---- the widget -----------------------------------------------------------------------------------------

// The line under the title: the latest step and the latest value of every curve; and Python's errors.
function statusPane(status, errorsBox, model) {
  function draw() {
    const values = (model.get("curves") || []).flatMap((p) => p.series.map((s) => `${s.name} ${fmt(s.last)}`));
    const step = model.get("step");
    status.textContent = step == null ? "waiting for the first mon.log(...)" : [`step ${step}`, ...values].join(" · ");
    errorsBox.replaceChildren(...(model.get("errors") || []).map((e) => el_("div", "tt-monitor-error", e)));
  }
  draw();
  return { traits: ["curves", "step", "errors"], draw };
}

const MONITOR_PANES = [
  ["curves", "curves", curvesPane],
  ["norms", "per-layer norms", normsPane],
  ["histograms", "histograms", histogramsPane],
  ["confusion", "confusion matrix", confusionPane],
  ["samples", "samples", samplesPane],
];

function mountMonitor(el, model) {
  const root = makeRoot(el, "monitor", model);
  const status = el_("div", "tt-status");
  const errorsBox = el_("div", "tt-monitor-errors");
  const grid = el_("div", "tt-monitor-grid");
  root.append(status, errorsBox, grid);
  const panes = [statusPane(status, errorsBox, model)];
  for (const [name, heading, makePane] of MONITOR_PANES) {
    const section = el_("section", `tt-box tt-box-${name}`);
    const box = el_("div", `tt-pane tt-${name}-pane`);
    section.append(el_("h4", "tt-heading", heading), box);
    grid.appendChild(section);
    panes.push(makePane(box, model, root));
  }
  return watchTraits(model, root, panes);
}
