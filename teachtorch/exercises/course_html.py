"""The course as static web pages: every lesson run once and saved as HTML, to read without running it.

    python -m teachtorch.exercises.course_html lessons build/course-html        (make course-html)
        -> build/course-html/index.html, 00_start.html ... 16_add_an_op.html, explorer_tour.html

Each lesson is run top to bottom in its teacher form (course.py), so every check passes and every picture is
drawn; then each exercise's code is put back in the student's form (the stub that raises NotImplementedError)
above the outputs the reference solution gave. A reader sees what the exercise asks and what a right answer
prints, not the answer itself (`--solutions` keeps the solutions, for a teacher's copy).

What makes the pages work with no network, in any browser, from `file://`:

* **Pictures.** A live explorer widget (StorageView, GraphView, TraceView, TrainMonitor) needs a kernel; its
  output also carries a static copy as `text/html` (inline SVG, or a PNG as a data URI) and that copy is what
  the page shows: the widget's own view and the notebook's widget state are dropped. Matplotlib figures are
  PNGs embedded in the page.
* **Maths.** nbconvert's pages load MathJax from a CDN. Here each `$...$` and `$$...$$` of the lessons' text is
  turned into MathML when the page is built (latex2mathml), which browsers draw natively: no script.
* **Nothing else from outside.** The template (`PAGE_TEMPLATE`, extending nbconvert's "lab" template) leaves
  out require.js, the widget manager, MathJax and mermaid, which the lab template fetches from CDNs; its
  stylesheets are inline. tests/browser/test_course_html.py opens every page in Chromium and fails on any
  request that is not a file of the folder.

Links between lessons (`[Views](02_views.py)` in the text) are rewritten to the pages (`02_views.html`), and
every page gets a bar with the course index and the previous and next lessons.

PyTorch's tutorials are built the same way, from executable sources to static pages: sphinx-gallery runs
each tutorial's Python source and saves its output in the page (the pytorch/tutorials repository).
"""

import argparse
import html
import re
import sys
import tempfile
import time
from pathlib import Path

from . import course

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
EXERCISE_NOTE = ("*The exercise, as you get it. What it prints below is what the reference solution printed when "
                 "this page was built: write your own in JupyterLab (`make lab`).*")

# `$$ ... $$`, then `$ ... $` (not `\$`, not `$ 5`, as Jupyter's own rules); either may go on over a line
# break, not over a blank line (the end of a paragraph)
MATH = re.compile(r"(?<!\\)\$\$((?:[^$]|\$(?!\$))+?)\$\$"
                  r"|(?<![\\$])\$(?![\s$])((?:[^$\n]|\n(?![ \t]*\n))+?)(?<![\s\\])\$(?!\$)")
# code in the text: fenced blocks and `spans`, which keep their dollars
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
PLACEHOLDER = re.compile(r"TTMATH\d+X")
ATTRIBUTE = re.compile(r'(?:id|href)="[^"]*TTMATH\d+X[^"]*"')
LESSON_LINK = re.compile(r"\]\(((?:\d\d_[\w]+|explorer_tour|index))\.py\)")

