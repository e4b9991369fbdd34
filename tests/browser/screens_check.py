"""Checks that keep every screen right (issue 31, section 4), for any page a test shows:

- `phone_problems`: the page wider than the viewport, anything drawn past its sides,
  and a control smaller than 44x44 CSS px without as much room around it;
- `tv_problems`: on the shared screen, text, faces and controls outside the viewport
  or cut (by a box too narrow for them or a clipping parent);
- `axe_problems`: axe-core's serious and critical violations (contrast, names of
  controls, labels ...), axe-core being fetched once by scripts/setup.sh
  (scripts/test_tools.py), never at test time;
- `Gallery`: a screenshot of every screen checked, under test-artifacts/gallery/, with
  an index.html listing them, for a reviewer to see them all at once.
"""

from __future__ import annotations

import html
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GALLERY = ROOT / "test-artifacts" / "gallery"
MIN_TARGET = 44  # CSS px, WCAG 2.5.5 (AAA) and the platforms' own guidelines


def axe_source() -> str:
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import test_tools
    finally:
        sys.path.pop(0)
    path = test_tools.axe_path()
    if not path.is_file():
        pytest.fail(f"axe-core {test_tools.AXE_VERSION} is missing ({path}): "
                    "run scripts/setup.sh test (or python scripts/test_tools.py)")
    return path.read_text(encoding="utf-8")


# Every control a finger aims at, with the box it answers in: a checkbox or radio inside
# (or named by) a label answers on the whole label.
TARGETS_JS = """(min) => {
  const sel = 'button, a[href], input:not([type=hidden]), select, textarea, summary, '
    + '[role=button], [role=tab], [role=checkbox], [role=radio], [role=switch], [tabindex]:not([tabindex="-1"])';
  const seen = new Set();
  const targets = [];
  const visible = (el) => {
    const st = getComputedStyle(el);
    if (st.visibility === 'hidden' || st.display === 'none') return false;
    return el.getClientRects().length > 0;
  };
  for (const el of document.querySelectorAll(sel)) {
    if (!visible(el) || el.closest('[inert], [aria-hidden=true]')) continue;
    let box = el;
    if (el.matches('input[type=checkbox], input[type=radio]')) {
      const label = el.closest('label') || (el.labels && el.labels[0]);
      if (label) box = label;
    }
    if (seen.has(box)) continue;
    seen.add(box);
    const r = box.getBoundingClientRect();
    if (r.width < 2 && r.height < 2) continue;   // visually hidden (its label is the target)
    // A link inside a sentence is sized by the text around it (WCAG's inline exception).
    const inline = el.tagName === 'A' && getComputedStyle(el).display === 'inline'
      && el.parentElement && el.parentElement.textContent.trim().length > el.textContent.trim().length;
    if (inline) continue;
    const name = (el.id ? '#' + el.id : el.tagName.toLowerCase())
      + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '')
      + (el.type ? `[${el.type}]` : '');
    targets.push({ name, text: (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 30),
                   r: [r.left, r.top, r.right, r.bottom] });
  }
  // Smaller than min x min: fine only with the room of a min x min square around its
  // centre free of any other target (the spacing exception of WCAG 2.5.8, at 44 px).
  const small = [];
  for (const t of targets) {
    const [l, tp, rt, b] = t.r;
    if (rt - l >= min - 0.5 && b - tp >= min - 0.5) continue;
    const cx = (l + rt) / 2, cy = (tp + b) / 2, h = min / 2;
    const sq = [Math.min(l, cx - h), Math.min(tp, cy - h), Math.max(rt, cx + h), Math.max(b, cy + h)];
    const near = targets.filter((o) => o !== t && o.r[0] < sq[2] - 0.5 && o.r[2] > sq[0] + 0.5
                                && o.r[1] < sq[3] - 0.5 && o.r[3] > sq[1] + 0.5);
    if (near.length) {
      small.push(`${t.name} "${t.text}" ${Math.round(rt - l)}x${Math.round(b - tp)} `
                 + `beside ${near.slice(0, 2).map((o) => o.name).join(', ')}`);
    }
  }
  return small;
}"""

# What sticks out of the viewport sideways (the page slides, or is cut), outside any
# box that scrolls sideways on purpose.
SIDEWAYS_JS = """() => {
  const W = document.documentElement.clientWidth;
  const out = [];
  const scrollsX = (el) => {
    for (let e = el.parentElement; e && e !== document.body; e = e.parentElement) {
      const o = getComputedStyle(e).overflowX;
      if (o === 'auto' || o === 'scroll') return true;
    }
    return false;
  };
  for (const el of document.querySelectorAll('body *')) {
    if (!el.getClientRects().length) continue;
    const st = getComputedStyle(el);
    if (st.visibility === 'hidden' || st.position === 'fixed' && st.opacity === '0') continue;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) continue;   // sr-only
    if ((r.right > W + 1 || r.left < -1) && !scrollsX(el)) {
      // Report the outermost offender only.
      const p = el.parentElement.getBoundingClientRect();
      if (p.right > W + 1 || p.left < -1) continue;
      out.push(`${el.tagName.toLowerCase()}.${String(el.className).trim().replace(/\\s+/g, '.')} `
               + `${Math.round(r.left)}..${Math.round(r.right)} of ${W}`);
    }
  }
  return { scroll: document.documentElement.scrollWidth, client: W, out: out.slice(0, 8) };
}"""

