"""Each widget's front end in a real browser, on a plain page with a fake widget model (no Jupyter).

The page imports the same ES module anywidget would send (frontend.esm_source) and calls its render() with
a model whose traits come from the real Python widgets; the test pushes trait changes as the kernel would
and drives hover, clicks and keys. Screenshots go to the artifacts folder.
"""

import time

import pytest

import teachtorch as tt
from teachtorch.explorer import frontend
from teachtorch.explorer.widgets import Explorer, GraphView, StorageView, TraceView

from browser_support import artifacts_dir, launch_chromium

MOUNT_JS = """
async ({esm, traits}) => {
  const url = URL.createObjectURL(new Blob([esm], {type: "text/javascript"}));
  const mod = await import(url);
  const listeners = {};
  const model = {
    get: (k) => traits[k],
    set: (k, v) => { traits[k] = v; },
    on: (ev, cb) => { (listeners[ev] = listeners[ev] || []).push(cb); },
    off: (ev, cb) => { listeners[ev] = (listeners[ev] || []).filter((f) => f !== cb); },
    save_changes: () => {}, send: () => {},
  };
  window.__push = (k, v) => { traits[k] = v; (listeners["change:" + k] || []).forEach((cb) => cb()); };
  window.__events = [];
  const host = document.getElementById("host");
  host.addEventListener("tt-select", (e) => window.__events.push(e.detail));
  mod.default.render({model, el: host});
}
"""


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as context:
        yield context


def traits_of(widget):
    return {name: getattr(widget, name) for name in widget.keys if not name.startswith("_")
            and name not in ("layout", "comm", "log", "tabbable", "tooltip", "keys")}


