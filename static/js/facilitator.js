// The facilitator's table page: live board preview plus moderation controls.
import { connect, request } from "./net.js";
import { h, replace, show } from "./dom.js";
import { banner, playerList, render } from "./table.js";

const app = document.getElementById("app");
const code = app.dataset.code;
const root = document.getElementById("game-root");
const errorBox = document.getElementById("mod-error");
const socket = connect();
let current = null;

const LABELS = {
  lock: "Lock table", unlock: "Unlock table", end: "End the game", pause: "Pause", resume: "Resume",
  start: "Start now",
};

async function moderate(action, confirmText) {
  if (confirmText && !window.confirm(confirmText)) return;
  const ack = await request(socket, "moderate", { code, version: current.version, action });
  errorBox.textContent = ack.ok ? "" : ack.error.message;
  show(errorBox, !ack.ok);
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

socket.on("view", (payload) => {
  current = payload;
  document.getElementById("table-status").textContent = statusText(payload);
  const buttons = payload.actions.filter((a) => LABELS[a.type]).map((a) =>
    h("button", {
      type: "button", class: a.type === "end" ? "danger" : "",
      onclick: () => moderate(a, a.type === "end" ? "End this game for everyone?" : null),
    }, LABELS[a.type]));
  replace(document.getElementById("mod-buttons"), buttons);
  const kickable = new Set(payload.actions.filter((a) => a.type === "kick").map((a) => a.seat));
  const list = playerList(payload.players, {
    kick: (p) => kickable.has(p.seat)
      ? h("button", { type: "button", class: "small danger", onclick: () => moderate({ type: "kick", seat: p.seat }, `Remove ${p.name} from the table?`) },
        h("span", {}, "Remove"), h("span", { class: "visually-hidden" }, ` ${p.name}`))
      : null,
  });
  replace(document.getElementById("mod-players"), ...list.children);
  banner(document.createElement("div"), payload);
  render(root, payload, { role: "board" });
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
