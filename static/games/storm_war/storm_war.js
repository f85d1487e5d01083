// Storm War: the phone (four tabs named by the rule sheet: Hand, Challenge,
// Jobsites, Table, and a bottom bar with the prompt and the next action in
// thumb reach) and the projected board (the Environment, every Jobsite, the
// Respond step and the last result on one screen). Every control sends exactly
// one of `payload.actions`; a refused move is said next to the controls.
//
// payload: {code, game, version, status, seat, view: {public, private, prompt},
//           actions (labelled), log, players, result, ...}
// ctx:     {role: "player" | "board" | "facilitator", act(action) -> ack, log()}
import { h, preserveFocus, replace } from "/static/js/dom.js";
import * as shared from "/static/js/table.js";
import { byType, CARD_FACE, fitRegion, freshMarks, logOf, measuring, nameOf, overflows, refusals, trimList } from "/static/js/kit.js";
import { t, tn } from "/static/js/i18n.js";
import { icon, kindIcon } from "/static/games/storm_war/icons.js"; // every icon, one per card kind

const RISKS = ["toxic", "erosion", "nutrient"];
const RISK_NAME = { toxic: t("Toxic"), erosion: t("Erosion"), nutrient: t("Nutrient") };
// The risks' initials, from their names in the page's language (T, E, N).
const RISK_SHORT = Object.fromEntries(RISKS.map((r) => [r, RISK_NAME[r].charAt(0).toUpperCase()]));
const TYPE_NAME = { bmp: t("BMP"), preventative: t("Preventative Action"), permanent_chaos: t("Permanent Chaos"), mentor: t("Mentor"),
  defender: t("Defender"), tool: t("Tool"), degrader: t("Degrader"), chaos: t("Chaos") };
const SECTIONS = [["bmp", t("BMPs")], ["chaos", t("Permanent Chaos")], ["mentor", t("Mentor")], ["tools", t("Tools")]];
const TABS = [["hand", t("Hand")], ["challenge", t("Challenge")], ["jobsites", t("Jobsites")], ["table", t("Table")]];
const HAND_TYPES = ["apply", "equip", "degrader", "shield", "upgrade", "play"];
const CHALLENGE_TYPES = ["challenge", "skip", "pass", "choose"];
const SITE_TYPES = ["donate", "sue"];

// ---- Small helpers ------------------------------------------------------------------
// "Your Jobsite" / "Ana's Jobsite", each a sentence of its own for the translations.
const jobsiteOf = (pub, seat, you) => (seat === you ? t("Your Jobsite") : t("{name}'s Jobsite", { name: nameOf(pub, seat) }));

// The risk a trainee faces: printed plus the Degrader, which its placer ignores.
function riskFor(pub, risk, seat) {
  const env = pub.environment;
  if (!env) return 0;
  const d = pub.degrader;
  const extra = d && d.by !== seat && d.risk ? d.risk[risk] || 0 : 0;
  return env.risks[risk] + extra;
}

function allCards(pub, seat) {
  const j = pub.players[seat].jobsite;
  return [...j.bmp, ...j.chaos, ...j.mentor, ...j.tools];
}
function cardById(pub, id) {
  for (const p of pub.players) {
    const found = allCards(pub, p.seat).find((c) => c.id === id);
    if (found) return found;
  }
  return null;
}

// Animate only what is new since the last render.
const marks = freshMarks();
const fresh = marks.fresh;

// ---- Sending: a refused move is said next to the controls, never silently dropped ----
const refusal = refusals(".sw", { ms: 6000 });

function actButton(action, send, text, { cls = "", key = null } = {}) {
  return h("button", { type: "button", class: `sw-btn ${cls}`.trim(), "aria-label": action.label || text,
    title: action.label || text, dataset: { focusKey: key || `${action.type}-${action.card || action.risk || ""}-${text}`, type: action.type },
    onclick: () => send(action) }, text);
}

// ---- Card faces ------------------------------------------------------------------------
// The three numbers, always Toxic, Erosion, Nutrient in their own colours.
function numbers(card, { board = false } = {}) {
  const values = card.defense || card.risk;
  if (!values || RISKS.every((r) => !values[r])) return null;
  const plus = card.risk && !card.defense ? "+" : "";
  return h("span", { class: "sw-nums", role: "img", "aria-label": RISKS.map((r) => `${RISK_NAME[r]} ${plus}${values[r] || 0}`).join(", ") },
    RISKS.map((r) => h("span", { class: `sw-n sw-${r}`, "aria-hidden": "true" }, board ? String(values[r] || 0)
      : [h("span", { class: "sw-n-l" }, RISK_SHORT[r]), `${plus}${values[r] || 0}`])));
}

// A compact card: its type's colour, its name and its numbers (Jobsites, the board, the stack).
function chip(card, { extra = null, cls = "", board = false } = {}) {
  return h("span", { class: `${CARD_FACE} sw-chip sw-t-${card.type} ${cls}`.trim(), title: `${TYPE_NAME[card.type] || card.type}: ${card.text}` },
    kindIcon(card.type), h("span", { class: "sw-chip-name" }, card.name), numbers(card, { board }), extra);
}

