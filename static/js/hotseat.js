// Local hotseat: one device plays every seat of a table (app/hotseat.py).
//
// The link's fragment (#secret, never sent to the server) is traded once, by a
// POST, for the seats' tokens, which this device keeps in localStorage. Each seat
// then gets its own Socket.IO connection that `resume`s with its token, so every
// seat receives exactly the views a phone in that seat would. The page shows the
// view of the seat the game waits for (several waiting, as in a vote: one at a
// time, in seat order); whenever that seat changes, the pass screen covers
// everything, and the previous view is taken off the page, until the next player
// taps to continue.
import { connect, request } from "./net.js";
import { h, replace, show } from "./dom.js";
import { accept, banner, loadedModule, logList, playerList, render, resultText } from "./table.js";

const app = document.getElementById("app");
const code = app.dataset.code;
const storageKey = `cg.hotseat.${code}`;
const root = document.getElementById("game-root");
const gamePanel = document.getElementById("game-panel");
const bannerEl = document.getElementById("banner");
const fatal = document.getElementById("fatal");
const pass = document.getElementById("pass-screen");
const passTitle = document.getElementById("pass-title");
const passText = document.getElementById("pass-text");
const passButton = document.getElementById("pass-continue");
// Everything but the pass screen: made inert while it is up, so no key reaches what is behind it.
const behind = [app, document.querySelector(".site-header"), document.querySelector(".skip-link")].filter(Boolean);

let seats = [];       // {seat, name, token, socket, current, box, removed}
let shown = null;     // the seat whose turn it is on this device (null: nobody's)
let revealed = false; // its player has tapped "continue"
let screen = null;    // what is on the page: "lobby", "seat", "ended", "idle"
let stopped = false;

function load() {
  try {
    const stored = JSON.parse(localStorage.getItem(storageKey) || "null");
    return Array.isArray(stored) && stored.length ? stored : null;
  } catch (err) {
    return null;
  }
}

function save(list) {
  localStorage.setItem(storageKey, JSON.stringify(list.map(({ seat, name, token }) => ({ seat, name, token }))));
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
    return { ok: false, error: { code: "timeout", message: "No answer from the server. Check the network and open the link again." } };
  }
}

function flash(message) {
  bannerEl.textContent = message;
  show(bannerEl, true);
  clearTimeout(flash.timer);
  flash.timer = setTimeout(() => banner(bannerEl, latest() || {}), 4000);
}

// The freshest payload any seat has: every seat's view of one version shares its public state.
function latest() {
  let top = null;
  for (const s of seats) {
    if (s.current && (!top || s.current.version > top.version)) top = s.current;
  }
  return top;
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
  if (stopped) return;
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
      (top.view.prompt && top.view.prompt.text) || "Waiting…")));
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
  passTitle.textContent = `Pass the device to ${name}`;
  passText.textContent = `${name}, tap the button when you have the device. Everyone else, please look away.`;
  passButton.textContent = `I'm ${name} \u2014 continue`;
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
  if (!s || !s.current) return;
  if (screen !== "seat" || !root.contains(s.box)) {
    screen = "seat";
    const others = seats.filter((x) => x !== s).map((x) => x.name).join(", ");
    replace(root,
      h("div", { class: "hotseat-who" },
        h("h1", { tabindex: "-1", dataset: { seat: s.seat } }, `${s.name}'s turn`),
        h("p", { class: "muted" }, `Playing on one device with ${others}`)),
      s.box);
  }
  render(s.box, s.current, ctxFor(s));
}

function drawLobby(top) {
  screen = "lobby";
  const first = seatOf(0) || seats[0];
  const start = first && first.current ? first.current.actions.find((a) => a.type === "start") : null;
  replace(root, h("section", { class: "card lobby hotseat-lobby", "aria-label": "Lobby" },
    h("h1", {}, `${top.title || "Game"} on one device`),
    h("p", {}, "The players, in seat order:"),
    playerList(top.players),
    start
      ? h("button", { type: "button", class: "primary big", dataset: { focusKey: "start" },
        onclick: () => act(first, start) }, start.label || "Start")
      : h("p", { class: "hint" }, top.status === "lobby" ? "Getting the table ready…" : "This table was closed.")));
}

function drawEnd(top) {
  screen = "ended";
  const result = top.result || {};
  const winners = new Set(result.winners || []);
  const scores = Array.isArray(result.scores) ? result.scores : null;
  replace(root, h("section", { class: "card hotseat-end", "aria-label": "Result" },
    h("h1", { class: "result big-text" }, resultText(top) || "The game has ended."),
    typeof result.reason === "string" && result.reason ? h("p", {}, result.reason) : null,
    h("ul", { class: "hotseat-scores", role: "list" }, top.players.map((p) =>
      h("li", { class: winners.has(p.seat) ? "winner" : "" },
        h("span", {}, p.name, winners.has(p.seat) ? " (winner)" : ""),
        scores && scores[p.seat] !== undefined ? h("span", {}, String(scores[p.seat])) : null))),
    logList(top.log || [], 12)));
}

function openSeat(s) {
  s.box = h("div", { class: "hotseat-view" });
  s.socket = connect();
  s.socket.on("connect", async () => {
    const ack = await request(s.socket, "resume", { token: s.token });
    if (ack.ok || ack.error.code === "timeout") return; // a timeout: Socket.IO reconnects and we try again
    if (ack.error.code === "not_joined" || ack.error.code === "forbidden") {
      localStorage.removeItem(storageKey);
      showFatal("This device no longer holds the seats of this hotseat game (the teacher may have made a new "
        + "link). Open the newest hotseat link from your teacher.");
    } else {
      flash(ack.error.message);
    }
  });
  s.socket.on("view", (payload) => {
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
}

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
    showFatal(`This device has no seats at table ${code}. Open the hotseat link (or scan its QR code) `
      + "from your teacher's page.");
    return;
  }
  seats = stored.map((x) => ({ seat: x.seat, name: x.name, token: x.token, current: null, removed: false }))
    .sort((a, b) => a.seat - b.seat);
  seats.forEach(openSeat);
}

begin();
