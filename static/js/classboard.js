// The projected class board: every table of a class session, public information
// only (`class_view` events from the room classboard:<CODE>), plus the
// facilitator's messages. Readable from the back of the room.
import { connect, request } from "./net.js";
import { h, icon, replace, show } from "./dom.js";
import { andList, lessonClock, statusName } from "./table.js";
import { t, tn } from "./i18n.js";

const app = document.getElementById("app");
const code = app.dataset.code;
const tablesRoot = document.getElementById("tables");
const summary = document.getElementById("class-summary");
const messageBox = document.getElementById("message");
const MESSAGE_MS = 4000; // as long as the phones show it (play.js flash), so board and phones agree
const socket = connect();

// The game's own public lines for a table (figures "lines"), e.g. each player's standing.
function gameLines(table) {
  return table.lines && table.lines.length
    ? h("ul", { class: "class-lines", role: "list" }, table.lines.map((text) => h("li", {}, text))) : null;
}

function tableCard(tb) {
  const statusBits = [h("span", { class: `status-badge status-${tb.status}` }, statusName(tb.status))];
  if (tb.paused) statusBits.push(h("span", { class: "status-badge status-paused" }, t("Paused")));
  let line = null;
  if (tb.result) {
    line = h("p", { class: "result-line" }, icon("trophy"), " ", tb.result.winners.length
      ? (tb.result.winners.length === 1 ? t("{name} wins", { name: tb.result.winners[0] })
        : t("{names} share the win", { names: andList(tb.result.winners) }))
      : t("No winner"));
  } else if (tb.turn) {
    line = h("p", { class: "turn-line" }, tb.turn.text);
  }
  const progress = tb.progress ? h("div", { class: "class-progress" },
    h("progress", { max: tb.progress.goal, value: tb.progress.value, "aria-hidden": "true" }),
    h("p", { class: "progress-text" }, tb.progress.label,
      tb.progress.detail ? h("span", { class: "muted" }, " · ", tb.progress.detail) : null)) : null;
  return h("article", { class: `card class-table table-${tb.status}`, "aria-label": t("Table {n}", { n: tb.number }) },
    h("header", { class: "class-table-head" },
      h("h2", {}, t("Table {n}", { n: tb.number })),
      h("span", { class: "status-badges" }, statusBits)),
    h("ul", { class: "class-players", role: "list" }, tb.players.map((p) =>
      h("li", { class: "class-player" + (p.computer ? " computer" : p.connected ? " online" : " away") },
        h("span", { class: "dot", "aria-hidden": "true" }, p.computer ? "◆" : p.connected ? "●" : "○"),
        h("span", { class: "player-name" }, p.name),
        p.computer ? h("span", { class: "badge" }, t("computer")) : null,
        !p.computer && !p.connected ? h("span", { class: "state-text away-text" }, t("away")) : null))),
    line, progress, gameLines(tb));
}

function leaders(list) {
  return h("ol", { class: "board-leaders" }, list.map((e) =>
    h("li", { class: e.winner ? "winner" : "" },
      h("span", { class: "leader-rank" }, `${e.rank}.`),
      h("span", { class: "player-name" }, e.name),
      h("span", { class: "muted leader-detail" }, " · ", t("Table {n}", { n: e.table }), " · ", e.label),
      e.winner ? h("span", { class: "badge win-badge" }, t("winner")) : null)));
}

// The games' own leader-board rows (figures "standings"), when any table gives them.
function standings(st) {
  return h("table", { class: "board-standings" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("Player")),
      st.columns.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, st.rows.map((r) => h("tr", { class: r.finished ? "finished" : "" },
      h("td", { class: "leader-rank" }, `${r.rank}.`),
      h("td", { class: "player-name" }, r.name),
      r.cells.map((v) => h("td", {}, v))))));
}

function render(data) {
  const c = data.counts;
  const tables = tn("{n} table", "{n} tables", c.tables);
  const at = tn("{n} student at {tables}", "{n} students at {tables}", c.students, { tables });
  const state = data.status === "ended" ? t("The class session has ended.")
    : c.tables === 0 ? t("Waiting for students…")
      : c.ended ? t("{summary} · {n} finished", { summary: at, n: c.ended }) : at;
  if (summary.textContent !== state) summary.textContent = state;
  lessonClock(data);  // the class's lesson clock, in the header as on every table's board
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
