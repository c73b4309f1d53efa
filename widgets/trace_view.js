// Trace view: the rows of teachtorch/explorer/trace_table.py (trace_rows) as an HTML table.
//
// One row per op call: the aten op, its path through the dispatch keys to the kernel (AutogradCPU → CPU),
// the shapes and strides of its inputs → outputs, dtype, device, the storages it touched, its time, and
// ×count when a loop repeated it (trace_rows folds repeats). Forward and backward calls are in separate
// sections. Clicking a row selects it (class tt-selected; a second click deselects) and dispatches a
// bubbling CustomEvent "tt-select" on the widget root with detail {storages: [ids], node: "n.." | null,
// row: i}; the explorer listens to it to light the tensors and the graph node the op belongs to.
// The table fits its pane's width: long cells end in "…" (their tooltip has the whole text), and in a
// narrow pane the strides, dtype and device columns are left out (the row's tooltip still has them).

const TRACE_COLUMNS = ["op", "path", "shapes", "strides", "dtype", "device", "storages", "time", "count"];

const shapeOf = (t) => `[${t.sizes.join(", ")}]`;
const stridesOf = (t) => `(${t.strides.join(", ")})`;
const distinct = (values) => [...new Set(values)].join(", ");

// "[3, 4], [4] → [3, 4]": inputs, then outputs.
function arrowJoin(row, fmt) {
  const ins = row.inputs.map(fmt).join(", ");
  const outs = row.outputs.map(fmt).join(", ");
  return outs ? `${ins} → ${outs}` : ins;
}

// Storage ids are long numbers; the table calls them s0, s1, ... in order of first use.
function storageNamer() {
  const names = new Map();
  return (sid) => {
    if (!names.has(sid)) names.set(sid, `s${names.size}`);
    return names.get(sid);
  };
}

// "84.1 µs", or "12.3 ms" from 1 ms on: a folded row's time is the sum of all its repeats.
function formatTime(us) {
  const t = Number(us);
  return t >= 1000 ? `${(t / 1000).toFixed(1)} ms` : `${t.toFixed(1)} µs`;
}

function traceCells(row, nameOf) {
  const tensors = row.inputs.concat(row.outputs);
  return [
    row.op,
    row.path.map((hop) => hop.key).join(" → "),
    arrowJoin(row, shapeOf),
    arrowJoin(row, stridesOf),
    distinct(tensors.map((t) => t.dtype)),
    distinct(tensors.map((t) => t.device)),
    row.storages.map(nameOf).join(" "),
    formatTime(row.time_us),
    row.count > 1 ? `×${row.count}` : "",
  ];
}

// The tooltip: the LoggingTensor line, then each hop with its kernel and time, then the ops it called.
function traceTooltip(row) {
  const lines = [row.text];
  if (row.backward_node) lines.push(`in backward, for ${row.backward_node}`);
  for (const hop of row.path) lines.push(`  ${hop.key}: ${hop.kernel} (${hop.us} µs)`);
  for (const call of row.calls || []) lines.push(`  calls ${typeof call === "string" ? call : call.op}`);
  if (row.error) lines.push(`error: ${row.error}`);
  return lines.join("\n");
}

// Is rows[j] in the same folded loop body as `row`? (The body's rows are consecutive.)
const sameFold = (row, other) => Boolean(other && other.fold && other.fold.block === row.fold.block);

function traceRow(rows, i, nameOf) {
  const row = rows[i];
  const tr = el_("tr", "tt-row");
  tr.dataset.row = String(i);
  tr.dataset.section = row.section;
  tr.dataset.count = String(row.count);
  tr.dataset.storages = row.storages.join(" ");
  const node = row.backward_node_id || row.node_id;    // backward: the node it ran for; forward: the output's
  if (node) tr.dataset.node = node;
  if (row.fold) {
    // The rows of one folded loop body are bracketed together.
    tr.classList.add("tt-folded");
    if (!sameFold(row, rows[i - 1])) tr.classList.add("tt-fold-start");
    if (!sameFold(row, rows[i + 1])) tr.classList.add("tt-fold-end");
  }
  if (row.error) tr.classList.add("tt-error");
  tr.title = traceTooltip(row);
  const cells = traceCells(row, nameOf);
  cells.forEach((text, c) => tr.appendChild(el_("td", `tt-col-${TRACE_COLUMNS[c]}`, text)));
  tr.children[TRACE_COLUMNS.indexOf("storages")].title = row.storages.map((s) => `${nameOf(s)} = storage ${s}`).join("\n");
  return tr;
}

function sectionRow(section) {
  const tr = el_("tr", "tt-section");
  tr.dataset.section = section;
  const th = el_("th", "", section === "backward" ? "backward (run by loss.backward())" : section);
  th.colSpan = TRACE_COLUMNS.length;
  tr.appendChild(th);
  return tr;
}

function tracePane(box, model, root) {
  const canvas = el_("div", "tt-canvas tt-trace-canvas");
  const table = el_("table", "tt-trace-table");
  // One <col> per column: the CSS gives the short columns a fixed width and shares the rest out, so the
  // table always fits its pane (long cells end in "…") and ×count is never cut off.
  const cols = el_("colgroup");
  for (const c of TRACE_COLUMNS) cols.appendChild(el_("col", `tt-col-${c}`));
  const head = el_("thead");
  const headRow = el_("tr");
  for (const c of TRACE_COLUMNS) headRow.appendChild(el_("th", `tt-col-${c}`, c === "count" ? "×count" : c));
  head.appendChild(headRow);
  const body = el_("tbody");
  table.append(cols, head, body);
  const note = el_("div", "tt-note");
  canvas.appendChild(table);
  box.append(canvas, note);
  let selected = null;

  function select(tr) {
    if (selected) selected.classList.remove("tt-selected");
    selected = tr;
    if (tr) tr.classList.add("tt-selected");
    const detail = tr
      ? { storages: tr.dataset.storages ? tr.dataset.storages.split(" ") : [], node: tr.dataset.node || null,
          row: Number(tr.dataset.row) }
      : { storages: [], node: null, row: null };
    root.dispatchEvent(new CustomEvent("tt-select", { bubbles: true, detail }));
  }

  // A cell cut short by its column shows its whole text in the tooltip (above the row's own tooltip).
  body.addEventListener("mouseover", (event) => {
    const td = event.target.closest("td");
    if (!td || td.classList.contains("tt-col-storages")) return;     // that one has its own tooltip
    if (td.scrollWidth > td.clientWidth) td.title = `${td.textContent}\n\n${td.parentElement.title}`;
    else td.removeAttribute("title");
  });

  body.addEventListener("click", (event) => {
    const tr = event.target.closest("tr.tt-row");
    if (tr) select(tr === selected ? null : tr);
  });

  function draw() {
    if (selected) select(null);              // the rows are new: nothing is selected any more
    const rows = model.get("trace_rows") || [];
    const nameOf = storageNamer();
    const notes = [];
    const fragment = document.createDocumentFragment();
    let section = null;
    rows.forEach((row, i) => {
      if (row.section === "note") return notes.push(row.note || row.text);
      if (row.section !== section) fragment.appendChild(sectionRow((section = row.section)));
      fragment.appendChild(traceRow(rows, i, nameOf));
    });
    body.replaceChildren(fragment);
    if (model.get("trace_note")) notes.push(model.get("trace_note"));
    if (!rows.length) notes.push("no ops traced yet");
    note.textContent = notes.join("  ");
  }
  draw();
  return { traits: ["trace_rows", "trace_note"], draw };
}

function mountTrace(el, model) {
  return mountSingle(el, model, "trace", tracePane);
}
