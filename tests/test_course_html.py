"""`make course-html` (teachtorch/exercises/course_html.py): the course as static pages that load offline in
Chromium with every picture and formula, exercises shown unsolved above what the reference solution printed,
and an index that links every page. (Each shipped lesson's own page is checked in tests/test_lessons.py, from
the run that test makes anyway.)"""

import html
import re
from pathlib import Path

import pytest

from browser.course_pages import inspect_page
from browser.harness import artifacts_dir, launch_chromium
from teachtorch.exercises import course_html

LESSONS = Path(__file__).resolve().parent.parent / "lessons"

INDEX = '''# %% [markdown]
# # A tiny course
#
# | # | lesson |
# |---|---|
# | 1 | [Strides](01_tiny.py) |
# | 2 | [Pictures](02_pictures.py) |

# %%
print("the index's code runs too")
'''

TINY = '''# %% [markdown]
# # Lesson 1: strides
#
# ## Where $i_d$ lives
#
# An element lives at $\\mathrm{offset} + \\sum_d i_d \\cdot s_d$, and `$HOME` in code is no formula; \\$5 is
# money. The whole rule:
#
# $$\\mathrm{address} = o + \\sum_{d=0}^{n-1} i_d\\, s_d$$
#
# Next: [the pictures](02_pictures.py).
#
# | concept | PyTorch | teachtorch |
# |---|---|---|
# | strides | `c10/core/TensorImpl.h` (`TensorImpl::set_sizes_contiguous`), `aten/src/ATen/native/TensorShape.cpp` | `teachtorch/_strides.py` (`contiguous_strides`), `teachtorch/kernels/views.py` |

# %% [markdown]
# A second cell, a second formula: $z^2$.

# %%
from teachtorch.exercises import check

def contiguous_strides(shape):
    ### BEGIN SOLUTION
    strides, running = [1] * len(shape), 1
    for d in reversed(range(len(shape))):
        strides[d] = running
        running *= max(shape[d], 1)
    return tuple(strides)
    ### END SOLUTION

check("L01.contiguous_strides", contiguous_strides)
'''

PICTURES = '''# %% [markdown]
# # Lesson 2: pictures

# %%
import matplotlib.pyplot as plt
import teachtorch as tt
from teachtorch.explorer import GraphView, StorageView

x = tt.arange(6.).reshape(2, 3)
StorageView(x, x.t())

# %%
a = tt.ones(2, requires_grad=True)
GraphView((a * 3).sum())

# %%
plt.plot([0, 1, 4, 9])
plt.show()
'''


def test_formulas_become_mathml_and_code_keeps_its_dollars():
    text, formulas = course_html.markdown_with_mathml(
        "at $x_i$ and `$HOME` and \\$5, then $$\\sum_i x_i$$ and $ 5 $ is not one")
    assert list(formulas) == ["TTMATH0X", "TTMATH1X"]
    assert text == "at TTMATH0X and `$HOME` and \\$5, then TTMATH1X and $ 5 $ is not one"
    assert formulas["TTMATH0X"][0] == "x_i" and formulas["TTMATH1X"][0] == "\\sum_i x_i"
    assert formulas["TTMATH0X"][1].startswith("<math") and "<mi>x</mi>" in formulas["TTMATH0X"][1]
    assert 'display="block"' in formulas["TTMATH1X"][1] and "<mo>&#x02211;</mo>" in formulas["TTMATH1X"][1]
    # a page numbers its formulas on from cell to cell: no two cells share a placeholder
    more, formulas = course_html.markdown_with_mathml("then $y$", formulas)
    assert more == "then TTMATH2X" and formulas["TTMATH2X"][0] == "y" and len(formulas) == 3


def test_every_formula_of_the_course_converts():
    import jupytext
    found = 0
    for path in course_html.pages(LESSONS):
        for cell in jupytext.read(path).cells:
            if cell.cell_type == "markdown":
                text, formulas = course_html.markdown_with_mathml(cell.source)
                found += len(formulas)
                # a dollar left in the text outside code means a formula that was not recognised
                prose = re.sub(r"```.*?```|`[^`\n]*`", "", text, flags=re.S).replace("\\$", "")
                assert "$" not in prose, (path.name, prose)
    assert found > 300


def test_the_index_links_every_page():
    linked = set(re.findall(r"\]\((\w+\.py)\)", (LESSONS / "index.py").read_text()))
    pages = {p.name for p in course_html.pages(LESSONS)} - {"index.py"}
    assert pages <= linked, f"lessons/index.py does not link {sorted(pages - linked)}"
    assert linked <= pages, f"lessons/index.py links pages that do not exist: {sorted(linked - pages)}"


