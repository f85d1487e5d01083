// The facilitator's class overview: every table of a class session, live.
// Data arrives as `overview` events (room class:<CODE>); actions go to the JSON
// API under /api/classes/<CODE>/…, authenticated by the session cookie plus the
// page's CSRF token. Names are user text: they only ever reach the page
// through h() (textContent), never as HTML.
import { connect, request } from "./net.js";
import { h, icon, preserveFocus, replace, show } from "./dom.js";
import { nameControl, textItem } from "./studenttext.js";
import { plural } from "./kit.js";
import { andList, lessonClock, statusName } from "./table.js";

const app = document.getElementById("app");
const code = app.dataset.code;
const csrf = document.querySelector('meta[name="csrf-token"]').content;
const tablesRoot = document.getElementById("tables");
const statusLine = document.getElementById("class-status");
const actionStatus = document.getElementById("action-status");
const actionError = document.getElementById("action-error");
const REFRESH_MS = 20000; // idle and disconnection alerts age without any change: ask again now and then

let current = null;     // the last overview
let receivedAt = 0;     // Date.now() when it arrived (idle times count on from there)
const moveChoice = new Map(); // "<table>:<name>" -> chosen target, kept across re-renders
const socket = connect();

const ALERT_ICON = { attention: "warning", info: "info" };

// ------------------------------------------------------------------ helpers
function say(message) {
  actionStatus.textContent = message;
  actionError.textContent = "";
  show(actionError, false);
}

function fail(message) {
  actionError.textContent = message;
  show(actionError, true);
}

async function post(path, body) {
  let response;
  try {
    response = await fetch(`/api/classes/${code}${path}`, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
      body: JSON.stringify(body || {}),
    });
  } catch (err) {
    fail("The server cannot be reached. Check the network and try again.");
    return null;
  }
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    data = null;
  }
  if (!response.ok) {
    fail((data && data.error && data.error.message) || `The server answered ${response.status}. Try again.`);
    return null;
  }
  return data;
}

// The game's own public lines for a table (figures "lines"), e.g. each player's standing.
function gameLines(t) {
  return t.lines && t.lines.length
    ? h("ul", { class: "class-lines", role: "list" }, t.lines.map((text) => h("li", {}, text))) : null;
}

