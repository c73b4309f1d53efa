"""Each widget's front end (widgets/*.js) in a real browser: Debian's Chromium, a plain page, a fake model.

The page (tests/browser/harness.py) imports the ES module anywidget would send and renders it from traits
made by the real renderers (storage_svg, graph_svg with a BackwardState, trace_rows), as the Python widgets
would sync them; the tests push trait changes as the kernel would and drive hover, clicks and keys.
Expectations come from the tensors (offset + sum(index * stride)), the backward steps and the trace rows,
not from the front end. Layout is measured in the page: element boxes (getBoundingClientRect) against their
pane, and the on-screen size of SVG text, at 1400 and 600 px wide; the backward animation is sampled in time. Screenshots (and each harness page) go to $TT_ARTIFACTS, default the test's tmp_path.
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


def test_a_graph_from_dot_steps_with_its_own_words(open_widget):
    # GraphView.from_dot: any graph (lesson 7's micrograd Values); a step's "text" is what the stepper says
    from teachtorch.explorer.widgets import GraphView
    dot = ('digraph { node [shape=box]; a [id="a"]; mul [id="mul"]; out [id="out"]; '
           'a -> mul [id="e_a"]; mul -> out [id="e_out"]; }')
    steps = [{"kind": "node", "id": "mul", "name": "mul", "text": "run the * node's _backward"},
             {"kind": "gradient", "edge": "e_a", "from": "mul", "to": "a", "shape": [],
              "text": "*: input 1's grad is now 3.0000"}]
    view = GraphView.from_dot(dot, steps, title="a Value graph")
    assert view.graph_steps == steps and 'id="mul"' in view.graph_svg and "<svg" in view.static_html()
    w = open_widget("graph", {"seq": 3, "title": view.title, "graph_svg": view.graph_svg, "graph_steps": steps})
    w.page.locator(".tt-button[data-action='first']").click()  # a graph opens after its backward
    for k in (1, 2):
        w.page.locator(".tt-button[data-action='next']").click()
        check_step(w, steps, k)
        assert w.page.locator(".tt-step-label").text_content() == f"step {k} / 2: {steps[k - 1]['text']}"


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
    # a new picture alone keeps the step; a new backward run (new steps) plays to its end
    w.page.click("button[data-action='first']")
    w.set("graph_svg", traits["graph_svg"])
    check_step(w, steps, 0)
    w.set("graph_steps", steps[:4])
    wait_until_played(w)
    check_step(w, steps[:4], 4)


def wait_until_played(w):
    w.page.wait_for_function("() => !document.querySelector('.tt-graph-pane').dataset.animating", timeout=5000)


def sample_steps(w, every_ms, times):
    """[data-step, animating] of the graph pane, sampled `times` times, `every_ms` apart, in the page."""
    return w.page.evaluate("""([every, times]) => new Promise((done) => {
        const pane = document.querySelector('.tt-graph-pane');
        const seen = [];
        const look = () => {
            seen.push([Number(pane.dataset.step), pane.dataset.animating === '1']);
            if (seen.length === times) done(seen); else setTimeout(look, every);
        };
        look();
    })""", [every_ms, times])


def test_a_new_backward_run_plays_step_by_step_and_a_click_stops_it(open_widget):
    traits = backward_traits()
    steps = traits["graph_steps"]
    n = len(steps)
    w = open_widget("graph", traits)
    check_step(w, steps, n)                                # the snapshot opens at the end, without playing
    assert w.page.locator(".tt-graph-pane[data-animating]").count() == 0
    # a new backward run: data-step rises from 0 to n at a watchable pace (13 steps, ~100 ms each)
    w.page.evaluate("(steps) => window.__model.set('graph_steps', steps)", steps)
    seen = sample_steps(w, 60, 40)                         # 2.4 s
    values = [k for k, _ in seen]
    assert values[0] <= 1 and seen[0][1]
    assert values == sorted(values) and values[-1] == n    # never backwards, ends at the end
    assert len(set(values)) >= 8                           # seen at many steps on the way, not one jump
    assert [k for k, playing in seen if not playing and k < n] == []
    assert not seen[-1][1]
    check_step(w, steps, n)
    # the stepper works after it
    w.page.click("button[data-action='prev']")
    check_step(w, steps, n - 1)
    # a new run arriving while one plays starts again from 0
    w.page.evaluate("(steps) => window.__model.set('graph_steps', steps)", steps)
    w.page.wait_for_timeout(500)
    assert 2 < sample_steps(w, 0, 1)[0][0] < n
    w.set("graph_steps", steps)                            # (and waits for the redraw)
    assert sample_steps(w, 0, 1)[0][0] <= 2
    # a click on "first" stops it there
    w.page.wait_for_timeout(300)
    assert sample_steps(w, 0, 1)[0][1]
    w.page.click("button[data-action='first']")
    later = sample_steps(w, 100, 6)
    assert later == [[0, False]] * 6
    check_step(w, steps, 0)
    # so does a key
    w.page.evaluate("(steps) => window.__model.set('graph_steps', steps)", steps)
    w.page.wait_for_timeout(300)
    w.page.focus(".tt-graph-canvas")
    w.page.keyboard.press("End")
    assert sample_steps(w, 100, 4) == [[n, False]] * 4
    w.page.keyboard.press("ArrowLeft")
    check_step(w, steps, n - 1)


def test_reduced_motion_jumps_to_the_end(open_widget):
    traits = backward_traits()
    steps = traits["graph_steps"]
    w = open_widget("graph", traits)
    w.page.emulate_media(reduced_motion="reduce")
    w.page.click("button[data-action='first']")
    w.set("graph_steps", steps[:5])
    assert sample_steps(w, 0, 1) == [[5, False]]
    check_step(w, steps[:5], 5)


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


def test_a_row_whose_tensors_are_not_drawn_asks_the_kernel_then_lights_them(open_widget):
    """The teacher's "row 9: 2 storages, 0 drawn": the explorer asks the kernel to draw the row (once), and
    lights the row's storages when the new picture arrives."""
    x, traits = explorer_traits()
    rows = traits["trace_rows"]
    other = tt.arange(5.)
    traits["storage_svg"] = storage_svg(other, labels=["other"])       # x's storage is not drawn
    w = open_widget("explorer", traits, width=1400, height=1000)
    page = w.page
    sid_x = str(id(x.untyped_storage()))
    fwd = next(i for i, r in enumerate(rows) if r["section"] == "forward" and sid_x in r["storages"])
    page.click(f"tr.tt-row[data-row='{fwd}']")
    assert page.evaluate("window.__model.sent") == [{"event": "show_row", "row": fwd}]
    assert "asked the kernel" in page.locator(".tt-status").text_content()
    w.set("storage_svg", storage_svg(x, x.t(), labels=["x", "x.t()"]))   # what the kernel sends back
    assert sorted(w.attrs("g.tt-view.tt-lit", "data-view")) == ["0", "1"]
    assert "asked the kernel" not in page.locator(".tt-status").text_content()
    page.click(f"tr.tt-row[data-row='{fwd}']")                          # deselect, select again: drawn now
    page.click(f"tr.tt-row[data-row='{fwd}']")
    assert page.evaluate("window.__model.sent") == [{"event": "show_row", "row": fwd}]     # asked only once


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


