// Rendering shared by every game: lobby, players, banner, log, result, and the
// generic control that offers any labelled action. A game's own module (named
// by the payload's `ui`, served from static/games/<key>/) draws its game
// better; a game without one is still fully playable through the generic control.
import { h, icon, replace, show } from "./dom.js";

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
    // Focusable: a keyboard user can scroll the log when it is longer than its box.
    h("ul", { class: "log-list", role: "list", tabindex: "0", "aria-label": "Game log, newest first" },
      recent.map((e) => h("li", { class: "log-" + e.t }, e.text))));
}

export function banner(el, payload) {
  let text = "";
  if (payload.paused) text = "The teacher has paused the game.";
  else if (payload.status === "ended" && payload.started) text = "This game has ended.";
  el.textContent = text;
  show(el, Boolean(text));
}

function nameOf(payload, seat) {
  return (payload.players.find((p) => p.seat === seat) || {}).name || `Seat ${seat + 1}`;
}

export function resultText(payload) {
  const result = payload.result;
  if (!result) return "";
  const you = result.winners.includes(payload.seat);
  const names = result.winners.filter((s) => s !== payload.seat).map((s) => nameOf(payload, s));
  if (!result.winners.length) return "The game is over.";
  if (you) return names.length ? `You share the win with ${names.join(" and ")}!` : "You won!";
  return names.length === 1 ? `${names[0]} won!` : `${names.join(" and ")} share the win!`;
}

// Every game's end, on the phone and the board: the winner celebrated and the
// full ranking, and nothing that invites more play. A game's module may say
// what its score counts (`scoreText(score, payload)`): cards, points, willpower.
export function endScreen(payload, scoreText = String) {
  const r = payload.result;
  return h("section", { class: "card result end-screen", "aria-label": "Result" },
    icon("trophy", "trophy"),
    h("h2", {}, resultText(payload)),
    h("ol", { class: "ranking", role: "list" }, r.ranking.map((seat, i) => {
      const won = r.winners.includes(seat);
      return h("li", { class: (won ? "top" : "") + (seat === payload.seat ? " mine" : "") },
        h("span", { class: "rank-place" }, `${won ? 1 : i + 1}.`),
        h("span", { class: "rank-name" }, seat === payload.seat ? `${nameOf(payload, seat)} (you)` : nameOf(payload, seat)),
        h("span", { class: "rank-score" }, r.scores[seat] === undefined ? "" : scoreText(r.scores[seat], payload)));
    })));
}

// Text fields an action asks for: a string field listed as "" is to be filled in.
function blanks(action) {
  return Object.entries(action).filter(([key, value]) => key !== "label" && key !== "type" && value === "").map(([key]) => key);
}

// A game module's refused moves, said next to its controls (`.act-error` inside
// `scope`) for a few seconds, also across re-renders: draw the message from
// `text()`, send through `send(ctx, action)`; `onRefused` runs first (a module
// may stop an animation the move started). A stale move is said too: the fresh
// view has arrived, and the student must look again.
export function refusals(scope, { ms = 5000, onRefused = null } = {}) {
  let refused = null; // {text, until}
  const text = () => (refused && refused.until > Date.now() ? refused.text : "");
  const send = (ctx, action) => {
    const pending = ctx.act(action);
    if (!pending || !pending.then) return pending;
    pending.then((ack) => {
      if (!ack || ack.ok || !ack.error) return;
      if (onRefused) onRefused(ack);
      refused = { text: ack.error.message || "That move was refused.", until: Date.now() + ms };
      for (const el of document.querySelectorAll(`${scope} .act-error`)) el.textContent = refused.text;
      setTimeout(() => {
        if (text()) return;
        for (const el of document.querySelectorAll(`${scope} .act-error`)) el.textContent = "";
      }, ms + 50);
    });
    return pending;
  };
  return { text, send };
}

