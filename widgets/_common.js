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
// A "pane" is one picture: an object {traits: [...names], draw(changed), destroy()?} made by storagePane,
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
    for (const pane of panes) if (pane.destroy) pane.destroy();   // timers, observers
  };
}

// A widget with one pane (StorageView, GraphView, TraceView): root, pane, listeners.
function mountSingle(el, model, kind, makePane) {
  const root = makeRoot(el, kind, model);
  const box = el_("div", `tt-pane tt-${kind}-pane`);
  root.appendChild(box);
  return watchTraits(model, root, [makePane(box, model, root)]);
}

// ---- fitting a picture to its pane, zoom and pan ------------------------------------------------------
//
// The graph and storage pictures are SVGs with a natural size (Graphviz writes it in pt, the storage
// renderer in px). By default a picture is fitted to its pane's width: scaled down, never up past 1:1,
// so nothing is cut off at the right edge. But text must stay readable, so fitting never draws any text
// of the picture smaller than MIN_TEXT_PX: past that the pane scrolls, and the student pans or zooms
// rather than squints. (Both pictures draw their small print, cell numbers and edge labels, at about
// 9 to 12 px and their names and values a quarter larger; at the limit those are still 8.5 px or more.)
//
// The wheel: a plain wheel scrolls, as everywhere in JupyterLab (the notebook, or the pane when the
// picture overflows it); ctrl/⌘ + wheel over the picture zooms around the pointer, and so does a
// trackpad pinch, which the browser sends as a wheel event with ctrlKey set. A mouse drag pans, a
// double-click (or the "fit" button) goes back to the fitted view. Once the student zooms, their zoom
// is kept across redraws (a live cell pushes new pictures several times a second) until they fit again.

const MIN_TEXT_PX = 7;
const MAX_ZOOM = 8;

// A length attribute of an SVG ("813pt", "547.12", "20px") in CSS pixels (1pt = 4/3 px).
function svgLength(value) {
  const m = /^\s*([\d.]+)\s*(pt|px)?\s*$/.exec(value || "");
  if (!m) return 0;
  return parseFloat(m[1]) * (m[2] === "pt" ? 4 / 3 : 1);
}

// The size of a picture at 1:1, and the on-screen size of its smallest text there.
function measureSvg(svg) {
  const viewBox = svg.viewBox && svg.viewBox.baseVal;
  const width = svgLength(svg.getAttribute("width")) || (viewBox && viewBox.width) || 0;
  const height = svgLength(svg.getAttribute("height")) || (viewBox && viewBox.height) || 0;
  const unitPx = viewBox && viewBox.width ? width / viewBox.width : 1;    // CSS px per SVG unit at 1:1
  let smallest = Infinity;
  for (const t of svg.querySelectorAll("text")) {
    const s = parseFloat(t.getAttribute("font-size") || getComputedStyle(t).fontSize);
    if (s > 0 && s < smallest) smallest = s;
  }
  return { width, height, textPx: smallest < Infinity ? smallest * unitPx : 0 };
}