function ago(seconds) {
  if (seconds === null || seconds === undefined) return "no move yet";
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s ago`;
  const m = Math.floor(s / 60);
  return `${m} min ${s % 60} s ago`;
}

function tableLabel(t) {
  return `Table ${t.number}`;
}

// ------------------------------------------------------------------ actions
async function everyTable(kind, confirmText, done) {
  if (confirmText && !window.confirm(confirmText)) return;
  const data = await post(`/${kind}`);
  if (data) say(done(data.changed.length));
}

async function oneTable(t, kind, confirmText) {
  if (confirmText && !window.confirm(confirmText)) return;
  const data = await post(`/${kind}`, { table: t.code });
  if (data) say(`${tableLabel(t)}: ${kind === "pause" ? "paused" : kind === "resume" ? "resumed" : "ended"}.`);
}

async function startAll() {
  const data = await post("/start");
  if (data) say(`Started ${plural(data.started.length, "table", "tables")}.`);
}

async function startTable(t) {
  const data = await post(`/tables/${t.code}/start`);
  if (data) say(`${tableLabel(t)} started.`);
}

async function addComputer(t) {
  const data = await post(`/tables/${t.code}/computer`);
  if (data) say(`A computer player joined ${tableLabel(t)}.`);
}

async function moveStudent(t, player, to) {
  if (!to) {
    fail(`Choose where ${player.name} should go first.`);
    return;
  }
  const data = await post("/move", { table: t.code, seat: player.seat, to, version: t.version });
  if (data) {
    moveChoice.delete(`${t.code}:${player.name}`);
    say(`${player.name} moved ${to === "new" ? "to a new table" : "to " + tableName(to)}.`);
  }
}

function tableName(tableCode) {
  const t = current && current.tables.find((x) => x.code === tableCode);
  return t ? tableLabel(t) : `table ${tableCode}`;
}

document.getElementById("start-all").addEventListener("click", startAll);
document.getElementById("pause-all").addEventListener("click", () =>
  everyTable("pause", null, (n) => `Paused ${plural(n, "table", "tables")}.`));
document.getElementById("resume-all").addEventListener("click", () =>
  everyTable("resume", null, (n) => `Resumed ${plural(n, "table", "tables")}.`));
document.getElementById("lesson-more-all").addEventListener("click", () =>
  everyTable("lesson_more", null, (n) => `5 more minutes on the lesson clock, at ${plural(n, "table", "tables")}.`));
// After a round: every finished table plays again (same players), or a new round (new groups).
document.getElementById("again-all").addEventListener("click", async () => {
  const data = await post("/again");
  if (data) say(`Playing again at ${plural(data.started.length, "table", "tables")}.`);
});
document.getElementById("new-round").addEventListener("click", async () => {
  if (!window.confirm("Seat the students of every finished table at new tables and start a new round?")) return;
  const data = await post("/round");
  if (data) say(`New round: ${plural(data.started.length, "table", "tables")} started.`);
});
document.getElementById("end-all").addEventListener("click", () =>
  everyTable("end", "End every table and close the class to late arrivals?",
    (n) => `Ended ${plural(n, "table", "tables")}. The class session is closed.`));

const messageForm = document.getElementById("message-form");
const messageText = document.getElementById("message-text");
const messageCount = document.getElementById("message-count");
messageText.addEventListener("input", () => {
  messageCount.textContent = `${messageText.value.length} of ${messageText.maxLength} characters`;
});
messageForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (!messageText.value.trim()) {
    fail("Type a message first.");
    messageText.focus();
    return;
  }
  const data = await post("/message", { text: messageText.value });
  if (data) {
    say(`Sent “${data.text}” to ${plural(data.sent, "phone", "phones")}.`);
    messageText.value = "";
    messageCount.textContent = `0 of ${messageText.maxLength} characters`;
  }
});

// Playtest notes from phones, for every table of the class: the next overview carries the setting.
const phoneNotes = document.getElementById("phone-notes");
phoneNotes.addEventListener("change", async () => {
  const on = phoneNotes.checked;
  const data = await post("/notes", { on });
  if (data) say(on ? "Playtest notes are on: every phone has a note box." : "Playtest notes are off on the phones.");
  else if (current) phoneNotes.checked = current.phone_notes;
});

// ------------------------------------------------------------------ rendering
function playerItem(t, player, lobbyTargets) {
  const bits = [
    h("span", { class: "dot", "aria-hidden": "true" }, player.computer ? "◆" : player.connected ? "●" : "○"),
    h("span", { class: "player-name" }, player.name),
  ];
  if (player.computer) bits.push(h("span", { class: "badge" }, "computer"));
  else if (player.moved) bits.push(h("span", { class: "state-text" }, "moved to another table"));
  else if (player.connected) bits.push(h("span", { class: "state-text" }, "connected"));
  else bits.push(h("span", { class: "state-text away-text" },
    player.away_seconds ? `disconnected ${ago(player.away_seconds).replace(" ago", "")}` : "disconnected"));
  // One tap hides the student's name from the boards and the other phones ("Player N").
  if (!player.computer) bits.push(nameControl(player, (kind, item) => tapText(t, kind, item), `name-${t.code}`));
  const item = h("li", { class: "class-player" + (player.computer ? " computer" : player.connected ? " online" : " away") }, bits);
  // From a waiting table, or from a finished match to a waiting table or a new one (re-pairing).
  if (t.can.move && !player.computer && !player.moved) {
    const key = `${t.code}:${player.name}`;
    const id = `move-${t.code}-${player.seat}`;
    const select = h("select", {
      id, dataset: { focusKey: `move-select-${key}` },
      onchange: (event) => moveChoice.set(key, event.target.value),
    },
    h("option", { value: "" }, "Choose a table…"),
    lobbyTargets.filter((x) => x.code !== t.code).map((x) =>
      h("option", { value: x.code, selected: moveChoice.get(key) === x.code }, `${tableLabel(x)} (${plural(x.players.length, "player", "players")})`)),
    h("option", { value: "new", selected: moveChoice.get(key) === "new" }, "A new table"));
    item.append(h("span", { class: "move-control" },
      h("label", { for: id, class: "visually-hidden" }, `Move ${player.name} to`),
      select,
      h("button", {
        type: "button", class: "small", dataset: { focusKey: `move-button-${key}` },
        onclick: () => moveStudent(t, player, select.value),
      }, "Move", h("span", { class: "visually-hidden" }, ` ${player.name}`))));
  }
  return item;
}

function progressBlock(t) {
  if (!t.progress) return null;
  const id = `progress-${t.code}`;
  return h("div", { class: "class-progress" },
    h("progress", { id, max: t.progress.goal, value: t.progress.value, "aria-describedby": `${id}-text` }),
    h("p", { id: `${id}-text`, class: "progress-text" }, t.progress.label,
      t.progress.detail ? h("span", { class: "muted" }, ` · ${t.progress.detail}`) : null));
}

function alertItem(alert, withTable) {
  const t = current.tables.find((x) => x.code === alert.table);
  return h("li", { class: `alert-item level-${alert.level}` },
    h("span", { class: "alert-icon", "aria-hidden": "true" }, icon(ALERT_ICON[alert.level] || "info")),
    h("span", { class: "visually-hidden" }, alert.level === "attention" ? "Needs attention: " : "Note: "),
    withTable ? h("strong", {}, `${t ? tableLabel(t) : alert.table}: `) : null,
    alert.text,
    withTable && t ? h("a", { href: t.moderate_url, class: "alert-link", dataset: { focusKey: `alert-${alert.table}-${alert.kind}-${alert.seat ?? ""}` } }, "Open",
      h("span", { class: "visually-hidden" }, ` ${tableLabel(t)}`)) : null);
}

// One tap over a student's text at a table: the platform's moderation of that table.
async function tapText(t, kind, item) {
  const ack = await request(socket, "moderate", { code: t.code, version: t.version, action: { type: kind, ref: item.ref } });
  const what = item.ref.startsWith("s") ? `${item.name}'s name ` : "";
  if (ack.ok) say(`${tableLabel(t)}: ${what}${kind === "hide_text" ? "hidden from the board" : kind === "approve_text" ? "approved" : "shown again"}.`);
  else fail(ack.error.message);
}

