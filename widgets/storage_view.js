// Storage view: the SVG of teachtorch/explorer/storage_diagram.py, plus hover.
//
// In the SVG every logical element of a tensor, <rect class="tt-elem" data-cell="c"> inside
// <g class="tt-view" data-storage="SID">, names the storage cell it lives in (offset + sum(index * stride));
// the flat storage strip has one <rect class="tt-cell" data-storage="SID" data-cell="c"> per cell.
// Hovering an element lights (class tt-hot) its cell and every element of every view tied to that cell;
// hovering a cell lights the elements that read it. A transpose reads the same cells in another order,
// a slice skips some, an expanded (stride 0) dim reads one cell many times: the hover shows each of them.
// The picture is fitted to the pane and zooms and pans (zoomable, in _common.js).

// "SID/c" -> the cell and the elements tied to it. Built once per picture, so a hover costs only what it
// lights, not a search through the whole picture.
function indexStorageCells(container) {
  const byCell = new Map();
  const add = (key, e) => {
    const list = byCell.get(key);
    if (list) list.push(e);
    else byCell.set(key, [e]);
  };
  for (const view of container.querySelectorAll("g.tt-view[data-storage]")) {
    for (const e of view.querySelectorAll("rect.tt-elem")) add(`${view.dataset.storage}/${e.dataset.cell}`, e);
  }
  for (const c of container.querySelectorAll("rect.tt-cell")) add(`${c.dataset.storage}/${c.dataset.cell}`, c);
  return byCell;
}

// The key of a hovered element or cell, and a line saying what it is.
function describeHovered(target) {
  if (target.matches("rect.tt-cell")) {
    return { key: `${target.dataset.storage}/${target.dataset.cell}`, text: `storage cell ${target.dataset.cell}` };
  }
  const view = target.closest("g.tt-view");
  const index = target.dataset.index ? `[${target.dataset.index.replaceAll(",", ", ")}]` : " (0-d)";
  return {
    key: `${view.dataset.storage}/${target.dataset.cell}`,
    text: `${view.dataset.label || "tensor"}${index} lives in storage cell ${target.dataset.cell}`,
  };
}

function storagePane(box, model) {
  const bar = el_("div", "tt-toolbar");
  const readout = el_("div", "tt-readout", "hover an element or a storage cell");
  const zoomBar = el_("span", "tt-zoom-bar");
  bar.append(readout, zoomBar);
  const canvas = el_("div", "tt-canvas tt-storage-canvas");
  box.append(bar, canvas);
  const zoom = zoomable(canvas, zoomBar);
  const hot = lighter("tt-hot");
  let byCell = new Map();
  let hotKey = null;

  function unhover() {
    hot.clear();
    hotKey = null;
  }

  canvas.addEventListener("mouseover", (event) => {
    const target = event.target.closest("rect.tt-elem, rect.tt-cell");
    if (!target) return unhover();
    const { key, text } = describeHovered(target);
    if (key === hotKey) return;
    unhover();
    hotKey = key;
    const tied = byCell.get(key) || [target];
    hot.light(tied);
    const readers = tied.filter((e) => e.matches("rect.tt-elem")).length;
    readout.textContent = `${text}; ${readers} element${readers === 1 ? "" : "s"} read it`;
  });
  canvas.addEventListener("mouseleave", unhover);

  function draw() {
    unhover();
    zoom.replace(() => setSvg(canvas, model.get("storage_svg"), "no tensors to draw yet"));
    byCell = indexStorageCells(canvas);
  }
  draw();
  return { traits: ["storage_svg"], draw, destroy: zoom.destroy, zoom, canvas };
}

function mountStorage(el, model) {
  return mountSingle(el, model, "storage", storagePane);
}
