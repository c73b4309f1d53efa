"""Each widget's front end (widgets/*.js) in a real browser: Debian's Chromium, a plain page, a fake model.

The page (tests/browser/harness.py) imports the ES module anywidget would send and renders it from traits
made by the real renderers (storage_svg, graph_svg with a BackwardState, trace_rows), as the Python widgets
would sync them; the tests push trait changes as the kernel would and drive hover, clicks and keys.
Expectations come from the tensors (offset + sum(index * stride)), the backward steps and the trace rows,
not from the front end. Screenshots (and each harness page) go to $TT_ARTIFACTS, default the test's tmp_path.
No page may fetch anything or log an error.
"""

import xml.etree.ElementTree as ET

import pytest

import teachtorch as tt
from teachtorch.explorer.graph_diagram import BackwardState, graph_svg
from teachtorch.explorer.storage_diagram import storage_svg
from teachtorch.explorer.trace_table import trace_rows

from browser.harness import artifacts_dir, launch_chromium, mount_widget

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def context():
    with launch_chromium() as context:
        yield context


@pytest.fixture
def artifacts(tmp_path):
    return artifacts_dir(tmp_path)


@pytest.fixture
def open_widget(context, artifacts):
    """open_widget(kind, traits) -> a WidgetPage; afterwards, no page may have logged errors or gone online."""
    opened = []

    def open_(kind, traits, **options):
        w = mount_widget(context, kind, traits, save_page_to=artifacts / f"harness_{kind}.html", **options)
        opened.append(w)
        return w

    yield open_
    for w in opened:
        w.page.close()
        assert w.errors == [], w.errors
        assert w.blocked == [], w.blocked


# ---- the pictures, from the real renderers ---------------------------------------------------------------

def cell_of(t, index):
    """The storage cell of element `index` of tensor `t`: offset + sum(index_k * stride_k)."""
    return t.storage_offset() + sum(i * s for i, s in zip(index, t.stride()))


def drawn_elements(svg):
    """{view number: (storage id, [drawn element indices as tuples])} read from the storage SVG."""
    out = {}
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        if "tt-view" in g.get("class", "").split():
            idx = [tuple(int(i) for i in r.get("data-index").split(",") if i != "")
                   for r in g.iter(f"{SVG}rect") if "tt-elem" in r.get("class", "").split()]
            out[int(g.get("data-view"))] = (g.get("data-storage"), idx)
    return out


def drawn_cells(svg):
    return {(r.get("data-storage"), int(r.get("data-cell"))) for r in ET.fromstring(svg).iter(f"{SVG}rect")
            if "tt-cell" in r.get("class", "").split()}


def storage_traits():
    x = tt.arange(12.).reshape(3, 4)
    row = tt.tensor([1., 2., 3.])
    cube = tt.arange(24.).reshape(2, 3, 4)
    views = {"x.t()": x.t(),                           # permuted
             "x[1:, ::2]": x[1:, ::2],                 # sliced with a step, offset 4
             "x[1, 2]": x[1, 2],                       # 0-d, offset 6
             "row.expand(4, 3)": row.expand(4, 3),     # stride 0
             "cube.permute(2, 0, 1)": cube.permute(2, 0, 1)}   # >2-D, drawn as slices
    svg = storage_svg(*views.values(), labels=list(views))
    return list(views.values()), {"seq": 3, "title": "views of x, row and cube", "storage_svg": svg}


def backward_traits():
    w = tt.ones(3, requires_grad=True)
    b = tt.ones(3, requires_grad=True)
    loss = ((w * 2).exp() + b).sum()
    state = BackwardState()
    with tt.autograd.graph.listen(state):
        loss.backward()
    svg = graph_svg(loss, params={"w": w, "b": b}, state=state)
    return {"seq": 2, "title": "((w * 2).exp() + b).sum()", "graph_svg": svg, "graph_steps": list(state.steps)}


def trace_traits():
    a = tt.ones(3, requires_grad=True)
    with tt.dispatch.trace() as t:
        for _ in range(4):
            y = (a * 2).sum()
        y.backward()
    return {"seq": 5, "title": "a loop of 4", "trace_rows": trace_rows(t), "trace_note": ""}


def explorer_traits():
    w = tt.ones(3, requires_grad=True)
    state = BackwardState()
    with tt.dispatch.trace() as t:
        x = tt.arange(6.).reshape(2, 3)
        loss = (x.t() * 3).sum() + (x * w).sum()
        with tt.autograd.graph.listen(state):
            loss.backward()
    traits = {"seq": 7, "title": "teachtorch explorer", "storage_svg": storage_svg(x, x.t(), labels=["x", "x.t()"]),
              "graph_svg": graph_svg(loss, params={"w": w}, state=state), "graph_steps": list(state.steps),
              "trace_rows": trace_rows(t), "trace_note": "… 3 more rows"}
    return x, traits


