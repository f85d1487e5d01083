// One Socket.IO connection per page, with a visible connection state and
// promise-based requests that resolve to the server's acknowledgement.
import { t } from "./i18n.js";
const ACK_TIMEOUT_MS = 8000;

export function connect({ auth } = {}) {
  const socket = window.io({ auth: auth || {}, transports: ["websocket", "polling"], reconnectionDelayMax: 4000 });
  const badge = document.getElementById("connection");
  const set = (state, text) => {
    if (!badge) return;
    badge.hidden = false;
    badge.dataset.state = state;
    badge.textContent = text;
  };
  set("connecting", t("Connecting…"));
  socket.on("connect", () => set("online", t("Connected")));
  socket.on("disconnect", (reason) => {
    set("offline", t("Reconnecting…"));
    // The server ends a socket whose teacher logged out: connect again at once, so
    // the page is authenticated afresh (and a logged-out page is told it must log in).
    if (reason === "io server disconnect" && !document.getElementById("deleted")) setTimeout(() => socket.connect(), 500);
  });
  socket.io.on("reconnect_attempt", () => set("offline", t("Reconnecting…")));
  socket.on("connect_error", () => set("offline", t("Offline — retrying")));
  window.addEventListener("offline", () => set("offline", t("Offline — retrying")));
  // The teacher deleted this table or class: say so in place of the page and stop
  // reconnecting (its code now answers unknown_table). Phones get "removed" instead.
  socket.on("deleted", (msg) => {
    socket.disconnect();
    if (badge) badge.hidden = true;
    const note = document.createElement("p");
    note.id = "deleted";
    note.className = "card error deleted";
    note.setAttribute("role", "alert");
    note.textContent = msg.message;
    (document.getElementById("main") || document.body).replaceChildren(note);
  });
  return socket;
}

export function request(socket, event, payload) {
  return new Promise((resolve) => {
    let done = false;
    const timer = setTimeout(() => {
      if (!done) {
        done = true;
        resolve({ ok: false, error: { code: "timeout", message: t("No answer from the server. Check the Wi-Fi; we keep trying.") } });
      }
    }, ACK_TIMEOUT_MS);
    socket.emit(event, payload, (ack) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(ack || { ok: false, error: { code: "bad_request", message: t("Empty answer.") } });
    });
  });
}
