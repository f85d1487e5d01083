// War: the board and the phone draw the same public view; the phone adds the
// player's own deck button and auto-play controls. Every control is one of the
// payload's `actions`, shown with its `label` and sent as listed.
//
// payload: {code, game, version, status, seat, view: {public, private, prompt},
//           actions, log (only the entries new since the last view), players,
//           deadlines: {timer key: {due: epoch seconds} or {left: seconds} when paused}}
// ctx:     {role: "player" | "board" | "facilitator", act(action), log() -> the
//           accumulated log}
import { h, preserveFocus, replace } from "/static/js/dom.js";
import * as shared from "/static/js/table.js";
import * as run from "./run.js";
import * as wager from "/static/games/war/wager.js";
import * as keyboard from "./keys.js"; // every key, the help overlay's list, Pause/Resume and Restart (keys.js)
import * as powers from "/static/games/war/powers.js";   // Power War's controls and board panel

const RED = new Set(["♥", "♦"]);

// Animate only what is new since the last render (a re-render must not replay a reveal).
let seen = new Set();
let seenNext = new Set();
function fresh(key) {
  seenNext.add(key);
  return seen.has(key) ? "" : " fresh";
}

function card(c, extra = "") {
  if (!c || c.down) {
    return h("span", { class: "playing-card down " + extra, role: "img", "aria-label": "face-down card" }, "WAR");
  }
  return h("span", { class: "playing-card" + (RED.has(c.suit) ? " red" : "") + (extra ? " " + extra : ""), role: "img", "aria-label": c.name },
    h("span", { "aria-hidden": "true" }, c.label), h("span", { class: "suit", "aria-hidden": "true" }, c.suit));
}

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function nameOf(pub, seat) {
  const p = pub.players.find((x) => x.seat === seat);
  return p ? p.name : `Seat ${seat + 1}`;
}

function stageText(pub) {
  if (pub.result) return "Game over";
  const sd = pub.sudden_death ? ` · Sudden death: ${pub.sudden_death.battles_left} battle(s) left` : "";
  const length = pub.length && (pub.length.kind === "cards" || pub.length.kind === "points") ? ` · ${pub.length.label}` : "";
  if (pub.stage === "battle") return `Battle ${pub.battle}${length}${sd}`;
  return `War! Level ${pub.stage} — battle ${pub.battle}${length}${sd}`;
}