# ---- every picture fits its pane; zoom and pan -------------------------------------------------------------

MIN_TEXT_PX = 7          # _common.js: fitting never draws a picture's text smaller than this


def training_traits():
    """The explorer after one training step of a 2-8-8-8-1 MLP (42 graph nodes), showing W4 and W4.t()."""
    tt.manual_seed(0)
    ps = {"W1": tt.randn(2, 8, requires_grad=True), "b1": tt.zeros(8, requires_grad=True),
          "W2": tt.randn(8, 8, requires_grad=True), "b2": tt.zeros(8, requires_grad=True),
          "W3": tt.randn(8, 8, requires_grad=True), "b3": tt.zeros(8, requires_grad=True),
          "W4": tt.randn(8, 1, requires_grad=True), "b4": tt.zeros(1, requires_grad=True)}
    state = BackwardState()
    with tt.dispatch.trace() as t:
        x, y = tt.randn(16, 2), tt.randn(16, 1)
        h = (x @ ps["W1"] + ps["b1"]).tanh()
        h = (h @ ps["W2"] + ps["b2"]).relu()
        h = (h @ ps["W3"] + ps["b3"]).relu()
        loss = ((h @ ps["W4"] + ps["b4"] - y) ** 2).mean()
        with tt.autograd.graph.listen(state):
            loss.backward()
    w4 = ps["W4"]
    return {"seq": 4, "title": "one training step of a 2-8-8-8-1 MLP", "graph_svg": graph_svg(loss, params=ps, state=state),
            "graph_steps": list(state.steps), "storage_svg": storage_svg(w4, w4.t(), labels=["W4", "W4.t()"]),
            "trace_rows": trace_rows(t), "trace_note": ""}


