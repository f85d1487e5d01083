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
import { seatName } from "/static/js/kit.js";
import { t, tn } from "/static/js/i18n.js";

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

const chips = (n) => tn("{n} chip", "{n} chips", n);

// What the bet stands at, in words: who raised, who must answer.
function betLine(pub, you) {
  const b = pub.wager.betting;
  if (!b) return null;
  const fields = { name: seatName(pub, b.turn), stake: chips(b.to_call) };
  let raise = t("No raise yet");
  if (b.raise) {
    const said = { name: seatName(pub, b.raise.seat), stake: chips(b.raise.amount) };
    if (b.raise.seat === you) {
      raise = b.raise.double ? t("You raised to {stake} with Double Stakes", said) : t("You raised to {stake}", said);
    } else {
      raise = b.raise.double ? t("{name} raised to {stake} with Double Stakes", said) : t("{name} raised to {stake}", said);
    }
  }
  let turn;
  if (b.turn === you) {
    turn = b.raise ? t("It is your turn to bet: call {stake} or fold.", fields)
      : b.cap ? t("It is your turn to bet: check, raise or fold.") : t("It is your turn to bet: check or fold (nobody can raise).");
  } else {
    turn = b.raise ? t("It is {name}'s turn to bet: call {stake} or fold.", fields)
      : b.cap ? t("It is {name}'s turn to bet: check, raise or fold.", fields)
        : t("It is {name}'s turn to bet: check or fold (nobody can raise).", fields);
  }
  return { raise, turn };
}

// One seat's chips and betting state, under its name (war.js seats()).
export function seatStat(pub, seat) {
  const w = pub.wager;
  if (!w) return null;
  const b = w.betting;
  let state = "";
  if (b && b.turn === seat) state = t("betting…");
  else if (w.folded.includes(seat)) state = t("folded");
  else if (b && b.raise && b.raise.seat === seat) state = t("raised {amount}", { amount: b.raise.amount });
  else if (b && b.answered.includes(seat)) state = b.raise ? t("called") : t("checked");
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
  return h("section", { class: "card wager-panel" + (w.betting ? " betting" : ""), "aria-label": t("Chips") },
    h("div", { class: "wager-pot" },
      h("span", { class: "wager-pot-label" }, t("Chip pot")),
      h("strong", { class: "wager-pot-amount" }, chips(w.pot)),
      mine !== null && ctx.role === "player"
        ? h("span", { class: "wager-mine" }, t("You: {stake}", { stake: chips(mine) })
          + (w.stakes[you] ? " · " + t("Double Stakes ready") : "") + (w.doubled[you] ? " · " + t("Double Stakes on") : ""))
        : null),
    line
      ? h("div", { class: "wager-bet", role: "status" },
        h("p", { class: "wager-raise" }, line.raise),
        h("p", { class: "wager-turn" }, line.turn))
      : h("p", { class: "wager-note" }, t("Everyone antes {ante} chips each battle · raises of {amount} in a war", { ante: w.ante, amount: w.raise_amount })));
}

// The phone's betting buttons (in war.js's controls, in thumb reach).
export function controls(payload, ctx, send) {
  if (!active(payload)) return null;
  const bets = payload.actions.filter((a) => BETS.includes(a.type));
  if (!bets.length) return null;
  style();
  const key = { check: "C", call: "C", fold: "F" };
  return h("div", { class: "wager-buttons", role: "group", "aria-label": t("Your bet") },
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
  return active(payload) ? [["C", t("Call a raise, or check, in a war")], ["F", t("Fold: leave the war")]] : [];
}

// The end screen's scores are the chips each player ends with.
export function scoreText(n) {
  return chips(n);
}
