// Tiny DOM helpers: build elements from plain data, no framework.

// The value each field was drawn with: a field whose value differs is being typed in.
const drawn = new WeakMap();

/**
 * h("button", {class: "x", onclick: fn, "aria-label": "..."}, child, ...)
 * Props starting with "on" become listeners; `dataset`/`style` objects are merged;
 * everything else is set as an attribute (false/null skip it, true sets it empty).
 */
export function h(tag, props = {}, ...children) {
  const el = tag.includes(":")
    ? document.createElementNS("http://www.w3.org/2000/svg", tag.split(":")[1])
    : document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (key === "style" && typeof value === "object") {
      Object.assign(el.style, value);
    } else if (key === "value" && "value" in el) {
      el.value = value;
      drawn.set(el, el.value);
    } else if (key === "checked" || key === "disabled" || key === "selected") {
      el[key] = Boolean(value);
      if (value) el.setAttribute(key, "");
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace every child of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// A press under way: the element a pointer went down on, until it is released (or, for
// a hold such as a whisper, until PRESS_MS have passed: a hold survives redraws by
// itself and must see the room change meanwhile). A region holding it redraws after.
const PRESS_MS = 500;
let pressed = null;
let pressTimer = null;
const held = new Map(); // region element -> its redraw, waiting for the release

function release() {
  pressed = null;
  clearTimeout(pressTimer);
  if (!held.size) return;
  // After the click that follows the release, in the same input event.
  setTimeout(() => {
    const redraws = [...held.values()];
    held.clear();
    for (const redraw of redraws) redraw();
  }, 0);
}

if (typeof document !== "undefined") {
  document.addEventListener("pointerdown", (ev) => {
    pressed = ev.target instanceof Node ? ev.target : null;
    clearTimeout(pressTimer);
    pressTimer = setTimeout(release, PRESS_MS);
  }, true);
  for (const type of ["pointerup", "pointercancel"]) document.addEventListener(type, release, true);
  window.addEventListener("blur", release);
}

/**
 * Re-render a region only when its inputs change, so an input being typed in or a
 * finger pressing a button is not destroyed by an unrelated update. When it does
 * change, the field that had the focus keeps it (found again by its id) with what was
 * typed in it and not yet sent: the host who edits one timer and taps the next keeps
 * the next one's keyboard and text when the room answers the first. While a press is
 * under way inside the region (a click not yet released) the redraw waits for the
 * release.
 */
export function region(el, inputs, render) {
  const key = JSON.stringify(inputs);
  if (el.dataset.key === key) {
    held.delete(el);
    return false;
  }
  if (pressed && el.contains(pressed)) {
    // A click is a press and a release on the same element: redrawn in between, the
    // button under the pointer would be a new one and the click would go nowhere (a
    // player's "ready" lost because someone else's readiness arrived mid-click).
    held.set(el, () => region(el, inputs, render));
    return false;
  }
  held.delete(el);
  el.dataset.key = key;
  const focused = focusIn(el);
  fill(el, render());
  focused?.();
  return true;
}

// Fields one types text or digits into (a file picker's value cannot be put back).
const TYPED = ["text", "number", "search", "email", "tel", "url"]
  .map((type) => `input[type=${type}]`).concat("input:not([type])", "textarea").join(", ");

/** The field focused inside `el`, as a function that gives its focus (and any text not
 * yet committed) to the field of the same id after a redraw; null if none is focused. */
function focusIn(el) {
  const old = document.activeElement;
  if (!old || !old.id || old === el || !el.contains(old)) return null;
  const typed = old.matches(TYPED) && old.value !== (drawn.get(old) ?? "") ? old.value : null;
  let range = null;
  try { range = [old.selectionStart, old.selectionEnd]; } catch { /* number inputs have none */ }
  return () => {
    const now = el.querySelector(`#${CSS.escape(old.id)}`);
    if (!now || now.disabled || typeof now.focus !== "function") return;
    now.focus({ preventScroll: true });
    if (!now.matches(TYPED)) return;
    if (typed !== null) now.value = typed;
    // The selection too, typed or not: a host who selected the old value to type over it
    // must not see the digits appended to it because someone sat down meanwhile.
    if (range && range[0] !== null) {
      try { now.setSelectionRange(range[0], range[1]); } catch { /* not a text field */ }
    }
    if (typed === null) return;
    // A value put back by script is no user edit: the browser would not send `change` for
    // it on blur. Send it then, once, if it still differs from what the room drew.
    let changed = false;
    now.addEventListener("change", () => { changed = true; }, { once: true });
    now.addEventListener("blur", () => {
      if (!changed && now.value !== (drawn.get(now) ?? "")) now.dispatchEvent(new Event("change", { bubbles: true }));
    }, { once: true });
  };
}

/**
 * Press-and-hold: `start` after the pointer (or Space/Enter) is held `delay` ms,
 * `stop` on release. A short tap calls `tap` instead.
 */
export function holdable(el, { start, stop, tap, delay = 0 }) {
  let timer = null;
  let held = false;
  const down = (ev) => {
    if (ev.type === "pointerdown" && ev.button !== 0) return;
    if (ev.type === "keydown" && (ev.repeat || (ev.key !== " " && ev.key !== "Enter"))) return;
    ev.preventDefault();
    if (ev.pointerId !== undefined && el.setPointerCapture) {
      try { el.setPointerCapture(ev.pointerId); } catch { /* not capturable */ }
    }
    held = false;
    clearTimeout(timer);
    timer = setTimeout(() => { held = true; start?.(); }, delay);
  };
  const up = (ev) => {
    if (ev.type === "keyup" && ev.key !== " " && ev.key !== "Enter") return;
    if (timer === null) return;
    clearTimeout(timer);
    timer = null;
    if (held) stop?.();
    else tap?.();
    held = false;
  };
  el.addEventListener("pointerdown", down);
  el.addEventListener("keydown", down);
  for (const type of ["pointerup", "pointercancel", "lostpointercapture", "keyup", "blur"]) {
    el.addEventListener(type, up);
  }
  el.addEventListener("contextmenu", (ev) => ev.preventDefault());
  return el;
}