// A table's newest student texts, each one tap from hidden (the rest on its moderation panel);
// texts waiting for approval come first, so none is left waiting out of sight.
const TEXTS_ON_CARD = 3;

function textsBlock(t, label) {
  if (!t.texts || !t.texts.length) return null;
  const waiting = t.texts.filter((x) => !x.hidden && x.approved === false);
  const shown = [...waiting, ...t.texts.filter((x) => !waiting.includes(x))].slice(0, Math.max(TEXTS_ON_CARD, waiting.length));
  return h("div", { class: "class-texts" },
    h("h4", {}, `Student text (${t.texts.length})`),
    h("ul", { class: "student-texts", role: "list", "aria-label": `Student text at ${label}` },
      shown.map((item) => textItem(item, (kind) => tapText(t, kind, item), `text-${t.code}`))),
    t.texts.length > shown.length ? h("p", { class: "muted" }, `${t.texts.length - shown.length} more on the moderation panel`) : null);
}

function tableCard(t, lobbyTargets) {
  const label = tableLabel(t);
  const buttons = [
    h("a", { class: "button small-button", href: t.moderate_url, dataset: { focusKey: `mod-${t.code}` } },
      "Moderation panel", h("span", { class: "visually-hidden" }, ` of ${label}`)),
    h("a", { class: "button small-button", href: t.board_url, target: "_blank", rel: "noopener", dataset: { focusKey: `board-${t.code}` } },
      "Board", h("span", { class: "visually-hidden" }, ` of ${label} (opens a new window)`)),
  ];
  const button = (key, text, onclick, cls = "") => h("button", {
    type: "button", class: `small ${cls}`.trim(), dataset: { focusKey: `${key}-${t.code}` }, onclick,
  }, text, h("span", { class: "visually-hidden" }, ` ${label}`));
  if (t.can.start) buttons.push(button("start", "Start", () => startTable(t), "primary"));
  if (t.can.add_computer) buttons.push(button("computer", "Add a computer player", () => addComputer(t)));
  if (t.can.pause) buttons.push(button("pause", "Pause", () => oneTable(t, "pause")));
  if (t.can.resume) buttons.push(button("resume", "Resume", () => oneTable(t, "resume")));
  if (t.can.end) buttons.push(button("end", "End", () => oneTable(t, "end", `End ${label} for everyone at it?`), "danger"));

  const statusBits = [h("span", { class: `status-badge status-${t.status}` }, statusName(t.status))];
  if (t.paused) statusBits.push(h("span", { class: "status-badge status-paused" }, "Paused"));
  if (t.locked) statusBits.push(h("span", { class: "status-badge status-locked" }, "Locked"));

  return h("article", { class: `card class-table table-${t.status}`, "aria-labelledby": `title-${t.code}` },
    h("header", { class: "class-table-head" },
      h("h3", { id: `title-${t.code}` }, label, " ", h("span", { class: "mono table-code-small" }, t.code)),
      h("span", { class: "status-badges" }, statusBits)),
    t.result
      ? h("p", { class: "result-line" }, icon("trophy"), " ", t.result.winners.length
        ? `${andList(t.result.winners)} ${t.result.winners.length === 1 ? "won" : "share the win"}`
        : "No winner")
      : t.turn ? h("p", { class: "turn-line" }, t.turn.text) : null,
    progressBlock(t),
    gameLines(t),
    h("p", { class: "muted" }, t.moved
      ? `${t.moved} of ${plural(t.students, "student", "students")} moved to another table`
      : `${t.connected} of ${plural(t.students, "student", "students")} connected`),
    h("ul", { class: "class-players", role: "list", "aria-label": `Players at ${label}` },
      t.players.map((p) => playerItem(t, p, lobbyTargets))),
    h("p", { class: "last-move", dataset: { idle: t.idle_seconds === null ? "" : String(t.idle_seconds) } },
      `Last move ${ago(t.idle_seconds)}`),
    t.alerts.length ? h("ul", { class: "alert-list compact", role: "list", "aria-label": `Alerts for ${label}` },
      t.alerts.map((a) => alertItem(a, false))) : null,
    textsBlock(t, label),
    h("div", { class: "button-row" }, buttons));
}

