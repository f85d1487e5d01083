// Local hotseat: one device plays every seat of a table (app/service/hotseat.py).
//
// The link's fragment (#secret, never sent to the server) is traded once, by a
// POST, for the seats' tokens, which this device keeps in localStorage. Each seat
// then gets its own Socket.IO connection that `resume`s with its token, so every
// seat receives exactly the views a phone in that seat would. The page shows the
// view of the seat the game waits for (several waiting, as in a vote: one at a
// time, in seat order); whenever that seat changes, the pass screen covers
// everything, and the previous view is taken off the page, until the next player
// taps to continue.
//
// At the end, *Play again* is one `again` for every seat this device holds (its other
// seats' tokens in `seats`, app/service/tables/rematch.py): the rematch is dealt at
// once at a new table, each seat's token moves there as a phone's does, its socket
// gets the new table's views, and the page follows (its address and stored seats too).
import { connect, request } from "./net.js";
import { h, heldByPress, replace, show } from "./dom.js";
import { accept, banner, loadedModule, logList, playerList, render, resultText } from "./table.js";
import { t } from "./i18n.js";

const app = document.getElementById("app");
let code = app.dataset.code;  // the table this device plays now (Play again moves it on)
const left = new Set();       // the tables it has left: their late views are ignored
const storageKey = () => `cg.hotseat.${code}`;
const root = document.getElementById("game-root");
const gamePanel = document.getElementById("game-panel");
const bannerEl = document.getElementById("banner");
const fatal = document.getElementById("fatal");
const takeoverPanel = document.getElementById("takeover-panel");
const pass = document.getElementById("pass-screen");
const passTitle = document.getElementById("pass-title");
const passText = document.getElementById("pass-text");
const passButton = document.getElementById("pass-continue");
// The language picker (templates/_language.html), shown in the lobby only: the game's
// screens stay one screen tall.
const picker = document.querySelector("#language-slot form.language-picker");
// Everything but the pass screen: made inert while it is up, so no key reaches what is behind it.
const behind = [app, document.querySelector(".site-header"), document.querySelector(".skip-link")].filter(Boolean);

let seats = [];       // {seat, name, token, socket, current, box, removed}
let shown = null;     // the seat whose turn it is on this device (null: nobody's)
let revealed = false; // its player has tapped "continue"
let screen = null;    // what is on the page: "lobby", "seat", "ended", "idle"
let stopped = false;
let takenOver = false; // another tab holds the seats (event `replaced`)

function load() {
  try {
    const stored = JSON.parse(localStorage.getItem(storageKey()) || "null");
    return Array.isArray(stored) && stored.length ? stored : null;
  } catch (err) {
    return null;
  }
}

function save(list) {
  localStorage.setItem(storageKey(), JSON.stringify(list.map(({ seat, name, token }) => ({ seat, name, token }))));
}

function showFatal(message) {
  stopped = true;
  show(pass, false);
  document.body.classList.remove("passing");
  show(gamePanel, false);
  fatal.textContent = message;
  show(fatal, true);
}

async function claim(secret) {
  try {
    const response = await fetch(`/hotseat/${encodeURIComponent(code)}/claim`, {
      method: "POST", headers: { "Content-Type": "application/json" }, credentials: "same-origin",
      cache: "no-store", body: JSON.stringify({ secret }),
    });
    return await response.json();
  } catch (err) {
    return { ok: false, error: { code: "timeout", message: t("No answer from the server. Check the network and open the link again.") } };
  }
}

function flash(message) {
  bannerEl.textContent = message;
  show(bannerEl, true);
  clearTimeout(flash.timer);
  flash.timer = setTimeout(() => banner(bannerEl, latest() || {}), 4000);
}

// The freshest payload any seat has of this table: every seat's view of one version shares its public state.
function latest() {
  let top = null;
  for (const s of seats) {
    if (s.current && s.current.code === code && (!top || s.current.version > top.version)) top = s.current;
  }
  return top;
}

// The seats moved on to a new table (Play again, here or from the teacher's page): the
// page follows, with its address and stored seats; a reload opens the new table.
function follow(next) {
  const before = storageKey();
  left.add(code);
  code = next;
  app.dataset.code = code;
  save(seats);
  localStorage.removeItem(before);
  history.replaceState(null, "", `/hotseat/${encodeURIComponent(code)}`);
  again.pending = false;
}

// Play again, for every player at once: one `again` carrying this device's other seats.
async function again(button, error) {
  const [first, ...others] = seats.filter((s) => !s.removed);
  if (!first) return;
  button.disabled = true;
  again.pending = true;
  const ack = await request(first.socket, "again", { seats: others.map((s) => s.token) });
  if (!ack.ok) {
    again.pending = false;
    error.textContent = ack.error.message;
    button.disabled = false;
  }
}

