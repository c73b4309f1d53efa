"""The talk decks (`make slides`, slides/build.py): every deck builds from code that runs against the library,
and in Chromium at 1280 x 720 every slide renders with no error, no request leaving the machine, nothing
sticking out of the slide, no text too small to read from the back of a room, speaker notes on every content
slide, a presenter view, and timings that add up to the talk's stated length. Screenshots of every slide go to
test-artifacts/slides/<deck>/ (or $TT_ARTIFACTS/slides/)."""

import importlib.util
import re
from pathlib import Path

import jupytext
import nbformat
import pytest

from browser.deck_pages import inspect_deck
from browser.harness import artifacts_dir, launch_chromium
from teachtorch.exercises import course_html
from teachtorch.explorer.frames import FRAMES_MIME, graph_frames, storage_frames, view_frames

ROOT = Path(__file__).resolve().parent.parent
SLIDES = ROOT / "slides"
spec = importlib.util.spec_from_file_location("slides_build", SLIDES / "build.py")
build = importlib.util.module_from_spec(spec)
spec.loader.exec_module(build)

DECKS = [p.name for p in build.decks()]
LESSON_PAGES = {p.stem for p in course_html.pages(ROOT / "lessons")}


def test_there_are_the_five_decks():
    assert [d[0] for d in DECKS] == ["a", "b", "c", "d", "e"], DECKS


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out, cache = tmp_path_factory.mktemp("slides"), {}

    def get(name):
        if name not in cache:
            cache[name] = build.build(SLIDES / name, out, log=lambda line: None)
        return cache[name]
    return get


@pytest.mark.parametrize("name", DECKS)
def test_every_deck_reads_right_in_chromium(name, built, tmp_path):
    page, seconds, count = built(name)
    source = jupytext.read(SLIDES / name)
    first = source.cells[0]
    low, high = first.metadata["minutes"]
    assert first.metadata["slideshow"]["slide_type"] == "slide" and first.cell_type == "markdown"
    with launch_chromium() as context:
        report = inspect_deck(context, page, shots=artifacts_dir(tmp_path) / "slides")
    slides = report["slides"]
    assert len(slides) == count >= 3
    assert report["outside"] == [] and report["errors"] == [], (report["outside"], report["errors"])
    assert report["presenter"] is True
    problems = [(n, s["title"], s["overflow"][:2], s["small_text"][:2]) for n, s in enumerate(slides)
                if s["overflow"] or s["small_text"]]
    assert not problems, problems
    assert not [(n, s["title"]) for n, s in enumerate(slides[1:], 1) if not s["notes"]], "slides without notes"
    total = sum(s["timing"] for s in slides)
    assert low * 60 <= total <= high * 60, f"{name}: timings add up to {total / 60:.1f} min, not {low}-{high}"
    assert seconds < 60, f"{name} took {seconds:.0f} s to run"
    # the last slide sends the audience to the lessons, as pages of make course-html
    lessons = re.findall(r'href="\.\./course-html/(\w+)\.html"', page.read_text())
    assert lessons and set(lessons) <= LESSON_PAGES, lessons