// The games' own leader-board rows (figures "standings": a solo run's stage, chips…),
// ranked across tables by the server; shown instead of the score list when present.
function standingTable(st) {
  return h("table", { class: "list leaders standings" },
    h("caption", { class: "visually-hidden" }, "Every player ranked across all tables"),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, "Rank"), h("th", { scope: "col" }, "Player"), h("th", { scope: "col" }, "Table"),
      st.columns.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, st.rows.map((r) => h("tr", { class: r.finished ? "finished" : "" },
      h("td", {}, String(r.rank)),
      h("td", {}, r.name, r.finished ? h("span", { class: "badge" }, "finished") : null),
      h("td", {}, `Table ${r.table}`),
      r.cells.map((v) => h("td", {}, v))))));
}

function leaderTable(leaders, standings) {
  if (standings && standings.rows.length) return standingTable(standings);
  if (!leaders.length) return h("p", { class: "muted" }, "The leader board fills in once tables are playing.");
  return h("table", { class: "list leaders" },
    h("caption", { class: "visually-hidden" }, "Every player ranked by score across all tables"),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, "Rank"), h("th", { scope: "col" }, "Player"),
      h("th", { scope: "col" }, "Table"), h("th", { scope: "col" }, "Score"))),
    h("tbody", {}, leaders.map((e) => h("tr", { class: e.winner ? "winner" : "" },
      h("td", {}, String(e.rank)),
      h("td", {}, e.name, e.computer ? h("span", { class: "badge" }, "computer") : null,
        e.winner ? h("span", { class: "badge win-badge" }, "winner") : null,
        e.out ? h("span", { class: "badge" }, "out") : null),
      h("td", {}, `Table ${e.table}`),
      h("td", {}, e.label)))));
}

