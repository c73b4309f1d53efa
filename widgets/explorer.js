// The explorer: the graph, storage and trace panes in one widget, kept up to date by
// `with teachtorch.explore() as ex:` while the cell runs. Side by side on a wide cell, stacked on a
// narrow one (explorer.css).
//
// The panes are tied together by the trace: clicking a row (a "tt-select" event from the trace pane)
// lights, with class tt-lit, every view and storage cell of the storages the op touched and its graph
// node (the node a backward op ran for; a forward op's output's grad_fn). When they are not drawn, the
// explorer asks the kernel to draw them: a message {event: "show_row", row} (widgets.py Explorer); the
// new pictures then arrive as usual and are lit. A kernel busy running a cell answers when the cell ends.
// A status line says what was lit, and what is not drawn.

const EXPLORER_PANES = [
  ["graph", "autograd graph", graphPane],
  ["storage", "storage", storagePane],
  ["trace", "dispatch trace", tracePane],
];

function mountExplorer(el, model) {
  const root = makeRoot(el, "explorer", model);
  const grid = el_("div", "tt-explorer-grid");
  const hint = "click a trace row to light the storages it touched and its graph node";
  const status = el_("div", "tt-status", hint);
  root.append(grid, status);

  const panes = {};
  for (const [name, heading, makePane] of EXPLORER_PANES) {
    const section = el_("section", `tt-box tt-box-${name}`);
    const box = el_("div", `tt-pane tt-${name}-pane`);
    section.append(el_("h4", "tt-heading", heading), box);
    grid.appendChild(section);
    panes[name] = { box, ...makePane(box, model, root) };
  }

  const lit = lighter("tt-lit");
  let selection = null;                      // the detail of the last tt-select, while a row is selected
  let asked = null;                          // the row the kernel was last asked to draw

  function lightSelection() {
    lit.clear();
    if (!selection) {
      status.textContent = hint;
      return;
    }
    const storageBox = panes.storage.box;
    let drawn = 0;
    for (const sid of selection.storages) {
      const views = storageBox.querySelectorAll(`g.tt-view[data-storage="${CSS.escape(sid)}"]`);
      lit.light(views);
      lit.light(storageBox.querySelectorAll(`rect.tt-cell[data-storage="${CSS.escape(sid)}"]`));
      if (views.length) drawn += 1;
    }
    const node = selection.node && panes.graph.byId(selection.node);
    if (node) {
      lit.light([node]);
      keepInView(panes.graph.canvas, node);
    }
    const n = selection.storages.length;
    const missing = drawn < n || (selection.node && !node);
    if (missing && asked !== selection.row) {
      asked = selection.row;                 // once per row: the kernel may not be able to (tensors freed)
      model.send({ event: "show_row", row: selection.row });
    }
    status.textContent = `row ${selection.row}: ${n} storage${n === 1 ? "" : "s"}, ${drawn} drawn in the storage pane` +
      (selection.node ? `; graph node ${node ? "lit" : "not drawn"}` : "") +
      (missing && asked === selection.row ? " (asked the kernel to draw them)" : "");
  }

  root.addEventListener("tt-select", (event) => {
    selection = event.detail.row === null ? null : event.detail;
    if (!selection) asked = null;
    lightSelection();
  });

  // Side by side, the graph and storage panes share the width in proportion to what their pictures need
  // to be legible (zoomable's legibleWidth), so a wide graph next to a small storage picture gets the
  // room (explorer.css reads --tt-wide-columns). A pane's need only grows: a live cell redraws small
  // and big pictures in turn, and the panes should not jump each time.
  const need = { graph: 300, storage: 300 };
  function shareWidth() {
    for (const name of Object.keys(need)) {
      const { box, canvas, zoom } = panes[name];
      const frame = box.parentElement.offsetWidth - canvas.clientWidth;   // borders, padding, scrollbar
      need[name] = Math.max(need[name], Math.min(1400, zoom.legibleWidth() + frame));
    }
    grid.style.setProperty("--tt-wide-columns",
      `minmax(0, ${Math.round(need.graph)}fr) minmax(0, ${Math.round(need.storage)}fr)`);
  }
  shareWidth();

  // New pictures replace the lit elements: light the selection again in them.
  return watchTraits(model, root, Object.values(panes), () => {
    shareWidth();
    lightSelection();
  });
}
