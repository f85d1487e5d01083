// Rendering shared by every game: lobby, players, banner, log, result, and the
// generic control that offers any labelled action. A game's own module (named
// by the payload's `ui`, served from static/games/<key>/) draws its game
// better; a game without one is still fully playable through the generic control.
import { h, heldByPress, icon, replace, show } from "./dom.js";
import { seatName } from "./kit.js";
import { countdown } from "./countdown.js";
import { lang, t, tn } from "./i18n.js";

const modules = new Map(); // module URL -> Promise of the module
const loaded = new Map();  // module URL -> the module, once imported
const sheets = new Map(); // stylesheet URL -> Promise, settled once it applies (or failed to load)

// The `ui` entry this page uses: the phone page is the "phone" role.
function moduleUrl(payload, role) {
  const ui = payload.ui || {};
  return ui[role === "player" ? "phone" : role] || (role === "facilitator" ? ui.board : null);
}

function loadStylesheet(url) {
  if (!url) return Promise.resolve();
  if (!sheets.has(url)) {
    sheets.set(url, new Promise((resolve) => {
      const link = h("link", { rel: "stylesheet", href: url });
      link.addEventListener("load", resolve);
      link.addEventListener("error", resolve); // drawn plain rather than not at all
      document.head.append(link);
    }));
  }
  return sheets.get(url);
}

// The game's module, once its stylesheet applies too: a game drawn before its styles
// flashes unstyled on a slow network, and a board fits its regions by measuring them
// (kit.js fitRegion): measured unstyled, a full Jobsite column kept its largest type and
// ran off the screen once the styles came.
export function gameModule(payload, role) {
  const url = moduleUrl(payload, role);
  const sheet = loadStylesheet((payload.ui || {}).stylesheet);
  if (!url) return sheet.then(() => null);
  if (!modules.has(url)) {
    modules.set(url, import(url).then((mod) => { loaded.set(url, mod); return mod; })
      .catch((err) => { console.error(err); return null; }));
  }
  return Promise.all([sheet, modules.get(url)]).then(([, mod]) => mod);
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
      p.seat === you ? h("span", { class: "badge" }, t("you")) : null,
      p.computer ? h("span", { class: "badge" }, t("computer")) : null,
      h("span", { class: "visually-hidden" }, " ", p.connected ? t("(connected)") : t("(not connected)")),
      kick ? kick(p) : null)));
}

export function lobby(payload, { role, act }) {
  const n = payload.players.length;
  const need = payload.min_seats;
  const start = payload.actions.find((a) => a.type === "start");
  const parts = [
    role === "player" && payload.title ? h("p", { class: "lobby-game" }, t("{title} · table {code}", { title: payload.title, code: payload.code })) : null,
    h("h2", {}, role === "board" ? t("Players joined: {n} of {max}", { n, max: payload.max_seats }) : t("Waiting for players")),
    playerList(payload.players, { you: payload.seat }),
  ];
  if (n < need) parts.push(h("p", { class: "hint lobby-next" }, tn("At least {n} players are needed to start.", "At least {n} players are needed to start.", need)));
  else if (role === "board" && payload.players[0]) {
    // The board has no actions: tell the room who starts, and where.
    const first = payload.players[0].name;
    parts.push(h("p", { class: "hint lobby-next" }, payload.start_label
      ? t("{name} taps “{button}” on their phone.", { name: first, button: payload.start_label }) : t("{name} starts the game on their phone.", { name: first })));
  }
  if (start && act) {
    parts.push(h("button", { class: "primary big", type: "button", onclick: () => act(start), dataset: { focusKey: "start" } },
      start.label));
  } else if (role === "player" && n >= need) {
    const first = payload.players[0];
    parts.push(h("p", { class: "hint" }, first ? t("Waiting for {name} to start the game.", { name: first.name }) : t("Waiting for the first player to start the game.")));
  }
  if (payload.locked) parts.push(h("p", { class: "hint" }, t("The table is locked: no one else can join.")));
  return h("section", { class: "card lobby", "aria-label": t("Lobby") }, parts);
}

// A table the teacher closed before its game started.
function closedLobby(payload) {
  return h("section", { class: "card lobby", "aria-label": t("Table closed") },
    h("h2", {}, t("This table was closed")),
    h("p", {}, t("The teacher closed it before the game started.")),
    playerList(payload.players, { you: payload.seat }));
}

