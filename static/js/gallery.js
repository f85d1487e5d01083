// The card gallery (/games/<key>/cards): filter the listed cards by a search
// (name, type, text and science note) and by type, and draw each card's kind icon
// (the game's icons module, GameSpec.ui.icons: `kindIcon(type)`) on its band and
// its type's filter. Without JavaScript every card stays listed and these
// controls stay hidden.
import { t } from "./i18n.js";
const tools = document.getElementById("gallery-tools");
const query = document.getElementById("gallery-query");
const count = document.getElementById("gallery-count");
const empty = document.getElementById("gallery-empty");
const buttons = [...tools.querySelectorAll("button[data-type]")];
const cards = [...document.querySelectorAll(".gallery-card")].map((el) => ({
  el, type: el.dataset.type, text: el.textContent.replace(/\s+/g, " ").toLowerCase(),
}));
const sections = [...document.querySelectorAll(".gallery-section")];
let type = "";

function apply() {
  const words = query.value.toLowerCase().split(/\s+/).filter(Boolean);
  let shown = 0;
  for (const card of cards) {
    const visible = (!type || card.type === type) && words.every((w) => card.text.includes(w));
    card.el.hidden = !visible;
    if (visible) shown += 1;
  }
  for (const section of sections) {
    section.hidden = !section.querySelector(".gallery-card:not([hidden])");
  }
  empty.hidden = shown > 0;
  count.textContent = shown === cards.length ? t("Showing all {n} cards.", { n: cards.length })
    : t("Showing {shown} of {n} cards.", { shown, n: cards.length });
}

for (const button of buttons) {
  button.addEventListener("click", () => {
    type = button.dataset.type;
    for (const b of buttons) b.setAttribute("aria-pressed", String(b === button));
    apply();
  });
}
query.addEventListener("input", apply);
document.getElementById("gallery-search").addEventListener("submit", (event) => event.preventDefault());
tools.hidden = false;

// Each card kind's icon beside its word (aria-hidden: the word says it).
const iconsModule = document.getElementById("gallery").dataset.icons;
if (iconsModule) {
  import(iconsModule).then(({ kindIcon }) => {
    for (const card of cards) card.el.querySelector(".gallery-band").prepend(kindIcon(card.type, { cls: "gallery-icon" }));
    for (const button of buttons.filter((b) => b.dataset.type)) button.prepend(kindIcon(button.dataset.type, { cls: "gallery-icon" }));
  });
}
