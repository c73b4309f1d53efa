"""Build the talk decks: each slides/<deck>.py run against the library and written as ONE self-contained
reveal.js page (make slides).

    python slides/build.py                          every deck -> build/slides/<deck>.html
    python slides/build.py slides/a_tensors.py --pdf   one deck, and its PDF handout next to it

A deck is a jupytext notebook whose cells carry RISE's slide metadata (`slide_type`: slide, subslide, -,
fragment, notes, skip) and, on a slide's first cell, `timing` in seconds (reveal.js's data-timing: the
presenter view paces on it). The build:

1. runs the deck top to bottom in a kernel, with TEACHTORCH_SLIDES=1, so `step_through(view)` outputs carry
   their frames (teachtorch/explorer/frames.py): every picture is drawn by the library now, from the code on
   the slide, and a deck cannot drift from the code;
2. turns the cells into reveal.js sections: code as it ran (highlighted), outputs, the explorer's static SVGs,
   matplotlib PNGs, a stepping picture as fragments stacked in one place, maths as MathML, notes as
   `<aside class="notes">`;
3. writes one HTML file with reveal.js, its notes plugin (the presenter view: press S), the theme and its
   fonts inlined (slides/vendor/reveal.js, MIT), so the page makes no request at all and works from a USB stick;
4. with --pdf, prints it with Chromium (reveal.js's ?print-pdf layout, one slide a page) for handouts.

The same source runs live in JupyterLab: open it as a notebook and present it with RISE (jupyterlab-rise,
in the lab install: Alt+R), where every cell can be changed and run again during the talk.
"""

import argparse
import base64
import html
import json
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from teachtorch.exercises.course_html import (execute, fill_formulas, markdown_with_mathml,  # noqa: E402
                                              static_output, title_of)
from teachtorch.explorer.frames import FRAMES_MIME  # noqa: E402

REVEAL = HERE / "vendor" / "reveal.js"
WIDTH, HEIGHT = 1280, 720
FONTS = [("regular", "normal", "normal"), ("italic", "normal", "italic"), ("semibold", "600", "normal"),
         ("semibolditalic", "600", "italic")]
LESSON_LINK = re.compile(r'href="\.\./lessons/(\w+)\.py"')
TRACE_SVG = re.compile(r"<svg xmlns='http://www.w3.org/2000/svg' width='([\d.]+)' height='([\d.]+)'"
                       r"(?=[^>]*class=\"tt-trace\")")
ANCHOR = re.compile(r"<a class=.anchor-link.[^>]*>(?:¶|&#182;)</a>")
REPO_LINK = re.compile(r'href="\.\./(?!course-html/)([^"#:]+)"')

DECK_CSS = """
.reveal { font-size: 30px; }
.reveal .slides section { text-align: left; height: 100%; }
.reveal h1, .reveal h2, .reveal h3 { text-transform: none; }
.reveal h1 { font-size: 2.0em; } .reveal h2 { font-size: 1.35em; margin-bottom: 0.4em; }
.reveal ul, .reveal ol { display: block; margin-left: 1em; }
.reveal pre { width: 100%; margin: 8px 0; box-shadow: none; font-size: 0.62em; }
.reveal pre code { max-height: none; padding: 6px 10px; line-height: 1.3; }
.reveal .tt-code pre code { background: #f6f8fa; border-left: 4px solid #3b6ea5; }
.reveal .tt-out pre { font-size: 0.55em; margin: 2px 0; }
.reveal .tt-out pre code { background: #fff; color: #222; padding: 2px 10px; }
.reveal .tt-out svg { max-width: 100%; height: auto; max-height: 500px; }
.reveal .tt-out img { max-width: 100%; max-height: 500px; margin: 0; }
.reveal .tt-out figure { margin: 0; }
.reveal .tt-caption { font-size: 0.55em; color: #555; font-family: monospace; }
.reveal table { font-size: 0.7em; }
.reveal .tt-title p { color: #555; }
.reveal section img { margin: 0; }
.reveal .tt-monitor-static h4 { display: none; }
.reveal .tt-monitor-static .tt-monitor-summary { font-size: 0.55em !important; }
.reveal .tt-monitor-static img.tt-monitor-figure { max-height: 340px; width: auto; }
.reveal .tt-monitor-static .tt-monitor-norms { display: none; }
"""
# a TrainMonitor's static copy on a slide: the figure and its one-line summary (the norms table and the title
# are for a notebook page)

# the explorer's classes that a frame sets (widgets/explorer.css: the stepper and the hover)
EXPLORER_CSS_RULES = re.compile(r"^\.(tt-stepping|tt-graph-canvas|tt-storage-canvas)[^{]*\{[^}]*\}", re.M)


def run_deck(path, timeout=600):
    """The deck's notebook, executed (course_html.execute) with TEACHTORCH_SLIDES=1; (notebook, seconds)."""
    import jupytext

    nb = jupytext.read(path)
    os.environ["TEACHTORCH_SLIDES"] = "1"           # the kernel inherits it
    try:
        return nb, execute(nb, timeout)
    finally:
        os.environ.pop("TEACHTORCH_SLIDES", None)