PAGE_TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block extra_css -%}
<style>
nav.course-bar { display: flex; gap: 1.5em; align-items: baseline; flex-wrap: wrap; padding: 0.6em 1em;
  margin: 0 0 1em 0; border-bottom: 1px solid #ccc; font-family: sans-serif; font-size: 14px; }
nav.course-bar .note { color: #666; }
math[display="block"] { margin: 0.6em 0; }
/* a table of long source paths ("Where this is in PyTorch") wraps inside a narrow window instead of running off it */
.jp-RenderedMarkdown td { overflow-wrap: anywhere; }
</style>
{%- endblock extra_css -%}
{%- block body_header -%}
{{ super() }}
{{ resources.course_bar }}
{%- endblock body_header -%}
{%- block body_footer -%}
{{ resources.course_bar }}
{{ super() }}
{%- endblock body_footer -%}
"""


def pages(source_dir):
    """The sources that become pages, in the course's order: index.py, the lessons, the explorer tour."""
    source_dir = Path(source_dir)
    lessons = sorted(source_dir.glob("[0-9][0-9]_*.py"))
    extra = [source_dir / "index.py"] * (source_dir / "index.py").exists()
    tour = [source_dir / "explorer_tour.py"] * (source_dir / "explorer_tour.py").exists()
    return extra + lessons + tour


def title_of(nb, fallback):
    """The text of the notebook's first `# ` heading."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return fallback


def markdown_with_mathml(text, formulas=None):
    """(text with each formula replaced by a placeholder word, {placeholder: (TeX, MathML)}); code spans
    untouched. Pass the `formulas` of a page's earlier cells to number on from them (each key is new)."""
    from latex2mathml.converter import convert

    formulas = {} if formulas is None else formulas
    pieces, last = [], 0

    def math(part):
        def swap(match):
            key = f"TTMATH{len(formulas)}X"
            block = match.group(1) is not None
            tex = match.group(1) if block else match.group(2)
            formulas[key] = tex.strip(), convert(tex.strip(), display="block" if block else "inline")
            return key
        return MATH.sub(swap, part)

    for code in CODE.finditer(text):
        pieces += [math(text[last:code.start()]), code.group(0)]
        last = code.end()
    pieces.append(math(text[last:]))
    return "".join(pieces), formulas


def execute(nb, timeout=600):
    """Run the notebook `nb` top to bottom in a fresh kernel whose working folder is a scratch folder (what it
    writes there is gone afterwards); its outputs are filled in. Returns the seconds it took."""
    from nbclient import NotebookClient

    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": scratch}}).execute()
    return time.perf_counter() - start


def run_lesson(path, timeout=600):
    """The lesson's teacher notebook, executed; (notebook, student notebook, seconds)."""
    student, teacher = course.notebooks(path)
    return teacher, student, execute(teacher, timeout)


def reading_copy(teacher, student, solutions=False):
    """The executed teacher notebook as a page shows it: the inserted teacher-mode cell removed, exercises in
    the student's form (unless `solutions`), widget views replaced by their static copies."""
    import nbformat

    cells = [c for c in teacher.cells if c.source != course.TEACHER_CELL]
    if len(cells) != len(student.cells):
        raise ValueError(f"the teacher's notebook has {len(cells)} cells and the student's {len(student.cells)}")
    shown, count = [], 0
    for cell, asked in zip(cells, student.cells):
        if cell.cell_type == "code":
            count += 1
            cell.execution_count = count                   # In [1], In [2], ... as a fresh run numbers them
            cell.outputs = [o for o in map(static_output, cell.outputs) if o is not None]
            for output in cell.outputs:
                if "execution_count" in output:
                    output.execution_count = count
            if not solutions and cell.source != asked.source:
                cell.source = asked.source
                shown.append(nbformat.v4.new_markdown_cell(EXERCISE_NOTE))
        shown.append(cell)
    teacher.cells = shown
    teacher.metadata.pop("widgets", None)
    return teacher


def static_output(output):
    """The output without its live widget view; None for a widget that has no static copy to show."""
    data = output.get("data")
    if not data or WIDGET_VIEW not in data:
        return output
    del data[WIDGET_VIEW]
    return output if "text/html" in data or "image/png" in data or "image/svg+xml" in data else None


def course_bar(order, index):
    """The navigation bar of page `index` of `order` [(file name, title)]."""
    links = ['<a href="index.html">Course index</a>'] if order[index][0] != "index.html" else []
    if index > 0 and order[index - 1][0] != "index.html":
        links.append(f'<a href="{order[index - 1][0]}">← {html.escape(order[index - 1][1])}</a>')
    if index + 1 < len(order):
        links.append(f'<a href="{order[index + 1][0]}">{html.escape(order[index + 1][1])} →</a>')
    note = ('<span class="note">A reading copy, run once when it was built. To run it and do the exercises, open '
            'the lesson in JupyterLab (<code>make lab</code>).</span>')
    return f'<nav class="course-bar">{" ".join(links)} {note}</nav>'


def page_html(nb, bar, title="teachtorch"):
    """One notebook as a standalone HTML page (no script, no request outside its folder)."""
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter

    formulas = {}
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source, _ = markdown_with_mathml(LESSON_LINK.sub(r"](\1.html)", cell.source), formulas)
    exporter = HTMLExporter(template_name="lab", template_file="course_page.html.j2",
                            extra_loaders=[DictLoader({"course_page.html.j2": PAGE_TEMPLATE})])
    body, _ = exporter.from_notebook_node(nb, resources={"course_bar": bar, "metadata": {"name": title}})
    return fill_formulas(body, formulas)


def fill_formulas(body, formulas):
    """Put each formula's MathML where its placeholder is in the HTML `body`. A formula in a heading is in
    the heading's anchor too (id="3.-Backward-computes-TTMATH0X"): there it stays TeX, as JupyterLab's
    anchors do, and only the text gets the MathML."""
    body = ATTRIBUTE.sub(lambda m: PLACEHOLDER.sub(lambda k: html.escape(formulas[k.group(0)][0]), m.group(0)), body)
    return PLACEHOLDER.sub(lambda k: formulas[k.group(0)][1], body)


def build(source_dir, out_dir, solutions=False, only=None, log=print):
    """Every page of the course into `out_dir`; returns [(page path, seconds the lesson took to run)]."""
    import jupytext

    sources = pages(source_dir)
    notebooks = [jupytext.read(p) for p in sources]
    order = [(p.stem + ".html", title_of(nb, p.stem)) for p, nb in zip(sources, notebooks)]
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for i, path in enumerate(sources):
        if only and not any(path.name.startswith(o) for o in only):
            continue
        teacher, student, seconds = run_lesson(path)
        nb = reading_copy(teacher, student, solutions)
        target = out_dir / order[i][0]
        target.with_suffix(".tmp").write_text(page_html(nb, course_bar(order, i), order[i][1]), encoding="utf-8")
        target.with_suffix(".tmp").replace(target)          # never a half-written page
        written.append((target, seconds))
        log(f"{target}  ({seconds:.1f} s)")
    return written


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", default="lessons")
    parser.add_argument("out", nargs="?", default="build/course-html")
    parser.add_argument("--solutions", action="store_true", help="keep the exercises' solutions (a teacher's copy)")
    parser.add_argument("--only", nargs="*", help="build only the pages whose file names start so (e.g. 01 index)")
    args = parser.parse_args(argv)
    build(args.source, args.out, args.solutions, args.only)


if __name__ == "__main__":
    sys.exit(main())
