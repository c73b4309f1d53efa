// Storage view: the SVG from teachtorch/explorer/storage_diagram.py, plus hover. Hover a logical element
// (rect.tt-elem) to light the storage cell it lives in and every other element tied to that cell; hover a
// storage cell (rect.tt-cell) to light every element that reads it.

function attachStorageHover(pane) {
  const hot = lighter(pane, "tt-hot");
  const cellSelector = (sid, cell) =>
    `rect.tt-cell[data-storage="${sid}"][data-cell="${cell}"], ` +
    `g.tt-view[data-storage="${sid}"] rect.tt-elem[data-cell="${cell}"]`;
  pane.addEventListener("mouseover", (event) => {
    const target = event.target;
    hot.clear();
    if (target.matches("rect.tt-elem")) {
      const sid = target.closest("g.tt-view").dataset.storage;
      hot.light(cellSelector(sid, target.dataset.cell));
    } else if (target.matches("rect.tt-cell")) {
      hot.light(cellSelector(target.dataset.storage, target.dataset.cell));
    }
  });
  pane.addEventListener("mouseleave", () => hot.clear());
}

function mountStoragePane(pane, model) {
  const draw = () => setSvg(pane, model.get("storage_svg"), "no tensors to draw yet");
  draw();
  attachStorageHover(pane);
  return draw;
}

function mountStorage(el, model) {
  return mountSingle(el, model, "storage", mountStoragePane, ["storage_svg"]);
}
