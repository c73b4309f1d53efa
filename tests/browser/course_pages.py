"""Open a static course page (teachtorch/exercises/course_html.py) in Chromium and report what a reader gets.

    with launch_chromium() as context:
        report = inspect_page(context, Path("build/course-html/01_storage.html"), screenshot=Path("01.png"))

The report: `outside` (every request that is not a file of the page's folder: must be empty), `errors`
(script errors and console errors), `pictures` (output areas showing a picture that drew: an <img> that
loaded with a width, or an <svg> with a size) and `present` (output areas with an <img> or <svg>, drawn or
not), `broken` (images that did not load), `formulas` and
`empty_formulas` (MathML elements, and those the browser drew with no size), `links` (the page's relative
links to other files), `title`, the page's `height`, and `wide_tables` (tables running past the window's right edge).

Run as a script it builds nothing: it inspects pages already built and saves a screenshot of each, for a
person to look at:  python tests/browser/course_pages.py build/course-html/*.html
"""

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from browser.harness import ALLOWED, guard, launch_chromium  # noqa: E402

MEASURE = """() => {
  const drawn = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const areas = [...document.querySelectorAll('.jp-OutputArea-output')];
  const pictures = areas.filter((area) =>
    [...area.querySelectorAll('img')].some((img) => img.complete && img.naturalWidth > 0 && drawn(img)) ||
    [...area.querySelectorAll('svg')].some(drawn)).length;
  const present = areas.filter((area) => area.querySelector('img, svg')).length;
  const broken = [...document.querySelectorAll('img')].filter((img) => !(img.complete && img.naturalWidth > 0))
    .map((img) => (img.getAttribute('src') || '').slice(0, 80));
  const maths = [...document.querySelectorAll('math')];
  const links = [...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href'))
    .filter((href) => !/^(#|[a-z]+:)/i.test(href));
  return { pictures, present, broken, formulas: maths.length, empty_formulas: maths.filter((m) => !drawn(m)).length,
           links, title: document.title, height: document.documentElement.scrollHeight,
           wide_tables: [...document.querySelectorAll('table')]
             .filter((t) => t.getBoundingClientRect().right > window.innerWidth + 1).length };
}"""


def inspect_page(context, path, screenshot=None, width=1200, full_page=False):
    """Load `path` (a file) in a new tab of `context`; the report described in the module docstring."""
    path = Path(path).resolve()
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": 900})
    outside, errors = guard(page, allowed=(path.parent.as_uri() + "/", *ALLOWED))    # the page's own folder
    try:
        page.goto(path.as_uri(), wait_until="load")
        page.wait_for_timeout(100)
        report = page.evaluate(MEASURE)
        if screenshot:
            page.screenshot(path=str(screenshot), full_page=full_page)
    finally:
        page.close()
    report.update(outside=outside, errors=errors)
    return report


def picture_outputs(nb):
    """How many outputs of a notebook show a picture (a PNG, an SVG, or HTML with an <img> or <svg>)."""
    count = 0
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            html = data.get("text/html", "")
            html = "".join(html) if isinstance(html, list) else html
            if "image/png" in data or "image/svg+xml" in data or "<img" in html or "<svg" in html:
                count += 1
    return count


if __name__ == "__main__":
    out = Path("test-artifacts/course-html")
    out.mkdir(parents=True, exist_ok=True)
    with launch_chromium() as context:
        for name in sys.argv[1:]:
            shot = out / (Path(name).stem + ".png")
            report = inspect_page(context, name, screenshot=shot, full_page=True)
            print(name, {k: v for k, v in report.items() if k != "links"}, "->", shot)