// A full card face (the hand): a type band, the name, the numbers, the text and its buttons.
function cardFace(card, controls, { cls = "" } = {}) {
  return h("article", { class: `${CARD_FACE} sw-card sw-t-${card.type} ${cls}`.trim(), "aria-label": `${card.name}, ${TYPE_NAME[card.type] || card.type}` },
    h("p", { class: "sw-band" }, kindIcon(card.type), TYPE_NAME[card.type] || card.type),
    h("h3", { class: "sw-card-name" }, card.name),
    numbers(card),
    h("p", { class: "sw-card-text" }, card.text),
    card.science ? h("p", { class: "sw-card-science" }, card.science) : null,
    controls && controls.length ? h("div", { class: "sw-card-actions" }, controls) : null);
}

// ---- Shared panels ---------------------------------------------------------------------
function riskBoxes(pub, seat, { board = false } = {}) {
  const env = pub.environment;
  return h("div", { class: "sw-risks" }, RISKS.map((r) => {
    const printed = env.risks[r];
    const value = riskFor(pub, r, seat);
    return h("div", { class: `sw-risk sw-${r}` + (value !== printed ? " raised" : "") },
      h("span", { class: "sw-risk-name" }, RISK_NAME[r]),
      h("span", { class: "sw-risk-value" }, String(value)),
      h("span", { class: "sw-risk-printed" }, value !== printed ? t("printed {n}", { n: printed }) : t("printed")));
  }));
}

function degraderLine(pub, you, { board = false } = {}) {
  const d = pub.degrader;
  if (!d) return h("p", { class: "sw-degrader none" }, t("No Degrader"));
  if (board) return h("p", { class: "sw-degrader" }, chip(d, { board: true }), h("span", {}, t("by {name}", { name: nameOf(pub, d.by) })));
  const adds = RISKS.filter((r) => d.risk && d.risk[r]).map((r) => `${RISK_NAME[r]} +${d.risk[r]}`).join(", ");
  return h("p", { class: "sw-degrader" }, h("span", { class: `${CARD_FACE} sw-chip sw-t-degrader` }, kindIcon("degrader"), h("span", { class: "sw-chip-name" }, d.name)),
    h("span", {}, ` ${adds || t("no risk")} ${d.by === you ? t("(not for you)") : t("(not for {name})", { name: nameOf(pub, d.by) })}`));
}

function envPanel(pub, you, { board = false, full = false } = {}) {
  const env = pub.environment;
  if (!env) return null;
  return h("section", { class: "sw-env" + fresh(`env|${env.key}`), "aria-label": t("Active Environment") },
    h("p", { class: `${CARD_FACE} sw-env-head` }, kindIcon("environment"), h("span", { class: "sw-env-name" }, env.name),
      board ? null : h("span", { class: "sw-env-left" }, tn("{n} left", "{n} left", pub.environments_left))),
    full ? h("p", { class: "sw-env-text" }, env.text) : null,
    riskBoxes(pub, board ? pub.turn : you, { board }),
    degraderLine(pub, you, { board }),
    full ? h("p", { class: "sw-card-science" }, env.science) : null);
}

function lastPanel(pub, you, { board = false } = {}) {
  const l = pub.last;
  if (!l) return null;
  const fields = { name: nameOf(pub, l.seat), environment: l.environment, defense: l.defense, needed: l.needed };
  const mine = you !== null && you !== undefined && l.seat === you;
  let verdict;
  if (l.success) verdict = mine ? t("You cleaned up {environment}!", fields) : t("{name} cleaned up {environment}!", fields);
  else if (board) verdict = mine ? t("You fell short") : t("{name} fell short", fields);
  else verdict = mine ? t("You fell short on {environment}", fields) : t("{name} fell short on {environment}", fields);
  let vs;
  if (l.success) vs = t("defense {defense} ≥ risk {needed}", fields);
  else if (board) vs = t("defense {defense} < risk {needed}", fields);
  else vs = t("defense {defense} < risk {needed}: the Jobsite stays, donations go back", fields);
  return h("section", { class: "sw-last " + (l.success ? "win" : "lose") + fresh(`last|${JSON.stringify(l)}`), "aria-label": t("Last challenge") },
    h("p", { class: "sw-verdict" }, icon(l.success ? "check" : "cross"), h("span", {}, verdict)),
    h("p", { class: "sw-vs" }, h("span", { class: `sw-risk-tag sw-${l.risk}` }, RISK_NAME[l.risk]), ` ${vs}`));
}

function passList(pub, ch, you) {
  return h("ul", { class: "sw-passes", role: "list", "aria-label": t("Passes") }, pub.names.map((_, seat) => {
    const done = ch.passes.includes(seat);
    return h("li", { class: done ? "done" : "" }, icon(done ? "check" : "clock"), h("span", {}, nameOf(pub, seat, you)),
      h("span", { class: "visually-hidden" }, " " + (done ? t("has passed") : t("has not passed yet"))));
  }));
}