// ------------------------------------------------------------------ moderation queue
// One queue across every table: what each game asks of the teacher, the details the
// game gives, and its labelled facilitator actions, sent as the table page sends them
// (the `moderate` event, scope "game", with the table's version).
const queueRoot = document.getElementById("queue");
const typed = new Map(); // "<table>:<action>:<field>" -> text being typed, kept across re-renders
const queueErrors = new Map(); // table code -> the last refusal, shown in its item
let lastQueueKey = "";

function blanks(action) {
  return Object.entries(action).filter(([key, value]) => key !== "label" && key !== "type" && value === "").map(([key]) => key);
}

async function decide(item, action) {
  const ack = await request(socket, "moderate", { code: item.table, version: item.version, action, scope: "game" });
  if (ack.ok) {
    queueErrors.delete(item.table);
    for (const key of [...typed.keys()]) if (key.startsWith(`${item.table}:`)) typed.delete(key);
    say(`Table ${item.number}: ${action.label || action.type}.`);
  } else {
    queueErrors.set(item.table, ack.error.code === "stale"
      ? "That table changed meanwhile: check the decision again." : ack.error.message);
    watch(); // a fresh overview, with the table's current version
  }
  lastQueueKey = "";
  if (current) renderQueue(current.queue || []);
}

function decisionControl(item, action, i) {
  const fields = blanks(action);
  const focusKey = `queue-${item.table}-${action.type}`;
  if (!fields.length) {
    return h("button", { type: "button", class: action.type === "accept" ? "primary" : "", dataset: { focusKey },
      onclick: () => decide(item, action) }, action.label || action.type,
    h("span", { class: "visually-hidden" }, ` (Table ${item.number})`));
  }
  const inputs = fields.map((field) => {
    const key = `${item.table}:${action.type}:${field}`;
    const id = `queue-${item.table}-${action.type}-${field}-${i}`;
    return h("span", { class: "queue-field" },
      h("label", { for: id }, `${field === "reason" ? "Reason (optional, shown to the players)" : field}`),
      h("input", { id, name: field, maxlength: 300, autocomplete: "off", value: typed.get(key) || "",
        dataset: { focusKey: `${focusKey}-${field}` }, oninput: (event) => typed.set(key, event.target.value) }));
  });
  return h("form", { class: "queue-form", onsubmit: (event) => {
    event.preventDefault();
    const filled = { ...action };
    for (const field of fields) filled[field] = typed.get(`${item.table}:${action.type}:${field}`) || "";
    decide(item, filled);
  } }, inputs, h("button", { type: "submit", class: action.type === "reject" ? "danger" : "", dataset: { focusKey } },
    action.label || action.type, h("span", { class: "visually-hidden" }, ` (Table ${item.number})`)));
}

function queueItem(item) {
  const error = queueErrors.get(item.table);
  return h("article", { class: "card queue-item", "aria-labelledby": `queue-title-${item.table}`, dataset: { table: item.table } },
    h("h3", { id: `queue-title-${item.table}` }, `Table ${item.number}: `, item.prompt,
      item.paused ? h("span", { class: "status-badge status-paused" }, "Paused") : null),
    item.details.length ? h("dl", { class: "queue-details" }, item.details.map((d) => [
      h("dt", {}, d.title),
      h("dd", {}, d.detail || null, d.quote !== null && d.quote !== undefined
        ? h("blockquote", { class: "queue-quote" }, d.quote || "(no explanation)") : null),
    ])) : null,
    error ? h("p", { class: "error", role: "alert" }, error) : null,
    h("div", { class: "button-row queue-actions" }, item.actions.map((a, i) => decisionControl(item, a, i))),
    h("a", { href: item.moderate_url, class: "alert-link" }, "Open the table", h("span", { class: "visually-hidden" }, ` ${item.number}`)));
}

