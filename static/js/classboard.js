// The projected class board: every table of a class session, public information
// only (`class_view` events from the room classboard:<CODE>), plus the
// facilitator's messages. Readable from the back of the room.
import { connect, request } from "./net.js";
import { h, icon, replace, show } from "./dom.js";

const app = document.getElementById("app");
const code = app.dataset.code;
const tablesRoot = document.getElementById("tables");
const summary = document.getElementById("class-summary");
const messageBox = document.getElementById("message");
const MESSAGE_MS = 4000; // as long as the phones show it (play.js flash), so board and phones agree
const socket = connect();

const STATUS_TEXT = { lobby: "Waiting to start", playing: "Playing", ended: "Finished" };

// The game's own public lines for a table (figures "lines"), e.g. each player's standing.
function gameLines(t) {
  return t.lines && t.lines.length
    ? h("ul", { class: "class-lines", role: "list" }, t.lines.map((text) => h("li", {}, text))) : null;
}

function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

function tableCard(t) {
  const statusBits = [h("span", { class: `status-badge status-${t.status}` }, STATUS_TEXT[t.status] || t.status)];
  if (t.paused) statusBits.push(h("span", { class: "status-badge status-paused" }, "Paused"));
  let line = null;
  if (t.result) {
    line = h("p", { class: "result-line" }, icon("trophy"), " ", t.result.winners.length
      ? `${t.result.winners.join(" and ")} ${t.result.winners.length === 1 ? "wins" : "share the win"}`
      : "No winner");
  } else if (t.turn) {
    line = h("p", { class: "turn-line" }, t.turn.text);
  }
  const progress = t.progress ? h("div", { class: "class-progress" },
    h("progress", { max: t.progress.goal, value: t.progress.value, "aria-hidden": "true" }),
    h("p", { class: "progress-text" }, t.progress.label,
      t.progress.detail ? h("span", { class: "muted" }, ` · ${t.progress.detail}`) : null)) : null;
  return h("article", { class: `card class-table table-${t.status}`, "aria-label": `Table ${t.number}` },
    h("header", { class: "class-table-head" },
      h("h2", {}, `Table ${t.number}`),
      h("span", { class: "status-badges" }, statusBits)),
    h("ul", { class: "class-players", role: "list" }, t.players.map((p) =>
      h("li", { class: "class-player" + (p.computer ? " computer" : p.connected ? " online" : " away") },
        h("span", { class: "dot", "aria-hidden": "true" }, p.computer ? "◆" : p.connected ? "●" : "○"),
        h("span", { class: "player-name" }, p.name),
        p.computer ? h("span", { class: "badge" }, "computer") : null,
        !p.computer && !p.connected ? h("span", { class: "state-text away-text" }, "away") : null))),
    line, progress, gameLines(t));
}

function leaders(list) {
  return h("ol", { class: "board-leaders" }, list.map((e) =>
    h("li", { class: e.winner ? "winner" : "" },
      h("span", { class: "leader-rank" }, `${e.rank}.`),
      h("span", { class: "player-name" }, e.name),
      h("span", { class: "muted leader-detail" }, ` · Table ${e.table} · ${e.label}`),
      e.winner ? h("span", { class: "badge win-badge" }, "winner") : null)));
}

// The games' own leader-board rows (figures "standings"), when any table gives them.
function standings(st) {
  return h("table", { class: "board-standings" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, "Player"),
      st.columns.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, st.rows.map((r) => h("tr", { class: r.finished ? "finished" : "" },
      h("td", { class: "leader-rank" }, `${r.rank}.`),
      h("td", { class: "player-name" }, r.name),
      r.cells.map((v) => h("td", {}, v))))));
}

function render(data) {
  const c = data.counts;
  const state = data.status === "ended" ? "The class session has ended."
    : c.tables === 0 ? "Waiting for students…"
      : `${plural(c.students, "student", "students")} at ${plural(c.tables, "table", "tables")}`
        + (c.ended ? ` · ${c.ended} finished` : "");
  if (summary.textContent !== state) summary.textContent = state;
  // A closed class says so in large type: no one should still try to join it.
  const closed = data.status === "ended";
  document.body.classList.toggle("class-closed", closed);
  show(document.getElementById("closed-banner"), closed);
  show(document.getElementById("join-strip"), !closed);
  // Once play starts, or the tables need the room, the join strip shrinks
  // (late arrivals can still use it).
  document.getElementById("join-strip").classList.toggle("compact", data.status !== "lobby" || data.tables.length > 4);
  // Columns by the number of tables, so that every table fits one screen (classes.css).
  const n = data.tables.length;
  tablesRoot.dataset.cols = n <= 4 ? Math.max(n, 2) : n <= 8 ? 4 : n <= 10 ? 5 : 6;
  replace(tablesRoot, data.tables.map(tableCard));
  const section = document.getElementById("leaders-section");
  const st = data.standings && data.standings.rows.length ? data.standings : null;
  show(section, Boolean(st) || data.leaders.length > 0);
  replace(document.getElementById("leaders"), st ? standings(st) : leaders(data.leaders));
}

socket.on("connect", () => request(socket, "watch", { code, role: "board" }));
socket.on("class_view", render);
socket.on("message", (msg) => {
  messageBox.replaceChildren(icon("message", "icon icon-lg"), " ", msg.text);
  show(messageBox, true);
  clearTimeout(messageBox.timer);
  messageBox.timer = setTimeout(() => show(messageBox, false), MESSAGE_MS);
});