// On the projected board the log shows the newest entries that fit whole: an entry
// that would be cut by the log's box, the screen's edge or the join corner goes,
// with every older one (render() calls this once the game has drawn). A log with
// no room even for its heading is hidden rather than cut. (Everything is measured
// first and removed after: one layout, however many entries go.)
function clipBottom(el) {
  let bottom = document.documentElement.clientHeight;
  for (let a = el; a && a !== document.body; a = a.parentElement) {
    const s = getComputedStyle(a);
    if (s.overflowX === "visible" && s.overflowY === "visible") continue;
    bottom = Math.min(bottom, a.getBoundingClientRect().top + a.clientTop + a.clientHeight);
  }
  // The join corner floats over the board's bottom while play is on.
  const corner = document.querySelector(".join-strip");
  if (corner && corner.getClientRects().length && getComputedStyle(corner).position === "fixed") {
    const box = el.getBoundingClientRect();
    const c = corner.getBoundingClientRect();
    if (c.left < box.right && c.right > box.left) bottom = Math.min(bottom, c.top);
  }
  return bottom;
}

export function fitLog(section) {
  const list = section.querySelector(".log-list");
  if (!list) return;
  const bottom = clipBottom(list) + 0.5;
  const items = [...list.children];
  const cut = items.findIndex((li) => li.getBoundingClientRect().bottom > bottom);
  if (cut < 0) return;
  for (const li of items.slice(cut)) li.remove();
  // Not one entry fits: a heading over nothing says nothing, so the log goes.
  if (!cut) section.hidden = true;
}

export function logList(entries, limit = 12) {
  const recent = entries.slice(-limit).reverse();
  return h("section", { class: "log", "aria-label": t("Game log") },
    h("h2", { class: "small-heading" }, t("What happened (newest first)")),
    // Focusable: a keyboard user can scroll the log when it is longer than its box.
    h("ul", { class: "log-list", role: "list", tabindex: "0", "aria-label": t("Game log, newest first") },
      recent.map((e) => h("li", { class: "log-" + e.t }, e.text))));
}

export function banner(el, payload) {
  let text = "";
  if (payload.paused) text = t("The teacher has paused the game.");
  else if (payload.status === "ended" && payload.started) {
    // Why it ended, when the log says (the lesson clock ran out, or the teacher ended it).
    const end = (payload.log || []).filter((e) => e.t === "end").pop();
    text = end && end.text ? t("This game has ended. {reason}", { reason: end.text }) : t("This game has ended.");
  }
  el.textContent = text;
  show(el, Boolean(text));
}

// A table's status in words: the teacher's table page, the class overview and the class board.
export function statusName(status) {
  const names = { lobby: t("Waiting to start"), playing: t("Playing"), ended: t("Finished") };
  return names[status] || status;
}

export function resultText(payload) {
  const result = payload.result;
  if (!result) return "";
  const you = result.winners.includes(payload.seat);
  const names = result.winners.filter((s) => s !== payload.seat).map((s) => seatName(payload, s));
  if (!result.winners.length) return t("The game is over.");
  if (you) return names.length ? t("You share the win with {names}!", { names: andList(names) }) : t("You won!");
  return names.length === 1 ? t("{name} won!", { name: names[0] }) : t("{names} share the win!", { names: andList(names) });
}

// Every game's end, on the phone and the board: the winner celebrated and the
// full ranking (render() adds what comes next: `whatNext`). A game's module may say
// what its score counts (`scoreText(score, payload)`): cards, points, willpower.
export function endScreen(payload, scoreText = String) {
  const r = payload.result;
  return h("section", { class: "card result end-screen", "aria-label": t("Result") },
    icon("trophy", "trophy"),
    h("h2", {}, resultText(payload)),
    h("ol", { class: "ranking", role: "list" }, r.ranking.map((seat, i) => {
      const won = r.winners.includes(seat);
      return h("li", { class: (won ? "top" : "") + (seat === payload.seat ? " mine" : "") },
        h("span", { class: "rank-place" }, `${won ? 1 : i + 1}.`),
        h("span", { class: "rank-name" }, seat === payload.seat ? t("{name} (you)", { name: seatName(payload, seat) }) : seatName(payload, seat)),
        h("span", { class: "rank-score" }, r.scores[seat] === undefined ? "" : scoreText(r.scores[seat], payload)));
    })));
}