function stackList(pub, ch, you, { board = false } = {}) {
  const items = [];
  for (const x of ch.stack) {
    const by = x.seat === you ? t("by You") : t("by {name}", { name: nameOf(pub, x.seat) });
    items.push(h("li", { class: x.cancelled ? "cancelled" : "" }, x.cancelled ? icon("cross", { label: t("cancelled") }) : null, chip(x, { board }),
      h("span", { class: "sw-by" }, `${by}${choiceText(pub, x.choices, you)}`, board ? "" : x.cancelled ? " " + t("(cancelled)") : "")));
  }
  for (const d of ch.donations) {
    const name = nameOf(pub, d.seat);
    let from;
    if (board) from = d.seat === you ? t("from You") : t("from {name}", { name });
    else from = d.seat === you ? t("donated by You") : t("donated by {name}", { name });
    items.push(h("li", { class: "donation" }, icon("gift", { label: t("donation") }), chip(d, { board }), h("span", { class: "sw-by" }, from)));
  }
  return items.length ? h("ul", { class: "sw-stack", role: "list", "aria-label": t("Played Chaos cards and donations") }, items) : null;
}

function choiceText(pub, choices, you) {
  if (!choices) return "";
  const bits = [];
  if (choices.target !== undefined) bits.push(choices.target === you ? t("on You") : t("on {name}", { name: nameOf(pub, choices.target) }));
  if (choices.risk) bits.push(RISK_NAME[choices.risk]);
  if (choices.jobsite !== undefined) bits.push(jobsiteOf(pub, choices.jobsite, you));
  for (const k of ["pick", "tool", "mentor"]) {
    if (choices[k]) {
      const c = cardById(pub, choices[k]);
      bits.push(c ? c.name : t("a card"));
    }
  }
  return bits.length ? `: ${bits.join(", ")}` : "";
}

function respondPanel(pub, you, { board = false } = {}) {
  const ch = pub.challenge;
  if (!ch) return null;
  const short = ch.defense < ch.risk_value;
  const whose = ch.seat === you ? t("Your challenge:") : t("{name}'s challenge:", { name: nameOf(pub, ch.seat) });
  return h("section", { class: "sw-respond", "aria-label": t("Respond step") },
    h("p", { class: "sw-respond-head" }, board ? null : h("strong", {}, `${whose} `),
      h("span", { class: `sw-risk-tag sw-${ch.risk}` }, RISK_NAME[ch.risk]),
      h("span", { class: "sw-vs-num" + (short ? " short" : " ok") }, " " + t("{defense} vs {risk}", { defense: ch.defense, risk: ch.risk_value }))),
    board ? null : h("p", { class: "sw-note" }, t("One-time Chaos cards take effect in order once everyone has passed. A new play or donation resets the passes.")),
    stackList(pub, ch, you, { board }),
    board ? null : passList(pub, ch, you)); // (the board says it on each Jobsite)
}

function scoreLine(pub, p) {
  return h("span", { class: "sw-score" }, icon("trophy"), h("span", { class: "sw-num" }, String(p.claimed.length)), h("span", { class: "sw-of" }, `/${pub.goal}`));
}

function defenseTotals(defense, { board = false } = {}) {
  return h("span", { class: "sw-defense", role: "img", "aria-label": t("Defense") + " " + RISKS.map((r) => `${RISK_NAME[r]} ${defense[r]}`).join(", ") },
    icon("shield"), RISKS.map((r) => h("span", { class: `sw-n sw-${r}`, "aria-hidden": "true" },
      board ? String(defense[r]) : [h("span", { class: "sw-n-l" }, RISK_SHORT[r]), String(defense[r])])));
}

function statusBadges(pub, p, you) {
  const bits = [];
  if (pub.phase === "respond" && pub.challenge) {
    bits.push(pub.challenge.passes.includes(p.seat) ? h("span", { class: "sw-badge passed" }, icon("check"), t("passed"))
      : h("span", { class: "sw-badge waiting" }, icon("clock"), t("to pass")));
  }
  if (p.skips) bits.push(h("span", { class: "sw-badge warn" }, t("skips {n}", { n: p.skips })));
  if (p.miss_draw) bits.push(h("span", { class: "sw-badge warn" }, t("misses a draw")));
  if (p.shield) bits.push(h("span", { class: "sw-badge" }, icon("shield"), t("Hero Block")));
  return bits;
}

// ---- The phone ---------------------------------------------------------------------------
let tab = "hand";
let situation = null;
let playPick = new Map(); // card id -> index of the chosen way to play it

function tabOf(action) {
  if (HAND_TYPES.includes(action.type)) return "hand";
  if (SITE_TYPES.includes(action.type)) return "jobsites";
  return "challenge";
}