def test_a_widget_without_a_static_copy_is_dropped_and_one_with_it_keeps_the_copy():
    view = "application/vnd.jupyter.widget-view+json"
    kept = course_html.static_output({"output_type": "display_data",
                                      "data": {view: {"model_id": "1"}, "text/html": "<svg></svg>", "text/plain": "V"}})
    assert set(kept["data"]) == {"text/html", "text/plain"}
    assert course_html.static_output({"output_type": "display_data",
                                      "data": {view: {"model_id": "2"}, "text/plain": "IntProgress()"}}) is None
    stream = {"output_type": "stream", "name": "stdout", "text": "hi"}
    assert course_html.static_output(stream) is stream


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    src = tmp_path_factory.mktemp("lessons")
    (src / "index.py").write_text(INDEX)
    (src / "01_tiny.py").write_text(TINY)
    (src / "02_pictures.py").write_text(PICTURES)
    out = tmp_path_factory.mktemp("html")
    written = course_html.build(src, out, log=lambda line: None)
    return src, out, written


def test_the_build_writes_a_page_per_source_in_course_order(built):
    src, out, written = built
    assert [p.name for p, _ in written] == ["index.html", "01_tiny.html", "02_pictures.html"]
    assert sorted(p.name for p in out.iterdir()) == ["01_tiny.html", "02_pictures.html", "index.html"]


def test_a_page_shows_the_exercise_unsolved_with_the_reference_output(built):
    _, out, _ = built
    page = (out / "01_tiny.html").read_text()
    code = text_of(page)
    assert "your turn: write this" in code and "running *= max" not in code     # the stub, not the solution
    assert "L01.contiguous_strides: passed" in page                             # what the solution printed
    assert "<title>Lesson 1: strides</title>" in page
    assert "BEGIN SOLUTION" not in page and "teacher_mode" not in page
    assert 'href="02_pictures.html"' in page and "02_pictures.py" not in page
    assert page.count("<math") == 4 and page.count("<msup><mi>z</mi><mn>2</mn></msup>") == 1 and "TTMATH" not in page and "`$HOME`" not in page
    assert 'id="Where-i_d-lives"' in page and 'href="#Where-i_d-lives"' in page   # a formula in a heading
    assert "In\xa0[1]:" in page and "In\xa0[3]:" not in page                  # numbered as a fresh run


def test_solutions_are_kept_on_request(tmp_path, built):
    src, _, _ = built
    course_html.build(src, tmp_path, solutions=True, only=["01"], log=lambda line: None)
    page = text_of((tmp_path / "01_tiny.html").read_text())
    assert "running *= max" in page and "your turn" not in page
    assert [p.name for p in tmp_path.iterdir()] == ["01_tiny.html"]


def test_every_page_loads_offline_in_chromium_with_its_pictures_and_links(built, tmp_path):
    _, out, _ = built
    shots = artifacts_dir(tmp_path)
    expected_pictures = {"index.html": 0, "01_tiny.html": 0, "02_pictures.html": 3}
    with launch_chromium() as context:
        for name, pictures in expected_pictures.items():
            report = inspect_page(context, out / name, screenshot=shots / f"course_html_{name}.png")
            assert report["outside"] == [] and report["errors"] == [] and report["broken"] == [], (name, report)
            assert report["pictures"] == pictures, (name, report)
            assert report["empty_formulas"] == 0 and report["formulas"] == (4 if name == "01_tiny.html" else 0)
            assert report["links"] and all((out / link).is_file() for link in report["links"]), (name, report)
    assert {"01_tiny.html", "02_pictures.html"} <= set(inspect_links(out / "index.html"))
    with launch_chromium() as context:                 # a narrow window: the table of long paths wraps
        assert inspect_page(context, out / "01_tiny.html", width=520)["wide_tables"] == 0


def text_of(page):
    """A page's text: its tags removed, its entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", page))


def inspect_links(page):
    return re.findall(r'href="(\w+\.html)"', page.read_text())


def test_the_course_index_and_the_explorer_tour_as_pages(tmp_path):
    """The two pages that are not lessons (the lessons' own pages are checked in test_lessons.py)."""
    written = course_html.build(LESSONS, tmp_path / "html", only=["index", "explorer_tour"], log=lambda line: None)
    assert [p.name for p, _ in written] == ["index.html", "explorer_tour.html"]
    every_page = {p.stem + ".html" for p in course_html.pages(LESSONS)}
    with launch_chromium() as context:
        for page, _ in written:
            report = inspect_page(context, page, screenshot=artifacts_dir(tmp_path) / f"course_html_{page.stem}.png")
            assert report["outside"] == [] and report["errors"] == [] and report["broken"] == [], report
            assert set(report["links"]) <= every_page, set(report["links"]) - every_page
            assert report["pictures"] == report["present"] and (report["present"] > 0) == (page.stem != "index")
    index_links = set(inspect_links(tmp_path / "html" / "index.html"))
    assert every_page - {"index.html"} <= index_links          # the index links every lesson and the tour
