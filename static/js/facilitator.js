// The facilitator's table page: live board preview, the platform's moderation
// (lock, pause, remove, end) and, separately, the game's own facilitator actions.
import { connect, request } from "./net.js";
import { h, replace, show } from "./dom.js";
import { accept, actionControls, banner, playerList, render } from "./table.js";

const app = document.getElementById("app");
const code = app.dataset.code;
const root = document.getElementById("game-root");
const errorBox = document.getElementById("mod-error");
const socket = connect();
let current = null;

const CONFIRM = {
  end: "End this game for everyone?",
  kick: (a) => `${a.label}? The computer plays their seat from now on.`,
};

async function send(action, scope) {
  const ack = await request(socket, "moderate", { code, version: current.version, action, scope });
  errorBox.textContent = ack.ok ? "" : ack.error.message;
  show(errorBox, !ack.ok);
  return ack;
}

function moderate(action) {
  const ask = CONFIRM[action.type];
  const text = typeof ask === "function" ? ask(action) : ask;
  if (text && !window.confirm(text)) return;
  send(action, "table");
}

function statusText(p) {
  const bits = [`Status: ${p.status}`, `${p.players.length} player(s)`];
  if (p.locked) bits.push("locked");
  if (p.paused) bits.push("paused");
  return bits.join(" · ");
}

socket.on("connect", () => request(socket, "watch", { code, role: "facilitator" }).then((ack) => {
  if (!ack.ok) {
    errorBox.textContent = ack.error.message;
    show(errorBox, true);
  }
}));

// The game's module may draw its own controls for the game's facilitator actions
// (a Crisis moderation panel...): `act` sends one as `moderate` with scope "game".
const ctx = { role: "facilitator", current: () => current, log: () => (current ? current.log : []),
  act: (action) => send(Object.fromEntries(Object.entries(action).filter(([k]) => k !== "label")), "game") };

socket.on("view", (payload) => {
  const older = current && payload.version < current.version;
  current = accept(current, payload);
  if (older) return;
  document.getElementById("table-status").textContent = statusText(current);
  // Safe, reversible controls (lock, start, pause) together; removing a player and ending
  // the game apart, in red, each behind a confirmation.
  const moderation = current.moderation || [];
  const RISKY = new Set(["end", "kick"]);
  const safe = moderation.filter((a) => !RISKY.has(a.type)).map((a) =>
    h("button", { type: "button", class: a.type === "start" ? "primary" : "", onclick: () => moderate(a) }, a.label));
  replace(document.getElementById("mod-buttons"), safe);
  // Removing a player and ending the game: together, away from the safe controls.
  const kicks = moderation.filter((a) => a.type === "kick");
  const ends = moderation.filter((a) => a.type === "end");
  replace(document.getElementById("mod-danger"),
    kicks.length ? h("div", { class: "button-row kick-row" },
      h("span", { class: "row-label" }, "Remove a player:"),
      kicks.map((a) => h("button", { type: "button", class: "small danger", onclick: () => moderate(a) }, a.label)))
      : null,
    h("div", { class: "button-row" }, ends.map((a) =>
      h("button", { type: "button", class: "danger", onclick: () => moderate(a) }, a.label))));
  replace(document.getElementById("mod-players"), ...playerList(current.players).children);
  const gameBox = document.getElementById("game-actions");
  show(gameBox, current.actions.length > 0);
  replace(document.getElementById("game-action-buttons"),
    actionControls(current.actions, (action) => send(action, "game"), { focusPrefix: "game" }));
  banner(document.createElement("div"), current);
  render(root, current, ctx);
});

socket.on("note", (note) => {
  document.getElementById("notes").prepend(
    h("li", {}, h("strong", {}, note.author), ` (version ${note.version}): `, note.text));
});

document.getElementById("note-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = document.getElementById("note-text");
  const ack = await request(socket, "note", { text: text.value });
  document.getElementById("note-status").textContent = ack.ok ? "Saved." : ack.error.message;
  if (ack.ok) text.value = "";
});