def wide_storage_svg():
    x = tt.arange(160.).reshape(4, 40)
    return storage_svg(x, x.t(), labels=["x", "x.t()"])


MEASURE = """(pane) => {
    const canvas = document.querySelector(`.tt-${pane}-canvas`);
    const box = canvas.getBoundingClientRect();
    const svg = canvas.querySelector('svg');
    const items = pane === 'graph' ? 'g.node' : 'rect.tt-elem, rect.tt-cell';
    const boxes = [...canvas.querySelectorAll(items)].map((e) => {
        const r = e.getBoundingClientRect();
        return [r.left, r.right, r.top, r.bottom, r.width];
    });
    // the on-screen size of a text: its font size in SVG units times the SVG's scale on the screen
    const text = [...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a);
    return {left: box.left + canvas.clientLeft, right: box.left + canvas.clientLeft + canvas.clientWidth,
            top: box.top, bottom: box.bottom, clientWidth: canvas.clientWidth, scrollWidth: canvas.scrollWidth,
            scrollHeight: canvas.scrollHeight, svgWidth: svg.getBoundingClientRect().width,
            svgHeight: svg.getBoundingClientRect().height, zoom: Number(canvas.dataset.zoom),
            fitted: canvas.dataset.fitted, boxes, minText: Math.min(...text)};
}"""


def measure(w, pane):
    return w.page.evaluate(MEASURE, pane)


def assert_fits(m, what):
    """Every node or cell lies within the pane's width (the pane scrolls only downwards), text legible."""
    assert m["boxes"], what
    assert all(m["left"] - 0.5 <= left and right <= m["right"] + 0.5 for left, right, *_ in m["boxes"]), what
    assert m["scrollWidth"] <= m["clientWidth"], what                  # nothing to pan to sideways
    assert m["scrollHeight"] >= m["svgHeight"] - 1, what               # all of it reachable downwards
    assert m["minText"] >= MIN_TEXT_PX - 0.05, (what, m["minText"])


def assert_legible_and_pannable(m, what):
    """Too wide to fit legibly: drawn at the smallest legible scale, and the pane pans to all of it."""
    assert abs(m["minText"] - MIN_TEXT_PX) < 0.05, (what, m["minText"])
    assert m["scrollWidth"] >= m["svgWidth"] - 1 > m["clientWidth"], what


