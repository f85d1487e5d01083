// Power War's controls and board panel, imported by war.js (one hook line each).
//
// view.public.powers:  {phase, energy_max, seats: [{seat, energy, ready, chosen, loadout:
//                      [{power, name, charges, ready_in}], doubles_raise}], used, last,
//                      window: {seats, decided} | null, ranks, unavailable, catalogue}
// view.private.powers: {energy, draft, ready, chosen, scout, powers: [{power, name, cost,
//                      charges, ready_in, why_not}], counter_window}
// Every control sends one of payload.actions, exactly as listed.
import { h } from "/static/js/dom.js";

let selected = 0;   // the phone's selected power (index into the loadout), keys 1-5

// Where a power's name may break on a narrow power button (soft hyphens).
const SOFT = { recovery: "Recov\u00ADery", counter: "Coun\u00ADter", tiebreaker: "Tie\u00ADbreaker",
  momentum: "Mo\u00ADmen\u00ADtum", salvage: "Sal\u00ADvage", redraw: "Re\u00ADdraw", mirror: "Mir\u00ADror" };
const STEP = { 1: "defense", 2: "counter", 3: "rank change", 4: "replacement", 5: "battle modifier", 6: "post-win" };
const STATUS = { chosen: "chosen", armed: "set", resolved: "done", canceled: "cancelled", no_effect: "no effect" };

function nameOf(pub, seat) {
  const p = pub.players.find((x) => x.seat === seat);
  return p ? p.name : `Seat ${seat + 1}`;
}

function info(pub, id) {
  return (pub.powers.catalogue || []).find((p) => p.power === id) || { name: id, description: "" };
}

function numbers(p) {
  return `${p.cost} energy · ${p.charges} use${p.charges === 1 ? "" : "s"} · cooldown ${p.cooldown}`;
}

function energyMeter(value, max, who) {
  return h("div", { class: "pw-energy" },
    h("label", { class: "pw-energy-label" }, `${who}energy `, h("strong", {}, `${value} / ${max}`)),
    h("meter", { min: 0, max, value, "aria-label": `${who}energy ${value} of ${max}` }));
}

function entryText(pub, e, you) {
  const who = e.seat === you ? "You" : nameOf(pub, e.seat);
  let text = `${who}: ${e.name}`;
  if (e.power === "counter" && e.target !== null) text += ` on ${nameOf(pub, e.target)}'s ${info(pub, e.aim).name}`;
  else if (e.target !== null && e.target !== undefined) text += ` on ${e.target === you ? "you" : nameOf(pub, e.target)}`;
  return text;
}

function entryList(pub, entries, you, heading) {
  if (!entries.length) return null;
  return h("div", { class: "pw-used" },
    h("h3", { class: "small-heading" }, heading),
    h("ol", { class: "pw-used-list" }, entries.map((e) => h("li", { class: `pw-status-${e.status}` },
      entryText(pub, e, you),
      e.step ? h("span", { class: "muted" }, ` (${STEP[e.step]})`) : null,
      h("span", { class: "pw-badge" }, STATUS[e.status] || e.status)))));
}

// ------------------------------------------------------------------ phone

