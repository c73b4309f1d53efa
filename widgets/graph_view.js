// Graph view: the Graphviz SVG of teachtorch/explorer/graph_diagram.py, and a stepper through the
// backward run it watched.
//
// Graphviz keeps our ids: <g id="n123" class="node tt-fn"> is a backward node, <g id="e.." class="edge">
// an autograd edge. graph_steps lists what the autograd engine did, in order:
//     {kind: "node", id, name}                 it ran a node (MulBackward0, ...)
//     {kind: "gradient", edge, from, to, shape} it passed a gradient along an edge
//     {kind: "accumulated", id, leaf}          AccumulateGrad added a gradient into a leaf's .grad
// At step k the first k steps are shown: nodes run get tt-step-ran, edges a gradient flowed along
// tt-step-flowed, the k-th step's element tt-step-current. Python draws the finished run already marked
// (classes tt-ran / tt-flowed); before the last step the canvas has class tt-stepping and the CSS draws
// those marks plain again, so only what the first k steps did is lit.
//
// A new backward run (new graph_steps) is played from step 0 to its end, so the student sees the
// gradients flow; a click on a stepper button or a key stops it there. The picture zooms and pans
// (zoomable, in _common.js).

// Playing a backward run: at most STEP_MS per step and ANIMATION_MS in all (a long run takes several
// steps per frame), so a short run is watchable and a long one does not keep the student waiting.
const STEP_MS = 100;
const ANIMATION_MS = 1500;

const STEP_BUTTONS = [
  ["first", "«", "before backward (Home)"],
  ["prev", "◀", "step back (←)"],
  ["next", "▶", "step forward (→)"],
  ["last", "»", "after backward (End)"],
];

function describeStep(step) {
  if (!step) return "before backward";
  if (step.text) return step.text;              // a graph drawn from DOT (GraphView.from_dot) says its own
  if (step.kind === "node") return `run ${step.name}`;
  if (step.kind === "gradient") return `a gradient of shape [${(step.shape || []).join(", ")}] flows on`;
  return "add the gradient into the leaf's .grad";
}

function graphPane(box, model) {
  const bar = el_("div", "tt-toolbar");
  const buttons = {};
  for (const [action, symbol, hint] of STEP_BUTTONS) {
    const b = el_("button", "tt-button", symbol);
    b.type = "button";
    b.dataset.action = action;
    b.title = hint;
    b.setAttribute("aria-label", hint);
    buttons[action] = b;
    bar.appendChild(b);
  }
  const label = el_("span", "tt-step-label");
  bar.appendChild(label);
  const zoomBar = el_("span", "tt-zoom-bar");
  bar.appendChild(zoomBar);
  const canvas = el_("div", "tt-canvas tt-graph-canvas");
  canvas.tabIndex = 0;                       // focusable: the arrow keys step
  box.append(bar, canvas);
  const zoom = zoomable(canvas, zoomBar);

  let steps = [];
  let at = 0;                                // how many steps are applied
  let byId = new Map();                      // SVG id -> <g>, built once per picture
  const lit = [];                            // what show() lit, to unlight it without a search

  function show(k) {
    at = Math.max(0, Math.min(k, steps.length));
    for (const e of lit) e.classList.remove("tt-step-ran", "tt-step-flowed", "tt-step-current", "tt-step-grad");
    lit.length = 0;
    const mark = (id, cls) => {
      const e = byId.get(id);
      if (e) { e.classList.add(cls); lit.push(e); }
      return e;
    };
    let current = null;
    for (let i = 0; i < at; i++) {
      const s = steps[i];
      if (s.kind === "gradient") current = mark(s.edge, "tt-step-flowed");
      else current = mark(s.id, "tt-step-ran");
      if (s.kind === "accumulated") mark(s.leaf, "tt-step-grad");
    }
    if (current) current.classList.add("tt-step-current");
    canvas.classList.toggle("tt-stepping", at < steps.length);
    label.textContent = steps.length
      ? `step ${at} / ${steps.length}: ${describeStep(steps[at - 1])}`
      : "step 0 / 0: no backward run watched yet";
    buttons.first.disabled = buttons.prev.disabled = at === 0;
    buttons.next.disabled = buttons.last.disabled = at === steps.length;
    box.dataset.step = String(at);
    if (current && at < steps.length) keepInView(canvas, current);
  }

  // Play steps 0..n. requestAnimationFrame, not a timer: the browser skips it in a hidden tab.
  let frame = 0;
  function stopPlaying() {
    if (frame) cancelAnimationFrame(frame);
    frame = 0;
    delete box.dataset.animating;
  }
  function play() {
    stopPlaying();
    const reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    if (reduced || !steps.length) return show(steps.length);
    const perStep = Math.min(STEP_MS, ANIMATION_MS / steps.length);
    const start = performance.now();
    box.dataset.animating = "1";
    show(0);
    const tick = (now) => {
      const k = Math.min(steps.length, Math.floor((now - start) / perStep) + 1);
      if (k !== at) show(k);
      if (k < steps.length) frame = requestAnimationFrame(tick);
      else stopPlaying();
    };
    frame = requestAnimationFrame(tick);
  }

  function go(action) {
    const k = { first: 0, prev: at - 1, next: at + 1, last: steps.length }[action];
    if (k === undefined) return;
    stopPlaying();                           // the student takes over
    show(k);
  }

  bar.addEventListener("click", (event) => {
    const b = event.target.closest("button[data-action]");
    if (!b) return;
    go(b.dataset.action);
    canvas.focus({ preventScroll: true });   // a button that just got disabled would drop the focus
  });
  box.addEventListener("keydown", (event) => {
    const action = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[event.key];
    if (!action) return;
    go(action);
    event.preventDefault();
    event.stopPropagation();                 // JupyterLab must not also move between cells
  });

  // A new picture keeps the step the student is at; a new backward run (new steps) is played from the
  // start. The first picture, drawn from the saved traits, opens at the end of its run.
  function draw(changed, first) {
    if (changed.has("graph_svg")) {
      zoom.replace(() => setSvg(canvas, model.get("graph_svg"),
                                "no graph yet: compute something from a tensor that requires grad"));
      byId = new Map();
      for (const g of canvas.querySelectorAll("g[id]")) byId.set(g.id, g);
      lit.length = 0;
    }
    if (changed.has("graph_steps")) {
      steps = model.get("graph_steps") || [];
      at = steps.length;
      if (!first) return play();
    }
    show(at);
  }
  draw(new Set(["graph_svg", "graph_steps"]), true);
  return {
    traits: ["graph_svg", "graph_steps"], draw, byId: (id) => byId.get(id), canvas, zoom,
    destroy() { stopPlaying(); zoom.destroy(); },
  };
}

function mountGraph(el, model) {
  return mountSingle(el, model, "graph", graphPane);
}
