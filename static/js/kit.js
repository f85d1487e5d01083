// The client kit: the small helpers every game's own module (static/games/<key>/)
// shares, so that a game's module holds only what draws that game. The
// platform's own parts are elsewhere: dom.js builds elements, table.js draws
// the lobby, the log, the end screen and the generic control.
//
//   seatName, nameOf   a seat's name in a game's public view ("You" on your own seat)
//   logOf              the running log a game draws
//   plural             "1 card", "3 cards"
//   byType             the listed actions of some types
//   freshMarks         animate only what is new since the last render
//   refusals           a refused move said next to the controls; `send` and `sender`
//   iconSet, SHAPES    inline SVG icons drawn in currentColor (no emoji)
//   CARD_FACE, KIND_ICON  the classes of a card face and of its kind's icon
//   fitRegion          a crowded board region gets denser (a compact layout, smaller type to a floor)

// ---- Names ------------------------------------------------------------------
// A seat's name in a game's public view (or a payload): the view's `names`
// list, else its `players` entries ({seat, name}). `word` names a seat the view
// has no name for: "Seat 3". (A name is never empty: the server refuses a name
// that shows nothing.)
import { t } from "./i18n.js";

export function seatName(pub, seat, word = null) {
  const name = pub.names ? pub.names[seat] : ((pub.players || []).find((p) => p.seat === seat) || {}).name;
  return name || (word ? `${word} ${seat + 1}` : t("Seat {n}", { n: seat + 1 }));
}

// The same, but "You" on the viewer's own seat (`you`: the payload's seat, null on the board).
export function nameOf(pub, seat, you = null) {
  if (you !== null && you !== undefined && seat === you) return t("You");
  return seatName(pub, seat);
}

// ---- The log ------------------------------------------------------------------------
// The log a game draws: the page's running log (`ctx.log()`; table.js `accept`
// keeps it), since a view carries only the entries new since the last one. The
// projected board leaves out the rulings (long clarifications of the rules, for
// the teacher's page and the reports, not for the back row).
export function logOf(payload, ctx) {
  const entries = typeof ctx.log === "function" ? ctx.log() : (payload.log || []);
  return ctx.role === "board" ? entries.filter((e) => e.t !== "ruling") : entries;
}

// ---- Words and actions --------------------------------------------------------
export const plural = (n, word, many = word + "s") => `${n} ${n === 1 ? word : many}`;

export function byType(actions, ...types) {
  return actions.filter((a) => types.includes(a.type));
}

// ---- Fresh: animate only what is new ---------------------------------------------
// A view that changed one thing re-renders the whole screen, and must not replay
// the entrance of everything else. `fresh(key)` gives " fresh" (the class that
// plays an entrance) in the first render that draws `key`, and "" after; a game
// wraps each render in `begin()` ... `end()`, so a key not drawn in one render
// is fresh again when it comes back.
export function freshMarks() {
  let seen = new Set();
  let next = new Set();
  return {
    begin() {
      next = new Set();
    },
    fresh(key) {
      next.add(key);
      return seen.has(key) ? "" : " fresh";
    },
    end() {
      seen = next;
    },
  };
}

// ---- Refusals: a refused move is said, never silently dropped ----------------------
// A game module's refused moves, said next to its controls (`.act-error` inside
// `scope`) for a few seconds, also across re-renders: draw the message from
// `text()`, send through `send(ctx, action)`, or hand a control `sender(ctx)`,
// a function of the action alone. `onRefused` runs first (a module may stop an
// animation the move started). A stale move is said too: the fresh view has
// arrived, and the student must look again.
export function refusals(scope, { ms = 5000, onRefused = null } = {}) {
  let refused = null; // {text, until}
  const text = () => (refused && refused.until > Date.now() ? refused.text : "");
  const send = (ctx, action) => {
    const pending = ctx.act(action);
    if (!pending || !pending.then) return pending;
    pending.then((ack) => {
      if (!ack || ack.ok || !ack.error) return;
      if (onRefused) onRefused(ack);
      refused = { text: ack.error.message || t("That move was refused."), until: Date.now() + ms };
      for (const el of document.querySelectorAll(`${scope} .act-error`)) el.textContent = refused.text;
      setTimeout(() => {
        if (text()) return;
        for (const el of document.querySelectorAll(`${scope} .act-error`)) el.textContent = "";
      }, ms + 50);
    });
    return pending;
  };
  const sender = (ctx) => (action) => send(ctx, action);
  return { text, send, sender };
}