@pytest.mark.parametrize("width", [1400, 600])
def test_explorer_pictures_fit_their_panes(open_widget, artifacts, width):
    traits = training_traits()
    assert len(graph_node_ids(traits["graph_svg"])) >= 40
    w = open_widget("explorer", traits, width=width, height=1000)
    graph, storage = measure(w, "graph"), measure(w, "storage")
    assert 0.5 < graph["zoom"] < 1 and graph["fitted"] == "1"          # scaled down to fit
    assert_fits(graph, "graph")
    assert_fits(storage, "storage") if width == 1400 else assert_legible_and_pannable(storage, "storage")
    w.page.screenshot(path=str(artifacts / f"browser_explorer_training_{width}.png"), full_page=True)
    # a wider storage picture (4 x 40 and its transpose)
    w.set("storage_svg", wide_storage_svg())
    storage = measure(w, "storage")
    assert_fits(storage, "wide storage") if width == 1400 else assert_legible_and_pannable(storage, "wide storage")
    graph = measure(w, "graph")                                         # (the graph pane gave the storage room)
    assert_fits(graph, "graph next to the wide storage")
    # the panes follow the page: narrower, then back
    w.page.set_viewport_size({"width": width // 2 + 200, "height": 1000})
    w.settle()
    narrower = measure(w, "graph")
    assert narrower["zoom"] <= graph["zoom"] and narrower["minText"] >= MIN_TEXT_PX - 0.05
    w.page.set_viewport_size({"width": width, "height": 1000})
    w.settle()
    assert measure(w, "graph")["zoom"] == graph["zoom"]


def test_a_small_picture_is_not_enlarged(open_widget):
    w = open_widget("explorer", explorer_traits()[1], width=1400, height=900)
    for pane in ("graph", "storage"):
        m = measure(w, pane)
        assert m["zoom"] == 1 and m["minText"] >= 9 - 0.05                # drawn 1:1
        assert_fits(m, pane)


def node_box(w, node_id):
    # getBoundingClientRect: Playwright's bounding_box() of an SVG group also counts its strokes
    return w.page.evaluate("""(id) => { const r = document.getElementById(id).getBoundingClientRect();
                                         return {x: r.left, y: r.top, width: r.width, height: r.height}; }""", node_id)


def test_ctrl_wheel_zooms_drag_pans_double_click_fits(open_widget):
    traits = training_traits()
    w = open_widget("graph", {k: traits[k] for k in ("seq", "title", "graph_svg", "graph_steps")}, width=700, height=800)
    page = w.page
    fitted = measure(w, "graph")
    assert fitted["fitted"] == "1"
    node = graph_node_ids(traits["graph_svg"])[3]
    before = node_box(w, node)
    cx, cy = before["x"] + before["width"] / 2, before["y"] + before["height"] / 2
    # a plain wheel scrolls (the pane here: the fitted graph is taller than it), it does not zoom
    page.mouse.move(cx, cy)
    page.mouse.wheel(0, 100)
    page.wait_for_function("() => document.querySelector('.tt-graph-canvas').scrollTop > 0")
    assert measure(w, "graph")["zoom"] == fitted["zoom"]
    page.evaluate("() => document.querySelector('.tt-graph-canvas').scrollTo(0, 0)")
    before = node_box(w, node)
    cx, cy = before["x"] + before["width"] / 2, before["y"] + before["height"] / 2
    # ctrl + wheel zooms in around the pointer: the node grows and stays under it
    page.mouse.move(cx, cy)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -300)
    page.keyboard.up("Control")
    page.wait_for_function(f"() => document.querySelector('.tt-graph-canvas').dataset.zoom !== '{fitted['zoom']:.3f}'")
    zoomed = measure(w, "graph")
    after = node_box(w, node)
    assert zoomed["zoom"] > fitted["zoom"] * 1.5 and zoomed["fitted"] == "0"
    assert after["width"] > before["width"] * 1.5
    assert abs(after["x"] + after["width"] / 2 - cx) < 3 and abs(after["y"] + after["height"] / 2 - cy) < 3
    # the zoom is kept when a new picture comes
    w.set("graph_svg", traits["graph_svg"])
    assert measure(w, "graph")["zoom"] == zoomed["zoom"]
    # a drag pans: the picture follows the mouse
    start = node_box(w, node)
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx - 60, cy - 40, steps=5)
    page.mouse.up()
    moved = node_box(w, node)
    assert abs(moved["x"] - (start["x"] - 60)) < 2 and abs(moved["y"] - (start["y"] - 40)) < 2
    # a double-click goes back to the fitted view
    page.dblclick(".tt-graph-canvas")
    back = measure(w, "graph")
    assert back["zoom"] == fitted["zoom"] and back["fitted"] == "1"
    assert node_box(w, node)["width"] == pytest.approx(before["width"], abs=0.5)
    # the buttons: + zooms in, − out, fit fits
    page.click("button[data-zoom='in']")
    assert measure(w, "graph")["zoom"] == pytest.approx(fitted["zoom"] * 1.25, abs=0.002)
    page.click("button[data-zoom='out']")
    page.click("button[data-zoom='out']")
    assert measure(w, "graph")["zoom"] < fitted["zoom"]
    page.click("button[data-zoom='fit']")
    assert measure(w, "graph")["zoom"] == fitted["zoom"]
    assert page.locator(".tt-zoom-label").text_content() == f"{round(fitted['zoom'] * 100)}%"