function loadoutPicker(payload, send, ctx) {
  const pub = payload.view.public;
  const mine = payload.view.private.powers;
  const waiting = pub.waiting_for.filter((s) => s !== payload.seat).map((s) => nameOf(pub, s));
  if (mine.ready) {
    return h("section", { class: "card pw-loadout", "aria-label": "Your powers" },
      h("h2", { class: "small-heading" }, "You are ready"),
      h("p", { "aria-live": "polite" }, waiting.length ? `Waiting for ${waiting.join(", ")} to choose.` : "The battles are about to begin."));
  }
  const toggles = new Map(payload.actions.filter((a) => a.type === "loadout" && !a.ready)
    .map((a) => [a.powers.length > mine.draft.length ? a.powers[a.powers.length - 1] : mine.draft.find((x) => !a.powers.includes(x)), a]));
  const readyMine = mine.draft.length > 0 && payload.actions.find((a) => a.type === "loadout" && a.ready
    && a.powers.length === mine.draft.length && a.powers.every((x, i) => x === mine.draft[i]));
  const deadline = payload.actions.find((a) => a.type === "loadout" && a.ready && !a.powers.length);
  const suggested = payload.actions.filter((a) => a.type === "loadout" && a.ready && a !== readyMine && a !== deadline);
  return h("section", { class: "card pw-loadout", "aria-label": "Choose your powers" },
    h("h2", { class: "small-heading" }, `Choose up to 5 powers (${mine.draft.length} chosen)`),
    h("p", { class: "muted" }, `You start with ${mine.energy} energy and gain ${pub.powers.energy_per_battle} each battle (at most ${pub.powers.energy_max}).`),
    h("details", { class: "pw-suggested", open: mine.draft.length === 0 },
      h("summary", {}, "Suggested loadouts (tap one to be ready at once)"),
      h("div", { class: "pw-suggest-buttons" }, suggested.map((a) => h("button", {
        type: "button", class: "small", dataset: { focusKey: `pw-suggest-${a.powers.join("-")}` },
        onclick: () => send(ctx, a) }, a.label)))),
    mine.pool ? h("p", { class: "muted pw-pool" }, `This run has unlocked ${mine.pool.length} of ${pub.powers.catalogue.length} powers: clear tables to unlock more.`) : null,
    h("ul", { class: "pw-picker", role: "list", "aria-label": "Powers" }, pub.powers.catalogue.filter((p) => !mine.pool || mine.pool.includes(p.power)).map((p) => {
      const on = mine.draft.includes(p.power);
      const action = toggles.get(p.power);
      return h("li", {},
        h("button", {
          type: "button", class: "pw-pick" + (on ? " on" : ""), "aria-pressed": on ? "true" : "false",
          disabled: !action, dataset: { focusKey: `pick-${p.power}` }, onclick: () => action && send(ctx, action),
        }, h("span", { class: "pw-name" }, p.name), h("span", { class: "pw-numbers" }, numbers(p)),
        h("span", { class: "pw-desc" }, p.description)));
    })),
    h("div", { class: "pw-ready-row thumb-zone" },
      deadline ? h("p", { class: "pw-deadline", role: "status" }, "Everyone else is ready: tap Ready soon. After 30 seconds you play with ",
        mine.draft.length ? "the powers you picked." : mine.pool ? "a loadout of your unlocked powers." : "the Balanced loadout.") : null,
      readyMine ? h("button", { type: "button", class: "primary pw-ready", dataset: { focusKey: "pw-ready" }, onclick: () => send(ctx, readyMine) },
        `Ready with these ${mine.draft.length}`) : h("p", { class: "muted" }, "Pick powers above, or tap a suggested loadout.")));
}

function activations(payload, power) {
  return payload.actions.filter((a) => (a.type === "activate" || a.type === "deactivate") && a.power === power);
}

function counterWindow(payload, send, ctx) {
  const pub = payload.view.public;
  const counters = payload.actions.filter((a) => a.type === "counter");
  const resolve = payload.actions.find((a) => a.type === "resolve");
  if (!resolve) return null;
  return h("section", { class: "card pw-window", "aria-label": "Counter window" },
    h("h2", { class: "small-heading" }, "Counter window"),
    h("p", { "aria-live": "assertive" }, counters.length ? "Cancel one opposing power, or resolve the battle."
      : "You cannot counter anything now: resolve the battle."),
    entryList(pub, pub.powers.used.filter((e) => e.stage === (pub.stage === "battle" ? 0 : pub.stage)), payload.seat, "Powers used this round"),
    h("div", { class: "pw-window-buttons" },
      counters.map((a) => h("button", { type: "button", class: "pw-counter", dataset: { focusKey: `counter-${a.seat}-${a.power}` },
        onclick: () => send(ctx, a) }, a.label)),
      h("button", { type: "button", class: "primary pw-resolve", dataset: { focusKey: "pw-resolve" }, onclick: () => send(ctx, resolve) },
        resolve.label)));
}

