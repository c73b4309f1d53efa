// Graph view: the Graphviz SVG from teachtorch/explorer/graph_diagram.py, and a stepper that replays the
// backward run it watched. graph_steps lists, in the order the engine did them, the nodes it ran
// ({kind: "node", id}), the gradients it passed along edges ({kind: "gradient", edge}) and the leaves it
// accumulated into ({kind: "accumulated", id}). At step k the first k are lit; Python's own marking of
// the finished run is hidden meanwhile (the class tt-stepping on the pane), so un-reached nodes look plain.

function mountGraphPane(pane, model) {
  const bar = el_("div", "tt-toolbar");
  const buttons = {};
  for (const [action, label, title] of [["first", "«", "before backward"], ["prev", "◀", "step back"],
                                        ["next", "▶", "step forward"], ["last", "»", "after backward"]]) {
    const b = el_("button", "tt-button", label);
    b.dataset.action = action;
    b.title = title;
    bar.appendChild(b);
    buttons[action] = b;
  }
  const label = el_("span", "tt-step-label", "");
  bar.appendChild(label);
  const canvas = el_("div", "tt-graph-canvas");
  canvas.tabIndex = 0;
  pane.append(bar, canvas);

  let steps = [];
  let k = 0;
  let byId = new Map();         // element id -> SVG group, built once per picture
  let lit = [];                 // what apply() lit last time, so it can unlight it cheaply

  function apply(step) {
    k = Math.max(0, Math.min(step, steps.length));
    lit.forEach((e) => e.classList.remove("tt-step-ran", "tt-step-flowed", "tt-step-current"));
    lit = [];
    canvas.classList.toggle("tt-stepping", steps.length > 0 && k < steps.length);
    for (let i = 0; i < k; i++) {
      const s = steps[i];
      const e = byId.get(s.kind === "gradient" ? s.edge : s.id);
      if (!e) continue;
      e.classList.add(s.kind === "gradient" ? "tt-step-flowed" : "tt-step-ran");
      if (i === k - 1) e.classList.add("tt-step-current");
      lit.push(e);
    }
    const s = steps[k - 1];
    let text = steps.length === 0 ? "no backward run watched" : `step ${k} / ${steps.length}`;
    if (s && s.kind === "node") text += `: run ${s.name}`;
    if (s && s.kind === "gradient") text += `: gradient ${JSON.stringify(s.shape)} flows on`;
    if (s && s.kind === "accumulated") text += ": added into a leaf's .grad";
    label.textContent = text;
    pane.dataset.step = String(k);
  }

  function draw() {
    setSvg(canvas, model.get("graph_svg"), "no graph yet: make a tensor that requires grad");
    byId = new Map();
    canvas.querySelectorAll("g[id]").forEach((g) => byId.set(g.id, g));
    steps = model.get("graph_steps") || [];
    apply(steps.length);           // a new picture starts at the end of its backward run
  }

  bar.addEventListener("click", (event) => {
    const action = event.target.dataset && event.target.dataset.action;
    if (action === "first") apply(0);
    else if (action === "prev") apply(k - 1);
    else if (action === "next") apply(k + 1);
    else if (action === "last") apply(steps.length);
  });
  canvas.addEventListener("keydown", (event) => {
    if (event.key === "ArrowLeft") { apply(k - 1); event.preventDefault(); }
    if (event.key === "ArrowRight") { apply(k + 1); event.preventDefault(); }
  });
  draw();
  return draw;
}

function mountGraph(el, model) {
  return mountSingle(el, model, "graph", mountGraphPane, ["graph_svg", "graph_steps"]);
}