def test_zoomed_storage_still_hovers_and_a_lit_node_is_panned_into_view(open_widget):
    traits = training_traits()
    w = open_widget("explorer", traits, width=1400, height=1000)
    page = w.page
    # zoomed in storage: hovering still lights the cell
    for _ in range(4):
        page.locator(".tt-storage-pane button[data-zoom='in']").click()
    page.hover("g.tt-view[data-view='1'] rect.tt-elem[data-index='0,1']")
    assert len(hot_cells(w)) == 1
    # zoomed in graph: a backward trace row pans the graph to its node
    for _ in range(6):
        page.locator(".tt-graph-pane button[data-zoom='in']").click()
    rows = traits["trace_rows"]
    ids = set(graph_node_ids(traits["graph_svg"]))
    back = [i for i, r in enumerate(rows) if r["section"] == "backward" and r["backward_node_id"] in ids][-1]
    page.click(f"tr.tt-row[data-row='{back}']")
    node = node_box(w, rows[back]["backward_node_id"])
    canvas = page.locator(".tt-graph-canvas").bounding_box()
    assert canvas["x"] <= node["x"] and node["x"] + node["width"] <= canvas["x"] + canvas["width"]
    assert canvas["y"] <= node["y"] and node["y"] + node["height"] <= canvas["y"] + canvas["height"]


def long_trace_traits():
    a = tt.ones(2, 3, 4, 5, 6, requires_grad=True)
    with tt.dispatch.trace() as t:
        for _ in range(12):
            y = (a.permute(4, 3, 2, 1, 0) * a.permute(4, 3, 2, 1, 0).contiguous()).sum()
        y.backward()
    return {"seq": 1, "title": "", "trace_rows": trace_rows(t), "trace_note": ""}


@pytest.mark.parametrize("width", [1400, 600])
def test_the_trace_table_fits_its_pane(open_widget, artifacts, width):
    traits = long_trace_traits()
    assert any(r["count"] == 12 for r in traits["trace_rows"])
    w = open_widget("explorer", {**training_traits(), **traits}, width=width, height=1000)
    page = w.page
    m = page.evaluate("""() => {
        const canvas = document.querySelector('.tt-trace-canvas');
        const box = canvas.getBoundingClientRect();
        const counts = [...canvas.querySelectorAll('td.tt-col-count, th.tt-col-count')].map((td) => {
            const r = td.getBoundingClientRect();
            return [r.left, r.right, td.scrollWidth <= td.clientWidth];
        });
        return {left: box.left, right: box.left + canvas.clientWidth, counts, height: canvas.clientHeight,
                scrollHeight: canvas.scrollHeight,
                tableWidth: canvas.querySelector('table').scrollWidth, clientWidth: canvas.clientWidth};
    }""")
    assert m["tableWidth"] <= m["clientWidth"]
    assert len(m["counts"]) > 10
    assert all(m["left"] <= left < right <= m["right"] + 0.5 and whole for left, right, whole in m["counts"])
    assert page.locator("td.tt-col-count", has_text="×12").count() > 0
    assert m["height"] >= min(400, m["scrollHeight"])                      # room for the sections
    # a cell cut short shows its whole text in its tooltip
    cut = page.evaluate("""() => [...document.querySelectorAll('td.tt-col-shapes')]
                                   .findIndex((td) => td.scrollWidth > td.clientWidth)""")
    if width == 600:
        assert cut >= 0
    if cut >= 0:
        cell = page.locator("td.tt-col-shapes").nth(cut)
        cell.hover()
        assert cell.get_attribute("title").startswith(cell.text_content())
    page.screenshot(path=str(artifacts / f"browser_trace_long_{width}.png"), full_page=True)


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
