// Trace view: the rows from teachtorch/explorer/trace_table.py as an HTML table, forward and backward
// sections, loops folded into counted rows. Clicking a row selects it and tells the widget (a bubbling
// "tt-select" event with the storages the op touched and the graph node it ran for), so the explorer
// can light those tensors and that node.

function shapeText(ts) {
  return ts.map((t) => "[" + t.sizes.join(",") + "]").join(", ");
}

function traceCells(row, storageNames) {
  const ts = row.inputs.concat(row.outputs);
  const uniq = (xs) => Array.from(new Set(xs)).sort().join(",");
  return [
    row.op + (row.backward_node ? `  (${row.backward_node})` : ""),
    row.path.map((h) => h.key).join(" → "),
    shapeText(row.inputs) + (row.outputs.length ? " → " + shapeText(row.outputs) : ""),
    ts.map((t) => "(" + t.strides.join(",") + ")").join(" "),
    uniq(ts.map((t) => t.dtype)),
    uniq(ts.map((t) => t.device)),
    row.storages.map((s) => storageNames.get(s)).join(" "),
    row.time_us.toFixed(1) + " us",
    row.count > 1 ? "×" + row.count : "",
  ];
}

const TRACE_COLUMNS = ["op", "path", "shapes", "strides", "dtype", "device", "storages", "time", "count"];

function mountTracePane(pane, model) {
  const table = el_("table", "tt-trace-table");
  const note = el_("div", "tt-note");
  pane.append(table, note);
  let selected = null;

  function draw() {
    const rows = model.get("trace_rows") || [];
    const storageNames = new Map();      // storage ids are long numbers: call them s0, s1, ...
    rows.forEach((r) => r.storages.forEach((s) => { if (!storageNames.has(s)) storageNames.set(s, "s" + storageNames.size); }));
    const head = "<thead><tr>" + TRACE_COLUMNS.map((c) => `<th>${c}</th>`).join("") + "</tr></thead>";
    const body = document.createElement("tbody");
    let section = null;
    rows.forEach((row, i) => {
      if (row.section === "note") {
        note.textContent = row.note;
        return;
      }
      if (row.section !== section) {
        section = row.section;
        const tr = el_("tr", "tt-section");
        tr.dataset.section = section;
        const td = el_("td", "", section);
        td.colSpan = TRACE_COLUMNS.length;
        tr.appendChild(td);
        body.appendChild(tr);
      }
      const tr = el_("tr", "tt-row" + (row.fold ? " tt-folded" : ""));
      tr.dataset.row = String(i);
      tr.dataset.count = String(row.count);
      tr.dataset.section = row.section;
      tr.dataset.storages = row.storages.join(" ");
      if (row.backward_node_id) tr.dataset.node = row.backward_node_id;
      tr.title = row.text + (row.path.length ? "\n" + row.path.map((h) => `${h.key}: ${h.kernel} (${h.us} us)`).join("\n") : "");
      traceCells(row, storageNames).forEach((text) => tr.appendChild(el_("td", "", text)));
      body.appendChild(tr);
    });
    table.innerHTML = head;
    table.appendChild(body);
    if (!rows.some((r) => r.section === "note")) note.textContent = model.get("trace_note") || "";
    if (rows.length === 0) note.textContent = "no ops traced yet";
    selected = null;
  }

  table.addEventListener("click", (event) => {
    const tr = event.target.closest("tr.tt-row");
    if (!tr) return;
    const same = tr === selected;
    if (selected) selected.classList.remove("tt-selected");
    selected = same ? null : tr;
    if (selected) selected.classList.add("tt-selected");
    const detail = selected
      ? { storages: tr.dataset.storages ? tr.dataset.storages.split(" ") : [], node: tr.dataset.node || null,
          row: Number(tr.dataset.row) }
      : { storages: [], node: null, row: null };
    pane.dispatchEvent(new CustomEvent("tt-select", { bubbles: true, detail }));
  });
  draw();
  return draw;
}

function mountTrace(el, model) {
  return mountSingle(el, model, "trace", mountTracePane, ["trace_rows", "trace_note"]);
}