function handTab(payload, pub, mine, send, demoGo) {
  const hand = mine.hand || [];
  const acts = byType(payload.actions, ...HAND_TYPES);
  if (!hand.length) return h("p", { class: "sw-empty" }, t("Your hand is empty."));
  const controlsFor = (card) => {
    const own = acts.filter((a) => a.card === card.id);
    const controls = [];
    const plays = own.filter((a) => a.type === "play");
    for (const a of own.filter((x) => x.type !== "play")) {
      let text = a.label;
      if (a.type === "apply") text = t("Apply");
      else if (a.type === "equip") text = a.on === "self" ? t("Equip on yourself") : t("Equip on {mentor}", { mentor: (cardById(pub, a.on) || {}).name || t("Mentor") });
      else if (a.type === "degrader") text = t("Place on {environment}", { environment: pub.environment.name });
      else if (a.type === "shield") text = t("Play to shield this turn");
      else if (a.type === "upgrade") text = t("Swap for {card}", { card: (cardById(pub, a.out) || {}).name || t("a card") });
      controls.push(actButton(a, send, text, { cls: "go" + (demoGo(a) ? " sw-demo-go" : "") }));
    }
    if (plays.length && plays.length <= 3) {
      for (const a of plays) {
        controls.push(actButton(a, send, playWay(pub, a, true), { cls: "go play" + (demoGo(a) ? " sw-demo-go" : "") }));
      }
    } else if (plays.length) {
      const at = Math.min(playPick.get(card.id) || 0, plays.length - 1);
      const select = h("select", { class: "sw-select", "aria-label": t("How to play {card}", { card: card.name }), dataset: { focusKey: `pick-${card.id}` },
        onchange: (e) => { playPick.set(card.id, Number(e.target.value)); } },
      plays.map((a, i) => h("option", { value: i, selected: i === at }, playWay(pub, a, false))));
      controls.push(select, h("button", { type: "button", class: "sw-btn go play", dataset: { focusKey: `play-${card.id}`, type: "play" },
        onclick: () => send(plays[Math.min(playPick.get(card.id) || 0, plays.length - 1)]) }, t("Play")));
    }
    return controls;
  };
  const returned = new Set(mine.returned || []);
  return h("section", { class: "sw-hand", "aria-label": t("Your hand") },
    h("p", { class: "sw-hint" }, tn("{n} card in your hand", "{n} cards in your hand", hand.length), hand.length > 1 ? " · " + t("swipe for more") : ""),
    h("div", { class: "sw-hand-row", tabindex: "0", "aria-label": t("Your cards, scroll sideways") }, hand.map((c) => {
      const controls = controlsFor(c);
      return cardFace(c, controls, { cls: (controls.length ? "playable" : "") + (returned.has(c.key) ? " returned" : "") });
    })));
}

// How a one-time Chaos card is played, from the action's own fields (never from its
// English label): the button ("Play on Ana") or, in a list of ways, the way ("on Ana").
function playWay(pub, a, button) {
  const picked = [a.tool, a.mentor].filter(Boolean).map((id) => (cardById(pub, id) || {}).name || t("a card"));
  const f = {
    name: a.target !== undefined ? nameOf(pub, a.target) : "",
    risk: a.risk ? RISK_NAME[a.risk] : "",
    jobsite: a.jobsite !== undefined ? nameOf(pub, a.jobsite) : "",
    pick: a.pick ? (cardById(pub, a.pick) || {}).name || t("a card") : "",
    one: picked[0] || "", tool: picked[0] || "", mentor: picked[1] || "",
  };
  const on = a.target !== undefined;
  if (a.pick) {
    if (on) return button ? t("Play on {name} to remove {pick}", f) : t("on {name} to remove {pick}", f);
    return button ? t("Play to remove {pick}", f) : t("to remove {pick}", f);
  }
  if (picked.length === 2) {
    if (on) return button ? t("Play on {name} discarding {tool} and {mentor}", f) : t("on {name} discarding {tool} and {mentor}", f);
    return button ? t("Play discarding {tool} and {mentor}", f) : t("discarding {tool} and {mentor}", f);
  }
  if (picked.length === 1) {
    if (on) return button ? t("Play on {name} discarding {one}", f) : t("on {name} discarding {one}", f);
    return button ? t("Play discarding {one}", f) : t("discarding {one}", f);
  }
  if (a.jobsite !== undefined) return button ? t("Play choosing {jobsite}'s Jobsite", f) : t("choosing {jobsite}'s Jobsite", f);
  if (on && a.risk) return button ? t("Play on {name} ({risk})", f) : t("on {name} ({risk})", f);
  if (on) return button ? t("Play on {name}", f) : t("on {name}", f);
  if (a.risk) return button ? t("Play ({risk})", f) : t("({risk})", f);
  return t("Play");
}

function myDefenseTable(pub, you) {
  const me = pub.players[you];
  if (!me || !pub.environment) return null;
  return h("table", { class: "sw-vs-table" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, t("Risk")), h("th", { scope: "col" }, t("Your defense")), h("th", { scope: "col" }, t("Risk")), h("th", { scope: "col" }, ""))),
    h("tbody", {}, RISKS.map((r) => {
      const d = me.jobsite.defense[r];
      const need = riskFor(pub, r, you);
      const ok = d >= need;
      return h("tr", { class: ok ? "ok" : "short" },
        h("th", { scope: "row" }, h("span", { class: `sw-risk-tag sw-${r}` }, RISK_NAME[r])),
        h("td", { class: "sw-num" }, String(d)), h("td", { class: "sw-num" }, String(need)),
        h("td", {}, ok ? [icon("check"), " " + t("enough")] : t("short {n}", { n: need - d })));
    })));
}