# ---- every widget renders its snapshot, and cleans up --------------------------------------------------

def graph_node_ids(svg):
    return [g.get("id") for g in ET.fromstring(svg).iter(f"{SVG}g") if "node" in g.get("class", "").split()]


@pytest.mark.parametrize("kind", ["storage", "graph", "trace", "explorer"])
def test_each_widget_renders_its_snapshot_and_cleans_up(open_widget, kind):
    traits = {"storage": lambda: storage_traits()[1], "graph": backward_traits, "trace": trace_traits,
              "explorer": lambda: explorer_traits()[1]}[kind]()
    w = open_widget(kind, traits)
    page = w.page
    root = page.locator(f"#host > .tt-widget.tt-{kind}")
    assert root.get_attribute("data-seq") == str(traits["seq"])
    assert root.locator(".tt-title").first.text_content() == traits["title"]
    if "storage_svg" in traits:
        n_elems = sum(len(idx) for _, idx in drawn_elements(traits["storage_svg"]).values())
        assert n_elems > 0 and page.locator("rect.tt-elem").count() == n_elems
    if "graph_svg" in traits:
        assert page.locator("g.node").count() == len(graph_node_ids(traits["graph_svg"])) > 0
        n = len(traits["graph_steps"])
        assert page.locator(".tt-step-label").text_content().startswith(f"step {n} / {n}")
    if "trace_rows" in traits:
        shown = [r for r in traits["trace_rows"] if r["section"] != "note"]
        assert page.locator("tr.tt-row").count() == len(shown) > 0
        assert (traits["trace_note"] or "") in page.locator(".tt-note").text_content()
    # render() returned the cleanup: it removes every listener, and later pushes change nothing
    assert page.evaluate("() => window.__model.listenerCount()") > 0
    page.evaluate("() => window.__cleanup()")
    assert page.evaluate("() => window.__model.listenerCount()") == 0
    w.set("seq", traits["seq"] + 1)
    assert root.get_attribute("data-seq") == str(traits["seq"])
    assert page.evaluate("() => [window.__model.saved, window.__model.sent.length]") == [0, 0]   # push-only


def test_empty_traits_show_a_message_not_an_error(open_widget):
    w = open_widget("explorer", {"seq": 0, "title": "", "storage_svg": "", "graph_svg": "", "graph_steps": [],
                                 "trace_rows": [], "trace_note": ""})
    assert w.page.locator(".tt-empty").count() == 2                      # storage and graph
    assert "no ops traced yet" in w.page.locator(".tt-note").text_content()
    assert w.page.locator(".tt-step-label").text_content().startswith("step 0 / 0")
    assert w.page.locator("button[data-action]:disabled").count() == 4  # nothing to step through


# ---- storage: hover ties elements and cells --------------------------------------------------------------

def hot_elements(w):
    return set(map(tuple, w.page.eval_on_selector_all(
        "rect.tt-elem.tt-hot", "els => els.map((e) => [Number(e.closest('g.tt-view').dataset.view), e.dataset.index])")))


def hot_cells(w):
    return set(map(tuple, w.page.eval_on_selector_all(
        "rect.tt-cell.tt-hot", "els => els.map((e) => [e.dataset.storage, Number(e.dataset.cell)])")))


def expected_tied(tensors, drawn, storage, cell):
    """(view, "i,j") of every drawn element, in any view of `storage`, that lives in `cell`."""
    return {(k, ",".join(map(str, idx))) for k, (sid, indices) in drawn.items() if sid == storage
            for idx in indices if cell_of(tensors[k], idx) == cell}