function seatOf(index) {
  return seats.find((s) => s.seat === index) || null;
}

async function act(s, action) {
  if (!s.current) return { ok: false };
  const ack = await request(s.socket, "act", { version: s.current.version, action });
  if (!ack.ok && ack.error) {
    flash(ack.error.message);
    for (const el of root.querySelectorAll(".act-error")) el.textContent = ack.error.message;
  }
  return ack;
}

function ctxFor(s) {
  return { role: "player", act: (action) => act(s, action), flash, current: () => s.current,
    log: () => (s.current ? s.current.log : []) };
}

// Whose turn it is on this device, from the game's own prompt.
function whoseTurn(top) {
  const waiting = ((top.view && top.view.prompt && top.view.prompt.waiting_for) || [])
    .filter((x) => Number.isInteger(x) && seatOf(x) && !seatOf(x).removed)
    .sort((a, b) => a - b);
  if (waiting.length) return waiting[0];
  return shown; // the game waits for no seat (the teacher, a timer): the device stays where it is
}

function update() {
  if (stopped || takenOver) return;
  if (heldByPress(update, update)) return;  // (the lobby's Start, say, stays under the finger: dom.js)
  const top = latest();
  if (!top) return;
  banner(bannerEl, top);
  if (top.status === "lobby" || !top.started) {
    setShown(null);
    drawLobby(top);
    return;
  }
  if (top.status === "ended" || top.result) {
    setShown(null);
    drawEnd(top);
    return;
  }
  const next = whoseTurn(top);
  if (next === null) {
    setShown(null);
    screen = "idle";
    replace(root, h("section", { class: "card" }, h("p", { class: "big-text", role: "status" },
      (top.view.prompt && top.view.prompt.text) || t("Waiting…"))));
    return;
  }
  if (next !== shown) {
    setShown(next);
    return; // the pass screen is up; the view is drawn once its player continues
  }
  if (revealed) drawSeat(seatOf(shown));
}

// A new seat's turn: take the previous view off the page and cover it all.
function setShown(index) {
  if (index === shown) return;
  for (const s of seats) s.box.replaceChildren();
  shown = index;
  revealed = false;
  if (index === null) {
    closePass();
    return;
  }
  replace(root);
  screen = null;
  const name = seatOf(index).name;
  passTitle.textContent = t("Pass the device to {name}", { name });
  passText.textContent = t("{name}, tap the button when you have the device. Everyone else, please look away.", { name });
  passButton.textContent = t("I'm {name} — continue", { name });
  for (const el of behind) el.inert = true;
  document.body.classList.add("passing");
  show(pass, true);
  passButton.focus();
}

function closePass() {
  show(pass, false);
  for (const el of behind) el.inert = false;
  document.body.classList.remove("passing");
}

passButton.addEventListener("click", () => {
  if (shown === null) return;
  revealed = true;
  closePass();
  drawSeat(seatOf(shown));
  const heading = root.querySelector("h1");
  if (heading) heading.focus();
});

function drawSeat(s) {
  if (!s || !s.current || s.current.code !== code) return;  // (its view of the new table is on its way)
  if (screen !== "seat" || !root.contains(s.box)) {
    screen = "seat";
    const others = seats.filter((x) => x !== s).map((x) => x.name).join(", ");
    replace(root,
      h("div", { class: "hotseat-who" },
        h("h1", { tabindex: "-1", dataset: { seat: s.seat } }, t("{name}'s turn", { name: s.name })),
        h("p", { class: "muted" }, t("Playing on one device with {names}", { names: others }))),
      s.box);
  }
  render(s.box, s.current, ctxFor(s));
}

function drawLobby(top) {
  screen = "lobby";
  const first = seatOf(0) || seats[0];
  const start = first && first.current ? first.current.actions.find((a) => a.type === "start") : null;
  replace(root, h("section", { class: "card lobby hotseat-lobby", "aria-label": t("Lobby") },
    h("h1", {}, top.title ? t("{game} on one device", { game: top.title }) : t("Game on one device")),
    h("p", {}, t("The players, in seat order:")),
    playerList(top.players),
    start
      ? h("button", { type: "button", class: "primary big", dataset: { focusKey: "start" },
        onclick: () => act(first, start) }, start.label || t("Start"))
      : h("p", { class: "hint" }, top.status === "lobby" ? t("Getting the table ready…") : t("This table was closed.")),
    picker));
}