# The shared screen: every piece of text, face and control inside the viewport and not
# cut by its own box (an ellipsis, a hidden overflow) or by a clipping parent.
TV_JS = """() => {
  const W = window.innerWidth, H = window.innerHeight;
  const out = [];
  const clipped = (el, r) => {
    for (let e = el.parentElement; e && e !== document.documentElement; e = e.parentElement) {
      const st = getComputedStyle(e);
      if (st.overflowX === 'visible' && st.overflowY === 'visible') continue;
      const p = e.getBoundingClientRect();
      if (r.left < p.left - 1 || r.right > p.right + 1 || r.top < p.top - 1 || r.bottom > p.bottom + 1) return e;
    }
    return null;
  };
  const label = (el) => `${el.tagName.toLowerCase()}.${String(el.className?.baseVal ?? el.className).trim().replace(/\\s+/g, '.')}`;
  for (const el of document.querySelectorAll('#app *')) {
    if (!el.getClientRects().length) continue;
    const st = getComputedStyle(el);
    if (st.visibility === 'hidden' || Number(st.opacity) === 0) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const media = el.matches('img, canvas, svg, button, input, select, .avatar, .tv-seat');
    if (!own && !media) continue;
    if (el.parentElement.closest('svg')) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) continue;
    const what = `${label(el)} "${(el.textContent || '').trim().slice(0, 24)}"`;
    if (r.left < -1 || r.top < -1 || r.right > W + 1 || r.bottom > H + 1) {
      out.push(`outside: ${what} ${Math.round(r.left)},${Math.round(r.top)}..${Math.round(r.right)},${Math.round(r.bottom)}`);
      continue;
    }
    if (own && (el.scrollWidth > el.clientWidth + 1 && st.overflowX !== 'visible'
                || el.scrollHeight > el.clientHeight + 1 && st.overflowY !== 'visible')) {
      out.push(`cut: ${what} ${el.scrollWidth}x${el.scrollHeight} in ${el.clientWidth}x${el.clientHeight}`);
      continue;
    }
    const c = clipped(el, r);
    if (c) out.push(`clipped by ${label(c)}: ${what}`);
  }
  return out.slice(0, 12);
}"""


def phone_problems(page) -> list[str]:
    """Sideways overflow and undersized tap targets on a phone-sized page."""
    side = page.evaluate(SIDEWAYS_JS)
    out = []
    if side["scroll"] > side["client"]:
        out.append(f"page {side['scroll']} px wide in a {side['client']} px viewport")
    out += [f"past the side: {x}" for x in side["out"]]
    out += [f"small target: {x}" for x in page.evaluate(TARGETS_JS, MIN_TARGET)]
    return out


def tv_problems(page) -> list[str]:
    return page.evaluate(TV_JS)


def axe_problems(page, source: str) -> list[str]:
    """axe-core's serious and critical violations (WCAG 2.1 A/AA and best practices)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        try:
            page.add_script_tag(content=source)
        except Exception:
            pass
        if not page.evaluate("typeof window.axe === 'object'"):
            # The server's Content-Security-Policy refuses inline scripts: evaluate()
            # is not governed by it.
            page.evaluate(source + "\n;void 0")
    result = page.evaluate("""async () => {
      const r = await axe.run(document, {
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
        resultTypes: ['violations'] });
      return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id} (${v.impact}): ` + v.nodes.slice(0, 3).map((n) => n.target.join(' ')
             + (n.failureSummary ? ' - ' + n.failureSummary.split('\\n').slice(1, 2).join('').trim() : '')).join(' | '));
    }""")
    return result


class Gallery:
    """Screenshots of every screen checked, and an index.html that shows them all."""

    def __init__(self, group: str) -> None:
        self.dir = GALLERY / group
        self.dir.mkdir(parents=True, exist_ok=True)
        for old in self.dir.glob("*.png"):   # photographs of an earlier run, as PNG
            old.unlink()

    def shot(self, page, name: str, *, full_page: bool = True) -> Path:
        # JPEG: a walk takes hundreds of these, and a tall page's PNG costs about twice
        # the time (0.3 s against 0.6 s for a 390 px phone page, Chromium's encoder).
        path = self.dir / f"{name}.jpg"
        page.screenshot(path=str(path), full_page=full_page, type="jpeg", quality=80)
        write_index()
        return path


def write_index() -> None:
    """test-artifacts/gallery/index.html: every screenshot, grouped by folder."""
    parts = ["<!doctype html><meta charset=utf-8><title>Sussurro: every screen</title>",
             "<style>body{font:14px sans-serif;background:#222;color:#eee}"
             "figure{display:inline-block;margin:8px;vertical-align:top}"
             "img{max-height:420px;border:1px solid #555}figcaption{max-width:320px}</style>",
             "<h1>Every screen</h1>"]
    for folder in sorted(p for p in GALLERY.iterdir() if p.is_dir()):
        shots = sorted([*folder.glob("*.jpg"), *folder.glob("*.png")])
        parts.append(f"<h2>{html.escape(folder.name)} ({len(shots)})</h2>")
        for shot in shots:
            rel = html.escape(f"{folder.name}/{shot.name}")
            parts.append(f"<figure><a href='{rel}'><img loading=lazy src='{rel}'></a>"
                         f"<figcaption>{html.escape(shot.stem)}</figcaption></figure>")
    (GALLERY / "index.html").write_text("\n".join(parts), encoding="utf-8")


def report(problems: dict[str, list[str]]) -> str:
    """Each kind of problem once (names and numbers of seats aside), with the screens
    it was seen on, for an assertion message a person can read."""
    import re

    kinds: dict[str, list[str]] = {}
    for screen, found in problems.items():
        for text in found:
            key = re.sub(r'"[^"]*"', '"…"', text)
            key = re.sub(r"\[aria-label=[^\]]*\]", "[aria-label=…]", key)
            screens = kinds.setdefault(key, [])
            if screen not in screens:
                screens.append(screen)
    return "\n".join(f"{k}\n    on {len(v)} screens: {', '.join(v[:6])}{' …' if len(v) > 6 else ''}"
                     for k, v in kinds.items())