function choiceBox(payload, pub, you, send) {
  const choice = pub.choice;
  if (!choice) return null;
  if (choice.seat !== you) {
    return h("section", { class: "sw-choice other" }, icon("clock"), t("{name} is choosing a card to discard. Everyone waits.", { name: nameOf(pub, choice.seat) }));
  }
  const chooses = byType(payload.actions, "choose");
  const hand = (payload.view.private || {}).hand || [];
  const find = (id) => hand.find((c) => c.id === id) || cardById(pub, id);
  return h("section", { class: "sw-choice mine", role: "alert", "aria-label": t("Required choice") },
    h("p", { class: "sw-choice-head" }, icon("alert"), t("You must choose before anyone can go on")),
    h("p", { class: "sw-choice-text" }, payload.view.prompt.text),
    h("ul", { class: "sw-choice-list", role: "list" }, chooses.map((a) => {
      const card = find(a.card);
      return h("li", {}, card ? chip(card) : null, actButton(a, send, t("Discard"), { cls: "go danger" }));
    })));
}

function challengeTab(payload, pub, you, send) {
  const parts = [choiceBox(payload, pub, you, send), envPanel(pub, you)];
  if (pub.phase === "respond" && pub.challenge) parts.push(respondPanel(pub, you));
  else {
    parts.push(h("h2", { class: "sw-h" }, t("Your defense against each risk")), myDefenseTable(pub, you));
    if (pub.turn !== you) parts.push(h("p", { class: "sw-hint" }, t("{name} is managing their Jobsite.", { name: nameOf(pub, pub.turn) })));
    else if (byType(payload.actions, "challenge").length) parts.push(h("p", { class: "sw-hint" }, t("Challenge one risk with the buttons below, or skip: draw 1 and end your turn.")));
  }
  return h("section", { class: "sw-challenge", "aria-label": t("Challenge") }, parts);
}

function jobsiteBlock(pub, p, you, acts, send, { board = false } = {}) {
  const j = p.jobsite;
  const donates = byType(acts, "donate");
  const sues = byType(acts, "sue");
  const sections = SECTIONS.map(([key, title]) => {
    const cards = j[key];
    const limit = j.limits[key];
    if (board && !cards.length) return null;
    return h("div", { class: `sw-sec sw-sec-${key}` + (cards.length ? "" : " empty") },
      board ? null : h("p", { class: "sw-sec-head" }, h("span", {}, title), h("span", { class: "sw-count" + (cards.length > limit ? " over" : "") }, `${cards.length}/${limit}`)),
      cards.length ? h("ul", { class: "sw-chips", role: "list" }, cards.map((c) => {
        const donate = donates.find((a) => a.card === c.id);
        const where = key === "tools" ? (c.on === "self" ? (p.seat === you ? t("on you") : t("on {name}", { name: nameOf(pub, p.seat) }))
          : t("on {name}", { name: (cardById(pub, c.on) || {}).name || t("a Mentor") })) : null;
        return h("li", {}, chip(c, { board, extra: where && !board ? h("span", { class: "sw-on" }, where) : null }),
          donate ? actButton(donate, send, t("Donate"), { cls: "go small" }) : null);
      })) : null);
  });
  const captured = p.captured.length && !board ? h("div", { class: "sw-sec sw-sec-captured" },
    h("p", { class: "sw-sec-head" }, h("span", {}, t("Captured Degraders")), h("span", { class: "sw-count" }, String(p.captured.length))),
    h("ul", { class: "sw-chips", role: "list" }, p.captured.map((c) => {
      const sue = sues.find((a) => a.card === c.id);
      return h("li", {}, chip(c), sue ? actButton(sue, send, t("Sue: draw 2"), { cls: "go small" }) : null);
    }))) : null;
  const turn = pub.turn === p.seat && pub.status === "playing";
  return h("section", { class: "sw-site" + (turn ? " turn" : "") + (p.seat === you ? " mine" : ""), "aria-label": jobsiteOf(pub, p.seat, you) },
    h("div", { class: "sw-site-head" },
      h("span", { class: "sw-site-name" }, turn ? icon("flag", { label: t("their turn") }) : null, p.seat === you ? t("{name} (you)", { name: p.name }) : p.name),
      scoreLine(pub, p),
      defenseTotals(j.defense, { board }),
      board ? null : h("span", { class: "sw-handcount" }, icon("cards"), String(p.hand)),
      statusBadges(pub, p, you)),
    board ? boardChips(j) : h("div", { class: "sw-secs" }, sections),
    captured);
}

function boardChips(j) {
  const all = SECTIONS.flatMap(([key]) => j[key]);
  if (!all.length) return h("p", { class: "sw-none" }, t("Empty Jobsite"));
  return h("ul", { class: "sw-chips", role: "list" }, all.map((c) => h("li", {}, chip(c, { board: true }))));
}

function jobsitesTab(payload, pub, you, send) {
  const order = [you, ...pub.players.map((p) => p.seat).filter((s) => s !== you)];
  const acts = byType(payload.actions, ...SITE_TYPES);
  const hint = byType(acts, "donate").length ? h("p", { class: "sw-hint" }, t("Donate one BMP to {name}'s challenge and draw 2. Success discards it; failure gives it back.", { name: nameOf(pub, pub.challenge.seat) })) : null;
  return h("section", { class: "sw-sites", "aria-label": t("Jobsites") }, hint,
    order.map((seat) => jobsiteBlock(pub, pub.players[seat], you, acts, send)));
}

