// Wager Battle's part of War's page (modes `wager` and `power_wager`): every
// player's chips, the chip pot, and during a war stage's betting whose turn it
// is, the raise to answer and (on that player's phone) Check/Call/Raise/Fold
// with their amounts. war.js calls in here; without `view.public.wager`
// (Classic and the other modes) every function draws nothing.
//
// view.public.wager: {chips: [per seat], pot, paid: [per seat], ante, raise_amount,
//   stakes: [Double Stakes left], doubled: [per seat], folded: [seats],
//   betting: null | {order, turn, in, raise: null | {seat, amount, double},
//                    to_call, cap, moves, answered}, level}
import { h } from "/static/js/dom.js";

const BETS = ["check", "call", "raise", "fold"];
let styled = false;

function wagerOf(payload) {
  return payload && payload.view && payload.view.public && payload.view.public.wager;
}

export function active(payload) {
  return Boolean(wagerOf(payload));
}

function style() {
  if (styled) return;
  styled = true;
  document.head.append(h("link", { rel: "stylesheet", href: "/static/games/war/wager.css" }));
}

function chips(n) {
  return `${n} chip${n === 1 ? "" : "s"}`;
}

function nameOf(pub, seat, you) {
  if (seat === you) return "you";
  const p = pub.players.find((x) => x.seat === seat);
  return p ? p.name : `Seat ${seat + 1}`;
}

function Name(pub, seat, you) {
  const n = nameOf(pub, seat, you);
  return n === "you" ? "You" : n;
}

// What the bet stands at, in words: who raised, who must answer.
function betLine(pub, you) {
  const b = pub.wager.betting;
  if (!b) return null;
  const turn = b.turn === you ? "your" : `${nameOf(pub, b.turn, you)}'s`;
  const raise = b.raise
    ? `${Name(pub, b.raise.seat, you)} raised to ${chips(b.raise.amount)}${b.raise.double ? " with Double Stakes" : ""}`
    : "No raise yet";
  const answer = b.raise ? `call ${chips(b.to_call)} or fold` : b.cap ? "check, raise or fold" : "check or fold (nobody can raise)";
  return { raise, turn: `It is ${turn} turn to bet: ${answer}.` };
}

// One seat's chips and betting state, under its name (war.js seats()).
export function seatStat(pub, seat) {
  const w = pub.wager;
  if (!w) return null;
  const b = w.betting;
  let state = "";
  if (b && b.turn === seat) state = "betting…";
  else if (w.folded.includes(seat)) state = "folded";
  else if (b && b.raise && b.raise.seat === seat) state = `raised ${b.raise.amount}`;
  else if (b && b.answered.includes(seat)) state = b.raise ? "called" : "checked";
  return h("p", { class: "wager-seat" + (b && b.turn === seat ? " betting" : "") },
    h("span", { class: "wager-chips" }, chips(w.chips[seat])),
    state ? h("span", { class: "wager-state" }, ` · ${state}`) : null);
}

// The chip pot and the betting: the board's panel, and the phone's above the table.
export function panel(payload, ctx) {
  const pub = payload.view.public;
  const w = pub.wager;
  if (!w || pub.result) return null;
  style();
  const you = payload.seat;
  const line = betLine(pub, you);
  const mine = typeof you === "number" && pub.players[you] ? w.chips[you] : null;
  return h("section", { class: "card wager-panel" + (w.betting ? " betting" : ""), "aria-label": "Chips" },
    h("div", { class: "wager-pot" },
      h("span", { class: "wager-pot-label" }, "Chip pot"),
      h("strong", { class: "wager-pot-amount" }, chips(w.pot)),
      mine !== null && ctx.role === "player"
        ? h("span", { class: "wager-mine" }, `You: ${chips(mine)}`
          + (w.stakes[you] ? " · Double Stakes ready" : "") + (w.doubled[you] ? " · Double Stakes on" : ""))
        : null),
    line
      ? h("div", { class: "wager-bet", role: "status" },
        h("p", { class: "wager-raise" }, line.raise),
        h("p", { class: "wager-turn" }, line.turn))
      : h("p", { class: "wager-note" }, `Everyone antes ${w.ante} chips each battle · raises of ${w.raise_amount} in a war`));
}

// The phone's betting buttons (in war.js's controls, in thumb reach).
export function controls(payload, ctx, send) {
  if (!active(payload)) return null;
  const bets = payload.actions.filter((a) => BETS.includes(a.type));
  if (!bets.length) return null;
  style();
  const key = { check: "C", call: "C", fold: "F" };
  return h("div", { class: "wager-buttons", role: "group", "aria-label": "Your bet" },
    bets.map((a, i) => h("button", {
      type: "button", class: "wager-" + a.type + (a.type === "fold" ? "" : " primary"),
      dataset: { focusKey: `bet-${a.type}-${i}` }, "aria-keyshortcuts": key[a.type] || null,
      onclick: () => send(ctx, a),
    }, a.label, key[a.type] ? h("kbd", {}, key[a.type]) : null)));
}

// C calls (or checks), F folds: war.js's onKey asks here first.
export function onKey(event, payload, ctx) {
  if (!active(payload) || event.altKey || event.ctrlKey || event.metaKey) return false;
  const k = event.key.toLowerCase();
  if (k !== "c" && k !== "f") return false;
  const action = payload.actions.find((a) => (k === "f" ? a.type === "fold" : a.type === "call" || a.type === "check"));
  if (action) ctx.act(action);
  return Boolean(action);
}

export function keys(payload) {
  return active(payload) ? [["C", "Call a raise, or check, in a war"], ["F", "Fold: leave the war"]] : [];
}

// The end screen's scores are the chips each player ends with.
export function scoreText(n) {
  return chips(n);
}
