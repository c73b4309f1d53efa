"""Open a built deck (slides/build.py) in Chromium at projector size and report, slide by slide, what an
audience would see.

    with launch_chromium() as context:
        report = inspect_deck(context, Path("build/slides/a_tensors.html"), shots=Path("test-artifacts/slides"))

Every slide is shown with all its fragments, measured and screenshotted (shots/<deck>/NN_h-v.png). The report:
`slides` (one dict per slide: `indices`, `title`, `overflow` (elements sticking out of the 1280 x 720 slide
box, by more than 2 px), `small_text` (HTML text under 14 px, SVG text under 9 px, as drawn at 1280 x 720),
`notes` (the speaker notes' text), `timing`), `outside` (requests that left the file: must be none), `errors`
(script and console errors), `presenter` (whether pressing S opened the presenter view showing the current
slide's notes).

As a script: python tests/browser/deck_pages.py build/slides/*.html   (screenshots in test-artifacts/slides/)
"""

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from browser.harness import ALLOWED, guard, launch_chromium  # noqa: E402

MIN_TEXT_PX, MIN_SVG_TEXT_PX = 14, 9     # the explorer's smallest SVG labels are drawn at 9-10 px

MEASURE = """([minText, minSvgText]) => {
  const box = document.querySelector('.reveal .slides').getBoundingClientRect();
  const slide = Reveal.getCurrentSlide();
  const shown = (el) => {
    for (let e = el; e && e !== slide.parentElement; e = e.parentElement) {
      const s = getComputedStyle(e);
      if (s.display === 'none' || s.visibility === 'hidden' || s.opacity === '0') return false;
    }
    return true;
  };
  const overflow = [], small = [];
  const name = (el) => el.tagName.toLowerCase() + (el.className && el.className.baseVal === undefined
    ? '.' + String(el.className).split(' ').join('.') : '');
  for (const el of slide.querySelectorAll('*')) {
    if (el.closest('aside.notes') || el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
    if (!shown(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.right > box.right + 2 || r.bottom > box.bottom + 2 || r.left < box.left - 2 || r.top < box.top - 2)
      overflow.push(`${name(el)} ${Math.round(r.left - box.left)},${Math.round(r.top - box.top)} `
                    + `${Math.round(r.width)}x${Math.round(r.height)}`);
    const text = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const px = parseFloat(getComputedStyle(el).fontSize) * Reveal.getScale();
    if (text && px < minText) small.push(`${name(el)} ${px.toFixed(1)}px: ${el.textContent.trim().slice(0, 40)}`);
  }
  for (const t of slide.querySelectorAll('svg text')) {
    if (!shown(t) || !t.textContent.trim()) continue;
    const h = t.getBoundingClientRect().height;
    if (h > 0 && h < minSvgText) small.push(`svg text ${h.toFixed(1)}px: ${t.textContent.trim().slice(0, 40)}`);
  }
  const notes = slide.querySelector('aside.notes');
  const heading = slide.querySelector('h1, h2, h3');
  return { overflow, small_text: small.slice(0, 20), notes: notes ? notes.textContent.trim() : '',
           title: heading ? heading.textContent.trim() : '', timing: Number(slide.dataset.timing || 0) };
}"""


def inspect_deck(context, path, shots=None, presenter=True):
    """Load the deck at 1280 x 720, step through every slide with its fragments shown; the report described
    in the module docstring."""
    path = Path(path).resolve()
    page = context.new_page()
    page.set_viewport_size({"width": 1280, "height": 720})
    outside, errors = guard(page, allowed=(path.as_uri(), *ALLOWED))      # the deck's one file, nothing else
    page.goto(path.as_uri(), wait_until="load")
    page.wait_for_function("window.Reveal && Reveal.isReady()")
    indices = page.evaluate("Reveal.getSlides().map((s) => Reveal.getIndices(s))")
    slides = []
    folder = None
    if shots:
        folder = Path(shots) / path.stem
        folder.mkdir(parents=True, exist_ok=True)
    for n, ix in enumerate(indices):
        # every fragment shown (a stepping picture: its last frame)
        page.evaluate("([h, v]) => { Reveal.slide(h, v, 0); Reveal.slide(h, v, 1000); }", [ix["h"], ix["v"]])
        page.wait_for_timeout(400)                     # fragments fade in 0.2 s
        report = page.evaluate(MEASURE, [MIN_TEXT_PX, MIN_SVG_TEXT_PX])
        report["indices"] = (ix["h"], ix.get("v") or 0)
        if folder:
            page.screenshot(path=str(folder / f"{n:02d}_{ix['h']}-{ix.get('v') or 0}.png"))
        slides.append(report)
    shown_in_presenter = _presenter_view(page) if presenter else None
    page.close()
    return {"slides": slides, "outside": outside, "errors": errors, "presenter": shown_in_presenter}


def _presenter_view(page):
    """Press S on a slide with notes: the presenter view opens and shows those notes."""
    target = page.evaluate("""() => { const s = Reveal.getSlides().findIndex((el) => el.querySelector('aside.notes'));
                                      return s < 0 ? null : Reveal.getIndices(Reveal.getSlides()[s]); }""")
    if target is None:
        return False
    page.evaluate("([h, v]) => Reveal.slide(h, v, 0)", [target["h"], target["v"]])
    notes = page.evaluate("Reveal.getCurrentSlide().querySelector('aside.notes').textContent.trim()")
    with page.expect_popup(timeout=10_000) as popup_info:
        page.keyboard.press("s")
    popup = popup_info.value
    try:
        popup.wait_for_function("(t) => document.body && document.body.innerText.includes(t)",
                                arg=notes[:40], timeout=10_000)
        return True
    except Exception:
        return False
    finally:
        popup.close()


if __name__ == "__main__":
    with launch_chromium() as context:
        for name in sys.argv[1:]:
            report = inspect_deck(context, name, shots=Path("test-artifacts/slides"))
            print(name, "outside:", report["outside"], "errors:", report["errors"], "presenter:", report["presenter"])
            for n, s in enumerate(report["slides"]):
                flags = [f"{len(s['overflow'])} overflow" if s["overflow"] else "",
                         f"{len(s['small_text'])} small text" if s["small_text"] else "",
                         "" if s["notes"] or n == 0 else "NO NOTES"]
                print(f"  {n:2d} {s['indices']} {s['timing']:4d}s {s['title'][:50]:50s} {' '.join(f for f in flags if f)}")
                for line in s["overflow"][:3] + s["small_text"][:3]:
                    print("       ", line)
            print("  total timing:", sum(s["timing"] for s in report["slides"]), "s;",
                  "screenshots in test-artifacts/slides/" + Path(name).stem)