function renderQueue(queue) {
  const key = JSON.stringify(queue);
  if (key === lastQueueKey) return; // typing and focus survive overviews that change nothing here
  const before = lastQueueKey ? JSON.parse(lastQueueKey).length : 0;
  lastQueueKey = key;
  const open = new Set(queue.map((q) => q.table));
  for (const code of [...queueErrors.keys()]) if (!open.has(code)) queueErrors.delete(code);
  preserveFocus(queueRoot, () => replace(queueRoot, queue.map(queueItem)));
  document.getElementById("queue-count").textContent = queue.length ? `${queue.length} waiting` : "none";
  show(document.getElementById("no-queue"), queue.length === 0);
  if (queue.length > before) {
    document.getElementById("queue-status").textContent = `${plural(queue.length, "decision", "decisions")} waiting for you.`;
  }
}

let lastStatusText = "";
let lastAlertKey = "";

function render(data) {
  current = data;
  receivedAt = Date.now();
  const c = data.counts;
  const classState = data.status === "ended" ? "Class closed"
    : data.status === "playing" ? "Class started" : "Class waiting to start";
  const text = `${classState} · ${plural(c.students, "student", "students")} (${c.connected} connected) at `
    + `${plural(c.tables, "table", "tables")}: ${c.lobby} waiting, ${c.playing} playing, ${c.ended} finished.`;
  if (text !== lastStatusText) { // a live region re-announces identical text on some readers
    statusLine.textContent = text;
    lastStatusText = text;
  }
  const open = data.status !== "ended";
  show(document.getElementById("start-all"), open && data.tables.some((t) => t.can.start));
  show(document.getElementById("pause-all"), data.tables.some((t) => t.can.pause));
  show(document.getElementById("resume-all"), data.tables.some((t) => t.can.resume));
  show(document.getElementById("end-all"), open);
  show(document.getElementById("lesson-more-all"), open && Boolean((data.deadlines || {}).lesson));
  lessonClock(data);
  const again = open && data.tables.some((t) => t.can.again);
  show(document.getElementById("again-all"), again);
  show(document.getElementById("new-round"), again);
  show(document.getElementById("again-hint"), again);
  show(document.getElementById("start-hint"), data.status === "lobby");
  show(messageForm, open);
  phoneNotes.checked = data.phone_notes;
  show(document.getElementById("no-tables"), data.tables.length === 0);

  const alertKey = JSON.stringify(data.alerts.map((a) => [a.table, a.kind, a.text]));
  if (alertKey !== lastAlertKey) {
    lastAlertKey = alertKey;
    const attention = data.alerts.filter((a) => a.level === "attention").length;
    document.getElementById("alert-count").textContent = attention ? `${attention} need attention` : "none urgent";
    const alertsRoot = document.getElementById("alerts");
    preserveFocus(alertsRoot, () => replace(alertsRoot, data.alerts.map((a) => alertItem(a, true))));
    show(document.getElementById("no-alerts"), data.alerts.length === 0);
  }

  renderQueue(data.queue || []);

  const lobbyTargets = data.tables.filter((t) => t.can.move_here);
  preserveFocus(tablesRoot, () => replace(tablesRoot, data.tables.map((t) => tableCard(t, lobbyTargets))));
  replace(document.getElementById("leaders"), leaderTable(data.leaders, data.standings));
}

// Idle times tick on between overviews without re-rendering (that would steal focus).
setInterval(() => {
  if (!current) return;
  const extra = (Date.now() - receivedAt) / 1000;
  for (const el of tablesRoot.querySelectorAll(".last-move")) {
    if (el.dataset.idle === "") continue;
    el.textContent = `Last move ${ago(Number(el.dataset.idle) + extra)}`;
  }
}, 5000);

function watch() {
  return request(socket, "watch", { code, role: "facilitator" }).then((ack) => {
    if (!ack.ok && ack.error.code !== "timeout") fail(ack.error.message);
  });
}

socket.on("connect", watch);
socket.on("overview", render);
setInterval(() => { if (socket.connected) watch(); }, REFRESH_MS);
