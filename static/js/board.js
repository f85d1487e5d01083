// The projected board: public information only, updated live.
import { connect, request } from "./net.js";
import { accept, banner, render } from "./table.js";
import { celebrate, moments, sound, soundToggle } from "./cheer.js";

const app = document.getElementById("app");
const code = app.dataset.code;
const root = document.getElementById("game-root");
const socket = connect();
let current = null;
const ctx = { role: "board", current: () => current, log: () => (current ? current.log : []),
  notes: () => request(socket, "notes", {}) };

// Sound is the teacher's choice, off until turned on (static/js/cheer.js).
soundToggle(document.querySelector(".site-header"));

socket.on("connect", () => request(socket, "watch", { code, role: "board" }));
socket.on("view", (payload) => {
  const older = current && current.code === payload.code && payload.version < current.version;
  current = accept(current, payload);
  if (older) return;
  // Everyone plays again at a new table: the projected board goes with them.
  if (current.again && current.again.next) {
    location.replace(`/board/${encodeURIComponent(current.again.next)}`);
    return;
  }
  // Drawn once a frame, the newest view: a burst of moves (auto-play, a round of phones
  // tapping at once) sent a view each, and a crowded board drawn and fitted for every one
  // of them fell seconds behind the room (half a second each, a Wizard board in a long
  // language). The log is kept from every view (accept), so nothing in it is skipped.
  if (!drawPending) {
    drawPending = true;
    requestAnimationFrame(draw);
  }
});

let drawPending = false;
let drawn = null; // the view last drawn: what changed since is what the room hears and sees
function draw() {
  drawPending = false;
  const found = moments(drawn, current);
  drawn = current;
  sound(found);
  if (found.includes("winner")) celebrate();
  const body = document.body.classList;
  body.toggle("playing", current.status !== "lobby");
  // No one can join a locked or finished table: the join code and QR go away.
  body.toggle("locked", Boolean(current.locked));
  body.toggle("ended", current.status === "ended");
  body.toggle("joinable", !current.locked && current.status !== "ended");
  banner(document.getElementById("banner"), current);
  render(root, current, ctx);
}
