// Tiny DOM builder. Text always goes through textContent, so a name such as
// <img src=x onerror=alert(1)> is shown as text and never parsed as HTML.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function replace(root, ...children) {
  root.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

// ---- A press is never lost to a redraw ------------------------------------------------
// A view that arrives between a press and its release redraws the control under the
// pointer: the release lands on the new element, the click on neither, and the tap is
// lost (a classmate joined the lobby, another seat moved, auto-play went on). So while a
// control is pressed, redraws wait: each kind's newest (by its `key`) runs once the
// release, and the click it makes, are over. Whatever ends a press without a release ends
// the wait too (a cancelled touch, a long press's menu, the page losing the focus), and
// the next touch anywhere would.
const held = new Map();
let pressing = false;

function releaseHeld() {
  pressing = false;
  const waiting = [...held.values()];
  held.clear();
  if (waiting.length) setTimeout(() => waiting.forEach((redraw) => redraw()));  // (after the click)
}

addEventListener("pointerdown", (event) => {
  pressing = event.target instanceof Element && Boolean(event.target.closest("button, a[href], summary, label, [role=button]"));
}, true);
for (const type of ["pointerup", "pointercancel", "contextmenu", "dragstart"]) addEventListener(type, releaseHeld, true);
addEventListener("blur", releaseHeld);  // (the window's own: not capturing, so not a control's focus moving)
document.addEventListener("visibilitychange", releaseHeld);

// Whether a press is in progress: then `redraw` is kept (the last one given under `key`)
// to run after it, and the caller draws nothing now.
export function heldByPress(key, redraw) {
  if (!pressing) return false;
  held.set(key, redraw);
  return true;
}

export function show(el, visible) {
  if (el) el.hidden = !visible;
}

// Keep keyboard focus on the "same" control (the same data-focus-key) across
// re-renders; `focusOptions` go to focus(), e.g. {preventScroll: true}.
export function preserveFocus(root, render, focusOptions = undefined) {
  const active = document.activeElement;
  const key = active && root.contains(active) ? active.dataset.focusKey : null;
  render();
  if (key) {
    const again = root.querySelector(`[data-focus-key="${CSS.escape(key)}"]`);
    if (again) again.focus(focusOptions);
  }
}

// Icons are SVG files beside the scripts (static/icons/), not emoji: every machine draws them alike.
export function icon(name, cls = "icon") {
  return h("img", { class: cls, src: new URL(`../icons/${name}.svg`, import.meta.url).href, alt: "" });
}