// The game's ruling catalogue (fetched once) and the table's playtest notes (fetched
// when the Table tab shows, at most every 15 s): neither travels with every view.
let catalogue = null;
const notes = { list: null, at: 0 };
function loadCatalogue(game) {
  if (catalogue !== null) return;
  catalogue = [];
  fetch(`/api/games/${encodeURIComponent(game)}/rulings`).then((r) => (r.ok ? r.json() : null)).then((body) => {
    if (body && Array.isArray(body.rulings)) { catalogue = body.rulings; rerender(); }
  }).catch(() => { catalogue = null; });
}
function loadNotes(ctx) {
  if (typeof ctx.notes !== "function" || Date.now() - notes.at < 15000) return;
  notes.at = Date.now();
  ctx.notes().then((ack) => { if (ack && ack.ok) { notes.list = ack.notes; rerender(); } });
}

function rulingsPanel(entries) {
  const applied = new Map();
  for (const e of entries) if (e.t === "ruling") applied.set(e.id, (applied.get(e.id) || 0) + 1);
  const list = catalogue && catalogue.length ? catalogue : [];
  return h("section", { class: "sw-rulings", "aria-label": t("Rulings") },
    h("h2", { class: "sw-h" }, t("Rulings for this playtest")),
    h("p", { class: "sw-note" }, t("Testing decisions, not rules approved by CWT. Tap one to read it; the number says how often it decided something at this table.")),
    list.length ? h("ul", { role: "list" }, list.map((r) => h("li", { class: applied.get(r.id) ? "sw-applied" : "" },
      h("details", {}, h("summary", {}, r.title, applied.get(r.id) ? h("span", { class: "sw-times" }, " " + t("({n}× here)", { n: applied.get(r.id) })) : null,
        r.kind === "reconstruction" ? h("span", { class: "sw-kind" }, " \u00b7 " + t("for review")) : null),
      h("p", {}, r.text)))))
      : h("p", { class: "sw-hint" }, t("Loading the rulings…")));
}

function notesPanel() {
  const button = t("Playtest note"); // the platform's button at the bottom of the page
  return h("section", { class: "sw-notes", "aria-label": t("Playtest notes") },
    h("h2", { class: "sw-h" }, t("Playtest notes")),
    notes.list && notes.list.length
      ? h("ul", { role: "list" }, notes.list.map((n) => h("li", {}, h("strong", {}, n.author), `: ${n.text}`)))
      : h("p", { class: "sw-hint" }, notes.list ? t("No notes yet.") : t("Loading the notes…")),
    h("p", { class: "sw-note" }, t("Tap “{button}” at the bottom of this page to tell the testers what happened or what was confusing.", { button })));
}

function tableTab(payload, pub, you, entries, ctx) {
  loadCatalogue(payload.game);
  loadNotes(ctx);
  return h("section", { class: "sw-table", "aria-label": t("Table") },
    envPanel(pub, you, { full: true }),
    h("h2", { class: "sw-h" }, tn("Scores: first to {n} Environment wins", "Scores: first to {n} Environments wins", pub.goal)),
    h("ul", { class: "sw-scores", role: "list" }, pub.players.map((p) => h("li", { class: (pub.turn === p.seat ? "turn" : "") + (p.seat === you ? " mine" : "") },
      h("span", { class: "sw-site-name" }, p.seat === you ? t("{name} (you)", { name: p.name }) : p.name), scoreLine(pub, p),
      h("span", { class: "sw-claimed" }, p.claimed.join(", ") || t("nothing cleaned up yet")),
      h("span", { class: "sw-handcount" }, icon("cards"), t("{n} in hand", { n: p.hand }))))),
    h("p", { class: "sw-piles" }, [tn("{n} card to draw", "{n} cards to draw", pub.deck), tn("{n} discarded", "{n} discarded", pub.discard),
      tn("{n} Environment left", "{n} Environments left", pub.environments_left)].join(" · ")),
    shared.logList(entries, 40),
    rulingsPanel(entries),
    notesPanel());
}

function tabBar(payload, you, forced) {
  const count = { hand: 0, challenge: 0, jobsites: 0, table: 0 };
  for (const a of payload.actions) count[tabOf(a)] += 1;
  return h("nav", { class: "sw-tabs", role: "tablist", "aria-label": t("Storm War") }, TABS.map(([key, title]) => {
    const blocked = forced && key !== forced;
    return h("button", { type: "button", role: "tab", id: `sw-tab-${key}`, class: "sw-tab" + (tab === key ? " active" : ""),
      "aria-selected": tab === key ? "true" : "false", "aria-controls": "sw-panel", "aria-disabled": blocked ? "true" : null,
      dataset: { focusKey: `tab-${key}`, tab: key },
      onclick: () => {
        if (blocked) return;
        tab = key;
        rerender();
      } },
    icon({ hand: "cards", challenge: "flag", jobsites: "site", table: "list" }[key]), h("span", {}, title),
    count[key] ? h("span", { class: "sw-tab-badge", "aria-label": t("{n} to do", { n: count[key] }) }, String(count[key])) : null);
  }));
}