function powerPanel(payload, send, ctx) {
  const pub = payload.view.public;
  const mine = payload.view.private.powers;
  const list = mine.powers;
  if (!list.length) return null;
  if (selected >= list.length) selected = 0;
  const chosen = new Set(mine.chosen.map((c) => c.power));
  const current = list[selected];
  const moves = activations(payload, current.power);
  const buttons = list.map((p, i) => {
    const ready = p.ready_in === 0 && p.charges > 0;
    const state = chosen.has(p.power) ? "chosen" : !ready ? (p.charges ? `cooldown ${p.ready_in}` : "used up") : "";
    return h("button", {
      type: "button", class: "pw-power" + (i === selected ? " selected" : "") + (chosen.has(p.power) ? " chosen" : ""),
      "aria-pressed": i === selected ? "true" : "false", "aria-keyshortcuts": String(i + 1),
      dataset: { focusKey: `power-${p.power}` }, onclick: () => { selected = i; rerender(); },
      title: info(pub, p.power).description,
    }, h("span", { class: "pw-key", "aria-hidden": "true" }, String(i + 1)),
    h("span", { class: "pw-name" }, SOFT[p.power] || p.name),
    h("span", { class: "pw-numbers" }, `${p.cost}⚡ · ${p.charges} left`),
    state ? h("span", { class: "pw-badge" }, state) : null);
  });
  const why = current.why_not && !chosen.has(current.power) ? current.why_not : "";
  return h("section", { class: "card pw-panel", "aria-label": "Your powers" },
    energyMeter(mine.energy, pub.powers.energy_max, "Your "),
    mine.scout ? h("p", { class: "pw-scout", "aria-live": "polite" }, "Scout (only you see this): your next card is the ",
      h("strong", {}, mine.scout.name), ".") : null,
    h("div", { class: "pw-powers", role: "group", "aria-label": "Powers: keys 1 to 5 select" }, buttons),
    h("div", { class: "pw-selected" },
      h("p", { class: "pw-desc" }, h("strong", {}, current.name + ": "), info(pub, current.power).description),
      h("div", { class: "pw-activate" }, moves.map((a) => h("button", {
        type: "button", class: a.type === "activate" ? "primary" : "", "aria-keyshortcuts": moves.length === 1 ? "E" : null,
        dataset: { focusKey: `act-${a.type}-${a.power}-${a.target}` }, onclick: () => send(ctx, a),
      }, a.label)),
      !moves.length && why ? h("p", { class: "muted" }, why) : null)));
}

let rerenderHook = null;
function rerender() { if (rerenderHook) rerenderHook(); }

// The phone's page with Power War's sections. `body` is war.js's phone page:
// [head, wager panel, last battle, seats, pot, log, controls (the deck, at the bottom)].
// Before the match the loadout picker takes the place of the last battle, the pot
// and the deck (nothing can be revealed yet); during it, the counter window and
// the power buttons sit under the last battle, above the seats, in view.
export function phoneBody(body, payload, ctx, send, redraw) {
  const pub = payload.view.public;
  const mine = payload.view.private && payload.view.private.powers;
  if (!pub.powers || !mine || payload.view.private.eliminated || pub.result) return body;
  rerenderHook = redraw || null;
  // war.js's phone page is [head, wager panel, last, seats, pot, log, controls] (the
  // wager panel is null outside power_wager).
  const [head, chips, last, seats, pot, log, controls] = body;
  if (pub.powers.phase === "loadout") return [head, loadoutPicker(payload, send, ctx), chips, seats, log];
  // In a counter window nothing can be revealed: its buttons take the deck's place, at the top.
  if (mine.counter_window) return [head, counterWindow(payload, send, ctx), chips, seats, pot, last, log];
  return [head, chips, last, powerPanel(payload, send, ctx), seats, pot, log, controls];
}