def slide_type(cell):
    return cell.metadata.get("slideshow", {}).get("slide_type", "-")


def sections(nb):
    """The deck's shape: [horizontal section: [slide: {"cells": [(cell, is_fragment)], "notes": [...],
    "timing": seconds or None}]]."""
    deck = []
    for cell in nb.cells:
        kind = slide_type(cell)
        if kind == "skip":
            continue
        if kind == "slide" or not deck:
            deck.append([])
        if kind in ("slide", "subslide") or not deck[-1]:
            deck[-1].append({"cells": [], "notes": [], "timing": cell.metadata.get("timing")})
        slide = deck[-1][-1]
        if kind == "notes":
            slide["notes"].append(cell.source)
        else:
            slide["cells"].append((cell, kind == "fragment"))
    return deck


def markdown_html(text, formulas):
    """Markdown to HTML, formulas as MathML (course_html's converter)."""
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    text, _ = markdown_with_mathml(text, formulas)
    return fill_formulas(ANCHOR.sub("", markdown2html_mistune(text)), formulas)   # no "¶" links on slides


def code_html(source):
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    body = highlight(source, PythonLexer(), HtmlFormatter(nowrap=True))
    return f"<div class='tt-code'><pre><code class='highlight'>{body}</code></pre></div>"


def output_html(output):
    """One output of a code cell: text as it printed, the static copy of a picture, or stacked frames."""
    kind = output.get("output_type")
    if kind == "stream":
        return f"<div class='tt-out'><pre><code>{html.escape(output['text'].rstrip())}</code></pre></div>"
    if kind == "error":
        raise RuntimeError(f"a deck cell failed: {output.ename}: {output.evalue}")
    data = output.get("data", {})
    if FRAMES_MIME in data:
        return frames_html(data[FRAMES_MIME])
    output = static_output(output)
    if output is None:
        return ""
    data = output.get("data", {})
    if "text/html" in data:
        return f"<div class='tt-out'>{bigger_traces(''.join(data['text/html']))}</div>"
    if "image/png" in data:
        return f"<div class='tt-out'><img src='data:image/png;base64,{data['image/png']}'></div>"
    if "image/svg+xml" in data:
        return f"<div class='tt-out'>{''.join(data['image/svg+xml'])}</div>"
    if "text/plain" in data:
        return f"<div class='tt-out'><pre><code>{html.escape(''.join(data['text/plain']))}</code></pre></div>"
    return ""


def bigger_traces(text, room=WIDTH - 52, most=1.5):
    """A dispatch trace's table is drawn with 11 px text: on a slide, make it as wide as the slide allows (at
    most 1.5 times), so the back of the room can read it."""
    def grow(m):
        w, h = float(m[1]), float(m[2])
        f = max(1.0, min(most, room / w))
        return f"<svg xmlns='http://www.w3.org/2000/svg' width='{w * f:.1f}' height='{h * f:.1f}'"
    return TRACE_SVG.sub(grow, text)


def merged_streams(outputs):
    """Consecutive prints to the same stream as one output (a cell that prints while it times things arrives
    in pieces)."""
    merged = []
    for output in outputs:
        last = merged[-1] if merged else None
        if (last is not None and output.get("output_type") == "stream" and last.get("output_type") == "stream"
                and last.get("name") == output.get("name")):
            merged[-1] = dict(last, text=last["text"] + output["text"])
        else:
            merged.append(output)
    return merged


def frames_html(frames):
    """A stepping picture: all frames in one place (reveal.js r-stack), each shown on its own key press."""
    parts = []
    for i, frame in enumerate(frames):
        if len(frames) == 1:
            cls, index = "", ""
        elif i == 0:                                # shown at once, gone at the first key press
            cls, index = "fragment fade-out", " data-fragment-index='0'"
        elif i < len(frames) - 1:                   # shown at press i, gone at press i + 1
            cls, index = "fragment fade-in-then-out", f" data-fragment-index='{i - 1}'"
        else:                                       # the last one stays
            cls, index = "fragment", f" data-fragment-index='{i - 1}'"
        parts.append(f"<div class='tt-frame {cls}'{index}><div class='tt-caption'>{frame['caption']}</div>"
                     f"{frame['html']}</div>")
    return f"<div class='tt-out r-stack'>{''.join(parts)}</div>"


def cell_html(cell, formulas):
    if cell.cell_type == "markdown":
        return markdown_html(cell.source, formulas)
    shown = "" if "hide-input" in cell.metadata.get("tags", []) else code_html(cell.source)
    return shown + "".join(output_html(o) for o in merged_streams(cell.get("outputs", [])))