function bottomBar(payload, pub, you, send, demoGo) {
  const acts = payload.actions;
  const parts = [];
  const passA = byType(acts, "pass")[0];
  const challenges = byType(acts, "challenge");
  const skip = byType(acts, "skip")[0];
  const chooses = byType(acts, "choose");
  if (chooses.length) {
    parts.push(h("p", { class: "sw-wait mine" }, t("Tap Discard on one card above.")));
  } else if (passA) {
    parts.push(actButton(passA, send, t("Pass"), { cls: "primary big sw-main" + (demoGo(passA) ? " sw-demo-go" : ""), key: "pass" }));
  } else if (challenges.length && tab === "challenge") {
    parts.push(h("div", { class: "sw-challenge-row" }, challenges.map((a) => {
      const d = pub.players[you].jobsite.defense[a.risk];
      const need = riskFor(pub, a.risk, you);
      return h("button", { type: "button", class: `sw-btn sw-go-risk sw-${a.risk}` + (d >= need ? " enough" : "") + (demoGo(a) ? " sw-demo-go" : ""),
        "aria-label": a.label, title: a.label, dataset: { focusKey: `challenge-${a.risk}`, type: "challenge" }, onclick: () => send(a) },
      h("span", { class: "sw-go-name" }, RISK_NAME[a.risk]), h("span", { class: "sw-go-vs" }, t("{defense} vs {risk}", { defense: d, risk: need })),
      d >= need ? icon("check") : null);
    })));
    if (skip) parts.push(actButton(skip, send, t("Skip: draw 1 and end your turn"), { cls: "sw-skip", key: "skip" }));
  } else if (challenges.length || skip) {
    parts.push(h("button", { type: "button", class: "sw-btn primary big sw-main sw-to-challenge", dataset: { focusKey: "to-challenge" },
      onclick: () => { tab = "challenge"; rerender(); } }, icon("flag"), t("Challenge or skip…")));
  } else if (acts.length) {
    const where = TABS.find(([key]) => acts.some((a) => tabOf(a) === key));
    if (where && where[0] !== tab) {
      parts.push(h("button", { type: "button", class: "sw-btn sw-main", dataset: { focusKey: "to-tab" }, onclick: () => { tab = where[0]; rerender(); } },
        t("Open {tab}", { tab: where[1] })));
    }
  } else {
    const waiting = (payload.view.prompt.waiting_for || []).map((s) => nameOf(pub, s, you)).join(", ");
    parts.push(h("p", { class: "sw-wait" }, icon("clock"), payload.paused ? t("The teacher has paused the game.")
      : waiting ? t("Waiting for {names}…", { names: waiting }) : t("Waiting for the others…")));
  }
  return h("section", { class: "sw-bar" + (acts.length ? " active" : "") + (pub.demo ? " demo" : ""), "aria-label": t("Your move") },
    h("p", { class: "error act-error", role: "alert" }, refusal.text()),
    h("p", { class: "sw-prompt" + (acts.length ? " mine" : ""), "aria-live": "polite" },
      pub.demo ? h("span", { class: "sw-demo-tag" }, t("Guided demo")) : null, payload.view.prompt.text),
    parts);
}

function topStrip(pub, you, entries) {
  const me = pub.players[you];
  const env = pub.environment;
  const latest = [...entries].reverse().find((e) => !["ruling", "turn"].includes(e.t));
  return h("section", { class: "sw-top", "aria-label": t("Your status") },
    h("p", { class: "sw-top-line" },
      me ? scoreLine(pub, me) : null,
      env ? h("span", { class: "sw-top-env" }, kindIcon("environment"), env.name) : null,
      env ? h("span", { class: "sw-top-risks" }, RISKS.map((r) => h("span", { class: `sw-n sw-${r}` }, h("span", { class: "sw-n-l" }, RISK_SHORT[r]), String(riskFor(pub, r, you))))) : null),
    h("p", { class: "sw-turn-line" }, pub.turn === you ? t("Your turn") : t("{name}'s turn", { name: nameOf(pub, pub.turn) }),
      " · " + (pub.phase === "respond" ? t("Respond step") : t("Management"))),
    latest ? h("p", { class: "sw-latest" + fresh(`latest|${latest.v}|${latest.text}`) }, latest.text) : null);
}

let rerender = () => {};

