// The explorer: the three panes in one widget, updated live by teachtorch.explore(). Clicking a trace
// row lights (class tt-lit) the tensors whose storage the op touched and the graph node it ran for.

function mountExplorer(el, model) {
  const root = makeRoot(el, "explorer", model);
  const title = el_("div", "tt-title", model.get("title"));
  const grid = el_("div", "tt-explorer-grid");
  const panes = {};
  for (const [name, heading] of [["graph", "autograd graph"], ["storage", "storage"], ["trace", "dispatch trace"]]) {
    const box = el_("section", `tt-box tt-box-${name}`);
    box.appendChild(el_("h4", "tt-heading", heading));
    const pane = el_("div", `tt-pane tt-${name}-pane`);
    box.appendChild(pane);
    grid.appendChild(box);
    panes[name] = pane;
  }
  root.append(title, grid);
  const draws = {
    graph: mountGraphPane(panes.graph, model),
    storage: mountStoragePane(panes.storage, model),
    trace: mountTracePane(panes.trace, model),
  };
  const lit = lighter(root, "tt-lit");
  root.addEventListener("tt-select", (event) => {
    lit.clear();
    const { storages, node } = event.detail;
    for (const sid of storages) {
      lit.light(`g.tt-view[data-storage="${sid}"], rect.tt-cell[data-storage="${sid}"]`);
    }
    if (node) lit.light(`.tt-graph-pane g[id="${node}"]`);
  });
  const which = { storage_svg: "storage", graph_svg: "graph", graph_steps: "graph", trace_rows: "trace",
                  trace_note: "trace" };
  const redraw = redrawOnce(draws);
  return onChanges(model, ["seq", "title", ...Object.keys(which)], (name) => {
    if (name === "seq") root.dataset.seq = String(model.get("seq"));
    else if (name === "title") title.textContent = model.get("title");
    else { lit.clear(); redraw(which[name]); }
  });
}