def slide_html(slide, formulas, first):
    body = []
    for cell, fragment in slide["cells"]:
        inner = cell_html(cell, formulas)
        body.append(f"<div class='fragment'>{inner}</div>" if fragment else inner)
    notes = "".join(markdown_html(n, formulas) for n in slide["notes"])
    timing = f" data-timing='{int(slide['timing'])}'" if slide["timing"] else ""
    title = " class='tt-title'" if first else ""
    aside = f"<aside class='notes'>{notes}</aside>" if notes else ""
    return f"<section{timing}{title}>{''.join(body)}{aside}</section>"


def deck_html(nb, title):
    """The whole deck as one HTML page: reveal.js, its notes plugin, theme and fonts inline."""
    from pygments.formatters import HtmlFormatter

    formulas, body = {}, []
    for h, section in enumerate(sections(nb)):
        slides = [slide_html(s, formulas, h == 0 and v == 0) for v, s in enumerate(section)]
        body.append(slides[0] if len(slides) == 1 else f"<section>{''.join(slides)}</section>")
    html_body = rewrite_links("".join(body))
    css = "\n".join([(REVEAL / "dist" / "reveal.css").read_text(), theme_css(),
                     HtmlFormatter().get_style_defs(".highlight"), explorer_css(), DECK_CSS])
    config = {"width": WIDTH, "height": HEIGHT, "margin": 0.04, "hash": True, "slideNumber": "c/t",
              "center": False, "transition": "none", "pdfSeparateFragments": False}
    return (f"<!doctype html>\n<html lang='en'><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
            f"<style>{css}</style></head>\n<body><div class='reveal'><div class='slides'>{html_body}</div></div>\n"
            f"<script>{(REVEAL / 'dist' / 'reveal.js').read_text()}</script>\n"
            f"<script>{(REVEAL / 'plugin' / 'notes' / 'notes.js').read_text()}</script>\n"
            f"<script>Reveal.initialize(Object.assign({json.dumps(config)}, {{plugins: [RevealNotes]}}));</script>"
            f"\n</body></html>\n")


def theme_css():
    """reveal.js's white theme with its Source Sans Pro fonts inlined as data URIs (no font file to fetch)."""
    fonts = REVEAL / "dist" / "theme" / "fonts" / "source-sans-pro"
    faces = []
    for name, weight, style in FONTS:
        data = base64.b64encode((fonts / f"source-sans-pro-{name}.woff").read_bytes()).decode()
        faces.append(f"@font-face {{ font-family: 'Source Sans Pro'; font-weight: {weight}; font-style: {style}; "
                     f"src: url(data:font/woff;base64,{data}) format('woff'); }}")
    theme = (REVEAL / "dist" / "theme" / "white.css").read_text()
    theme = re.sub(r"@import url\([^)]*\);", "", theme)
    return "\n".join(faces) + "\n" + theme


def explorer_css():
    """The rules of the explorer's stylesheet that draw a frame's lit nodes, edges and cells."""
    from teachtorch.explorer import frontend

    return "\n".join(m.group(0) for m in EXPLORER_CSS_RULES.finditer(frontend.css_source()))


def rewrite_links(body):
    """A link to a lesson's source (../lessons/NN_name.py) -> that lesson's page (make course-html); any
    other ../x -> the repository's file."""
    body = LESSON_LINK.sub(r'href="../course-html/\1.html"', body)
    return REPO_LINK.sub(r'href="../../\1"', body)


def write_pdf(page, pdf):
    """Print the deck with Chromium: reveal.js's print layout, one slide per page."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        tab = browser.new_page()
        tab.goto(Path(page).resolve().as_uri() + "?print-pdf", wait_until="load")
        tab.wait_for_function("window.Reveal && Reveal.isReady()")
        tab.pdf(path=str(pdf), width=f"{WIDTH}px", height=f"{HEIGHT}px", print_background=True)
        browser.close()


def build(path, out_dir, pdf=False, log=print):
    """Run one deck and write out_dir/<deck>.html (and .pdf); returns (html path, seconds, slide count)."""
    nb, seconds = run_deck(path)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / (Path(path).stem + ".html")
    page = deck_html(nb, title_of(nb, Path(path).stem))
    target.with_suffix(".tmp").write_text(page, encoding="utf-8")
    target.with_suffix(".tmp").replace(target)                  # never a half-written deck
    count = sum(len(s) for s in sections(nb))
    if pdf:
        write_pdf(target, target.with_suffix(".pdf"))
    log(f"{target}: {count} slides, ran in {seconds:.1f} s")
    return target, seconds, count


def decks():
    return sorted(p for p in HERE.glob("[a-z]_*.py"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("decks", nargs="*", help="deck sources (default: every slides/<letter>_<name>.py)")
    parser.add_argument("--out", default=str(ROOT / "build" / "slides"))
    parser.add_argument("--pdf", action="store_true", help="also print each deck to PDF with Chromium")
    args = parser.parse_args(argv)
    for deck in args.decks or decks():
        build(deck, args.out, pdf=args.pdf)


if __name__ == "__main__":
    sys.exit(main())
