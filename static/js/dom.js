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