// One control per labelled action: a button, or a small form for free text.
export function actionControls(actions, act, { focusPrefix = "act" } = {}) {
  // A refused action is said next to the controls, never silently dropped.
  const error = h("p", { class: "error act-error", role: "alert" });
  const send = (action) => {
    const pending = act(action);
    if (pending && pending.then) {
      pending.then((ack) => {
        if (ack && !ack.ok && ack.error) error.textContent = ack.error.message || "That was refused.";
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

// The generic game view: who the game waits for, the players, and every action
// (at the bottom of a phone, in thumb reach).
export function genericView(payload, ctx) {
  const prompt = (payload.view && payload.view.prompt) || {};
  const parts = [];
  if (prompt.text) parts.push(h("p", { class: "prompt big-text", role: "status" }, prompt.text));
  const waiting = new Set(prompt.waiting_for || []);
  parts.push(h("ul", { class: "player-list", role: "list" }, payload.players.map((p) =>
    h("li", { class: "player" + (waiting.has(p.seat) ? " waiting" : "") },
      h("span", { class: "player-name" }, p.name),
      p.seat === payload.seat ? h("span", { class: "badge" }, "you") : null,
      waiting.has(p.seat) ? h("span", { class: "badge" }, "to act") : null))));
  parts.push(logList(ctx.log ? ctx.log() : payload.log || []));
  // (The teacher's page lists the game's decisions in its own "Game decisions" box.)
  if (ctx.act && ctx.role !== "facilitator" && payload.actions.length) {
    parts.push(h("div", { class: "thumb-zone" }, actionControls(payload.actions, ctx.act)));
  }
  return h("section", { class: "card generic-game game-view", "aria-label": payload.title }, parts);
}

// The keys a page answers to, for the help overlay: the game's own first.
export function keyList(payload, role) {
  const game = payload && payload.status === "playing" ? loadedModule(payload, role) : null;
  const own = game && game.keys ? game.keys(payload) : [];
  return own.concat([["Tab", "Move between the buttons"], ["?", "Show this list"], ["Esc", "Close this list"]]);
}

// A modal list of keyboard shortcuts. The dialog keeps focus inside while it
// is open and gives it back to the control it came from (or the same control
// re-rendered meanwhile).
export function openHelp(rows) {
  // (A dialog just closed may still be in the page until its `close` event: it does not count.)
  if (document.querySelector("dialog.help-dialog[open]")) return;
  const from = document.activeElement;
  const fromKey = from && from.dataset ? from.dataset.focusKey : null;
  const close = h("button", { type: "button", class: "primary" }, "Close");
  const dialog = h("dialog", { class: "help-dialog", role: "dialog", "aria-modal": "true", "aria-labelledby": "help-title" },
    h("h2", { id: "help-title" }, "Keyboard shortcuts"),
    h("dl", { class: "help-keys" }, rows.map(([key, what]) => h("div", { class: "help-row" }, h("dt", {}, h("kbd", {}, key)), h("dd", {}, what)))),
    close);
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("keydown", (event) => {
    if (event.key !== "Tab") return;
    const stops = [...dialog.querySelectorAll("button, [href], input, [tabindex]:not([tabindex='-1'])")];
    const at = stops.indexOf(document.activeElement);
    const next = (at + (event.shiftKey ? -1 : 1) + stops.length) % stops.length;
    event.preventDefault();
    stops[next].focus();
  });
  dialog.addEventListener("close", () => {
    dialog.remove();
    if (document.querySelector("dialog.help-dialog[open]")) return; // reopened meanwhile: focus is there
    const again = from && from.isConnected ? from
      : fromKey ? document.querySelector(`[data-focus-key="${CSS.escape(fromKey)}"]`) : null;
    (again || document.getElementById("main")).focus();
  });
  document.body.append(dialog);
  dialog.showModal();
  close.focus();
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
  // The end is the platform's, the same for every game; a game module may dress it
  // (`endScreen(payload, ctx, platformEndScreen)`, e.g. a solo run's summary).
  const end = !(payload.result && payload.status === "ended") ? null
    : game && game.endScreen ? game.endScreen(payload, ctx, endScreen)
      : endScreen(payload, (game && game.scoreText) || String);
  if (end && ctx.role !== "facilitator") {
    replace(root, end);
    return;
  }
  if (game && game.render) game.render(root, payload, ctx);
  else replace(root, genericView(payload, ctx));
  if (end) root.prepend(end); // the facilitator keeps the whole table in view, under the result
}
