// The Wizard duel's icons, in one place: inline SVG on the kit's 24×24 grid, drawn
// in currentColor (kit.js `iconSet`), bold enough for 20 px on a phone and 24 px on
// a projected board. A spell shows its kind (a sword for an attack, a shield for a
// defense) and its category (favour, love, curse…) by shapes of their own; a
// character card shows a villager's figure, or the crown of a wizard's leader.
// The words are always there too: an icon never says anything alone.
//
//   icon(name, opts)           any icon of the game (a class per name: wiz-i-<name>)
//   kindIcon(kind, opts)       a card kind's icon: "attack", "defense", a spell category,
//                              "villager" or "leader"
//   CATEGORY                   a spell category's word
import { iconSet, KIND_ICON, SHAPES } from "/static/js/kit.js";
import { t } from "/static/js/i18n.js";

export const ICONS = {
  ...SHAPES, // check, cross (and clock, alert, trophy, cards) from kit.js
  female: [["circle", { cx: 12, cy: 9, r: 5.5 }], ["path", { d: "M12 14.5V22M8.5 18.5h7" }]],
  male: [["circle", { cx: 10, cy: 14, r: 5.5 }], ["path", { d: "M14 10l6.5-6.5M15 3.5h5.5V9" }]],
  crown: [["path", { d: "M3 18 2 7l5.5 4L12 4l4.5 7L22 7l-1 11z", class: "fill" }], ["path", { d: "M3 21h18" }]],
  attack: [["path", { d: "M14.5 17.5 3 6V3h3l11.5 11.5M13 19l6-6M16 16l4 4M19 21l2-2" }]],
  defense: [["path", { d: "M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10z" }]],
  stack: [["rect", { x: 4, y: 7, width: 13, height: 15, rx: 2 }], ["path", { d: "M7 4h11a2 2 0 0 1 2 2v13" }]],
  star: [["path", { d: "M12 2.5l2.9 6 6.6.9-4.8 4.6 1.2 6.5L12 17.4l-5.9 3.1 1.2-6.5L2.5 9.4l6.6-.9z", class: "fill" }]],
  pause: [["circle", { cx: 12, cy: 12, r: 9.5 }], ["path", { d: "M10 8.5v7M14 8.5v7" }]],
  back: [["path", { d: "M15 18l-6-6 6-6" }]],
  // The characters.
  villager: [["circle", { cx: 12, cy: 7, r: 4 }], ["path", { d: "M4 22a8 8 0 0 1 16 0" }]],
  // The spell categories.
  favour: [["path", { d: "M12 3l2 5.5h5.5l-4.5 3.5 1.7 5.5L12 14.2 7.3 17.5 9 12 4.5 8.5H10z" }], ["path", { d: "M5 21h14" }]], // a star of good fortune
  love: [["path", { d: "M20.8 4.6a5.5 5.5 0 0 0-7.8 0L12 5.7l-1-1.1a5.5 5.5 0 0 0-7.8 7.8l1 1.1L12 21l7.8-7.5 1-1.1a5.5 5.5 0 0 0 0-7.8z" }]],
  binding: [["path", { d: "M9 17H7A5 5 0 0 1 7 7h2M15 7h2a5 5 0 0 1 0 10h-2M8 12h8" }]],          // a chain link
  separation: [["path", { d: "M9 7H7a5 5 0 0 0 0 10h2M15 17h2a5 5 0 0 0 0-10h-2M12 3v4M12 17v4" }]], // a broken link
  sleep: [["path", { d: "M20 14.5A8.5 8.5 0 1 1 9.5 4a6.5 6.5 0 0 0 10.5 10.5z" }], ["path", { d: "M15 3h4l-4 4h4" }]], // a moon
  curse: [["path", { d: "M12 2.5a8 8 0 0 0-8 8c0 2.8 1.4 4.8 3.5 6V21h9v-4.5c2.1-1.2 3.5-3.2 3.5-6a8 8 0 0 0-8-8z" }],
    ["circle", { cx: 9, cy: 11, r: 1.7, class: "fill" }], ["circle", { cx: 15, cy: 11, r: 1.7, class: "fill" }], ["path", { d: "M10.5 21v-2.5M13.5 21v-2.5" }]], // a skull
  healing: [["path", { d: "M9 3h6v6h6v6h-6v6H9v-6H3V9h6z" }]],                                 // a cross of healing
  protection: [["path", { d: "M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10z" }], ["path", { d: "M8.5 12l2.5 2.5 4.5-5" }]],
  exorcism: [["path", { d: "M6 21V10a6 6 0 0 1 12 0v11l-2-1.8-2 1.8-2-1.8-2 1.8-2-1.8z" }], ["path", { d: "M10 10h.01M14 10h.01" }]], // a spirit driven out
  divination: [["circle", { cx: 12, cy: 11, r: 7 }], ["path", { d: "M7 22h10M9 18.5l-1 3.5M15 18.5l1 3.5" }], ["path", { d: "M9 9a3.5 3.5 0 0 1 3-2" }]], // a seer's crystal ball
};

export const CATEGORY = { favour: t("Favour"), love: t("Love"), binding: t("Binding"), separation: t("Separation"), sleep: t("Sleep"),
  curse: t("Curse"), healing: t("Healing"), protection: t("Protection"), exorcism: t("Exorcism"), divination: t("Divination") };

export const icon = iconSet(ICONS, { cls: (name) => `wiz-icon wiz-i-${name}` });

const KIND = { leader: "crown" };

export function kindIcon(kind, { cls = "" } = {}) {
  return icon(KIND[kind] || (kind in ICONS ? kind : "star"), { cls: `${KIND_ICON} wiz-kicon ${cls}`.trim() });
}