// ---- Fitting the projected board: denser, never cut ---------------------------------
// A board region (a wizard's column, the Jobsites) whose content outgrows its box
// gets denser rather than cut. It may be drawn in `layouts` (classes that make it
// compact, e.g. two columns; each added to the ones before), and in each its type
// may step down from 1em to `floor`: the region keeps the layout whose type stays
// largest (the plainer one on a tie). The floor, .72 of the board's type, is
// 24 px at 1920×1080 and 16 px at 1280×720: still read from the back row. The
// region must be a box whose size its content does not set (a grid or flex cell
// with min-height: 0 and overflow: hidden). Returns the scale it kept.
export const FIT_FLOOR = 0.72;
// (scrollHeight is rounded: the children's own boxes catch the last part of a pixel.)
export function overflows(el) {
  if (el.scrollHeight > el.clientHeight || el.scrollWidth > el.clientWidth) return true;
  return [...el.children].some((child) => sticksOut(child, el));
}

// Whether `node` reaches past the inside edge (its padding) of `el`, its ancestor.
function sticksOut(node, el) {
  const box = el.getBoundingClientRect();
  const style = getComputedStyle(el);
  const bottom = box.top + el.clientTop + el.clientHeight - parseFloat(style.paddingBottom) + 0.5;
  const right = box.left + el.clientLeft + el.clientWidth - parseFloat(style.paddingRight) + 0.5;
  const r = node.getBoundingClientRect();
  return r.bottom > bottom || r.right > right;
}

export function fitRegion(el, { floor = FIT_FLOOR, step = 0.04, layouts = [] } = {}) {
  return measuring(el, () => fitRegionNow(el, { floor, step, layouts }));
}

// Measured at rest: an entrance animation that scales a card down (`pop`) made a region
// look as if it fitted, and it ran off the board once the card grew to full size. The
// animations start again when the class goes (their name comes back), so they still play.
export function measuring(el, fn) {
  const already = el.classList.contains("fit-measuring");
  el.classList.add("fit-measuring");
  try {
    return fn();
  } finally {
    if (!already) el.classList.remove("fit-measuring");
  }
}

function fitRegionNow(el, { floor, step, layouts }) {
  const scales = [];
  for (let k = 0; 1 - k * step > floor + 1e-9; k++) scales.push(1 - k * step);
  scales.push(floor);
  const stages = [null, ...layouts];
  const draw = (stage, i) => {
    stages.forEach((cls, n) => cls && el.classList.toggle(cls, n <= stage));
    el.style.fontSize = i ? `${scales[i].toFixed(3)}em` : "";
    return !overflows(el);
  };
  // The largest scale that fits each layout (a binary search: a few layouts, not one per step).
  let best = null; // [stage, index of the scale]
  for (let stage = 0; stage < stages.length; stage++) {
    if (draw(stage, 0)) { best = [stage, 0]; break; }
    if (best && best[1] <= 1) continue; // (no denser layout can do better than one step)
    if (!draw(stage, scales.length - 1)) continue;
    let fits = scales.length - 1;
    let over = 0;
    while (fits - over > 1) {
      const mid = (fits + over) >> 1;
      if (draw(stage, mid)) fits = mid;
      else over = mid;
    }
    if (!best || fits < best[1]) best = [stage, fits];
  }
  // Nothing fits even at the floor: the densest layout at the floor (the layout test reports it).
  const [stage, i] = best || [stages.length - 1, scales.length - 1];
  draw(stage, i);
  return scales[i];
}

