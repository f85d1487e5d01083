// Every clock a game runs, shown on the board, the phones and the teacher's page.
//
// The server keeps each deadline: `payload.deadlines`, by timer key, is
// {due: epoch seconds} while it runs, or {left: seconds} while the table is
// paused or the game holds it; the game's view names the key of the clock it
// shows (War's `length.clock_key`, Water Cycle's `crisis.clock_key`). A game
// draws `countdown(...)` where its clock belongs; one shared tick redraws every
// countdown on the page once a second from the last view, so counting down
// costs the server nothing. Styles: static/css/countdown.css.
import { h } from "./dom.js";
import { t } from "./i18n.js";

// From this many seconds left the clock is highlighted ("hurry").
export const SOON_SECONDS = 10;

function secondsLeft(el) {
  const left = el.dataset.due ? Number(el.dataset.due) - Date.now() / 1000 : Number(el.dataset.left);
  return Math.max(0, Math.ceil(left));
}

function draw(el) {
  const s = secondsLeft(el);
  const time = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  el.textContent = el.dataset.due ? `${el.dataset.label} ${time}` : t("{label} {time} (paused)", { label: el.dataset.label, time });
  el.classList.toggle("soon", s <= SOON_SECONDS);
}

let ticking = null;
function tick() {
  const clocks = document.querySelectorAll(".countdown");
  for (const el of clocks) draw(el);
  if (!clocks.length) { clearInterval(ticking); ticking = null; }
}

// The clock under `key` in the payload's deadlines, or null when the server
// lists none (the clock has not started, or has stopped). `label` leads the
// time ("Vote closes in" → "Vote closes in 0:42"); `name` is its accessible name.
export function countdown(payload, key, { label, name, cls = "" }) {
  const deadline = key ? (payload.deadlines || {})[key] : null;
  if (!deadline) return null;
  const el = h("p", { class: `countdown ${cls}`.trim(), role: "timer", "aria-label": name,
    dataset: deadline.due != null ? { due: deadline.due, label } : { left: deadline.left, label } });
  draw(el);
  if (!ticking) ticking = setInterval(tick, 1000);
  return el;
}
