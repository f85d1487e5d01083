// The phone page: join with a name (or resume the stored seat), then play.
import { connect, request } from "./net.js";
import { show } from "./dom.js";
import { celebrate, won } from "./cheer.js";
import { accept, banner, keyList, loadedModule, openHelp, render } from "./table.js";
import { t } from "./i18n.js";

const app = document.getElementById("app");
const code = app.dataset.code;
const joinPanel = document.getElementById("join-panel");
const gamePanel = document.getElementById("game-panel");
const joinForm = document.getElementById("join-form");
const joinError = document.getElementById("join-error");
const root = document.getElementById("game-root");
const fatal = document.getElementById("fatal");
const storageKey = (c) => `cg.seat.${c}`;
const removedKey = (c) => `cg.removed.${c}`;

const takeoverPanel = document.getElementById("takeover-panel");
let current = null; // the last `view` payload
// Another tab or device took this seat over (event `replaced`): the page waits for
// "Use here" instead of taking the seat back by itself, even after a reconnect.
let takenOver = false;

// A touch screen has no keyboard: its page shows no keyboard hints (body.touch).
// (A touch laptop keeps them: a touch screen counts only as wide as a tablet.)
const touch = matchMedia("(pointer: coarse)").matches || matchMedia("(hover: none)").matches
  || (navigator.maxTouchPoints > 0 && matchMedia("(max-width: 820px)").matches);
document.body.classList.toggle("touch", touch);
let token = localStorage.getItem(storageKey(code));
const socket = connect();

function showJoin(message) {
  show(gamePanel, false);
  show(joinPanel, true);
  joinError.textContent = message || "";
  show(joinError, Boolean(message));
  document.getElementById("name").focus();
}

function showFatal(message) {
  show(gamePanel, false);
  show(joinPanel, false);
  fatal.textContent = message;
  show(fatal, true);
}

async function resume() {
  const ack = await request(socket, "resume", { token });
  if (ack.ok) {
    show(takeoverPanel, false);
    show(joinPanel, false);
    show(gamePanel, true);
    return;
  }
  if (ack.error.code === "timeout") return; // still offline; Socket.IO reconnects and we try again
  localStorage.removeItem(storageKey(code));
  token = null;
  if (ack.error.code === "forbidden") showFatal(ack.error.message);
  else if (app.dataset.closed) showFatal(app.dataset.closed);
  else showJoin("");
}

socket.on("connect", () => {
  const removed = localStorage.getItem(removedKey(code));
  if (takenOver) return;
  if (removed && !token) showFatal(removed);
  else if (token) resume();
  else if (app.dataset.closed) showFatal(app.dataset.closed);
  else if (!current) showJoin("");
});

joinForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = document.getElementById("name").value;
  const button = joinForm.querySelector("button");
  button.disabled = true;
  const ack = await request(socket, "join", { code, name });
  button.disabled = false;
  if (!ack.ok) {
    showJoin(ack.error.message);
    return;
  }
  token = ack.token;
  localStorage.removeItem(removedKey(code));
  localStorage.setItem(storageKey(code), token);
  if (ack.table !== code) localStorage.setItem(storageKey(ack.table), token);
  show(joinPanel, false);
  show(gamePanel, true);
});

export async function act(action) {
  if (!current) return { ok: false };
  const ack = await request(socket, "act", { version: current.version, action });
  // Every refusal is said, a stale move too: the fresh view has arrived and the
  // student must look again before tapping (issue: a tap is never silently lost).
  if (!ack.ok && ack.error) {
    flash(ack.error.message);
    // And next to the controls (a game's module keeps it there across re-renders).
    for (const el of root.querySelectorAll(".act-error")) el.textContent = ack.error.message;
  }
  return ack;
}

function flash(message) {
  const el = document.getElementById("banner");
  el.textContent = message;
  show(el, true);
  clearTimeout(flash.timer);
  flash.timer = setTimeout(() => showBanner(current || {}), 4000);
}