function renderPlayer(payload, pub, ctx, entries) {
  const you = payload.seat;
  const mine = payload.view.private || {};
  const send = refusal.sender(ctx);
  const acts = payload.actions;
  const myChoice = Boolean(pub.choice && pub.choice.seat === you && byType(acts, "choose").length);
  const key = myChoice ? "choice" : `${pub.turn_no}|${pub.phase}|${acts.length > 0}|${pub.demo ? acts.map((a) => a.type).join() : ""}`;
  if (key !== situation) {
    situation = key;
    if (myChoice) tab = "challenge";
    else if (pub.demo && acts.length) tab = tabOf(acts[0]);
    else if (acts.length && pub.phase === "respond") tab = "challenge";
    else if (acts.length && pub.phase === "manage" && pub.turn === you) tab = byType(acts, ...HAND_TYPES).length ? "hand" : "challenge";
  }
  if (myChoice) tab = "challenge";
  // The guided demo highlights the one step it offers.
  const demoGo = (a) => Boolean(pub.demo) && acts.includes(a);
  let panel;
  if (tab === "hand") panel = handTab(payload, pub, mine, send, demoGo);
  else if (tab === "jobsites") panel = jobsitesTab(payload, pub, you, send);
  else if (tab === "table") panel = tableTab(payload, pub, you, entries, ctx);
  else panel = challengeTab(payload, pub, you, send);
  return [
    topStrip(pub, you, entries),
    lastPanel(pub, you),
    tabBar(payload, you, myChoice ? "challenge" : null),
    h("div", { id: "sw-panel", class: `sw-panel sw-panel-${tab}`, role: "tabpanel", "aria-labelledby": `sw-tab-${tab}` }, panel),
    bottomBar(payload, pub, you, send, demoGo),
  ];
}

// ---- The board (and the teacher's table page) ---------------------------------------------
function renderBoard(payload, pub, ctx, entries) {
  const turnName = nameOf(pub, pub.turn);
  const head = h("div", { class: "sw-board-top" },
    h("p", { class: "sw-board-turn" + fresh(`turn|${pub.turn_no}`) }, icon("flag"), t("{name}'s turn", { name: turnName }),
      h("span", { class: "sw-phase" }, pub.phase === "respond" ? t("Respond") : t("Management"))),
    h("p", { class: "sw-board-prompt" }, pub.choice || pub.demo ? payload.view.prompt.text
      : tn("First to {n} Environment wins", "First to {n} Environments wins", pub.goal)),
    h("p", { class: "sw-legend", "aria-label": t("Numbers are Toxic, Erosion, Nutrient") },
      RISKS.map((r) => h("span", { class: `sw-n sw-${r}` }, RISK_NAME[r]))));
  const sites = h("div", { class: "sw-board-sites" }, pub.players.map((p) => jobsiteBlock(pub, p, null, [], () => {}, { board: true })));
  const side = h("div", { class: "sw-board-side" },
    envPanel(pub, null, { board: true }),
    respondPanel(pub, null, { board: true }),
    pub.choice ? h("p", { class: "sw-choice other" }, icon("clock"), t("{name} is choosing a card to discard.", { name: nameOf(pub, pub.choice.seat) })) : null,
    lastPanel(pub, null, { board: true }));
  // The log fills what the Jobsites leave free (nothing, once four Jobsites are full).
  const left = h("div", { class: "sw-board-left" }, sites, shared.logList(entries.filter((e) => e.t !== "ruling"), 10));
  return [head, h("div", { class: "sw-board-main" }, left, side)];
}

// ---- Entry point ---------------------------------------------------------------------------
export function render(root, payload, ctx) {
  const pub = payload.view.public;
  const entries = logOf(payload, ctx);
  rerender = () => render(root, payload, ctx);
  marks.begin();
  let body;
  if (!pub || !pub.players) body = [h("p", {}, payload.view.prompt.text)];
  else if (ctx.role === "player" && payload.seat !== null && payload.seat !== undefined) body = renderPlayer(payload, pub, ctx, entries);
  else body = renderBoard(payload, pub, ctx, entries);
  const role = ctx.role === "player" ? "player" : ctx.role === "facilitator" ? "facilitator" : "board";
  preserveFocus(root, () => replace(root, h("div", { class: `sw game-view sw-${role} sw-phase-${pub && pub.phase}` + (pub && pub.demo ? " sw-demo" : "") }, body)));
  // Four full Jobsites, or a long stack of plays, get denser rather than cut (kit.js);
  // the log then keeps what fits (table.js).
  if (role === "board") {
    for (const region of root.querySelectorAll(".sw-board-left")) fitRegion(region, { layouts: ["sw-dense", "sw-denser"] });
    for (const region of root.querySelectorAll(".sw-board-side")) fitSide(region);
  }
  marks.end();
}

// The side (the Environment, the stack of plays, the last challenge) gets denser first. If
// it overflows even at the floor (a long stack in a long language on a small screen), the
// last challenge gives way, the line of its numbers first and then the whole panel: the
// phones and the log still tell it, and the challenge now is what the room must read.
// Still too long: the stack's earliest plays give way to one line that counts them.
const SPARE = ["sw-spare-vs", "sw-spare-last"];
function fitSide(region) {
  fitRegion(region, { layouts: ["sw-dense"] });
  for (const spare of SPARE) {
    if (!measuring(region, () => overflows(region))) return;
    region.classList.add(spare);
    fitRegion(region, { layouts: ["sw-dense"] });
  }
  trimList(region, region.querySelector(".sw-stack"), (n) => tn("+ {n} earlier play", "+ {n} earlier plays", n));
}

// The end screen's scores count the Environments cleaned up.
export const scoreText = (n) => tn("{n} Environment", "{n} Environments", n);