def test_storage_hover_lights_the_right_cell_and_elements(open_widget, artifacts):
    tensors, traits = storage_traits()
    drawn, cells = drawn_elements(traits["storage_svg"]), drawn_cells(traits["storage_svg"])
    # views 0-2 are views of x, 3 reads row, 4 reads cube: three storages
    sids = [drawn[k][0] for k in range(5)]
    assert sids[0] == sids[1] == sids[2] and len({sids[0], sids[3], sids[4]}) == 3
    w = open_widget("storage", traits)
    # every view, first / middle / last drawn element: its cell and all elements tied to that cell light up
    for k, (sid, indices) in drawn.items():
        for idx in {indices[0], indices[len(indices) // 2], indices[-1]}:
            index = ",".join(map(str, idx))
            w.page.hover(f"g.tt-view[data-view='{k}'] rect.tt-elem[data-index='{index}']")
            cell = cell_of(tensors[k], idx)
            assert hot_cells(w) == {(sid, cell)} & cells, (k, idx)
            assert hot_elements(w) == expected_tied(tensors, drawn, sid, cell), (k, idx)
    # the transposed view, worked by hand: x.t()[1, 2] is x[2, 1], cell 2 * 4 + 1
    w.page.hover("g.tt-view[data-view='0'] rect.tt-elem[data-index='1,2']")
    assert hot_cells(w) == {(sids[0], 9)}
    # expanded: row.expand(4, 3)[2, 1] is row[1]; all four rows read that one cell
    w.page.hover("g.tt-view[data-view='3'] rect.tt-elem[data-index='2,1']")
    assert hot_cells(w) == {(sids[3], 1)}
    assert hot_elements(w) == {(3, f"{i},1") for i in range(4)}
    # the reverse: cell 6 of x is read by x.t()[2, 1], x[1:, ::2][0, 1] and the 0-d x[1, 2]
    w.page.hover(f"rect.tt-cell[data-storage='{sids[0]}'][data-cell='6']")
    assert hot_cells(w) == {(sids[0], 6)}
    assert hot_elements(w) == {(0, "2,1"), (1, "0,1"), (2, "")}
    # the same cell number in another storage stays dark
    w.page.hover(f"rect.tt-cell[data-storage='{sids[3]}'][data-cell='1']")
    assert hot_cells(w) == {(sids[3], 1)} and {k for k, _ in hot_elements(w)} == {3}
    assert "storage cell 1" in w.page.locator(".tt-readout").text_content()
    w.page.screenshot(path=str(artifacts / "browser_storage_hover.png"), full_page=True)
    w.page.mouse.move(5, 5)                                   # leaving clears
    assert hot_cells(w) == set() and hot_elements(w) == set()


def test_storage_hover_on_big_and_empty_tensors(open_widget):
    big = tt.arange(10000.).reshape(100, 100)[::3, 1:]       # 34 x 99 elements, truncated when drawn
    empty = tt.zeros(0, 3)
    svg = storage_svg(empty, big)
    drawn, cells = drawn_elements(svg), drawn_cells(svg)
    assert drawn[0][1] == [] and 0 < len(drawn[1][1]) < big.numel()
    w = open_widget("storage", {"seq": 1, "title": "", "storage_svg": svg})
    sid, indices = drawn[1]
    for idx in (indices[0], indices[-1]):
        w.page.hover(f"g.tt-view[data-view='1'] rect.tt-elem[data-index='{','.join(map(str, idx))}']")
        cell = cell_of(big, idx)
        assert hot_cells(w) == {(sid, cell)} & cells
        assert hot_elements(w) == expected_tied([empty, big], drawn, sid, cell)


# ---- graph: stepping through backward --------------------------------------------------------------------

def expected_at(steps, k):
    """What the first k steps lit: node ids that ran, edge ids a gradient flowed along, the current id."""
    ran = {s["id"] for s in steps[:k] if s["kind"] in ("node", "accumulated")}
    flowed = {s["edge"] for s in steps[:k] if s["kind"] == "gradient"}
    current = None if k == 0 else steps[k - 1].get("edge") or steps[k - 1]["id"]
    return ran, flowed, current


def check_step(w, steps, k):
    ran, flowed, current = expected_at(steps, k)
    assert set(w.attrs(".tt-step-ran")) == ran, k
    assert set(w.attrs(".tt-step-flowed")) == flowed, k
    assert w.attrs(".tt-step-current") == ([current] if current else []), k
    assert w.page.locator(".tt-step-label").text_content().startswith(f"step {k} / {len(steps)}")
    assert w.page.locator(".tt-graph-canvas.tt-stepping").count() == (1 if k < len(steps) else 0)


def fill_of(w, node_id):
    return w.page.eval_on_selector(f"g[id='{node_id}'] > polygon", "p => getComputedStyle(p).fill")


def test_graph_stepping_first_next_prev_last_and_keys(open_widget, artifacts):
    traits = backward_traits()
    steps = traits["graph_steps"]
    n = len(steps)
    ids = set(graph_node_ids(traits["graph_svg"])) | {g.get("id") for g in ET.fromstring(traits["graph_svg"]).iter()}
    assert all((s.get("edge") or s["id"]) in ids for s in steps)   # every step names a drawn element
    w = open_widget("graph", traits)
    check_step(w, steps, n)                                # a picture opens at the end of its run
    first_node = steps[0]["id"]
    ran_fill = fill_of(w, first_node)                      # Python drew it as run
    w.page.click("button[data-action='first']")
    check_step(w, steps, 0)
    assert fill_of(w, first_node) != ran_fill              # ... which stepping hides before it runs
    for k in range(1, n + 1):
        w.page.click("button[data-action='next']")
        check_step(w, steps, k)
        if k == 3:
            w.page.screenshot(path=str(artifacts / "browser_graph_step3.png"))
    assert fill_of(w, first_node) == ran_fill
    w.page.click("button[data-action='prev']")
    check_step(w, steps, n - 1)
    w.page.focus(".tt-graph-canvas")
    w.page.keyboard.press("ArrowLeft")
    check_step(w, steps, n - 2)
    w.page.keyboard.press("Home")
    check_step(w, steps, 0)
    w.page.keyboard.press("ArrowRight")
    w.page.keyboard.press("ArrowRight")
    check_step(w, steps, 2)
    w.page.click("button[data-action='last']")
    check_step(w, steps, n)
    # a new picture alone keeps the step; a new backward run (new steps) jumps to its end
    w.page.click("button[data-action='first']")
    w.set("graph_svg", traits["graph_svg"])
    check_step(w, steps, 0)
    w.set("graph_steps", steps[:4])
    check_step(w, steps[:4], 4)


# ---- trace: selecting rows -------------------------------------------------------------------------------

def test_trace_rows_click_select_and_report(open_widget, artifacts):
    traits = trace_traits()
    rows = traits["trace_rows"]
    w = open_widget("trace", traits)
    page = w.page
    # the loop body (mul, sum) folded into rows counted 4 times
    folded = [i for i, r in enumerate(rows) if r["count"] == 4]
    assert folded and page.locator("tr.tt-row[data-count='4']").count() == len(folded)
    assert page.locator(f"tr.tt-row[data-row='{folded[0]}']").text_content().endswith("×4")
    # forward, then backward, each under its header
    assert w.attrs("tr.tt-section", "data-section") == ["forward", "backward"]
    for i, r in enumerate(rows):
        tr = page.locator(f"tr.tt-row[data-row='{i}']")
        assert tr.get_attribute("data-section") == r["section"]
        assert tr.locator("td").nth(1).text_content() == " → ".join(h["key"] for h in r["path"])
        assert tr.get_attribute("data-storages") == " ".join(r["storages"])
    page.evaluate("""() => { window.__targets = [];
        document.querySelector('.tt-widget').addEventListener('tt-select', (e) => window.__targets.push(e.target.className)); }""")
    page.click("tr.tt-row[data-row='0']")
    assert w.attrs("tr.tt-selected", "data-row") == ["0"]
    assert w.events()[-1] == {"storages": rows[0]["storages"], "node": None, "row": 0}
    back = next(i for i, r in enumerate(rows) if r["section"] == "backward" and r["backward_node_id"])
    page.click(f"tr.tt-row[data-row='{back}']")           # selecting another row moves the selection
    assert w.attrs("tr.tt-selected", "data-row") == [str(back)]
    assert w.events()[-1] == {"storages": rows[back]["storages"], "node": rows[back]["backward_node_id"], "row": back}
    page.screenshot(path=str(artifacts / "browser_trace.png"), full_page=True)
    page.click(f"tr.tt-row[data-row='{back}']")           # a second click deselects
    assert w.attrs("tr.tt-selected", "data-row") == []
    assert w.events()[-1] == {"storages": [], "node": None, "row": None}
    assert page.evaluate("() => window.__targets") == ["tt-widget tt-trace"] * 3   # on the root, bubbling to the host


# ---- explorer: the panes together ------------------------------------------------------------------------

def test_explorer_lights_storages_and_node_and_follows_pushes(open_widget, artifacts):
    x, traits = explorer_traits()
    rows = traits["trace_rows"]
    sid_x = drawn_elements(traits["storage_svg"])[0][0]
    w = open_widget("explorer", traits, width=1400, height=1000)
    page = w.page
    lit_views = lambda: w.attrs("g.tt-view.tt-lit", "data-view")                       # noqa: E731
    lit_cells = lambda: len(w.attrs("rect.tt-cell.tt-lit", "data-cell"))                # noqa: E731
    # a forward row that touched x's storage lights both views of x and x's storage cells
    fwd = next(i for i, r in enumerate(rows) if r["section"] == "forward" and sid_x in r["storages"])
    page.click(f"tr.tt-row[data-row='{fwd}']")
    assert sorted(lit_views()) == ["0", "1"] and lit_cells() == x.numel()
    assert w.attrs(".tt-graph-pane .tt-lit") == []
    # a backward row lights its graph node (and only storages drawn in the storage pane)
    graph_ids = set(graph_node_ids(traits["graph_svg"]))
    back = next(i for i, r in enumerate(rows) if r["section"] == "backward" and r["backward_node_id"] in graph_ids)
    page.click(f"tr.tt-row[data-row='{back}']")
    assert w.attrs(".tt-graph-pane g.node.tt-lit") == [rows[back]["backward_node_id"]]
    assert (lit_views() != []) == (sid_x in rows[back]["storages"])
    page.screenshot(path=str(artifacts / "browser_explorer.png"), full_page=True)
    # deselecting clears everything
    page.click(f"tr.tt-row[data-row='{back}']")
    assert w.attrs(".tt-lit") == []
    # a push from the kernel: data-seq follows at once; a new storage picture keeps the selection lit
    page.click(f"tr.tt-row[data-row='{fwd}']")
    w.set("seq", 8)
    assert page.locator("#host > .tt-widget").get_attribute("data-seq") == "8"
    w.set("storage_svg", storage_svg(x[:, ::2], labels=["x[:, ::2]"]))
    assert lit_views() == ["0"] and lit_cells() == x.numel()
    w.set("title", "after the loop")
    assert page.locator(".tt-title").text_content() == "after the loop"


def box_of(w, name):
    return w.page.locator(f".tt-box-{name}").bounding_box()


def test_explorer_layout_grid_when_wide_stacked_when_narrow(open_widget, artifacts):
    traits = explorer_traits()[1]
    wide = open_widget("explorer", traits, width=1400, height=900)
    g, s, t = (box_of(wide, n) for n in ("graph", "storage", "trace"))
    assert g["y"] == s["y"] and g["x"] + g["width"] <= s["x"]       # graph | storage side by side
    assert t["y"] >= max(g["y"] + g["height"], s["y"] + s["height"]) and t["width"] > g["width"] + s["width"]
    narrow = open_widget("explorer", traits, width=700, height=900)
    g, s, t = (box_of(narrow, n) for n in ("graph", "storage", "trace"))
    assert g["x"] == s["x"] == t["x"] and g["y"] < s["y"] < t["y"]   # stacked
    narrow.page.screenshot(path=str(artifacts / "browser_explorer_narrow.png"), full_page=True)


# ---- big pictures stay responsive -------------------------------------------------------------------------

def test_a_400_node_graph_and_a_500_row_trace_render_and_respond(open_widget, artifacts):
    h = tt.ones(2, requires_grad=True)
    for _ in range(600):
        h = h * 1.0
    state = BackwardState()
    with tt.autograd.graph.listen(state):
        h.sum().backward()
    graph = {"seq": 1, "title": "", "graph_svg": graph_svg(h, state=state, max_nodes=400),
             "graph_steps": list(state.steps)}
    with tt.dispatch.trace() as t:
        for i in range(500):
            tt.ones(i + 1) * 2                  # a new shape each time: nothing folds
    rows = trace_rows(t, max_rows=500)
    assert len(rows) == 501 and rows[-1]["section"] == "note"       # 1,000 calls, 500 shown
    trace = {"seq": 1, "title": "", "trace_rows": rows, "trace_note": ""}

    w = open_widget("graph", graph)
    assert w.page.locator("g.node.tt-fn").count() >= 400
    w.page.click("button[data-action='first']")
    for _ in range(20):
        w.page.click("button[data-action='next']")
    assert w.page.locator(".tt-step-label").text_content().startswith(f"step 20 / {len(graph['graph_steps'])}")
    w = open_widget("trace", trace)
    assert w.page.locator("tr.tt-row").count() == 500
    assert "more rows" in w.page.locator(".tt-note").text_content()
    w.page.click("tr.tt-row[data-row='499']")
    assert w.events()[-1]["row"] == 499


# ---- the harness itself ---------------------------------------------------------------------------------

def test_pages_cannot_reach_the_network(context):
    w = mount_widget(context, "storage", {"seq": 0, "title": "", "storage_svg": ""})
    outcome = w.page.evaluate("() => fetch('http://example.com/x').then(() => 'fetched', () => 'refused')")
    assert outcome == "refused" and w.blocked == ["http://example.com/x"]
    w.page.close()


def test_a_missing_chromium_fails_with_the_fix():
    with pytest.raises(pytest.fail.Exception, match="apt-get install -y chromium"):
        with launch_chromium("/nonexistent/chromium"):
            pass