// ------------------------------------------------------------------ board

export function board(payload) {
  const pub = payload.view.public;
  const pw = pub.powers;
  if (!pw) return null;
  if (pw.phase === "loadout") {
    return h("section", { class: "card pw-board", "aria-label": "Powers" },
      h("h2", { class: "small-heading" }, "Choosing powers"),
      h("ul", { class: "pw-board-rows", role: "list" }, pw.seats.map((s) => h("li", {},
        h("span", { class: "pw-board-name" }, nameOf(pub, s.seat)),
        h("span", { class: "pw-board-val" }, s.ready ? "ready" : "choosing…")))));
  }
  // This battle's powers once any are shown, else the last battle's: in resolution order.
  const now = pw.used.length > 0 || pw.seats.some((s) => s.chosen);
  const entries = now ? pw.used : pw.last;
  const order = new Map(entries.map((e, i) => [e, i + 1]));
  return h("section", { class: "card pw-board", "aria-label": "Powers" },
    h("h2", { class: "small-heading" }, now ? "Energy · powers this battle" : pw.last.length
      ? "Energy · last battle's powers" : "Energy"),
    h("ul", { class: "pw-board-rows", role: "list" }, pub.players.map((p) => {
      const s = pw.seats[p.seat];
      const mine = entries.filter((e) => e.seat === p.seat);
      return h("li", { class: p.eliminated ? "out" : "" },
        h("span", { class: "pw-board-name" }, p.name),
        h("span", { class: "pw-board-val", "aria-label": `${s.energy} energy` }, `${s.energy}⚡`),
        mine.map((e) => h("span", { class: `pw-chip pw-status-${e.status}` },
          h("span", { class: "pw-order" }, `${order.get(e)}`), ` ${e.name}`,
          e.power === "counter" && e.target !== null ? ` ${nameOf(pub, e.target)}'s ${info(pub, e.aim).name}`
            : e.target !== null ? ` → ${nameOf(pub, e.target)}` : "",
          e.status === "chosen" ? "" : ` · ${STATUS[e.status] || e.status}`)),
        now && s.chosen ? h("span", { class: "pw-chip hidden-choice" }, `${s.chosen} hidden`) : null,
        s.doubles_raise ? h("span", { class: "pw-badge" }, "raise ×2") : null);
    })),
    pw.window ? h("p", { class: "pw-board-window", "aria-live": "polite" },
      `Counter window: ${pw.window.decided} of ${pw.window.seats.length} decided`) : null,
    pw.unavailable.length ? h("p", { class: "muted" }, "Sudden death: no Shield, Recovery or Scout.") : null);
}

// ------------------------------------------------------------------ keys

export function keys(payload) {
  if (!payload || !payload.view || !payload.view.public.powers) return [];
  return [["1 to 5", "Select a power"],
    ["E", "Use (or take back) the selected power; one aimed at an opponent goes to the highest card showing"]];
}

// 1-5 select a power, E uses (or takes back) the selected one.
export function onKey(event, payload, ctx, send) {
  const pub = payload.view.public;
  const mine = payload.view.private && payload.view.private.powers;
  if (!pub.powers || !mine || pub.powers.phase !== "play" || event.altKey || event.ctrlKey || event.metaKey) return false;
  if (/^[1-5]$/.test(event.key)) {
    const i = Number(event.key) - 1;
    if (i < mine.powers.length) { selected = i; rerender(); }
    return true;
  }
  if (event.key === "e" || event.key === "E") {
    const current = mine.powers[selected];
    if (!current) return true;
    // With several targets, E aims at the opponent showing the highest card.
    const shown = new Map(pub.showing.map((x) => [x.seat, x.card.rank]));
    const moves = activations(payload, current.power)
      .sort((a, b) => (shown.get(b.target) || 0) - (shown.get(a.target) || 0));
    if (moves.length) send(ctx, moves[0]);
    return true;
  }
  return false;
}