function drawEnd(top) {
  screen = "ended";
  const result = top.result || {};
  const offer = top.again || {};
  const error = h("p", { class: "error act-error", role: "alert" });
  let next = null;
  if (offer.next) {
    next = h("p", { class: "again-count", role: "status" }, t("Starting the new game…"));
  } else if (offer.offered) {
    next = h("section", { class: "what-next", "aria-label": t("What next") },
      h("button", { type: "button", class: "primary big", dataset: { focusKey: "again" },
        disabled: again.pending ? true : null, onclick: (event) => again(event.currentTarget, error) },
        t("Play again")),
      h("p", { class: "hint" }, t("The same players on this device: {names}.", { names: top.players.map((p) => p.name).join(", ") })),
      error);
  }
  const winners = new Set(result.winners || []);
  const scores = Array.isArray(result.scores) ? result.scores : null;
  replace(root, h("section", { class: "card hotseat-end", "aria-label": t("Result") },
    // A shared device is nobody's seat: the winners by name, never "You won!".
    h("h1", { class: "result big-text" }, resultText({ ...top, seat: null }) || t("The game has ended.")),
    // A game's reason in words (not a code such as "ended_by_facilitator": the banner says why).
    typeof result.reason === "string" && / /.test(result.reason) ? h("p", {}, result.reason) : null,
    h("ul", { class: "hotseat-scores", role: "list" }, top.players.map((p) =>
      h("li", { class: winners.has(p.seat) ? "winner" : "" },
        h("span", {}, winners.has(p.seat) ? t("{name} (winner)", { name: p.name }) : p.name),
        scores && scores[p.seat] !== undefined ? h("span", {}, String(scores[p.seat])) : null))),
    next,
    logList(top.log || [], 12)));
}

function openSeat(s) {
  s.box = h("div", { class: "hotseat-view" });
  s.socket = connect();
  s.socket.on("connect", async () => {
    const ack = await request(s.socket, "resume", { token: s.token });
    if (ack.ok || ack.error.code === "timeout") return; // a timeout: Socket.IO reconnects and we try again
    if (ack.error.code === "not_joined" || ack.error.code === "forbidden") {
      localStorage.removeItem(storageKey());
      showFatal(t("This device no longer holds the seats of this hotseat game (the teacher may have made a new link). Open the newest hotseat link from your teacher."));
    } else {
      flash(ack.error.message);
    }
  });
  s.socket.on("view", (payload) => {
    if (left.has(payload.code)) return;  // a late view of a table this device has left
    if (payload.code !== code) follow(payload.code);
    const next = accept(s.current, payload);
    const older = next.version !== payload.version;
    s.current = next;
    if (!older) update();
  });
  s.socket.on("removed", () => {
    s.removed = true;
    update();
  });
  s.socket.on("message", (msg) => flash(msg.text));
  s.socket.on("replaced", (msg) => {
    if (msg.reason === "link") showFatal(msg.message);  // a new hotseat link retired these seats
    else stepAside(msg.message);
  });
}

// Only the newest page of a seat plays it (as on a phone, play.js): the same hotseat
// game opened in another tab or window takes every seat, and this page steps aside
// until "Use here" takes them all back. Each seat's socket says so; once is enough.
function stepAside(message) {
  if (stopped) return;
  takenOver = true;
  setShown(null);  // whoever's hand was up, it is hidden; "Use here" brings the pass screen back
  show(gamePanel, false);
  document.getElementById("takeover-message").textContent = message;
  show(takeoverPanel, true);
}

document.getElementById("use-here").addEventListener("click", async () => {
  takenOver = false;
  show(takeoverPanel, false);
  show(gamePanel, true);
  await Promise.all(seats.map((s) => request(s.socket, "resume", { token: s.token })));
  update();
});

document.addEventListener("keydown", (event) => {
  if (shown === null || !revealed || !pass.hidden) return;
  const s = seatOf(shown);
  if (!s || !s.current || s.current.status !== "playing") return;
  if (event.target.closest("input, textarea, select")) return;
  const game = loadedModule(s.current, "player");
  if (game && game.onKey && game.onKey(event, s.current, ctxFor(s))) event.preventDefault();
});

async function begin() {
  const secret = decodeURIComponent(location.hash.slice(1));
  let stored = load();
  if (secret) {
    // The secret leaves the address bar (and the history) at once: it works only once anyway.
    history.replaceState(null, "", location.pathname + location.search);
    const ack = await claim(secret);
    if (ack.ok) {
      stored = ack.seats;
      save(stored);
    } else if (!stored) {
      showFatal(ack.error.message);
      return;
    }
  }
  if (!stored) {
    showFatal(t("This device has no seats at table {code}. Open the hotseat link (or scan its QR code) from your teacher's page.", { code }));
    return;
  }
  seats = stored.map((x) => ({ seat: x.seat, name: x.name, token: x.token, current: null, removed: false }))
    .sort((a, b) => a.seat - b.seat);
  seats.forEach(openSeat);
}

begin();
