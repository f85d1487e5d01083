// The phone page: join with a name (or resume the stored seat), then play.
import { connect, request } from "./net.js";
import { show } from "./dom.js";
import { accept, banner, keyList, loadedModule, openHelp, render } from "./table.js";

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

let current = null; // the last `view` payload

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

// notes(): the table's playtest notes (a game's Table tab may list them).
const ctx = { role: "player", act, flash, current: () => current, log: () => (current ? current.log : []),
  notes: () => request(socket, "notes", {}) };

let removed = false;

socket.on("view", (payload) => {
  if (removed) return;
  const next = accept(current, payload);
  const older = next.version !== payload.version || (current && current.code === payload.code && payload.version < current.version);
  current = next;
  if (older) return;
  show(joinPanel, false);
  show(gamePanel, true);
  showBanner(current);
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
  status.textContent = ack.ok ? "Saved. Thank you!" : ack.error.message;
  if (ack.ok) text.value = "";
});
