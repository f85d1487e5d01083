// Tiny DOM builder. Text always goes through textContent, so a name such as
// <img src=x onerror=alert(1)> is shown as text and never parsed as HTML.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key.startsWith("on") && typeof value === "function") listen(el, key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

// An element's handlers sit behind one listener per event type, so that `morph` can give
// an element it keeps the handlers of the new element it stands for.
function listen(el, type, handler) {
  if (!el.handlers) el.handlers = {};
  if (!(type in el.handlers)) {
    el.addEventListener(type, (event) => {
      const current = el.handlers[type];
      if (current) current.call(el, event);
    });
  }
  el.handlers[type] = handler;
}

export function replace(root, ...children) {
  root.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

// What `replace` does, but by changing the elements already on the page into the new ones
// (their attributes, text and handlers) wherever the two have the same shape, instead of
// swapping them. For a screen that a live update redraws while a student may be pressing one
// of its buttons, the lobby: a press and its release can straddle a redraw (a classmate
// joins between them), and a button replaced mid-press takes the click with it, so the tap
// is lost. A button the new content still has stays the very element under the finger.
// Form fields are replaced, not changed (what was typed into them is not an attribute).
export function morph(root, ...children) {
  morphChildren(root, children.flat().filter((c) => c !== null && c !== undefined && c !== false)
    .map((c) => (c instanceof Node ? c : document.createTextNode(String(c)))));
}

function morphChildren(into, wanted) {
  wanted.forEach((next, i) => {
    const have = into.childNodes[i];
    if (have === next) return;
    if (!have) into.append(next);
    else if (sameShape(have, next)) morphNode(have, next);
    else into.replaceChild(next, have);
  });
  while (into.childNodes.length > wanted.length) into.lastChild.remove();
}

function sameShape(a, b) {
  if (a.nodeType !== b.nodeType) return false;
  if (a.nodeType !== Node.ELEMENT_NODE) return true;
  return a.tagName === b.tagName && a.className === b.className && a.dataset.focusKey === b.dataset.focusKey &&
    !/^(INPUT|SELECT|TEXTAREA|FORM)$/.test(a.tagName);
}

function morphNode(have, next) {
  if (have.nodeType !== Node.ELEMENT_NODE) {
    if (have.nodeValue !== next.nodeValue) have.nodeValue = next.nodeValue;
    return;
  }
  for (const { name } of [...have.attributes]) if (!next.hasAttribute(name)) have.removeAttribute(name);
  for (const { name, value } of next.attributes) if (have.getAttribute(name) !== value) have.setAttribute(name, value);
  for (const type of Object.keys(have.handlers || {})) have.handlers[type] = null;
  for (const [type, handler] of Object.entries(next.handlers || {})) listen(have, type, handler);
  morphChildren(have, [...next.childNodes]);
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