// Make the SVG inside `canvas` (a div with overflow: auto) fit, zoom and pan. `bar`, if given, gets the
// buttons fit / − / + and a label with the zoom. Call replace(fn) to swap the picture: it runs fn
// (which puts the new SVG in) and fits or re-applies the zoom, keeping the pane where it was scrolled.
// canvas.dataset.zoom holds the scale (1 = natural size) and data-fitted="1" while fitted, for tests.
function zoomable(canvas, bar) {
  let svg = null;
  let size = null;                           // measureSvg of the current picture
  let scale = 1;
  let userScale = null;                      // set when the student zoomed; null: follow the fit
  let lastWidth = 0;
  canvas.classList.add("tt-zoomable");

  const label = el_("span", "tt-zoom-label");
  if (bar) {
    for (const [action, symbol, hint] of [["fit", "fit", "fit the picture to the pane (double-click)"],
                                          ["out", "−", "zoom out (ctrl + wheel)"],
                                          ["in", "+", "zoom in (ctrl + wheel)"]]) {
      const b = el_("button", "tt-button tt-zoom-button", symbol);
      b.type = "button";
      b.dataset.zoom = action;
      b.title = hint;
      b.setAttribute("aria-label", hint);
      bar.appendChild(b);
    }
    bar.appendChild(label);
    bar.addEventListener("click", (event) => {
      const b = event.target.closest("button[data-zoom]");
      if (!b) return;
      if (b.dataset.zoom === "fit") fit();
      else zoomAround(scale * (b.dataset.zoom === "in" ? 1.25 : 0.8));
    });
  }

  // The smallest scale at which every text is at least MIN_TEXT_PX (at most 1:1).
  const legibleScale = () => (size && size.textPx ? Math.min(1, MIN_TEXT_PX / size.textPx) : 0);

  // The scale that shows the whole width, but not smaller than the legible one, nor larger than 1:1.
  function fittedScale() {
    const room = canvas.clientWidth;         // without the scrollbar (CSS: scrollbar-gutter: stable)
    if (!size || !size.width || !room) return 1;
    return Math.max(legibleScale(), Math.min(1, room / size.width));
  }

  function apply(s) {
    scale = s;
    if (svg && size && size.width) {
      svg.style.width = `${size.width * s}px`;
      svg.style.height = `${size.height * s}px`;
    }
    canvas.dataset.zoom = s.toFixed(3);
    canvas.dataset.fitted = userScale === null ? "1" : "0";
    label.textContent = svg ? `${Math.round(s * 100)}%` : "";
  }

  function fit() {
    userScale = null;
    apply(fittedScale());
    canvas.scrollLeft = canvas.scrollTop = 0;
  }

  // Zoom to scale s keeping the picture's point under (clientX, clientY) where it is (default: the
  // middle of the pane). Zooming out stops where the whole picture shows, however small the text.
  function zoomAround(s, clientX, clientY) {
    if (!svg || !size || !size.width) return;
    const tallest = parseFloat(getComputedStyle(canvas).maxHeight) || canvas.clientHeight;
    const lowest = Math.min(fittedScale(), canvas.clientWidth / size.width, tallest / size.height);
    s = Math.max(lowest, Math.min(MAX_ZOOM, s));
    const box = canvas.getBoundingClientRect();
    const x = (clientX === undefined ? box.left + canvas.clientWidth / 2 : clientX) - box.left - canvas.clientLeft;
    const y = (clientY === undefined ? box.top + canvas.clientHeight / 2 : clientY) - box.top - canvas.clientTop;
    const px = (canvas.scrollLeft + x) / scale;  // the point, in picture units at 1:1
    const py = (canvas.scrollTop + y) / scale;
    userScale = s;
    apply(s);
    canvas.scrollLeft = px * s - x;
    canvas.scrollTop = py * s - y;
  }

  function replace(putPicture) {
    const left = canvas.scrollLeft;
    const top = canvas.scrollTop;
    putPicture();
    svg = canvas.querySelector(":scope > svg");
    size = svg ? measureSvg(svg) : null;
    apply(userScale === null ? fittedScale() : userScale);
    canvas.scrollLeft = left;
    canvas.scrollTop = top;
  }

  canvas.addEventListener("wheel", (event) => {
    if (!(event.ctrlKey || event.metaKey) || !svg) return;   // a plain wheel scrolls
    event.preventDefault();                  // ... and this one must not zoom the whole page
    const dy = event.deltaY * (event.deltaMode === 1 ? 16 : 1);   // Firefox may count lines, not pixels
    zoomAround(scale * Math.exp(-dy * 0.002), event.clientX, event.clientY);
  }, { passive: false });

  canvas.addEventListener("dblclick", (event) => {
    if (!svg) return;
    event.preventDefault();
    fit();
  });

  // Drag to pan (mouse only: touch and pen scroll the pane natively). The drag starts after a few pixels,
  // so a plain click or a hover is left alone.
  let drag = null;
  canvas.addEventListener("pointerdown", (event) => {
    if (event.pointerType !== "mouse" || event.button !== 0 || !svg) return;
    // Not on the pane's own scrollbars, nor on its resize handle (the bottom-right corner).
    const box = canvas.getBoundingClientRect();
    const x = event.clientX - box.left - canvas.clientLeft;
    const y = event.clientY - box.top - canvas.clientTop;
    if (x >= canvas.clientWidth || y >= canvas.clientHeight) return;
    if (x >= canvas.clientWidth - 16 && y >= canvas.clientHeight - 16) return;
    drag = { x: event.clientX, y: event.clientY, left: canvas.scrollLeft, top: canvas.scrollTop, moving: false };
  });
  canvas.addEventListener("pointermove", (event) => {
    if (!drag) return;
    if (!(event.buttons & 1)) return endDrag();       // released outside the pane before the drag began
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.moving && Math.hypot(dx, dy) < 4) return;
    if (!drag.moving) {
      drag.moving = true;
      canvas.setPointerCapture(event.pointerId);
      canvas.classList.add("tt-dragging");
    }
    canvas.scrollLeft = drag.left - dx;
    canvas.scrollTop = drag.top - dy;
  });
  const endDrag = () => {
    drag = null;
    canvas.classList.remove("tt-dragging");
  };
  canvas.addEventListener("pointerup", endDrag);
  canvas.addEventListener("pointercancel", endDrag);

  // The pane gets narrower or wider (a resized notebook, the explorer going from side by side to
  // stacked): fit again, unless the student chose a zoom. Only the width matters; the height follows
  // the picture.
  const observer = new ResizeObserver(() => {
    if (canvas.clientWidth === lastWidth) return;
    lastWidth = canvas.clientWidth;
    if (userScale === null) apply(fittedScale());
  });
  observer.observe(canvas);

  return {
    replace,
    fit,
    zoomAround,
    // The narrowest pane that shows this picture whole with legible text (the explorer shares its width
    // out by it).
    legibleWidth: () => (size && size.width ? size.width * (legibleScale() || 1) : 0),
    destroy: () => observer.disconnect(),
  };
}