// Names joined in the page's language: "Ana, Ben and Cy" (another language: its own way,
// Intl.ListFormat; no catalog template, whose bare " and " would match any sentence).
export function andList(names) {
  if (lang() !== "en" && typeof Intl.ListFormat === "function") return new Intl.ListFormat(lang()).format(names);
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

// What comes after a game, under every end screen (app/service/tables/rematch.py).
// The phone: *Play again* (the table deals again, at a new table, once every player
// still seated has tapped it or the teacher did; the phone follows by itself) and
// *Join another game*. The board and the teacher's page: how many want to play again.
// The guided demo ends with an invitation to a real game instead.
export function whatNext(payload, ctx) {
  const phone = ctx.role === "player" && typeof ctx.again === "function";
  if (payload.guided) {
    if (ctx.role === "player" && !phone) return null;
    return h("section", { class: "what-next invitation", "aria-label": t("What next") },
      h("h3", {}, t("Ready for a real game?")),
      h("p", {}, t("Ask your teacher for a game code, then type it on the home page.")),
      phone ? h("p", { class: "next-buttons" },
        h("a", { class: "button primary big", href: "/", onclick: (event) => { event.preventDefault(); ctx.leave(); } },
          t("Enter a game code"))) : null,
      h("p", {}, t("No code? Try a game on the home page: no account needed.")));
  }
  const again = payload.again;
  // (A shared device, hotseat.js, has its own end: this is for a phone of its own, the board, the teacher.)
  if (!again || (ctx.role === "player" && !phone)) return null;
  const ready = again.ready || [];
  const players = again.players || [];
  const count = tn("{n} of {total} want to play again", "{n} of {total} want to play again", ready.length, { total: players.length });
  const parts = [];
  if (again.next) {
    parts.push(h("p", { class: "again-count", role: "status" }, t("Everyone plays again at table {code}.", { code: again.next })));
    if (ctx.role === "facilitator") {
      parts.push(h("a", { class: "button", href: `/facilitator/tables/${encodeURIComponent(again.next)}` },
        t("Open table {code}", { code: again.next })));
    }
  } else if (again.offered) {
    const mine = ready.includes(payload.seat);
    const waiting = players.filter((s) => !ready.includes(s)).map((s) => seatName(payload, s));
    if (!phone) { // one line on the projected board, under the ranking
      parts.push(h("p", { class: "again-count", role: "status" }, h("strong", {}, t("Play again?")), " ",
        ready.length ? `${count}.` : t("Nobody has asked yet."),
        ctx.role === "board" ? h("span", { class: "again-hint" }, " ", t("Tap Play again on your phone.")) : null));
    } else {
      const error = h("p", { class: "error act-error", role: "alert" });
      if (mine) {
        parts.push(h("p", { class: "again-count", role: "status" },
          t("You are ready. Waiting for {names} ({count}).", { names: andList(waiting), count })));
      } else {
        parts.push(h("button", { type: "button", class: "primary big", dataset: { focusKey: "again" },
          onclick: async (event) => {
            const button = event.currentTarget;
            button.disabled = true;
            const ack = await ctx.again();
            if (!ack.ok) {
              error.textContent = ack.error.message;
              button.disabled = false;
            }
          } }, t("Play again")));
        if (ready.length) parts.push(h("p", { class: "again-count", role: "status" }, `${count}.`));
      }
      parts.push(error);
    }
  }
  if (phone) {
    parts.push(h("button", { type: "button", class: "big", dataset: { focusKey: "leave" }, onclick: () => ctx.leave() },
      t("Join another game")));
  }
  return parts.length ? h("section", { class: "what-next", "aria-label": t("What next") }, parts) : null;
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
        if (ack && !ack.ok && ack.error) error.textContent = ack.error.message || t("That was refused.");
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
      p.seat === payload.seat ? h("span", { class: "badge" }, t("you")) : null,
      waiting.has(p.seat) ? h("span", { class: "badge" }, t("to act")) : null))));
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
  return own.concat([["Tab", t("Move between the buttons")], ["?", t("Show this list")], ["Esc", t("Close this list")]]);
}