// A timed match's clock: the server keeps the deadline (payload.deadlines, by
// the view's clock_key); the page counts down to it once a second.
function clockText(el) {
  const left = el.dataset.due ? Math.max(0, Number(el.dataset.due) - Date.now() / 1000) : Number(el.dataset.left);
  const s = Math.ceil(left);
  const text = `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
  return el.dataset.due ? `Time left ${text}` : `Time left ${text} (paused)`;
}
let ticking = null;
function tick() {
  const clocks = document.querySelectorAll(".war-game .war-clock");
  for (const el of clocks) el.textContent = clockText(el);
  if (!clocks.length && ticking) { clearInterval(ticking); ticking = null; }
}
function clock(payload) {
  const pub = payload.view.public;
  const key = pub.length && pub.length.clock_key;
  if (!key || pub.result) return null;
  const deadline = (payload.deadlines || {})[key];
  if (!deadline) return h("p", { class: "war-clock-label" }, pub.length.label + " match");
  const el = h("p", { class: "war-clock", role: "timer", "aria-label": `${pub.length.label} match clock`,
    dataset: deadline.due != null ? { due: deadline.due } : { left: deadline.left } });
  el.textContent = clockText(el);
  if (!ticking) ticking = setInterval(tick, 1000);
  return el;
}

function seats(pub, you) {
  const showing = new Map(pub.showing.map((x) => [x.seat, x.card]));
  return h("ul", { class: "war-seats", role: "list", "aria-label": "Players", dataset: { count: pub.players.length } },
    pub.players.map((p) => {
      const waiting = pub.waiting_for.includes(p.seat);
      const shown = showing.get(p.seat);
      const key = shown ? `show|${pub.battle}|${pub.stage}|${p.seat}|${shown.down ? "down" : shown.name}` : "";
      const atWar = pub.stage !== "battle" && !pub.result && (pub.participants || []).includes(p.seat);
      return h("li", { class: "war-seat" + (p.eliminated ? " out" : "") + (waiting ? " waiting" : "") + (p.seat === you ? " mine" : "") + (atWar ? " at-war" : ""), dataset: { seat: p.seat } },
        h("h3", {}, h("span", { class: "seat-name" }, p.name), p.seat === you ? h("span", { class: "badge" }, "you") : null,
          atWar ? h("span", { class: "badge war-badge" }, "at war") : null,
          pub.hold && pub.hold.seats.includes(p.seat) ? h("span", { class: "badge" }, "paused") : null),
        h("p", { class: "stat" }, p.eliminated ? "Out of the game" : plural(p.cards, "card")
          + (pub.length && pub.length.kind === "points" ? ` · ${plural(p.points, "point")}` : "")),
        wager.seatStat(pub, p.seat),
        h("div", { class: "seat-card" },
          shown ? card(shown, fresh(key).trim()) : h("p", { class: "muted" }, waiting ? "To reveal…" : p.eliminated ? "" : "—")),
        p.autoplay ? h("span", { class: "badge" }, `auto ${p.autoplay}×`) : null);
    }));
}

function pot(pub) {
  if (!pub.committed.length) return null;
  return h("section", { class: "card pot", "aria-label": "Pot" },
    h("h2", { class: "small-heading" }, `Pot: ${plural(pub.pot_count, "card")}`),
    h("div", { class: "pot-cards" }, pub.committed.map((c) => card(c))));
}

function last(pub, you) {
  const l = pub.last;
  if (!l) return null;
  const head = l.winner === null
    ? `Battle ${l.battle}: nobody won; ${l.count} card(s) stay in the pot.`
    : `Battle ${l.battle}: ${l.winner === you ? "you" : nameOf(pub, l.winner)} won ${plural(l.count, "card")}.`;
  const isNew = fresh(`last|${l.battle}|${l.winner}|${l.count}`);
  return h("section", { class: "card last-battle" + isNew + (l.winner === you ? " you-won" : ""), "aria-label": "Last battle" },
    h("h2", { class: "small-heading" }, head),
    h("div", { class: "deciding-row" }, l.deciding.map((d) => h("span", { class: "deciding" + (d.seat === you ? " mine" : "") },
      h("span", { class: "visually-hidden" }, `${nameOf(pub, d.seat)}: `),
      card(d.card, d.seat === l.winner ? "winner" : ""),
      h("span", { class: "muted deciding-name" }, d.seat === you ? "you" : nameOf(pub, d.seat))))));
}

// The listed actions of one kind (`speed` picks one auto-play action).
function listed(payload, type, speed) {
  return payload.actions.find((a) => a.type === type && (speed === undefined || a.speed === speed));
}

// A toggles auto-play (off, or on at speed 1); Alt+1/2/4 pick a speed.
function shortcut(action, current) {
  if (action.speed === 0) return "A";
  if (action.speed === 1 && !current) return "A Alt+1";
  return `Alt+${action.speed}`;
}

// A refused move is said next to the control that sent it (for a few seconds).
const refusal = keyboard.refusal;
const refusedText = refusal.text;
const send = refusal.send;

function controls(payload, ctx) {
  const pub = payload.view.public;
  const mine = payload.view.private;
  if (pub.result || payload.status === "ended") return null; // nothing invites more play
  const reveal = listed(payload, "reveal");
  const deck = h("button", {
    type: "button", class: "deck-button", disabled: !reveal, dataset: { focusKey: "deck" },
    "aria-keyshortcuts": "Space Enter", onclick: () => reveal && send(ctx, reveal),
  }, h("span", {}, reveal ? reveal.label
    : mine.eliminated ? "You are out of the game" : payload.paused ? "Paused by the teacher"
      : mine.held ? "Your play is paused" : "Waiting for the others…"),
  h("small", {}, mine.eliminated ? "" : plural(mine.cards, "card") + " in your deck"));
  const autoActions = payload.actions.filter((a) => a.type === "autoplay");
  const autoRow = !autoActions.length ? null : h("div", { class: "war-auto", role: "group", "aria-label": "Auto-play" },
    h("p", { class: "war-auto-state" }, mine.autoplay ? `Auto-play is on (speed ${mine.autoplay})` : "Auto-play is off"),
    h("div", { class: "war-auto-buttons" }, autoActions.map((a) => h("button", {
      type: "button", class: "small", dataset: { focusKey: `auto${a.speed}` },
      "aria-keyshortcuts": shortcut(a, mine.autoplay),
      onclick: () => send(ctx, a),
    }, a.label))));
  const inPlay = mine.in_play && mine.in_play.length
    ? h("div", { class: "in-play" }, h("span", {}, "Your cards in play: "), mine.in_play.map((c) => card(c))) : null;
  const keys = payload.actions.length
    ? h("p", { class: "muted keys-hint" }, "Keys: Space or Enter reveals · A toggles auto-play · P pauses · ? lists every key") : null;
  const error = h("p", { class: "error act-error", role: "alert" }, refusedText());
  // The deck last: at the bottom of the phone, under the thumb (app.css .thumb-zone).
  return h("section", { class: "card war-controls thumb-zone", "aria-label": "Your deck" }, inPlay, error,
    wager.controls(payload, ctx, send), autoRow, keyboard.controlRow(payload, ctx), deck, keys);
}

function logSection(entries, limit) {
  if (shared.logList) return shared.logList(entries, limit);
  const recent = entries.slice(-limit).reverse();
  return h("section", { class: "log", "aria-label": "Game log" },
    h("h2", { class: "small-heading" }, "What happened (newest first)"),
    h("ul", { class: "log-list", role: "list" }, recent.map((e) => h("li", { class: "log-" + e.t }, e.text))));
}

export function render(root, payload, ctx) {
  if (payload.view.public.run && !ctx.inRun) return run.render(root, payload, ctx, (r, p, c) => render(r, p, { ...c, inRun: true }));
  const pub = payload.view.public;
  const you = payload.seat;
  const player = ctx.role === "player";
  const board = ctx.role === "board";
  // payload.log holds only the entries new since the last view; ctx.log() has them all.
  const entries = typeof ctx.log === "function" ? ctx.log() : (payload.log || []);
  seenNext = new Set();
  const stage = pub.result ? "over" : pub.stage === "battle" ? "battle" : "war";
  const prompt = pub.result ? "" : payload.view.prompt.text;
  const head = h("div", { class: "war-head" },
    h("p", { class: "status-line" + (stage === "war" ? " at-war" + fresh(`war|${pub.battle}|${pub.stage}`) : "") }, stageText(pub)),
    clock(payload),
    h("p", { class: "hint war-prompt", "aria-live": "polite" }, prompt));
  let body;
  if (player) {
    // The phone: the outcome of the last move first, the table below it and
    // the next action at the bottom of the screen (it stays there as the table scrolls).
    body = [head, wager.panel(payload, ctx), last(pub, you), seats(pub, you), pot(pub), logSection(entries, 8), controls(payload, ctx)];
    if (pub.powers) body = powers.phoneBody(body, payload, ctx, send, () => render(root, payload, ctx));
  } else if (board) {
    body = [head, h("div", { class: "war-table" },
        seats(pub, you),
      h("div", { class: "war-side" }, wager.panel(payload, ctx), pub.powers ? powers.board(payload) : null,
        last(pub, you), pot(pub), logSection(entries, 4)))];
  } else {
    body = [head, wager.panel(payload, ctx), seats(pub, you), pub.powers ? powers.board(payload) : null, pot(pub),
      last(pub, you), logSection(entries, 10),
      payload.players && shared.playerList ? shared.playerList(payload.players) : null];
  }
  preserveFocus(root, () => replace(root, h("div", { class: `war-game game-view war-${ctx.role} stage-${stage}` }, body)));
  seen = seenNext;
}

// The end screen's scores (table.js endScreen) count cards, or points in a points match.
export const scoreText = (n, payload) => {
  if (payload && payload.view && payload.view.public && payload.view.public.run) return run.scoreText(n);
  if (wager.active(payload)) return wager.scoreText(n);
  const length = payload && payload.view && payload.view.public && payload.view.public.length;
  return plural(n, length && length.kind === "points" ? "point" : "card");
};

// The end screen: a run's summary (run.js), else the platform's own.
export function endScreen(payload, ctx, platform) {
  if (payload.view.public.run) return run.endScreen(payload, ctx, platform, scoreText);
  return platform(payload, scoreText);
}

// What onKey answers to, for the page's help overlay (`?`): every key War's
// modules registered (keys.js `addKeys`), a wager's C and F, and the powers' 1-5 and E.
export function keys(payload) {
  return keyboard.keys(payload).concat(wager.keys(payload), powers.keys(payload));
}

export function onKey(event, payload, ctx) {
  if (keyboard.typing(event)) return false;
  if (payload.view.public.run && payload.view.public.run.phase !== "match") return run.onKey(event, payload, ctx);
  if (powers.onKey(event, payload, ctx, send)) return true;   // Power War: 1-5 select, E uses
  if (wager.onKey(event, payload, ctx)) return true;
  return keyboard.onKey(event, payload, ctx);
}
