// Rendering shared by every game: lobby, players, banner, log, result, and the
// generic control that offers any labelled action. A game's own module (named
// by the payload's `ui`, served from static/games/<key>/) draws its game
// better; a game without one is still fully playable through the generic control.
import { h, replace, show } from "./dom.js";

const modules = new Map(); // module URL -> Promise of the module
const loaded = new Map();  // module URL -> the module, once imported
const sheets = new Set();

// The `ui` entry this page uses: the phone page is the "phone" role.
function moduleUrl(payload, role) {
  const ui = payload.ui || {};
  return ui[role === "player" ? "phone" : role] || (role === "facilitator" ? ui.board : null);
}

function loadStylesheet(url) {
  if (!url || sheets.has(url)) return;
  sheets.add(url);
  document.head.append(h("link", { rel: "stylesheet", href: url }));
}

export function gameModule(payload, role) {
  const url = moduleUrl(payload, role);
  loadStylesheet((payload.ui || {}).stylesheet);
  if (!url) return Promise.resolve(null);
  if (!modules.has(url)) {
    modules.set(url, import(url).then((mod) => { loaded.set(url, mod); return mod; })
      .catch((err) => { console.error(err); return null; }));
  }
  return modules.get(url);
}

// The game's module if it has been loaded already (keyboard handlers must answer at once).
export function loadedModule(payload, role) {
  const url = moduleUrl(payload, role);
  return url ? loaded.get(url) || null : null;
}

// A view carries only the log entries new since the last one this viewer was
// sent (`log_reset` marks a full log). Keep the running log; ignore a view
// older than the one shown (its log entries still count).
const LOG_KEEP = 200;
export function accept(current, payload) {
  const sameTable = current && current.code === payload.code;
  let log = payload.log || [];
  if (sameTable && !payload.log_reset) {
    const seen = new Set(current.log.map((e) => `${e.v}|${e.t}|${e.text}`));
    log = current.log.concat(log.filter((e) => !seen.has(`${e.v}|${e.t}|${e.text}`)));
    log.sort((a, b) => a.v - b.v);
  }
  log = log.slice(-LOG_KEEP);
  if (sameTable && payload.version < current.version) {
    return { ...current, log };
  }
  return { ...payload, log };
}

export function playerList(players, { you = null, kick = null } = {}) {
  return h("ul", { class: "player-list", role: "list" },
    players.map((p) => h("li", { class: "player" + (p.connected ? " online" : " away"), dataset: { seat: p.seat } },
      h("span", { class: "dot", "aria-hidden": "true" }, p.connected ? "●" : "○"),
      h("span", { class: "player-name" }, p.name),
      p.seat === you ? h("span", { class: "badge" }, "you") : null,
      p.computer ? h("span", { class: "badge" }, "computer") : null,
      h("span", { class: "visually-hidden" }, p.connected ? " (connected)" : " (not connected)"),
      kick ? kick(p) : null)));
}

export function lobby(payload, { role, act }) {
  const n = payload.players.length;
  const need = payload.min_seats;
  const start = payload.actions.find((a) => a.type === "start");
  const parts = [
    role === "player" && payload.title ? h("p", { class: "lobby-game" }, `${payload.title} · table ${payload.code}`) : null,
    h("h2", {}, role === "board" ? `Players joined: ${n} of ${payload.max_seats}` : "Waiting for players"),
    playerList(payload.players, { you: payload.seat }),
  ];
  if (n < need) parts.push(h("p", { class: "hint lobby-next" }, `At least ${need} players are needed to start.`));
  else if (role === "board" && payload.players[0]) {
    // The board has no actions: tell the room who starts, and where.
    const first = payload.players[0].name;
    parts.push(h("p", { class: "hint lobby-next" }, payload.start_label
      ? `${first} taps “${payload.start_label}” on their phone.` : `${first} starts the game on their phone.`));
  }
  if (start && act) {
    parts.push(h("button", { class: "primary big", type: "button", onclick: () => act(start), dataset: { focusKey: "start" } },
      start.label));
  } else if (role === "player" && n >= need) {
    const first = payload.players[0];
    parts.push(h("p", { class: "hint" }, `Waiting for ${first ? first.name : "the first player"} to start the game.`));
  }
  if (payload.locked) parts.push(h("p", { class: "hint" }, "The table is locked: no one else can join."));
  return h("section", { class: "card lobby", "aria-label": "Lobby" }, parts);
}