// A modal list of keyboard shortcuts. The dialog keeps focus inside while it
// is open and gives it back to the control it came from (or the same control
// re-rendered meanwhile).
export function openHelp(rows) {
  // (A dialog just closed may still be in the page until its `close` event: it does not count.)
  if (document.querySelector("dialog.help-dialog[open]")) return;
  const from = document.activeElement;
  const fromKey = from && from.dataset ? from.dataset.focusKey : null;
  const close = h("button", { type: "button", class: "primary" }, t("Close"));
  const dialog = h("dialog", { class: "help-dialog", role: "dialog", "aria-modal": "true", "aria-labelledby": "help-title" },
    h("h2", { id: "help-title" }, t("Keyboard shortcuts")),
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

// The lesson clock (app/service/tables/lesson.py): one element in the page's header
// (templates/base.html), the same on the board, the phones, the teacher's pages and the
// class pages, counting down to `deadlines.lesson` while the game (or the class) plays.
export function lessonClock(payload) {
  const slot = document.getElementById("lesson-clock");
  if (!slot) return;
  const on = payload && payload.status === "playing";
  const clock = on ? countdown(payload, "lesson", { label: t("Lesson ends in"), name: t("Time left in the lesson") }) : null;
  replace(slot, clock);
  show(slot, Boolean(clock));
}

export async function render(root, payload, ctx) {
  // Not under a finger (dom.js heldByPress): drawn once the press is over, from the newest view then.
  if (heldByPress(root, () => render(root, (ctx.current && ctx.current()) || payload, ctx))) return;
  lessonClock(payload);
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
  if (end) {
    const next = whatNext(payload, ctx);
    if (next) end.append(next);
  }
  if (end && ctx.role !== "facilitator") {
    replace(root, end);
    return;
  }
  if (ctx.role === "board") reserveJoinCorner(); // (before the game draws and fits itself)
  if (game && game.render) game.render(root, payload, ctx);
  else replace(root, genericView(payload, ctx));
  if (end) root.prepend(end); // the facilitator keeps the whole table in view, under the result
  else if (payload.status === "ended" && ctx.role !== "facilitator") {
    const next = whatNext(payload, ctx); // a game that ended without a result still leads somewhere
    if (next) root.append(h("section", { class: "card end-screen" }, next));
  }
  if (ctx.role === "board") fitBoard(root, payload, ctx);
}

// While play is on, the join corner floats over the board's bottom right; its size
// depends on the join address. A game keeps that corner free with the room it
// takes, --join-w and --join-h (its width and height with the gap to the edges;
// 0 when no one can join), e.g. `padding-bottom: var(--join-h)` on the column above it.
function reserveJoinCorner() {
  const corner = document.querySelector(".join-strip");
  const style = document.body.style;
  if (!corner || !corner.getClientRects().length || getComputedStyle(corner).position !== "fixed") {
    style.setProperty("--join-w", "0px");
    style.setProperty("--join-h", "0px");
    return;
  }
  const box = corner.getBoundingClientRect();
  const gap = 6;
  style.setProperty("--join-w", `${Math.ceil(document.documentElement.clientWidth - box.left + gap)}px`);
  style.setProperty("--join-h", `${Math.ceil(document.documentElement.clientHeight - box.top + gap)}px`);
}

// The board fits its screen by measuring it (each log, and a game's own regions:
// kit.js fitRegion), so it is drawn again when the screen's size changes or the
// shipped font has loaded.
let redraw = null;
function fitBoard(root, payload, ctx) {
  for (const section of root.querySelectorAll(".log")) fitLog(section);
  if (!redraw) {
    let timer = null;
    let size = `${innerWidth}x${innerHeight}`;
    addEventListener("resize", () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        if (`${innerWidth}x${innerHeight}` === size) return; // (a screenshot's passing resize)
        size = `${innerWidth}x${innerHeight}`;
        redraw();
      }, 150);
    });
    // Every font that finishes loading, not only those pending now (`ready` settles once:
    // a face first needed by a later view, a bold or a dense layout's, would be missed).
    if (document.fonts) {
      document.fonts.ready.then(() => redraw());
      document.fonts.addEventListener("loadingdone", () => redraw());
    }
  }
  redraw = () => {
    const now = ctx.current ? ctx.current() : payload;
    render(root, now && now.code === payload.code ? now : payload, ctx);
  };
}