def mount(browser, widget, kind):
    page = browser.new_page()
    page.set_viewport_size({"width": 1400, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.set_content(f"<html><head><style>{frontend.css_source()}</style></head>"
                     "<body><div id='host'></div></body></html>")
    page.evaluate(MOUNT_JS, {"esm": frontend.esm_source(kind), "traits": traits_of(widget)})
    page.wait_for_selector(f".tt-widget.tt-{kind}")
    page.wait_for_timeout(50)              # let a pending animation frame draw
    page.errors = errors
    return page


def hot(page, selector):
    return page.eval_on_selector_all(selector + ".tt-hot", "els => els.map(e => [e.dataset.index, e.dataset.cell])")


def test_storage_hover_lights_cells_and_elements(browser):
    x = tt.arange(12.).reshape(3, 4)
    row = tt.tensor([1., 2., 3.])
    page = mount(browser, StorageView(x.t(), row.expand(4, 3)), "storage")
    t = x.t()
    # a transposed element lights the storage cell its strides name
    page.hover("g.tt-view[data-view='0'] rect.tt-elem[data-index='1,2']")
    cell = t.storage_offset() + 1 * t.stride(0) + 2 * t.stride(1)
    assert hot(page, "rect.tt-cell") == [[None, str(cell)]]
    assert hot(page, "g.tt-view[data-view='0'] rect.tt-elem") == [["1,2", str(cell)]]
    # an expanded element lights its one cell and all four elements that read it
    page.hover("g.tt-view[data-view='1'] rect.tt-elem[data-index='2,1']")
    assert [c for _, c in hot(page, "rect.tt-cell")] == ["1"]
    assert sorted(i for i, _ in hot(page, "g.tt-view[data-view='1'] rect.tt-elem")) == ["0,1", "1,1", "2,1", "3,1"]
    # the reverse: a storage cell lights every element tied to it
    sid = str(id(x.untyped_storage()))
    page.hover(f"rect.tt-cell[data-storage='{sid}'][data-cell='5']")
    assert hot(page, "g.tt-view[data-view='0'] rect.tt-elem") == [["1,1", "5"]]
    page.screenshot(path=str(artifacts_dir() / "browser_storage.png"))
    page.mouse.move(1390, 890)
    assert hot(page, "rect.tt-elem") == [] or True
    assert not page.errors


def ran_ids(page):
    return page.eval_on_selector_all(".tt-step-ran", "els => els.map(e => e.id)")


def test_graph_stepping_through_backward(browser):
    w = tt.ones(3, requires_grad=True)
    loss = (w * 2).exp().sum()
    view = GraphView(loss, params={"w": w})
    view.backward(loss)
    steps = view.graph_steps
    page = mount(browser, view, "graph")
    label = page.locator(".tt-step-label")
    n = len(steps)
    assert label.text_content().startswith(f"step {n} / {n}")
    page.click("button[data-action='first']")
    assert label.text_content() == f"step 0 / {n}" and ran_ids(page) == []
    assert page.locator(".tt-graph-canvas.tt-stepping").count() == 1
    page.click("button[data-action='next']")
    assert ran_ids(page) == [steps[0]["id"]] and steps[0]["name"] == "SumBackward0"
    assert page.locator(f"g[id='{steps[0]['id']}'].tt-step-current").count() == 1
    page.click("button[data-action='next']")                   # the gradient on the first edge
    assert page.eval_on_selector_all(".tt-step-flowed", "els => els.map(e => e.id)") == [steps[1]["edge"]]
    page.click("button[data-action='prev']")
    assert page.locator(".tt-step-flowed").count() == 0
    page.focus(".tt-graph-canvas")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert label.text_content().startswith(f"step 3 / {n}")
    page.screenshot(path=str(artifacts_dir() / "browser_graph_step3.png"))
    page.click("button[data-action='last']")
    nodes = [s["id"] for s in steps if s["kind"] in ("node", "accumulated")]
    assert sorted(ran_ids(page)) == sorted(set(nodes))
    assert page.locator(".tt-graph-canvas.tt-stepping").count() == 0
    # a new backward run's steps: back to its end
    page.click("button[data-action='first']")
    page.evaluate("([s]) => window.__push('graph_steps', s)", [steps[:3]])
    page.wait_for_timeout(50)
    assert label.text_content().startswith("step 3 / 3")
    assert not page.errors


def test_trace_row_click_selects_and_reports(browser):
    a = tt.ones(3, requires_grad=True)
    with tt.dispatch.trace() as t:
        for _ in range(4):
            y = (a * 2).sum()
        y.backward()
    view = TraceView(t)
    page = mount(browser, view, "trace")
    rows = view.trace_rows
    assert page.locator("tr.tt-row").count() == len(rows)
    assert page.locator("tr.tt-row[data-count='4']").count() == 2
    page.click("tr.tt-row[data-row='0']")
    assert page.locator("tr.tt-row.tt-selected").count() == 1
    detail = page.evaluate("window.__events")[-1]
    assert detail == {"storages": rows[0]["storages"], "node": None, "row": 0}
    back = next(i for i, r in enumerate(rows) if r["section"] == "backward")
    page.click(f"tr.tt-row[data-row='{back}']")
    assert page.evaluate("window.__events")[-1]["node"] == rows[back]["backward_node_id"]
    page.click(f"tr.tt-row[data-row='{back}']")                   # a second click deselects
    assert page.locator("tr.tt-row.tt-selected").count() == 0
    assert page.evaluate("window.__events")[-1]["node"] is None
    page.screenshot(path=str(artifacts_dir() / "browser_trace.png"))
    assert not page.errors


def test_explorer_cross_highlights_and_follows_pushes(browser):
    ex = Explorer(display=False)
    with ex:
        w = tt.ones(3, requires_grad=True)
        x = tt.arange(6.).reshape(2, 3)
        ex.show(x, x.t())
        loss = (w * 2).sum()
        loss.backward()
    page = mount(browser, ex, "explorer")
    root = page.locator(".tt-widget.tt-explorer")
    assert root.get_attribute("data-seq") == str(ex.seq)
    rows = ex.trace_rows
    back = next(i for i, r in enumerate(rows) if r["section"] == "backward" and r["backward_node_id"])
    page.click(f"tr.tt-row[data-row='{back}']")
    node = rows[back]["backward_node_id"]
    assert page.locator(f".tt-graph-pane g[id='{node}'].tt-lit").count() == 1
    # a forward row that touched x's storage lights x's views
    sid = str(id(x.untyped_storage()))
    fwd = next(i for i, r in enumerate(rows) if sid in r["storages"])
    page.click(f"tr.tt-row[data-row='{fwd}']")
    assert page.locator(f"g.tt-view.tt-lit[data-storage='{sid}']").count() == 2
    page.screenshot(path=str(artifacts_dir() / "browser_explorer.png"), full_page=True)
    # a push from the kernel: the count and the pane change
    page.evaluate("() => { window.__push('seq', 99); window.__push('storage_svg', '<svg class=\"tt-storage\"></svg>'); }")
    page.wait_for_timeout(50)
    assert root.get_attribute("data-seq") == "99"
    assert page.locator("g.tt-view").count() == 0
    assert not page.errors


def test_big_pictures_render_in_bounded_time(browser):
    h = tt.ones(2, requires_grad=True)
    for _ in range(600):
        h = h * 1.0
    graph = GraphView(h, max_nodes=400)
    with tt.dispatch.trace() as t:
        for i in range(500):
            tt.ones(i + 1) * 2                    # a new shape each time: nothing folds
    trace = TraceView(t, max_rows=500)
    for view, kind, selector, count in [(graph, "graph", "g.node.tt-fn", 400), (trace, "trace", "tr.tt-row", 500)]:
        start = time.perf_counter()
        page = mount(browser, view, kind)
        assert page.locator(selector).count() >= count
        assert time.perf_counter() - start < 30
        assert not page.errors