// A table the teacher closed before its game started.
function closedLobby(payload) {
  return h("section", { class: "card lobby", "aria-label": "Table closed" },
    h("h2", {}, "This table was closed"),
    h("p", {}, "The teacher closed it before the game started."),
    playerList(payload.players, { you: payload.seat }));
}

export function logList(entries, limit = 12) {
  const recent = entries.slice(-limit).reverse();
  return h("section", { class: "log", "aria-label": "Game log" },
    h("h2", { class: "small-heading" }, "What happened (newest first)"),
    h("ul", { class: "log-list", role: "list" }, recent.map((e) => h("li", { class: "log-" + e.t }, e.text))));
}

export function banner(el, payload) {
  let text = "";
  if (payload.paused) text = "The teacher has paused the game.";
  else if (payload.status === "ended" && payload.started) text = "This game has ended.";
  el.textContent = text;
  show(el, Boolean(text));
}

export function resultText(payload) {
  const result = payload.result;
  if (!result) return "";
  const names = result.winners.map((s) => (payload.players.find((p) => p.seat === s) || {}).name || `Seat ${s + 1}`);
  if (!names.length) return "The game is over.";
  return names.length === 1 ? `${names[0]} wins!` : `${names.join(" and ")} share the win!`;
}

// Text fields an action asks for: a string field listed as "" is to be filled in.
function blanks(action) {
  return Object.entries(action).filter(([key, value]) => key !== "label" && key !== "type" && value === "").map(([key]) => key);
}

// One control per labelled action: a button, or a small form for free text.
export function actionControls(actions, act, { focusPrefix = "act" } = {}) {
  // A refused action is said next to the controls, never silently dropped.
  const error = h("p", { class: "error act-error", role: "alert" });
  const send = (action) => {
    const pending = act(action);
    if (pending && pending.then) {
      pending.then((ack) => {
        if (ack && !ack.ok && ack.error && ack.error.code !== "stale") error.textContent = ack.error.message || "That was refused.";
      });
    }
  };
  return h("div", { class: "generic-controls" }, error, h("div", { class: "button-row generic-actions" }, actions.map((action, i) => {
    const fields = blanks(action);
    if (!fields.length) {
      return h("button", { type: "button", class: "primary", dataset: { focusKey: `${focusPrefix}-${i}` },
        onclick: () => send(action) }, action.label || action.type);
    }
    const inputs = fields.map((key) => h("input", { name: key, maxlength: 500, "aria-label": `${action.label || action.type}: ${key}` }));
    return h("form", { class: "stack action-form", onsubmit: (event) => {
      event.preventDefault();
      const filled = { ...action };
      inputs.forEach((input) => { filled[input.name] = input.value; });
      send(filled);
    } }, inputs, h("button", { type: "submit", class: "primary" }, action.label || action.type));
  })));
}

// The generic game view: who the game waits for, the scores, and every action.
export function genericView(payload, ctx) {
  const prompt = (payload.view && payload.view.prompt) || {};
  const parts = [];
  if (payload.result) parts.push(h("p", { class: "result big-text" }, resultText(payload)));
  if (prompt.text) parts.push(h("p", { class: "prompt big-text", role: "status" }, prompt.text));
  const waiting = new Set(prompt.waiting_for || []);
  parts.push(h("ul", { class: "player-list", role: "list" }, payload.players.map((p) =>
    h("li", { class: "player" + (waiting.has(p.seat) ? " waiting" : "") },
      h("span", { class: "player-name" }, p.name),
      p.seat === payload.seat ? h("span", { class: "badge" }, "you") : null,
      waiting.has(p.seat) ? h("span", { class: "badge" }, "to act") : null))));
  if (ctx.act && payload.actions.length) parts.push(actionControls(payload.actions, ctx.act));
  parts.push(logList(ctx.log ? ctx.log() : payload.log || []));
  return h("section", { class: "card generic-game", "aria-label": payload.title }, parts);
}

export async function render(root, payload, ctx) {
  if (payload.status === "lobby") {
    replace(root, lobby(payload, ctx));
    return;
  }
  if (!payload.started) {
    replace(root, closedLobby(payload));
    return;
  }
  const game = await gameModule(payload, ctx.role);
  if (ctx.current && ctx.current() && ctx.current().version > payload.version) return; // a newer view arrived meanwhile
  if (game && game.render) game.render(root, payload, ctx);
  else replace(root, genericView(payload, ctx));
}
