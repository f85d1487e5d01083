// Power War's controls and board panel, imported by war.js (one hook line each).
//
// view.public.powers:  {phase, energy_max, seats: [{seat, energy, ready, chosen, loadout:
//                      [{power, name, charges, ready_in}], doubles_raise}], used, last,
//                      window: {seats, decided} | null, ranks, unavailable, catalogue}
// view.private.powers: {energy, draft, ready, chosen, scout, powers: [{power, name, cost,
//                      charges, ready_in, why_not}], counter_window}
// Every control sends one of payload.actions, exactly as listed.
import { h } from "/static/js/dom.js";
import { CARD_FACE, nameOf } from "/static/js/kit.js";
import { countdown } from "/static/js/countdown.js";
import { kindIcon } from "/static/games/war/icons.js"; // a power's icon beside its name
import { lang, t, tn } from "/static/js/i18n.js";

let selected = 0;   // the phone's selected power (index into the loadout), keys 1-5

// Where a power's name may break on a narrow power button (soft hyphens).
const SOFT = { recovery: "Recov\u00ADery", counter: "Coun\u00ADter", tiebreaker: "Tie\u00ADbreaker",
  momentum: "Mo\u00ADmen\u00ADtum", salvage: "Sal\u00ADvage", redraw: "Re\u00ADdraw", mirror: "Mir\u00ADror" };
const STEP = { 1: t("defense"), 2: t("counter"), 3: t("rank change"), 4: t("replacement"), 5: t("battle modifier"), 6: t("post-win") };
const STATUS = { chosen: t("chosen"), armed: t("set"), resolved: t("done"), canceled: t("cancelled"), no_effect: t("no effect") };

function info(pub, id) {
  return (pub.powers.catalogue || []).find((p) => p.power === id) || { name: id, description: "" };
}

function numbers(p) {
  return t("{cost} energy", { cost: p.cost }) + " · " + tn("{n} use", "{n} uses", p.charges) + " · "
    + t("cooldown {n}", { n: p.cooldown });
}

function energyMeter(value, max) {
  return h("div", { class: "pw-energy" },
    h("label", { class: "pw-energy-label" }, t("Your energy") + " ", h("strong", {}, `${value} / ${max}`)),
    h("meter", { min: 0, max, value, "aria-label": t("Your energy {value} of {max}", { value, max }) }));
}

