// Shared by every teachtorch widget. The files of widgets/ are joined in order into one ES module per
// widget by teachtorch/explorer/frontend.py (no bundler, nothing from the internet); only the generated
// last line exports. Python pushes the pictures as traits; everything here runs in the browser, so it
// responds even while the kernel is busy.

// The root element of a widget: its class names the kind, data-seq counts the pictures Python pushed.
function makeRoot(el, kind, model) {
  const root = document.createElement("div");
  root.className = `tt-widget tt-${kind}`;
  root.dataset.seq = String(model.get("seq"));
  el.appendChild(root);
  return root;
}

// Listen to trait changes; returns the function that stops listening (anywidget calls it on cleanup).
function onChanges(model, names, callback) {
  const handlers = names.map((name) => {
    const h = () => callback(name);
    model.on(`change:${name}`, h);
    return [name, h];
  });
  return () => handlers.forEach(([name, h]) => model.off(`change:${name}`, h));
}

// A titled pane holding an SVG string (or a message when there is nothing yet).
function setSvg(container, svg, empty) {
  container.innerHTML = svg || `<div class="tt-empty">${empty}</div>`;
}

function el_(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// Add `cls` to the elements matching `selector` under `scope`, remembering them so clear() is cheap.
function lighter(scope, cls) {
  let lit = [];
  return {
    light(selector) {
      scope.querySelectorAll(selector).forEach((e) => { e.classList.add(cls); lit.push(e); });
    },
    clear() { lit.forEach((e) => e.classList.remove(cls)); lit = []; },
  };
}

// Several traits change together in one push (graph_svg and graph_steps, say): redraw each pane once,
// at the next animation frame, however many of its traits changed.
function redrawOnce(draws) {
  const pending = new Set();
  let scheduled = false;
  return (name) => {
    pending.add(name);
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      const names = Array.from(pending);
      pending.clear();
      names.forEach((n) => draws[n]());
    });
  };
}

// A widget that shows one pane (StorageView, GraphView, TraceView): the root, the pane, and redraws
// when any of the pane's traits change.
function mountSingle(el, model, kind, mountPane, traits) {
  const root = makeRoot(el, kind, model);
  const pane = el_("div", `tt-pane tt-${kind}-pane`);
  root.appendChild(pane);
  const redraw = redrawOnce({ pane: mountPane(pane, model) });
  return onChanges(model, ["seq", ...traits], (name) => {
    if (name === "seq") root.dataset.seq = String(model.get("seq"));
    else redraw("pane");
  });
}
