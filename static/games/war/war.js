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
import { CARD_FACE, freshMarks, logOf, nameOf } from "/static/js/kit.js";
import { countdown } from "/static/js/countdown.js";
import { suitIcon } from "/static/games/war/icons.js"; // the suits and the powers, drawn
import { t, tn } from "/static/js/i18n.js";

const RED = new Set(["♥", "♦"]);

// Animate only what is new since the last render (a re-render must not replay a reveal).
const marks = freshMarks();
const fresh = marks.fresh;

function card(c, extra = "") {
  if (!c || c.down) {
    // The word on the card's back is decoration (the label names the card): hidden from
    // assistive technology, and from the board's pot, where the backs overlap.
    return h("span", { class: "playing-card down " + extra, role: "img", "aria-label": t("face-down card") },
      h("span", { class: "card-back-word", "aria-hidden": "true" }, "WAR"));
  }
  return h("span", { class: `${CARD_FACE} playing-card` + (RED.has(c.suit) ? " red" : "") + (extra ? " " + extra : ""), role: "img", "aria-label": c.name },
    h("span", { "aria-hidden": "true" }, c.label), h("span", { class: "suit", "aria-hidden": "true" }, suitIcon(c.suit)));
}

function stageText(pub) {
  if (pub.result) return t("Game over");
  const sd = pub.sudden_death ? " · " + tn("Sudden death: {n} battle left", "Sudden death: {n} battles left", pub.sudden_death.battles_left) : "";
  const length = pub.length && (pub.length.kind === "cards" || pub.length.kind === "points") ? ` · ${t(pub.length.label)}` : "";
  if (pub.stage === "battle") return t("Battle {battle}", { battle: pub.battle }) + length + sd;
  return t("War! Level {level} — battle {battle}", { level: pub.stage, battle: pub.battle }) + length + sd;
}

// A timed match's clock: the server keeps the deadline (payload.deadlines, by
// the view's clock_key); the shared countdown (countdown.js) counts down to it.
function clock(payload) {
  const pub = payload.view.public;
  const key = pub.length && pub.length.clock_key;
  if (!key || pub.result) return null;
  return countdown(payload, key, { label: t("Time left"), name: t("{length} match clock", { length: t(pub.length.label) }), cls: "war-clock" })
    || h("p", { class: "war-clock-label" }, t("{length} match", { length: t(pub.length.label) }));
}

function seats(pub, you) {
  const showing = new Map(pub.showing.map((x) => [x.seat, x.card]));
  return h("ul", { class: "war-seats", role: "list", "aria-label": t("Players"), dataset: { count: pub.players.length } },
    pub.players.map((p) => {
      const waiting = pub.waiting_for.includes(p.seat);
      const shown = showing.get(p.seat);
      const key = shown ? `show|${pub.battle}|${pub.stage}|${p.seat}|${shown.down ? "down" : shown.name}` : "";
      const atWar = pub.stage !== "battle" && !pub.result && (pub.participants || []).includes(p.seat);
      return h("li", { class: "war-seat" + (p.eliminated ? " out" : "") + (waiting ? " waiting" : "") + (p.seat === you ? " mine" : "") + (atWar ? " at-war" : ""), dataset: { seat: p.seat } },
        h("h3", {}, h("span", { class: "seat-name" }, p.name), p.seat === you ? h("span", { class: "badge" }, t("you")) : null,
          atWar ? h("span", { class: "badge war-badge" }, t("at war")) : null,
          pub.hold && pub.hold.seats.includes(p.seat) ? h("span", { class: "badge" }, t("paused")) : null),
        h("p", { class: "stat" }, p.eliminated ? t("Out of the game") : tn("{n} card", "{n} cards", p.cards)
          + (pub.length && pub.length.kind === "points" ? " · " + tn("{n} point", "{n} points", p.points) : "")),
        wager.seatStat(pub, p.seat),
        h("div", { class: "seat-card" },
          shown ? card(shown, fresh(key).trim()) : h("p", { class: "muted" }, waiting ? t("To reveal…") : p.eliminated ? "" : "—")),
        p.autoplay ? h("span", { class: "badge" }, t("auto {speed}×", { speed: p.autoplay })) : null);
    }));
}

function pot(pub) {
  if (!pub.committed.length) return null;
  return h("section", { class: "card pot", "aria-label": t("Pot") },
    h("h2", { class: "small-heading" }, tn("Pot: {n} card", "Pot: {n} cards", pub.pot_count)),
    h("div", { class: "pot-cards" }, pub.committed.map((c) => card(c))));
}

function last(pub, you) {
  const l = pub.last;
  if (!l) return null;
  const head = l.winner === null
    ? tn("Battle {battle}: nobody won; {n} card stays in the pot.", "Battle {battle}: nobody won; {n} cards stay in the pot.", l.count, { battle: l.battle })
    : l.winner === you ? tn("Battle {battle}: you won {n} card.", "Battle {battle}: you won {n} cards.", l.count, { battle: l.battle })
      : tn("Battle {battle}: {name} won {n} card.", "Battle {battle}: {name} won {n} cards.", l.count, { battle: l.battle, name: nameOf(pub, l.winner) });
  const isNew = fresh(`last|${l.battle}|${l.winner}|${l.count}`);
  return h("section", { class: "card last-battle" + isNew + (l.winner === you ? " you-won" : ""), "aria-label": t("Last battle") },
    h("h2", { class: "small-heading" }, head),
    h("div", { class: "deciding-row" }, l.deciding.map((d) => h("span", { class: "deciding" + (d.seat === you ? " mine" : "") },
      h("span", { class: "visually-hidden" }, `${nameOf(pub, d.seat)}: `),
      card(d.card, d.seat === l.winner ? "winner" : ""),
      h("span", { class: "muted deciding-name" }, d.seat === you ? t("you") : nameOf(pub, d.seat))))));
}

