// The facilitator's table page: live board preview, the platform's moderation
// (lock, pause, remove, end) and, separately, the game's own facilitator actions.
import { connect, request } from "./net.js";
import { h, replace, show } from "./dom.js";
import { accept, actionControls, banner, playerList, render, statusName } from "./table.js";
import { plural } from "./kit.js";
import { nameControl, textItem } from "./studenttext.js";
import { celebrate, won } from "./cheer.js";

const app = document.getElementById("app");
const code = app.dataset.code;
const root = document.getElementById("game-root");
const errorBox = document.getElementById("mod-error");
const phoneNotes = document.getElementById("phone-notes");
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
  const bits = [statusName(p.status), plural(p.players.length, "player")];
  if (p.locked) bits.push("locked");
  if (p.paused) bits.push("paused");
  if (p.again && p.again.offered && p.again.ready.length) {
    bits.push(`${p.again.ready.length} of ${p.again.players.length} want to play again`);
  }
  return bits.join(" · ");
}

// Once a game that was played has ended, the debrief is what the teacher needs next:
// its card moves from the page's foot to just under the title.
function showAfterTheGame(p) {
  const over = p.status === "ended" && Boolean(p.started);
  const reports = document.getElementById("reports");
  show(document.getElementById("reports-ended"), over);
  reports.classList.toggle("after-game", over);
  const debrief = document.getElementById("debrief-link");
  debrief.classList.toggle("button", over);
  debrief.classList.toggle("primary", over);
  const head = app.querySelector(".table-head");
  if (over && head.nextElementSibling !== reports) head.after(reports);
}

socket.on("connect", () => request(socket, "watch", { code, role: "facilitator" }).then((ack) => {
  if (!ack.ok) {
    errorBox.textContent = ack.error.message;
    show(errorBox, true);
  } else {
    loadNotes();
  }
}));

// One tap over a student's text or note: the platform's moderation, taken from any version.
async function tapText(kind, item) {
  const ack = await send({ type: kind, ref: item.ref }, "table");
  if (ack.ok && item.ref.startsWith("n")) loadNotes();
}

function renderTexts(texts) {
  replace(document.getElementById("student-texts"), texts.map((item) => textItem(item, tapText)));
  show(document.getElementById("no-student-texts"), texts.length === 0);
}

// The notes, newest first: a student's note with its Hide (and Approve) button; the
// teacher's own notes and the board's are the teacher's alone.
async function loadNotes() {
  const ack = await request(socket, "notes", {});
  if (!ack.ok) return;
  replace(document.getElementById("notes"), ack.notes.slice().reverse().map((n) => (n.role === "seat"
    ? textItem({ ref: n.ref, name: n.author, text: n.text, hidden: n.hidden, approved: n.approved }, tapText, "note")
    : h("li", {}, h("strong", {}, n.author), ` (version ${n.version}, only you): `, n.text))));
}

// The game's module may draw its own controls for the game's facilitator actions
// (a Crisis moderation panel...): `act` sends one as `moderate` with scope "game".
const ctx = { role: "facilitator", current: () => current, log: () => (current ? current.log : []),
  act: (action) => send(Object.fromEntries(Object.entries(action).filter(([k]) => k !== "label")), "game") };

socket.on("view", (payload) => {
  const older = current && payload.version < current.version;
  const before = current;
  current = accept(current, payload);
  if (older) return;
  // Everyone plays again at a new table (this page's Play again, the players', the class's):
  // the teacher's page goes with them. (Opened later, the page stays on this table's record,
  // with a link to the new one.)
  if (current.again && current.again.next && before && before.again && !before.again.next) {
    location.assign(`/facilitator/tables/${encodeURIComponent(current.again.next)}`);
    return;
  }
  if (before && won(current) && !won(before)) celebrate();
  document.getElementById("table-status").textContent = statusText(current);
  // Safe, reversible controls (lock, start, pause) together; removing a player and ending
  // the game apart, in red, each behind a confirmation.
  const moderation = current.moderation || [];
  const RISKY = new Set(["end", "kick"]);
  const safe = moderation.filter((a) => !RISKY.has(a.type)).map((a) =>
    h("button", { type: "button", class: a.type === "start" || a.type === "again" ? "primary" : "", onclick: () => moderate(a) }, a.label));
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
  // Its explanation only while there is a player to remove or a game to end; the group
  // itself while it holds anything (a class's table has no Delete: its class page has).
  const risky = kicks.length + ends.length > 0;
  show(document.getElementById("mod-risky-hint"), risky);
  show(document.getElementById("mod-risky"), risky || Boolean(document.getElementById("delete-table")));
  showAfterTheGame(current);
  // Beside each student's name, one tap hides it from the board and the other phones.
  replace(document.getElementById("mod-players"), ...playerList(current.players, {
    kick: (p) => (p.computer ? null : nameControl(p, tapText)),
  }).children);
  const gameBox = document.getElementById("game-actions");
  show(gameBox, current.actions.length > 0);
  replace(document.getElementById("game-action-buttons"),
    actionControls(current.actions, (action) => send(action, "game"), { focusPrefix: "game" }));
  banner(document.createElement("div"), current);
  phoneNotes.checked = current.phone_notes;
  phoneNotes.disabled = false;  // a switch sends the table's version, known from the first view on
  renderTexts(current.texts || []);
  render(root, current, ctx);
});

socket.on("note", () => loadNotes());

// Playtest notes from the phones: the next view carries the table's setting (and sets the box back if refused).
phoneNotes.addEventListener("change", async () => {
  const ack = await send({ type: phoneNotes.checked ? "notes_on" : "notes_off" }, "table");
  if (!ack.ok) phoneNotes.checked = current.phone_notes;
});

document.getElementById("note-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = document.getElementById("note-text");
  const ack = await request(socket, "note", { text: text.value });
  document.getElementById("note-status").textContent = ack.ok ? "Saved." : ack.error.message;
  if (ack.ok) text.value = "";
});
