// Storm War's icons, in one place: inline SVG on the kit's 24×24 grid, drawn in
// currentColor (kit.js `iconSet`), bold enough for 20 px on a phone and 24 px on a
// projected board. Each card kind has a shape of its own, so a kind is told by its
// shape and its word, never by its colour alone: the people (Mentor, Defender) are
// figures, the one-time Chaos a bare bolt and the Permanent Chaos a framed one.
//
//   icon(name, opts)      any icon of the game (the kit's shapes included)
//   kindIcon(kind, opts)  a card kind's icon (the gallery draws it too: GameSpec.ui.icons)
import { iconSet, KIND_ICON, SHAPES } from "/static/js/kit.js";

const BOLT = "M13 2 4 14h7l-1 8 9-12h-7l1-8z";

export const ICONS = {
  ...SHAPES, // check, cross, clock, alert, trophy, cards (kit.js)
  shield: [["path", { d: "M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10z" }]],
  flag: [["path", { d: "M5 22V3M5 4h12l-2 4 2 4H5" }]],
  site: [["path", { d: "M3 21h18M5 21V10l7-5 7 5v11" }], ["path", { d: "M9 21v-6h6v6" }]],
  list: [["path", { d: "M8 6h13M8 12h13M8 18h13M3 6h.01M3 12h.01M3 18h.01" }]],
  storm: [["path", { d: "M7 15h10a4 4 0 0 0 .6-7.95A6 6 0 0 0 6.2 6.1 4.5 4.5 0 0 0 7 15z" }], ["path", { d: "M12 15l-2 4h4l-2 4" }]],
  gift: [["rect", { x: 3, y: 8, width: 18, height: 5, rx: 1 }], ["path", { d: "M5 13v8h14v-8M12 8v13M12 8S10 3 7.5 4.5 9 8 12 8zm0 0s2-5 4.5-3.5S15 8 12 8z" }]],
  // The card kinds.
  bmp: [["rect", { x: 3, y: 9, width: 18, height: 12, rx: 1 }], ["path", { d: "M3 15h18M9 9v6M15 9v6M12 15v6" }],
    ["path", { d: "M3 5c2-1.5 4-1.5 6 0s4 1.5 6 0 4-1.5 6 0" }]],                       // a wall that holds the water back
  preventative: [["rect", { x: 5, y: 4, width: 14, height: 18, rx: 2 }], ["path", { d: "M9 2h6v4H9z" }], ["path", { d: "M8.5 14l2.5 2.5 4.5-5" }]], // a checklist
  permanent_chaos: [["rect", { x: 2.5, y: 2.5, width: 19, height: 19, rx: 4 }], ["path", { d: "M13 5.5 7.5 13h4l-1 5.5L16 11h-4l1-5.5z", class: "fill" }]],
  mentor: [["path", { d: "M4 6.5 12 3l8 3.5-8 3.5z" }], ["path", { d: "M20 6.5V10" }], ["circle", { cx: 12, cy: 13, r: 3 }],
    ["path", { d: "M5.5 22a6.5 6.5 0 0 1 13 0" }]],                                      // a figure in a graduation cap
  defender: [["circle", { cx: 8.5, cy: 7, r: 3.2 }], ["path", { d: "M2.5 21a6 6 0 0 1 9.5-4.9" }],
    ["path", { d: "M17 22s4.5-2 4.5-5.5V13L17 11.3 12.5 13v3.5C12.5 20 17 22 17 22z", class: "fill" }]], // a figure with a shield
  tool: [["path", { d: "M14.7 6.3a4 4 0 0 0-5.3 5.3L3 18l3 3 6.4-6.4a4 4 0 0 0 5.3-5.3l-2.6 2.6-2.5-.5-.5-2.5z" }]], // a wrench
  degrader: [["path", { d: "M3 21V11l5 3v-3l5 3V5h4v16z" }], ["path", { d: "M3 21h18M15 2.5c1.5 0 1.5-1 3-1M17 9h.01" }]], // a smoking factory
  chaos: [["path", { d: BOLT, class: "fill" }]],
  environment: [["path", { d: "M2 20 9 9l4.5 6 2.5-3 6 8z" }], ["circle", { cx: 17, cy: 5.5, r: 2.5 }]], // a landscape
  reference: [["path", { d: "M4 19.5A2.5 2.5 0 0 1 6.5 17H20V2H6.5A2.5 2.5 0 0 0 4 4.5z" }], ["path", { d: "M4 19.5A2.5 2.5 0 0 0 6.5 22H20v-5" }]], // a book
};

export const icon = iconSet(ICONS, { cls: "sw-icon", fallback: "storm" });

// A card kind's icon: `kind` is a card's type (bmp, chaos…), "environment" or "reference".
export function kindIcon(kind, { cls = "" } = {}) {
  return icon(kind in ICONS ? kind : "storm", { cls: `${KIND_ICON} sw-kicon ${cls}`.trim() });
}