// A toggles auto-play (off, or on at speed 1); Alt+1/2/4 pick a speed.
function shortcut(action, current) {
  if (action.speed === 0) return "A";
  if (action.speed === 1 && !current) return "A Alt+1";
  return `Alt+${action.speed}`;
}

// A refused move is said next to the control that sent it (for a few seconds).
const refusal = keyboard.refusal;

function controls(payload, ctx) {
  const pub = payload.view.public;
  const mine = payload.view.private;
  if (pub.result || payload.status === "ended") return null; // nothing invites more play
  const reveal = keyboard.listed(payload, "reveal");
  const deck = h("button", {
    type: "button", class: "deck-button", disabled: !reveal, dataset: { focusKey: "deck" },
    "aria-keyshortcuts": "Space Enter", onclick: () => reveal && refusal.send(ctx, reveal),
  }, h("span", {}, reveal ? reveal.label
    : mine.eliminated ? t("You are out of the game") : payload.paused ? t("Paused by the teacher")
      : mine.held ? t("Your play is paused") : t("Waiting for the others…")),
  h("small", {}, mine.eliminated ? "" : tn("{n} card in your deck", "{n} cards in your deck", mine.cards)));
  const autoActions = payload.actions.filter((a) => a.type === "autoplay");
  const autoRow = !autoActions.length ? null : h("div", { class: "war-auto", role: "group", "aria-label": t("Auto-play") },
    h("p", { class: "war-auto-state" }, mine.autoplay ? t("Auto-play is on (speed {speed})", { speed: mine.autoplay }) : t("Auto-play is off")),
    h("div", { class: "war-auto-buttons" }, autoActions.map((a) => h("button", {
      type: "button", class: "small", dataset: { focusKey: `auto${a.speed}` },
      "aria-keyshortcuts": shortcut(a, mine.autoplay),
      onclick: () => refusal.send(ctx, a),
    }, a.label))));
  const inPlay = mine.in_play && mine.in_play.length
    ? h("div", { class: "in-play" }, h("span", {}, t("Your cards in play: ")), mine.in_play.map((c) => card(c))) : null;
  const keys = payload.actions.length
    ? h("p", { class: "muted keys-hint" }, t("Keys: Space or Enter reveals · A toggles auto-play · P pauses · ? lists every key")) : null;
  const error = h("p", { class: "error act-error", role: "alert" }, refusal.text());
  // The deck last: at the bottom of the phone, under the thumb (app.css .thumb-zone).
  return h("section", { class: "card war-controls thumb-zone", "aria-label": t("Your deck") }, inPlay, error,
    wager.controls(payload, ctx, refusal.send), autoRow, keyboard.controlRow(payload, ctx), deck, keys);
}

export function render(root, payload, ctx) {
  if (payload.view.public.run && !ctx.inRun) return run.render(root, payload, ctx, (r, p, c) => render(r, p, { ...c, inRun: true }));
  const pub = payload.view.public;
  const you = payload.seat;
  const player = ctx.role === "player";
  const board = ctx.role === "board";
  // payload.log holds only the entries new since the last view; ctx.log() has them all.
  const entries = logOf(payload, ctx);
  marks.begin();
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
    body = [head, wager.panel(payload, ctx), last(pub, you), seats(pub, you), pot(pub), shared.logList(entries, 8), controls(payload, ctx)];
    if (pub.powers) body = powers.phoneBody(body, payload, ctx, refusal.send, () => render(root, payload, ctx));
  } else if (board) {
    body = [head, h("div", { class: "war-table" },
        seats(pub, you),
      h("div", { class: "war-side" }, wager.panel(payload, ctx), pub.powers ? powers.board(payload) : null,
        last(pub, you), pot(pub), shared.logList(entries, 4)))];
  } else {
    body = [head, wager.panel(payload, ctx), seats(pub, you), pub.powers ? powers.board(payload) : null, pot(pub),
      last(pub, you), shared.logList(entries, 10),
      payload.players && shared.playerList ? shared.playerList(payload.players) : null];
  }
  preserveFocus(root, () => replace(root, h("div", { class: `war-game game-view war-${ctx.role} stage-${stage}` }, body)));
  marks.end();
}

// The end screen's scores (table.js endScreen) count cards, or points in a points match.
export const scoreText = (n, payload) => {
  if (payload && payload.view && payload.view.public && payload.view.public.run) return run.scoreText(n);
  if (wager.active(payload)) return wager.scoreText(n);
  const length = payload && payload.view && payload.view.public && payload.view.public.length;
  return length && length.kind === "points" ? tn("{n} point", "{n} points", n) : tn("{n} card", "{n} cards", n);
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
  if (powers.onKey(event, payload, ctx, refusal.send)) return true;   // Power War: 1-5 select, E uses
  if (wager.onKey(event, payload, ctx)) return true;
  return keyboard.onKey(event, payload, ctx);
}