// A list whose region still overflows at the floor (a wizard's revealed spells pile up
// with no hand limit) gives up its first, oldest items, said in one line at its end
// (`more(n)`), rather than being cut mid-text. Returns how many it hid.
export function trimList(region, list, more) {
  return measuring(region, () => trimListNow(region, list, more));
}

function trimListNow(region, list, more) {
  if (!list || !overflows(region)) return 0;
  const note = document.createElement("li");
  note.className = "fit-more";
  list.append(note);
  let hidden = 0;
  // (the note itself is checked too: a list's last line can stick out of the region
  // while the list's own box, held by the layout, does not)
  while ((overflows(region) || sticksOut(note, region)) && list.children.length > 1) {
    list.children[0].remove();
    hidden += 1;
    note.textContent = more(hidden);
  }
  if (!hidden) note.remove();
  return hidden;
}

// ---- Icons: inline SVG on a 24×24 grid, drawn in currentColor -----------------------
// Inline rather than image files (dom.js `icon`): a game's stylesheet colours
// them, e.g. a trophy in the player's colour. A shape is a list of
// [tag, attributes]; these are drawn alike by several games.
const SVG_NS = "http://www.w3.org/2000/svg";
export const SHAPES = {
  check: [["path", { d: "M20 6 9 17l-5-5" }]],
  cross: [["path", { d: "M18 6 6 18M6 6l12 12" }]],
  clock: [["circle", { cx: 12, cy: 12, r: 9 }], ["path", { d: "M12 7v5l3 3" }]],
  alert: [["path", { d: "M10.3 3.9 1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z" }], ["path", { d: "M12 9v4M12 17h.01" }]],
  trophy: [["path", { d: "M8 21h8M12 16v5M7 3h10v6a5 5 0 0 1-10 0V3z" }], ["path", { d: "M17 5h3v2a4 4 0 0 1-3.5 4M7 5H4v2a4 4 0 0 0 3.5 4" }]],
  cards: [["rect", { x: 3, y: 6, width: 12, height: 16, rx: 2 }], ["path", { d: "M8 3h11a2 2 0 0 1 2 2v13" }]],
};

// A game keeps its icons in one module (static/games/<key>/icons.js, GameSpec.ui.icons)
// that exports `kindIcon(kind, {cls})`: a card kind's icon, of class KIND_ICON, drawn
// beside the kind's word or the card's name on every card face (an element of class
// CARD_FACE) on the phone, the board and in the card gallery (tests/test_card_icons.py
// checks each face has one).
export const CARD_FACE = "card-face";
export const KIND_ICON = "kind-icon";

// A game's icon function, `icon(name, {cls, label, flip})`, over its `shapes`
// ({name: shape}). `cls`: the class of every icon (or a function of the name);
// `fallback`: the shape drawn for a name the set lacks (none: an empty icon).
// An icon is decorative (aria-hidden) unless it has a `label`. With `flippable`,
// the shapes sit in a <g> that `flip: true` turns upside down.
export function iconSet(shapes, { cls, fallback = null, flippable = false }) {
  return (name, { cls: extra = "", label = null, flip = false } = {}) => {
    const el = document.createElementNS(SVG_NS, "svg");
    el.setAttribute("viewBox", "0 0 24 24");
    el.setAttribute("class", `${typeof cls === "function" ? cls(name) : cls} ${extra}`.trim());
    el.setAttribute("focusable", "false");
    if (label) {
      el.setAttribute("role", "img");
      el.setAttribute("aria-label", label);
    } else el.setAttribute("aria-hidden", "true");
    let parent = el;
    if (flippable) {
      parent = document.createElementNS(SVG_NS, "g");
      if (flip) parent.setAttribute("transform", "rotate(180 12 12)");
      el.append(parent);
    }
    for (const [tag, attrs] of shapes[name] || shapes[fallback] || []) {
      const part = document.createElementNS(SVG_NS, tag);
      for (const [k, v] of Object.entries(attrs)) part.setAttribute(k, v);
      parent.append(part);
    }
    return el;
  };
}