// Join another game: this phone forgets its seat (under every code it was kept: the
// page's, the class's, each table's), so a reload does not bring it back, and goes to
// the home page's code entry.
function leave() {
  for (const key of Object.keys(localStorage)) {
    if (key.startsWith("cg.seat.") && localStorage.getItem(key) === token) localStorage.removeItem(key);
  }
  token = null;
  location.assign("/");
}

// notes(): the table's playtest notes (a game's Table tab may list them). again(): Play
// again at the end (the `again` event); leave(): Join another game.
const ctx = { role: "player", act, flash, current: () => current, log: () => (current ? current.log : []),
  notes: () => request(socket, "notes", {}), again: () => request(socket, "again", {}), leave };

let removed = false;

socket.on("view", (payload) => {
  if (removed || takenOver) return;
  const next = accept(current, payload);
  const older = next.version !== payload.version || (current && current.code === payload.code && payload.version < current.version);
  const cheer = !older && current && current.code === next.code && won(next) && !won(current);
  current = next;
  if (older) return;
  // The seat moved on to another table (Play again, a class's next round): a reload there finds it too.
  if (token && current.code !== code) localStorage.setItem(storageKey(current.code), token);
  if (cheer) celebrate();
  show(joinPanel, false);
  show(gamePanel, true);
  showBanner(current);
  // The note box only while the teacher lets this table's phones write playtest notes.
  show(document.getElementById("note-box"), current.phone_notes === true);
  render(root, current, ctx);
});

// The table's banner; a game that ended by itself (an online match that expired)
// says why, as the server put it on the page.
function showBanner(payload) {
  const el = document.getElementById("banner");
  banner(el, payload);
  if (payload.status === "ended" && app.dataset.endedNote) {
    el.textContent = app.dataset.endedNote;
    show(el, true);
  }
}

// Removed by the teacher: say so now and after a reload (not "the game has started").
socket.on("removed", (msg) => {
  for (const c of new Set([code, current && current.code].filter(Boolean))) {
    localStorage.removeItem(storageKey(c));
    localStorage.setItem(removedKey(c), msg.message);
  }
  token = null;
  current = null;
  removed = true;
  showFatal(msg.message);
});

// Only the newest page of a seat plays it. Another tab or device opened it: say so, and
// offer to take it back. Or the seat's private link was replaced: if that happened in
// this browser, its new seat token comes into storage (before or after this event) and
// the page goes on with it.
let linkReplaced = false;

function takeNewerToken() {
  const stored = localStorage.getItem(storageKey(code));
  if (!stored || stored === token) return false;
  token = stored;
  linkReplaced = false;
  show(fatal, false);
  resume();
  return true;
}

window.addEventListener("storage", (event) => {
  if (linkReplaced && event.key === storageKey(code)) takeNewerToken();
});

socket.on("replaced", (msg) => {
  if (msg.reason === "link") {
    linkReplaced = true;
    if (!takeNewerToken()) showFatal(msg.message);
    return;
  }
  takenOver = true;
  show(gamePanel, false);
  show(joinPanel, false);
  document.getElementById("takeover-message").textContent = msg.message;
  show(takeoverPanel, true);
});

document.getElementById("use-here").addEventListener("click", () => {
  takenOver = false;
  token = localStorage.getItem(storageKey(code)) || token;  // a newer link made in another tab
  resume();
});

socket.on("message", (msg) => flash(msg.text));

document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, textarea, select, dialog")) return;
  // `?` lists the keys; a touch screen has no keys to list.
  if (event.key === "?" && !touch) {
    event.preventDefault();
    openHelp(keyList(current, "player"));
    return;
  }
  if (!current || current.status !== "playing") return;
  const game = loadedModule(current, "player");
  if (game && game.onKey && game.onKey(event, current, ctx)) event.preventDefault();
});

const noteForm = document.getElementById("note-form");
noteForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = document.getElementById("note-text");
  const status = document.getElementById("note-status");
  const ack = await request(socket, "note", { text: text.value });
  status.textContent = ack.ok ? t("Saved. Thank you!") : ack.error.message;
  if (ack.ok) text.value = "";
});
