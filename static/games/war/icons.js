// War's icons, in one place: inline SVG on the kit's 24×24 grid, drawn in
// currentColor (kit.js `iconSet`), bold enough for 20 px on a phone and 24 px on
// a projected board. The four suits are drawn rather than typed (a phone's font
// may draw ♥ as a coloured emoji, or not at all), filled and told apart by shape,
// not only by red and black; each of Power War's 13 powers has a shape of its own.
//
//   icon(name, opts)        any icon of the game
//   suitIcon(symbol, opts)  a suit by the symbol the view names it with (♠ ♥ ♦ ♣)
//   kindIcon(kind, opts)    a card kind's icon: a suit's name (spades…) or a power's id
import { iconSet, KIND_ICON } from "/static/js/kit.js";

export const ICONS = {
  // The suits (filled).
  spades: [["path", { d: "M12 2C9.5 5.5 3 8.8 3 13.5A4.5 4.5 0 0 0 10.6 16.8L9.5 22h5l-1.1-5.2A4.5 4.5 0 0 0 21 13.5C21 8.8 14.5 5.5 12 2z", class: "fill" }]],
  hearts: [["path", { d: "M12 21.5 3.6 12.9A5.2 5.2 0 0 1 12 6.1a5.2 5.2 0 0 1 8.4 6.8z", class: "fill" }]],
  diamonds: [["path", { d: "M12 1.5 20 12l-8 10.5L4 12z", class: "fill" }]],
  clubs: [["circle", { cx: 12, cy: 6.8, r: 4.3, class: "fill" }], ["circle", { cx: 6.6, cy: 13.6, r: 4.3, class: "fill" }],
    ["circle", { cx: 17.4, cy: 13.6, r: 4.3, class: "fill" }], ["path", { d: "M12 10l-2.5 12h5z", class: "fill" }]],
  // Power War's powers.
  shield: [["path", { d: "M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10z" }]],
  recovery: [["path", { d: "M3 12a9 9 0 1 0 2.8-6.5L3 8" }], ["path", { d: "M3 3v5h5" }], ["path", { d: "M12 8v8M8 12h8" }]], // back again
  counter: [["circle", { cx: 12, cy: 12, r: 9 }], ["path", { d: "M5.6 5.6l12.8 12.8" }]],                   // cancelled
  boost: [["path", { d: "M12 21V4M5 11l7-7 7 7" }]],                                                         // counts higher
  drain: [["path", { d: "M12 3v17M5 13l7 7 7-7" }]],                                                          // counts lower
  mirror: [["path", { d: "M12 2v20" }], ["path", { d: "M9 6 3 18h6zM15 6l6 12h-6z" }]],                      // the same both sides
  swap: [["path", { d: "M7 3 3 7l4 4M3 7h14M17 21l4-4-4-4M21 17H7" }]],
  redraw: [["path", { d: "M20.5 11A8.5 8.5 0 0 0 5.5 6L3 8.5M3.5 13a8.5 8.5 0 0 0 15 5l2.5-2.5" }], ["path", { d: "M3 3v5.5h5.5M21 21v-5.5h-5.5" }]],
  double_stakes: [["path", { d: "M3 8l6.5 8M9.5 8 3 16" }], ["path", { d: "M13.5 9.5a3.3 3.3 0 0 1 6.5.5c0 2.8-6.5 4.5-6.5 7h6.5" }]], // ×2
  tiebreaker: [["path", { d: "M12 3v18M7 21h10M4 7h16" }], ["path", { d: "M4 7 1.5 13a2.8 2.8 0 0 0 5 0zM20 7l-2.5 6a2.8 2.8 0 0 0 5 0z" }]], // the scales
  salvage: [["circle", { cx: 12, cy: 12, r: 9 }], ["circle", { cx: 12, cy: 12, r: 4 }],
    ["path", { d: "M5.6 5.6l3.6 3.6M14.8 14.8l3.6 3.6M18.4 5.6l-3.6 3.6M5.6 18.4l3.6-3.6" }]],            // a lifebuoy
  momentum: [["path", { d: "M3 5l8 7-8 7zM12 5l8 7-8 7z" }]],                                               // onward
  scout: [["path", { d: "M1.5 12S5.5 4.5 12 4.5 22.5 12 22.5 12 18.5 19.5 12 19.5 1.5 12 1.5 12z" }], ["circle", { cx: 12, cy: 12, r: 3 }]],
};

export const icon = iconSet(ICONS, { cls: "war-icon" });

const SUIT = { "♠": "spades", "♥": "hearts", "♦": "diamonds", "♣": "clubs" };

export function kindIcon(kind, { cls = "" } = {}) {
  return icon(SUIT[kind] || kind, { cls: `${KIND_ICON} war-kicon ${cls}`.trim() });
}

export const suitIcon = (symbol, { cls = "" } = {}) => kindIcon(symbol, { cls: `war-suit ${cls}`.trim() });