function entryText(pub, e, you) {
  const fields = { name: e.seat === you ? t("You") : nameOf(pub, e.seat), power: e.name,
    target: nameOf(pub, e.target), aim: info(pub, e.aim).name };
  if (e.power === "counter" && e.target !== null) return t("{name}: {power} on {target}'s {aim}", fields);
  if (e.target !== null && e.target !== undefined) {
    return e.target === you ? t("{name}: {power} on you", fields) : t("{name}: {power} on {target}", fields);
  }
  return t("{name}: {power}", fields);
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

// The loadout deadline of the last player choosing (the view's powers.clock_key), counted
// down by the shared clock (countdown.js) on that player's phone, the others' and the board.
function loadoutClock(payload, you = null) {
  const pub = payload.view.public;
  const pw = pub.powers;
  if (pw.phase !== "loadout" || !pw.clock_key) return null;
  if (pw.clock_seat === you) {
    return countdown(payload, pw.clock_key, { label: t("Time left to choose:"), name: t("Time left to choose your powers"), cls: "pw-clock" });
  }
  const who = nameOf(pub, pw.clock_seat);
  return countdown(payload, pw.clock_key, { label: t("{name}'s time to choose:", { name: who }), name: t("{name}'s time to choose powers", { name: who }), cls: "pw-clock" });
}

// ------------------------------------------------------------------ phone

function loadoutPicker(payload, send, ctx) {
  const pub = payload.view.public;
  const mine = payload.view.private.powers;
  const waiting = pub.waiting_for.filter((s) => s !== payload.seat).map((s) => nameOf(pub, s));
  if (mine.ready) {
    return h("section", { class: "card pw-loadout", "aria-label": t("Your powers") },
      h("h2", { class: "small-heading" }, t("You are ready")),
      h("p", { "aria-live": "polite" }, waiting.length ? t("Waiting for {names} to choose.", { names: waiting.join(", ") }) : t("The battles are about to begin.")),
      loadoutClock(payload, payload.seat));
  }
  const toggles = new Map(payload.actions.filter((a) => a.type === "loadout" && !a.ready)
    .map((a) => [a.powers.length > mine.draft.length ? a.powers[a.powers.length - 1] : mine.draft.find((x) => !a.powers.includes(x)), a]));
  const readyMine = mine.draft.length > 0 && payload.actions.find((a) => a.type === "loadout" && a.ready
    && a.powers.length === mine.draft.length && a.powers.every((x, i) => x === mine.draft[i]));
  const deadline = payload.actions.find((a) => a.type === "loadout" && a.ready && !a.powers.length);
  const suggested = payload.actions.filter((a) => a.type === "loadout" && a.ready && a !== readyMine && a !== deadline);
  return h("section", { class: "card pw-loadout", "aria-label": t("Choose your powers") },
    h("h2", { class: "small-heading" }, t("Choose up to 5 powers ({n} chosen)", { n: mine.draft.length })),
    h("p", { class: "muted" }, t("You start with {energy} energy and gain {gain} each battle (at most {max}).", { energy: mine.energy, gain: pub.powers.energy_per_battle, max: pub.powers.energy_max })),
    h("details", { class: "pw-suggested", open: mine.draft.length === 0 },
      h("summary", {}, t("Suggested loadouts (tap one to be ready at once)")),
      h("div", { class: "pw-suggest-buttons" }, suggested.map((a) => h("button", {
        type: "button", class: "small", dataset: { focusKey: `pw-suggest-${a.powers.join("-")}` },
        onclick: () => send(ctx, a) }, a.label)))),
    mine.pool ? h("p", { class: "muted pw-pool" }, t("This run has unlocked {n} of {total} powers: clear tables to unlock more.", { n: mine.pool.length, total: pub.powers.catalogue.length })) : null,
    h("ul", { class: "pw-picker", role: "list", "aria-label": t("Powers") }, pub.powers.catalogue.filter((p) => !mine.pool || mine.pool.includes(p.power)).map((p) => {
      const on = mine.draft.includes(p.power);
      const action = toggles.get(p.power);
      return h("li", {},
        h("button", {
          type: "button", class: `${CARD_FACE} pw-pick` + (on ? " on" : ""), "aria-pressed": on ? "true" : "false",
          disabled: !action, dataset: { focusKey: `pick-${p.power}` }, onclick: () => action && send(ctx, action),
        }, h("span", { class: "pw-name" }, kindIcon(p.power), p.name), h("span", { class: "pw-numbers" }, numbers(p)),
        h("span", { class: "pw-desc" }, p.description)));
    })),
    h("div", { class: "pw-ready-row thumb-zone" },
      loadoutClock(payload, payload.seat),
      deadline ? h("p", { class: "pw-deadline", role: "status" }, mine.draft.length ? t("Everyone else is ready: tap Ready soon. When the time is up you play with the powers you picked.")
        : mine.pool ? t("Everyone else is ready: tap Ready soon. When the time is up you play with a loadout of your unlocked powers.")
          : t("Everyone else is ready: tap Ready soon. When the time is up you play with the Balanced loadout.")) : null,
      readyMine ? h("button", { type: "button", class: "primary pw-ready", dataset: { focusKey: "pw-ready" }, onclick: () => send(ctx, readyMine) },
        t("Ready with these {n}", { n: mine.draft.length })) : h("p", { class: "muted" }, t("Pick powers above, or tap a suggested loadout."))));
}

function activations(payload, power) {
  return payload.actions.filter((a) => (a.type === "activate" || a.type === "deactivate") && a.power === power);
}

function counterWindow(payload, send, ctx) {
  const pub = payload.view.public;
  const counters = payload.actions.filter((a) => a.type === "counter");
  const resolve = payload.actions.find((a) => a.type === "resolve");
  if (!resolve) return null;
  return h("section", { class: "card pw-window", "aria-label": t("Counter window") },
    h("h2", { class: "small-heading" }, t("Counter window")),
    h("p", { "aria-live": "assertive" }, counters.length ? t("Cancel one opposing power, or resolve the battle.")
      : t("You cannot counter anything now: resolve the battle.")),
    entryList(pub, pub.powers.used.filter((e) => e.stage === (pub.stage === "battle" ? 0 : pub.stage)), payload.seat, t("Powers used this round")),
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
    const state = chosen.has(p.power) ? t("chosen") : !ready ? (p.charges ? t("cooldown {n}", { n: p.ready_in }) : t("used up")) : "";
    return h("button", {
      type: "button", class: `${CARD_FACE} pw-power` + (i === selected ? " selected" : "") + (chosen.has(p.power) ? " chosen" : ""),
      "aria-pressed": i === selected ? "true" : "false", "aria-keyshortcuts": String(i + 1),
      dataset: { focusKey: `power-${p.power}` }, onclick: () => { selected = i; rerender(); },
      title: info(pub, p.power).description,
    }, h("span", { class: "pw-key", "aria-hidden": "true" }, String(i + 1)),
    kindIcon(p.power), h("span", { class: "pw-name" }, (lang() === "en" && SOFT[p.power]) || p.name),
    h("span", { class: "pw-numbers" }, `${p.cost}⚡ · ` + t("{n} left", { n: p.charges })),
    state ? h("span", { class: "pw-badge" }, state) : null);
  });
  const why = current.why_not && !chosen.has(current.power) ? current.why_not : "";
  return h("section", { class: "card pw-panel", "aria-label": t("Your powers") },
    energyMeter(mine.energy, pub.powers.energy_max),
    mine.scout ? h("p", { class: "pw-scout", "aria-live": "polite" }, t("Scout (only you see this): your next card is the {card}.", { card: mine.scout.name })) : null,
    h("div", { class: "pw-powers", role: "group", "aria-label": t("Powers: keys 1 to 5 select") }, buttons),
    h("div", { class: "pw-selected" },
      h("p", { class: "pw-desc" }, kindIcon(current.power), h("strong", {}, current.name + ": "), info(pub, current.power).description),
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
    return h("section", { class: "card pw-board", "aria-label": t("Powers") },
      h("h2", { class: "small-heading" }, t("Choosing powers")),
      loadoutClock(payload),
      h("ul", { class: "pw-board-rows", role: "list" }, pw.seats.map((s) => h("li", {},
        h("span", { class: "pw-board-name" }, nameOf(pub, s.seat)),
        h("span", { class: "pw-board-val" }, s.ready ? t("ready") : t("choosing…"))))));
  }
  // This battle's powers once any are shown, else the last battle's: in resolution order.
  const now = pw.used.length > 0 || pw.seats.some((s) => s.chosen);
  const entries = now ? pw.used : pw.last;
  const order = new Map(entries.map((e, i) => [e, i + 1]));
  return h("section", { class: "card pw-board", "aria-label": t("Powers") },
    h("h2", { class: "small-heading" }, now ? t("Energy · powers this battle") : pw.last.length
      ? t("Energy · last battle's powers") : t("Energy")),
    h("ul", { class: "pw-board-rows", role: "list" }, pub.players.map((p) => {
      const s = pw.seats[p.seat];
      const mine = entries.filter((e) => e.seat === p.seat);
      return h("li", { class: p.eliminated ? "out" : "" },
        h("span", { class: "pw-board-name" }, p.name),
        h("span", { class: "pw-board-val", "aria-label": t("{cost} energy", { cost: s.energy }) }, `${s.energy}⚡`),
        mine.map((e) => h("span", { class: `${CARD_FACE} pw-chip pw-status-${e.status}` },
          h("span", { class: "pw-order" }, `${order.get(e)}`), kindIcon(e.power), ` ${e.name}`,
          e.power === "counter" && e.target !== null ? " " + t("{target}'s {aim}", { target: nameOf(pub, e.target), aim: info(pub, e.aim).name })
            : e.target !== null ? ` → ${nameOf(pub, e.target)}` : "",
          e.status === "chosen" ? "" : ` · ${STATUS[e.status] || e.status}`)),
        now && s.chosen ? h("span", { class: "pw-chip hidden-choice" }, t("{n} hidden", { n: s.chosen })) : null,
        s.doubles_raise ? h("span", { class: "pw-badge" }, t("raise ×2")) : null);
    })),
    pw.window ? h("p", { class: "pw-board-window", "aria-live": "polite" },
      t("Counter window: {n} of {total} decided", { n: pw.window.decided, total: pw.window.seats.length })) : null,
    pw.unavailable.length ? h("p", { class: "muted" }, t("Sudden death: no Shield, Recovery or Scout.")) : null);
}

// ------------------------------------------------------------------ keys

export function keys(payload) {
  if (!payload || !payload.view || !payload.view.public.powers) return [];
  return [[t("1 to 5"), t("Select a power")],
    ["E", t("Use (or take back) the selected power; one aimed at an opponent goes to the highest card showing")]];
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
