// Shared by every teachtorch widget.
//
// How the front end is put together: teachtorch/explorer/frontend.py joins the files of widgets/ in the
// order _common.js, storage_view.js, graph_view.js, trace_view.js, explorer.js into one ES module per
// widget, and adds the only line that exports: a render({model, el}) that calls mountStorage,
// mountGraph, mountTrace or mountExplorer. So each file just defines functions; no bundler, no npm,
// nothing loaded from the internet.
//
// Python pushes pictures as traits (storage_svg, graph_svg, graph_steps, trace_rows, ...); the browser
// draws them and handles every interaction (hover, stepping, selecting) by itself, so the widget keeps
// responding while the kernel is busy running a cell.
//
// A "pane" is one picture: an object {traits: [...names], draw(changed)} made by storagePane,
// graphPane or tracePane. watchTraits() below redraws a pane when one of its traits changes.

// A new element: el_("div", "tt-note", "some text").
function el_(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// The root of a widget: <div class="tt-widget tt-KIND" data-seq="N">, with the title on top.
// data-seq counts the pictures Python pushed (tests and curious students can watch it grow).
function makeRoot(el, kind, model) {
  const root = el_("div", `tt-widget tt-${kind}`);
  root.appendChild(el_("div", "tt-title"));
  el.appendChild(root);
  showHeader(root, model);
  return root;
}

function showHeader(root, model) {
  root.dataset.seq = String(model.get("seq") || 0);
  const title = root.querySelector(":scope > .tt-title");
  title.textContent = model.get("title") || "";
  title.hidden = !title.textContent;
}

// Put an SVG string (from a Python renderer) into a container, or a short message when there is none.
function setSvg(container, svg, emptyMessage) {
  if (svg) container.innerHTML = svg;
  else container.replaceChildren(el_("div", "tt-empty", emptyMessage));
}

// Adds a class to some elements and remembers them, so clearing costs only what was lit.
function lighter(cls) {
  let lit = [];
  return {
    light(elements) {
      for (const e of elements) { e.classList.add(cls); lit.push(e); }
    },
    clear() {
      for (const e of lit) e.classList.remove(cls);
      lit = [];
    },
  };
}

// Scroll `scroller` (a pane with overflow: auto) just enough to show `target`; the page itself stays put.
function keepInView(scroller, target) {
  const box = scroller.getBoundingClientRect();
  const r = target.getBoundingClientRect();
  const margin = 16;
  if (r.top < box.top) scroller.scrollTop -= box.top - r.top + margin;
  else if (r.bottom > box.bottom) scroller.scrollTop += r.bottom - box.bottom + margin;
  if (r.left < box.left) scroller.scrollLeft -= box.left - r.left + margin;
  else if (r.right > box.right) scroller.scrollLeft += r.right - box.right + margin;
}

// Listen to the model and redraw. seq and title are cheap: shown at once. Picture traits are redrawn at
// the next animation frame, once per pane however many of its traits changed in one push (graph_svg and
// graph_steps arrive together), and not at all while the browser tab is hidden. `afterDraw` runs after
// each redraw. Returns the cleanup function anywidget calls when the view goes away.
function watchTraits(model, root, panes, afterDraw) {
  const pending = new Set();
  let frame = 0;

  function flush() {
    frame = 0;
    for (const pane of panes) {
      const changed = new Set(pane.traits.filter((t) => pending.has(t)));
      if (changed.size) pane.draw(changed);
    }
    pending.clear();
    if (afterDraw) afterDraw();
  }

  function changed(name) {
    if (name === "seq" || name === "title") {
      showHeader(root, model);
      return;
    }
    pending.add(name);
    if (!frame) frame = requestAnimationFrame(flush);
  }

  const names = new Set(["seq", "title", ...panes.flatMap((p) => p.traits)]);
  const handlers = [...names].map((name) => [`change:${name}`, () => changed(name)]);
  for (const [event, handler] of handlers) model.on(event, handler);
  return () => {
    for (const [event, handler] of handlers) model.off(event, handler);
    if (frame) cancelAnimationFrame(frame);
  };
}

// A widget with one pane (StorageView, GraphView, TraceView): root, pane, listeners.
function mountSingle(el, model, kind, makePane) {
  const root = makeRoot(el, kind, model);
  const box = el_("div", `tt-pane tt-${kind}-pane`);
  root.appendChild(box);
  return watchTraits(model, root, [makePane(box, model, root)]);
}
