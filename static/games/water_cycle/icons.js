// Water Cycle Challenge's icons, in one place: inline SVG on the kit's 24×24 grid,
// drawn in currentColor (kit.js `iconSet`), bold enough for 20 px on a phone and
// 24 px on a projected board. Every card kind has a shape of its own (the four
// Resources, NEWater, each Weather card, the Emergency Response, the Reservoir
// Collapse, a Crisis, the Boss), so a card is told by its shape and its name,
// never by its colour alone.
//
//   icon(name, opts)      any icon of the game; `flip: true` turns it upside down
//   kindIcon(kind, opts)  a card kind's icon (a Weather card's own, by its key)
import { iconSet, KIND_ICON, SHAPES } from "/static/js/kit.js";

const WAVE = "c2-1.5 4-1.5 6 0s4 1.5 6 0 4-1.5 6 0";
const DROP = (x, y, r) => `M${x} ${y - 2.2 * r}s-${r} ${1.3 * r}-${r} ${2 * r}a${r} ${r} 0 0 0 ${2 * r} 0c0-${0.7 * r}-${r}-${2 * r}-${r}-${2 * r}z`;

export const ICONS = {
  ...SHAPES, // check, cross, clock, alert, trophy, cards (kit.js)
  // The Resources: the four stages of the cycle, and NEWater, the wild card.
  evap: [["path", { d: "M12 13V3M8.5 6.5 12 3l3.5 3.5" }], ["path", { d: "M3 17" + WAVE }], ["path", { d: "M3 21" + WAVE }]],
  cond: [["path", { d: "M7 19h10a4 4 0 0 0 .6-7.95A6 6 0 0 0 6.2 10.1 4.5 4.5 0 0 0 7 19z" }]],
  precip: [["path", { d: "M7 13h10a3.5 3.5 0 0 0 .5-6.96A5 5 0 0 0 7.8 5.4 4 4 0 0 0 7 13z" }], ["path", { d: "M8 16l-1 4M12 16l-1 4M16 16l-1 4" }]],
  collect: [["path", { d: "M3 9" + WAVE }], ["path", { d: "M3 13" + WAVE }], ["path", { d: "M3 16v3a2 2 0 0 0 2 2h14a2 2 0 0 0 2-2v-3" }]],
  newater: [["path", { d: "M12 2.5S5.5 10 5.5 14.5a6.5 6.5 0 0 0 13 0C18.5 10 12 2.5 12 2.5z" }], ["path", { d: "M9 15.5a3 3 0 0 0 5.5 1M15 14a3 3 0 0 0-5.5-1M14.5 18.5v-2h-2M9.5 10.5v2h2" }]],
  // The Weather cards, each its own.
  weather: [["path", { d: "M13 2 4 14h7l-1 8 9-12h-7l1-8z" }]],
  monsoon: [["path", { d: "M12 4a8.5 8.5 0 0 1 8.5 8.5h-17A8.5 8.5 0 0 1 12 4z" }], ["path", { d: "M12 2v2M12 12.5v6a2 2 0 0 1-4 0" }],
    ["path", { d: "M4 16v1.5M20 16v1.5M16.5 18v1.5" }]],                                     // an umbrella in the rain
  forecast: [["circle", { cx: 8, cy: 8, r: 3 }], ["path", { d: "M8 1.5v1.3M1.5 8h1.3M3.4 3.4l.9.9M12.6 3.4l-.9.9" }],
    ["path", { d: "M9.5 21h8a3.5 3.5 0 0 0 .4-7 5 5 0 0 0-9.4 1.1A3 3 0 0 0 9.5 21z" }]],     // sun behind a cloud
  reservoir: [["path", { d: "M3 20h18M5 20V9l7-5 7 5v11" }], ["path", { d: "M8 15c1.3-1 2.7-1 4 0s2.7 1 4 0" }]],
  dry_spell: [["circle", { cx: 12, cy: 12, r: 4.5 }],
    ["path", { d: "M12 1.5v2.5M12 20v2.5M1.5 12H4M20 12h2.5M4.6 4.6l1.8 1.8M17.6 17.6l1.8 1.8M4.6 19.4l1.8-1.8M17.6 6.4l1.8-1.8" }]], // a hot sun
  diversion: [["path", { d: "M12 22v-8L5 7M12 14l7-7" }], ["path", { d: "M5 11.5V7h4.5M14.5 7H19v4.5" }]], // a path split in two
  evaporation_surge: [["path", { d: "M5 21V10M2 13l3-3 3 3M12 21V4M9 7l3-3 3 3M19 21V10M16 13l3-3 3 3" }]], // everything rises
  pipe_burst: [["path", { d: "M2 9h6v6H2M22 9h-6v6h6" }], ["path", { d: "M12 4v3M12 17v3M9 6.5l1.2 2M15 6.5l-1.2 2M9 17.5l1.2-2M15 17.5l-1.2-2" }]],
  pipe_leakage: [["path", { d: "M2 5h20M2 10.5h20M12 10.5v2" }], ["path", { d: DROP(12, 20, 2.4) }]], // a pipe dripping
  water_rationing: [["path", { d: "M8 4h5M10.5 4v3.5M3 7.5h10a4.5 4.5 0 0 1 4.5 4.5v1.5h-4V12H3z" }], ["path", { d: DROP(15.5, 21, 1.8) }]], // a tap, one drop
  // The threats and the way out.
  emergency: [["path", { d: "M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10z" }], ["path", { d: "M12 8v7M8.5 11.5h7" }]],
  collapse: [["path", { d: "M2 21h20M4 21V8h16v13" }], ["path", { d: "M12 8l-2 4 3 2.5-2 6.5" }], ["path", { d: "M4 4.5c2-1.5 4-1.5 6 0" }]], // a cracked dam
  crisis: SHAPES.alert,
  boss: [["path", { d: "M5 3l2.5 5M19 3l-2.5 5" }], ["circle", { cx: 12, cy: 14, r: 7.5 }], ["path", { d: "M8.5 12.5l2 1M15.5 12.5l-2 1M9 18c2-1.3 4-1.3 6 0" }]], // a horned storm monster
  // Other signs of the game.
  thumb: [["path", { d: "M14 9V5a3 3 0 0 0-3-3l-4 9v11h11.3a2 2 0 0 0 2-1.7l1.4-9a2 2 0 0 0-2-2.3zM7 22H4a2 2 0 0 1-2-2v-7a2 2 0 0 1 2-2h3" }]],
  heart: [["path", { d: "M20.8 4.6a5.5 5.5 0 0 0-7.8 0L12 5.7l-1-1.1a5.5 5.5 0 0 0-7.8 7.8l1 1.1L12 21l7.8-7.5 1-1.1a5.5 5.5 0 0 0 0-7.8z", class: "fill" }]],
  bucket: [["path", { d: "M4 8h16l-2 12a2 2 0 0 1-2 1.7H8a2 2 0 0 1-2-1.7L4 8z" }], ["path", { d: "M6 8a6 6 0 0 1 12 0" }]],
  skip: [["circle", { cx: 12, cy: 12, r: 9 }], ["path", { d: "M10 9v6M14 9v6" }]],
  eye: [["path", { d: "M1 12s4-8 11-8 11 8 11 8-4 8-11 8S1 12 1 12z" }], ["circle", { cx: 12, cy: 12, r: 3 }]],
  question: [["circle", { cx: 12, cy: 12, r: 9 }], ["path", { d: "M9.1 9a3 3 0 0 1 5.8 1c0 2-3 3-3 3M12 17h.01" }]],
};
ICONS.shield = ICONS.emergency; // the Emergency Response a player holds

// `flip` turns an icon upside down (the thumb of a vote against).
export const icon = iconSet(ICONS, { cls: "wcc-icon", fallback: "weather", flippable: true });

// A card kind's icon: a Resource, NEWater, a Weather card's key, "emergency", "collapse",
// "crisis" or "boss" (a Weather card the set does not draw yet gets the lightning bolt).
export function kindIcon(kind, { cls = "" } = {}) {
  return icon(kind, { cls: `${KIND_ICON} wcc-kicon ${cls}`.trim() });
}