@pytest.mark.parametrize("name", DECKS)
def test_a_built_deck_is_one_file_that_asks_for_nothing(name, built):
    text = built(name)[0].read_text()
    assert not re.findall(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", text)
    styles = "".join(re.findall(r"<style>(.*?)</style>", text, flags=re.S))
    assert styles and not re.findall(r"url\((?!data:)", styles)              # fonts inline, nothing to fetch
    assert "<aside class='notes'>" in text and "Reveal.initialize" in text and "RevealNotes" in text


def test_the_pdf_handout_has_a_page_per_slide(tmp_path):
    deck = SLIDES / DECKS[-1]                      # the lightning talk: the shortest
    page, _, count = build.build(deck, tmp_path, pdf=True, log=lambda line: None)
    pdf = page.with_suffix(".pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and len(re.findall(rb"/Type\s*/Page\b", pdf)) == count


# ---- the builder's parts, on small notebooks -------------------------------------------------------------

def _nb(*cells):
    nb = nbformat.v4.new_notebook()
    for kind, source, meta in cells:
        cell = (nbformat.v4.new_markdown_cell if kind == "md" else nbformat.v4.new_code_cell)(source)
        cell.metadata.update(meta)
        nb.cells.append(cell)
    return nb


def _slide(kind, **more):
    return {"slideshow": {"slide_type": kind}, **more}


def test_cells_become_sections_slides_fragments_and_notes():
    nb = _nb(("md", "# Title $x_i$", _slide("slide", timing=20)),
             ("code", "import teachtorch", _slide("skip")),
             ("md", "## One", _slide("slide", timing=60)),
             ("code", "1 + 1", _slide("-")),
             ("md", "say this", _slide("notes")),
             ("md", "- more", _slide("fragment")),
             ("md", "## Two", _slide("subslide", timing=30)),
             ("md", "and that", _slide("notes")))
    deck = build.sections(nb)
    assert [len(section) for section in deck] == [1, 2]
    one = deck[1][0]
    assert [c.source for c, _ in one["cells"]] == ["## One", "1 + 1", "- more"]
    assert [f for _, f in one["cells"]] == [False, False, True]
    assert one["notes"] == ["say this"] and one["timing"] == 60 and deck[1][1]["timing"] == 30
    assert all("import teachtorch" not in c.source for s in deck for sl in s for c, _ in sl["cells"])
    page = build.deck_html(nb, "t")
    assert page.count("<aside class='notes'>") == 2 and "data-timing='60'" in page
    assert "<div class='fragment'><ul>" in page and "¶" not in page and "&#182;" not in page
    assert '<h1 id="Title-x_i">Title <math' in page                      # a formula in a heading


def test_links_to_lessons_become_course_pages_and_others_the_repository():
    body = '<a href="../lessons/01_storage.py">1</a> <a href="../CONTRIBUTING.md">c</a> <a href="https://x.org">x</a>'
    assert build.rewrite_links(body) == ('<a href="../course-html/01_storage.html">1</a> '
                                         '<a href="../../CONTRIBUTING.md">c</a> <a href="https://x.org">x</a>')


def test_a_graphs_frames_light_the_backward_step_by_step():
    import teachtorch as tt
    from teachtorch.explorer import GraphView
    x = tt.ones(2, 3, requires_grad=True)
    view = GraphView().backward((x * 3).exp().sum())
    frames = view_frames(view)
    steps = view.graph_steps
    assert len(frames) == len(steps) + 1 and frames[0]["caption"] == "before backward"
    for k, frame in enumerate(frames):
        ran = sum(s["kind"] != "gradient" for s in steps[:k])
        flowed = sum(s["kind"] == "gradient" for s in steps[:k])
        assert frame["html"].count("tt-step-ran") == ran and frame["html"].count("tt-step-flowed") == flowed
        assert frame["html"].count("tt-step-current") == (k > 0)
    assert "SumBackward0 runs" in frames[1]["caption"] and "tt-stepping" not in frames[-1]["html"]
    assert graph_frames("<svg></svg>", []) == [{"html": "<div class='tt-graph-canvas tt-stepping'><svg></svg></div>",
                                                "caption": "before backward"}]


def test_a_storage_views_frames_light_each_element_and_the_cell_it_reads():
    import teachtorch as tt
    from teachtorch.explorer import StorageView
    x = tt.arange(6.).reshape(2, 3)
    frames = view_frames(StorageView(x.t()))
    # x.t() row by row reads cells 0, 3, 1, 4, 2, 5
    assert [f["caption"].split()[-1] for f in frames] == ["0", "3", "1", "4", "2", "5"]
    for frame in frames:
        assert frame["html"].count("tt-hot") == 2                  # one element, one cell
    assert storage_frames("<svg></svg>") == []


def test_step_through_adds_frames_only_while_a_deck_is_built(monkeypatch):
    import teachtorch as tt
    from teachtorch.explorer import StorageView
    from teachtorch.explorer.frames import step_through
    shown = step_through(StorageView(tt.arange(3.)))
    monkeypatch.delenv("TEACHTORCH_SLIDES", raising=False)
    data, _ = shown._repr_mimebundle_()
    assert FRAMES_MIME not in data and "text/html" in data
    monkeypatch.setenv("TEACHTORCH_SLIDES", "1")
    data, _ = shown._repr_mimebundle_()
    assert len(data[FRAMES_MIME]) == 3 and "text/html" in data
    with pytest.raises(TypeError, match="step_through: a GraphView or a StorageView steps, not int"):
        view_frames(3)


def test_stacked_frames_show_one_at_a_time():
    frames = [{"html": f"<svg id='f{i}'></svg>", "caption": f"c{i}"} for i in range(3)]
    stack = build.frames_html(frames)
    assert "r-stack" in stack
    assert re.findall(r"tt-frame ([\w -]*)'", stack) == ["fragment fade-out", "fragment fade-in-then-out", "fragment"]
    assert re.findall(r"data-fragment-index='(\d+)'", stack) == ["0", "0", "1"]


def test_a_deck_runs_live_in_jupyterlab_in_presentation_mode(tmp_path):
    """The live path (slides/README.md): the deck opens as a notebook, Presentation Mode turns on, and its
    cells run with the explorer's live widgets drawn."""
    import shutil
    import time
    from test_explorer_jupyterlab import running_jupyterlab
    deck = SLIDES / DECKS[-1]
    shutil.copy(deck, tmp_path / deck.name)
    runtime = tmp_path / "runtime"
    runtime.mkdir()
    with running_jupyterlab(runtime, tmp_path, runtime / "ws", args=(f"--ServerApp.root_dir={tmp_path}",)) as url:
        with launch_chromium() as context:
            page = context.new_page()
            page.set_viewport_size({"width": 1280, "height": 720})
            page.goto(f"{url}/lab/tree/{deck.name}")
            page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=90_000)
            page.wait_for_function("document.body.innerText.includes('| Idle')", timeout=90_000)
            page.locator(".lm-MenuBar-itemLabel", has_text="View").first.click()
            page.locator(".lm-Menu-itemLabel", has_text="Appearance").first.hover()
            page.locator(".lm-Menu-itemLabel", has_text="Presentation Mode").first.click()
            assert page.locator(".jp-mod-presentationMode").count() == 1
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
            page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
            deadline = time.time() + 120
            while time.time() < deadline and not page.locator(".tt-storage-canvas svg, .tt-graph-canvas svg").count():
                page.wait_for_timeout(500)
            page.screenshot(path=str(artifacts_dir(tmp_path) / "slides_live_jupyterlab.png"))
            assert page.locator(".tt-storage-canvas svg, .tt-graph-canvas svg").count() > 0
            assert not page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").count()


def test_trace_tables_grow_to_the_slide_and_prints_come_as_one_output():
    import teachtorch as tt
    from teachtorch.explorer import TraceView
    with tt.dispatch.trace() as t:
        tt.ones(2) + 1
    static = TraceView(t).static_html()
    width = float(re.search(r"width='([\d.]+)'", static)[1])
    grown = float(re.search(r"width='([\d.]+)'", build.bigger_traces(static))[1])
    assert grown == pytest.approx(min(1.5 * width, build.WIDTH - 52), abs=0.1) and grown > width
    assert build.bigger_traces("<svg xmlns='http://www.w3.org/2000/svg' width='10' height='5'>").endswith("width='10' height='5'>")
    out = [nbformat.v4.new_output("stream", name="stdout", text="a\n"),
           nbformat.v4.new_output("stream", name="stdout", text="b\n"),
           nbformat.v4.new_output("stream", name="stderr", text="c\n")]
    assert [(o["name"], o["text"]) for o in build.merged_streams(out)] == [("stdout", "a\nb\n"), ("stderr", "c\n")]
