// Water Cycle Challenge: the phone, the projected board and the teacher's
// moderation panel. Every control sends exactly one of `payload.actions` (the
// platform strips the labels); a free-text field listed as "" (the Crisis
// explanation, the teacher's reason) is filled from a textarea first.
//
// payload: {code, game, version, status, seat, view: {public, private, prompt},
//           actions, log (new entries), players, result, ...}
// ctx:     {role: "player" | "board" | "facilitator", act(action) -> ack, log()}
import { h, preserveFocus, replace } from "/static/js/dom.js";
import * as shared from "/static/js/table.js";

const RESOURCES = ["evap", "cond", "precip", "collect"];
const EXPLANATION_MAX = 400;
const SHORT = { evap: "Evap", cond: "Cond", precip: "Precip", collect: "Collect", newater: "NEWater" };
const REASON_MAX = 200;

// ---- Icons: inline SVG (no emoji), drawn in currentColor --------------------
const NS = "http://www.w3.org/2000/svg";
const WAVE = "c2-1.5 4-1.5 6 0s4 1.5 6 0 4-1.5 6 0";
const ICONS = {
  evap: [["path", { d: "M12 13V3M8.5 6.5 12 3l3.5 3.5" }], ["path", { d: "M3 17" + WAVE }], ["path", { d: "M3 21" + WAVE }]],
  cond: [["path", { d: "M7 19h10a4 4 0 0 0 .6-7.95A6 6 0 0 0 6.2 10.1 4.5 4.5 0 0 0 7 19z" }]],
  precip: [["path", { d: "M7 13h10a3.5 3.5 0 0 0 .5-6.96A5 5 0 0 0 7.8 5.4 4 4 0 0 0 7 13z" }], ["path", { d: "M8 16l-1 4M12 16l-1 4M16 16l-1 4" }]],
  collect: [["path", { d: "M3 9" + WAVE }], ["path", { d: "M3 13" + WAVE }], ["path", { d: "M3 16v3a2 2 0 0 0 2 2h14a2 2 0 0 0 2-2v-3" }]],
  newater: [["path", { d: "M12 2.5S5.5 10 5.5 14.5a6.5 6.5 0 0 0 13 0C18.5 10 12 2.5 12 2.5z" }], ["path", { d: "M9 15.5a3 3 0 0 0 5.5 1M15 14a3 3 0 0 0-5.5-1M14.5 18.5v-2h-2M9.5 10.5v2h2" }]],
  weather: [["path", { d: "M13 2 4 14h7l-1 8 9-12h-7l1-8z" }]],
  reservoir: [["path", { d: "M3 20h18M5 20V9l7-5 7 5v11" }], ["path", { d: "M8 15" + "c1.3-1 2.7-1 4 0s2.7 1 4 0" }]],
  thumb: [["path", { d: "M14 9V5a3 3 0 0 0-3-3l-4 9v11h11.3a2 2 0 0 0 2-1.7l1.4-9a2 2 0 0 0-2-2.3zM7 22H4a2 2 0 0 1-2-2v-7a2 2 0 0 1 2-2h3" }]],
  heart: [["path", { d: "M20.8 4.6a5.5 5.5 0 0 0-7.8 0L12 5.7l-1-1.1a5.5 5.5 0 0 0-7.8 7.8l1 1.1L12 21l7.8-7.5 1-1.1a5.5 5.5 0 0 0 0-7.8z", class: "fill" }]],
  bucket: [["path", { d: "M4 8h16l-2 12a2 2 0 0 1-2 1.7H8a2 2 0 0 1-2-1.7L4 8z" }], ["path", { d: "M6 8a6 6 0 0 1 12 0" }]],
  trophy: [["path", { d: "M8 21h8M12 16v5M7 3h10v6a5 5 0 0 1-10 0V3z" }], ["path", { d: "M17 5h3v2a4 4 0 0 1-3.5 4M7 5H4v2a4 4 0 0 0 3.5 4" }]],
  shield: [["path", { d: "M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10z" }], ["path", { d: "M12 8v7M8.5 11.5h7" }]],
  cards: [["rect", { x: 3, y: 6, width: 12, height: 16, rx: 2 }], ["path", { d: "M8 3h11a2 2 0 0 1 2 2v13" }]],
  skip: [["circle", { cx: 12, cy: 12, r: 9 }], ["path", { d: "M10 9v6M14 9v6" }]],
  alert: [["path", { d: "M10.3 3.9 1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z" }], ["path", { d: "M12 9v4M12 17h.01" }]],
  check: [["path", { d: "M20 6 9 17l-5-5" }]],
  cross: [["path", { d: "M18 6 6 18M6 6l12 12" }]],
  eye: [["path", { d: "M1 12s4-8 11-8 11 8 11 8-4 8-11 8S1 12 1 12z" }], ["circle", { cx: 12, cy: 12, r: 3 }]],
  clock: [["circle", { cx: 12, cy: 12, r: 9 }], ["path", { d: "M12 7v5l3 3" }]],
  question: [["circle", { cx: 12, cy: 12, r: 9 }], ["path", { d: "M9.1 9a3 3 0 0 1 5.8 1c0 2-3 3-3 3M12 17h.01" }]],
};
const KIND_ICON = { evap: "evap", cond: "cond", precip: "precip", collect: "collect", newater: "newater",
  reservoir: "reservoir", emergency: "shield", crisis: "alert", collapse: "alert" };

function icon(name, { cls = "", label = null, flip = false } = {}) {
  const el = document.createElementNS(NS, "svg");
  el.setAttribute("viewBox", "0 0 24 24");
  el.setAttribute("class", `wcc-icon ${cls}`.trim());
  el.setAttribute("focusable", "false");
  if (label) {
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", label);
  } else el.setAttribute("aria-hidden", "true");
  const group = document.createElementNS(NS, "g");
  if (flip) group.setAttribute("transform", "rotate(180 12 12)");
  for (const [tag, attrs] of ICONS[name] || ICONS.weather) {
    const part = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) part.setAttribute(k, v);
    group.append(part);
  }
  el.append(group);
  return el;
}

// ---- Small helpers -----------------------------------------------------------
const plural = (n, word, many = word + "s") => `${n} ${n === 1 ? word : many}`;

function nameOf(pub, seat, you) {
  if (seat === you && you !== null && you !== undefined) return "You";
  const names = pub.names || [];
  return names[seat] !== undefined ? names[seat] : `Seat ${seat + 1}`;
}

function legend(pub, kind) {
  return (pub.legend && pub.legend[kind]) || { name: kind, text: "" };
}

function kindIcon(kind, opts) {
  return icon(KIND_ICON[kind] || "weather", opts);
}

// A card face: its colour says its kind; its icon and name say it too.
function cardChip(pub, kind, { count = null, cls = "" } = {}) {
  return h("span", { class: `wcc-chip wcc-k-${kind} ${cls}`.trim() },
    kindIcon(kind), h("span", { class: "wcc-chip-name" }, legend(pub, kind).name),
    count !== null && count > 1 ? h("span", { class: "wcc-chip-count" }, `×${count}`) : null);
}

function cardsList(pub, kinds) {
  const counts = new Map();
  for (const k of kinds) counts.set(k, (counts.get(k) || 0) + 1);
  return h("span", { class: "wcc-chips" }, [...counts].map(([k, n]) => cardChip(pub, k, { count: n })));
}

// Animate only what is new since the last render.
let seen = new Set();
let seenNext = new Set();
function fresh(key) {
  seenNext.add(key);
  return seen.has(key) ? "" : " fresh";
}

// The newest of the three outcomes (weather, trivia, crisis), read from the log.
const OUTCOME_OF = { trivia: "trivia", crisis_passed: "crisis", crisis_failed: "crisis", weather: "weather",
  reservoir: "weather", reservoir_kept: "weather" };
function newestOutcome(pub, entries) {
  for (let i = entries.length - 1; i >= 0; i--) {
    const kind = OUTCOME_OF[entries[i].t];
    if (kind === "trivia" && pub.last_trivia) return "trivia";
    if (kind === "crisis" && pub.last_crisis) return "crisis";
    if (kind === "weather" && pub.last_weather) return "weather";
  }
  return pub.last_crisis ? "crisis" : pub.last_trivia ? "trivia" : pub.last_weather ? "weather" : null;
}

// ---- Sending -------------------------------------------------------------------
// A refused move is said next to the controls (for a few seconds), never silently dropped.
const refusal = shared.refusals(".wcc");
const refusedText = refusal.text;
const sender = (ctx) => (action) => refusal.send(ctx, action);

function byType(payload, ...types) {
  return payload.actions.filter((a) => types.includes(a.type));
}

// ---- Shared panels ---------------------------------------------------------------
function bossPanel(pub) {
  const boss = pub.boss;
  const hearts = [];
  for (let i = 0; i < boss.max_hp; i++) hearts.push(icon("heart", { cls: i < boss.hp ? "wcc-heart" : "wcc-heart lost" }));
  return h("section", { class: "wcc-boss", "aria-label": "The Boss" },
    h("p", { class: "wcc-boss-title" }, "Boss"),
    h("p", { class: "wcc-hearts", role: "img", "aria-label": `${boss.hp} of ${boss.max_hp} HP` }, hearts,
      h("span", { class: "wcc-hp", "aria-hidden": "true" }, `${boss.hp}/${boss.max_hp}`)),
    h("p", { class: "wcc-bucket" }, icon("bucket"), h("span", { class: "wcc-num" }, String(boss.bucket)),
      h("span", {}, boss.bucket === 1 ? " card in the Bucket" : " cards in the Bucket")));
}

function pilesPanel(pub) {
  return h("section", { class: "wcc-piles", "aria-label": "Piles" },
    h("p", { class: "wcc-pile" }, icon("cards"), h("span", { class: "wcc-num" }, String(pub.deck)), h("span", {}, " to draw")),
    h("p", { class: "wcc-pile" }, h("span", { class: "wcc-num" }, String(pub.discard)), h("span", {}, " discarded"),
      pub.discard_top ? h("span", { class: "wcc-top" }, " top: ", cardChip(pub, pub.discard_top)) : null));
}

function weatherText(pub, w, you) {
  if (!w) return "";
  const card = legend(pub, w.card).name;
  const by = nameOf(pub, w.by, you);
  const on = w.target === null || w.target === undefined ? "" : ` on ${w.target === you ? "you" : nameOf(pub, w.target)}`;
  return `${by} played ${card}${on}${w.cancelled ? ": cancelled by a Reservoir" : ""}.`;
}

function weatherPanel(pub, you) {
  const w = pub.last_weather;
  if (!w) return null;
  return h("section", { class: "wcc-last-weather" + fresh(`w|${JSON.stringify(w)}`), "aria-label": "Last Weather card" },
    h("p", { class: "wcc-label" }, "Last Weather card"),
    h("p", { class: "wcc-weather-line" }, cardChip(pub, w.card)),
    h("p", { class: "wcc-weather-who" }, weatherText(pub, w, you)),
    h("p", { class: "wcc-weather-text" }, legend(pub, w.card).text));
}

function triviaResult(pub, you, { full = true } = {}) {
  const t = pub.last_trivia;
  if (!t) return null;
  const who = t.seat === you ? "You" : nameOf(pub, t.seat);
  return h("section", { class: "wcc-trivia-result " + (t.correct ? "right" : "wrong") + fresh(`t|${t.question}|${t.seat}`),
    "aria-label": "Last trivia answer" },
  h("p", { class: "wcc-verdict" }, icon(t.correct ? "check" : "cross"),
    `${who} answered ${t.correct ? "right" : "wrong"}${t.correct ? ": the Boss takes 1 damage!" : "."}`),
  full ? h("p", { class: "wcc-q" }, t.question) : null,
  h("p", { class: "wcc-answer" }, `Answer ${"ABCD"[t.answer]}: ${t.options[t.answer]}`),
  h("p", { class: "wcc-expl" }, t.explanation));
}

function crisisResult(pub, you) {
  const c = pub.last_crisis;
  if (!c) return null;
  const who = c.seat === you ? "Your" : `${nameOf(pub, c.seat)}'s`;
  const how = c.decided_by === "teacher" ? (c.passed ? "accepted by the teacher" : "rejected by the teacher")
    : c.decided_by === "vote" ? (c.passed ? "passed the vote" : "voted down") : c.reason || "failed";
  return h("section", { class: "wcc-crisis-result " + (c.passed ? "right" : "wrong") + fresh(`c|${JSON.stringify(c)}`),
    "aria-label": "Last Crisis" },
  h("p", { class: "wcc-verdict" }, icon(c.passed ? "check" : "cross"), `${who} answer to the ${c.name}: ${how}`),
  c.decided_by !== "player" ? h("p", { class: "wcc-tally-line" }, `Vote: ${c.up} up, ${c.down} down`) : null,
  c.decided_by === "teacher" && c.reason ? h("p", { class: "wcc-reason" }, `The teacher: “${c.reason}”`) : null,
  c.explanation ? h("blockquote", { class: "wcc-expl" }, c.explanation)
    : c.hidden ? h("p", { class: "wcc-expl muted" }, "The explanation was hidden by the teacher.") : null);
}

function outcomePanel(pub, entries, you) {
  const which = newestOutcome(pub, entries);
  if (which === "trivia") return triviaResult(pub, you, { full: false });
  if (which === "crisis") return crisisResult(pub, you);
  if (which === "weather") {
    const w = pub.last_weather;
    return h("section", { class: "wcc-last-weather" + fresh(`w|${JSON.stringify(w)}`), "aria-label": "Last Weather card" },
      h("p", { class: "wcc-weather-line" }, cardChip(pub, w.card), " ", weatherText(pub, w, you)));
  }
  return null;
}

function modeText(mode) {
  return { players: "The players' vote decides", confirm: "Players vote, then the teacher confirms",
    teacher: "The teacher decides" }[mode] || mode;
}

function tallyPanel(pub, crisis, you) {
  const voters = crisis.voters || [];
  return h("section", { class: "wcc-tally", "aria-label": "Votes" },
    h("p", { class: "wcc-thumbs" },
      h("span", { class: "wcc-up" }, icon("thumb", { label: "thumbs up" }), h("span", { class: "wcc-num" }, String(crisis.up))),
      h("span", { class: "wcc-down" }, icon("thumb", { flip: true, label: "thumbs down" }), h("span", { class: "wcc-num" }, String(crisis.down)))),
    crisis.stage === "vote" ? h("ul", { class: "wcc-voters", role: "list" }, voters.map((v) => {
      const done = crisis.voted.includes(v);
      return h("li", { class: done ? "done" : "" }, icon(done ? "check" : "clock"),
        h("span", {}, nameOf(pub, v, you)), h("span", { class: "visually-hidden" }, done ? " has voted" : " has not voted yet"));
    })) : null,
    crisis.stage === "review" && crisis.vote_passed !== null && crisis.vote_passed !== undefined
      ? h("p", { class: "wcc-review" }, `The players say: ${crisis.vote_passed ? "it works" : "it does not work"}. The teacher decides now.`)
      : crisis.stage === "review" ? h("p", { class: "wcc-review" }, "The teacher decides now.") : null,
    h("p", { class: "wcc-mode" }, modeText(crisis.mode)));
}

// The Crisis: the disaster, then (once sent) the explanation, the cards and the tally.
function crisisPanel(pub, you, role) {
  const c = pub.crisis;
  if (!c) return null;
  const d = c.crisis;
  const who = nameOf(pub, c.seat, you);
  let explanation;
  if (c.stage === "choose") {
    explanation = h("p", { class: "wcc-waiting" }, c.seat === you ? "" : `${who} is picking cards and writing an explanation…`);
  } else if (c.explanation === null || c.explanation === undefined) {
    explanation = h("p", { class: "wcc-hidden-expl" }, icon("eye"), "The explanation is hidden by the teacher.");
  } else {
    const size = c.explanation.length > 280 ? " long" : c.explanation.length > 160 ? " medium" : "";
    explanation = h("figure", { class: "wcc-explanation" + size },
      h("figcaption", {}, `${c.seat === you ? "Your" : who + "'s"} answer`, c.hidden ? h("span", { class: "wcc-badge" }, "hidden from the class") : null),
      h("blockquote", {}, c.explanation));
  }
  const showIdeas = role === "player" && c.seat === you && c.stage === "choose";
  return h("section", { class: "wcc-crisis stage-" + c.stage + fresh(`crisis|${c.vote}`), "aria-label": "Crisis" },
    h("div", { class: "wcc-crisis-main" },
      h("h2", { class: "wcc-crisis-name" }, icon("alert"), `Crisis: ${d.name}`,
        h("span", { class: "wcc-crisis-who" }, c.seat === you ? " — yours" : ` — ${who}`)),
      h("p", { class: "wcc-scenario" }, d.scenario),
      h("p", { class: "wcc-question" }, d.question),
      showIdeas && d.ideas && d.ideas.length ? h("details", { class: "wcc-ideas" }, h("summary", {}, "Need an idea?"),
        h("ul", {}, d.ideas.map((i) => h("li", {}, i)))) : null,
      c.stage === "choose" && c.seat === you ? null : explanation),
    c.stage === "choose" ? null : h("div", { class: "wcc-crisis-side" },
      c.cards.length ? h("div", { class: "wcc-spent" }, h("p", { class: "wcc-label" }, "Cards spent"), cardsList(pub, c.cards)) : null,
      tallyPanel(pub, c, you)));
}

function triviaPanel(pub, you, payload, send) {
  const t = pub.trivia;
  if (!t) return null;
  const who = t.seat === you ? "Your" : `${nameOf(pub, t.seat)}'s`;
  const answers = byType(payload, "answer");
  return h("section", { class: "wcc-trivia" + fresh(`trivia|${t.question}`), "aria-label": "The Boss's question" },
    h("p", { class: "wcc-label" }, icon("question"), `${who} question from the Boss`),
    h("h2", { class: "wcc-q" }, t.question),
    answers.length ? null : h("ol", { class: "wcc-options", role: "list" }, t.options.map((o, i) =>
      h("li", { class: `wcc-opt opt-${i}` }, h("span", { class: "wcc-letter" }, "ABCD"[i]), h("span", {}, o)))));
}

function resultPanel(payload, pub, you) {
  const r = pub.result || payload.result;
  if (!r) return null;
  const text = shared.resultText ? shared.resultText(payload) : "";
  return h("section", { class: "wcc-result", "aria-label": "Result" },
    icon("trophy", { cls: "wcc-result-trophy" }),
    h("h2", {}, text || "The game is over."),
    r.reason ? h("p", { class: "wcc-reason-line" }, `The game ended: ${r.reason}.`) : null,
    h("ol", { class: "wcc-ranking", role: "list" }, r.ranking.map((s, i) => h("li", { class: r.winners.includes(s) ? "top" : "" },
      h("span", { class: "wcc-rank" }, `${r.winners.includes(s) ? 1 : i + 1}.`),
      h("span", { class: "wcc-rank-name" }, nameOf(pub, s) + (s === you ? " (you)" : "")),
      h("span", { class: "wcc-rank-score" }, icon("trophy"), String(r.scores[s]))))));
}

function playersStrip(pub, you) {
  return h("ul", { class: "wcc-players", role: "list", "aria-label": "Players", dataset: { count: pub.players.length } },
    pub.players.map((p) => {
      const turn = !pub.result && pub.turn === p.seat;
      const waiting = (pub.waiting_for || []).includes(p.seat);
      return h("li", { class: "wcc-player" + (turn ? " turn" : "") + (waiting ? " waiting" : "") + (p.seat === you ? " mine" : "") },
        h("p", { class: "wcc-pname" }, h("span", { class: "wcc-pname-text" }, p.name), p.seat === you ? h("span", { class: "wcc-badge" }, "you") : null),
        h("p", { class: "wcc-stats" },
          h("span", { class: "wcc-trophies" + fresh(`tr|${p.seat}|${p.trophies}`), title: "Trophies" }, icon("trophy", { label: "trophies" }),
            h("span", { class: "wcc-num" }, String(p.trophies)), h("span", { class: "wcc-of" }, `/${pub.goal}`)),
          h("span", { class: "wcc-hand", title: "Cards in hand" }, icon("cards", { label: "cards in hand" }), h("span", { class: "wcc-num" }, String(p.hand))),
          h("span", { class: "wcc-er" + (p.emergency ? "" : " used") }, icon("shield", { label: p.emergency ? "Emergency Response ready" : "Emergency Response used" })),
          p.skips ? h("span", { class: "wcc-skip" }, icon("skip"), `skips ${p.skips}`) : null,
          p.skipped ? h("span", { class: "wcc-skipped" }, `skipped ${p.skipped}`) : null));
    }));
}

function turnLine(pub, you) {
  if (pub.result) return "Game over";
  return pub.turn === you ? "Your turn" : `${nameOf(pub, pub.turn)}'s turn`;
}

// ---- The phone -----------------------------------------------------------------
function handSection(payload, pub, mine, send) {
  const hand = new Map((mine.hand || []).map((c) => [c.card, c.count]));
  const picked = new Map();
  for (const k of mine.picked || []) picked.set(k, (picked.get(k) || 0) + 1);
  const cycle = new Set(mine.cycle || []);
  // Controls attached to a card: play it (or at someone), pick it for a Crisis, discard it, leak it.
  const attached = (kind) => {
    const out = [];
    const plays = payload.actions.filter((a) => (a.type === "weather" || a.type === "weather_at") && a.card === kind);
    if (plays.length === 1 && plays[0].type === "weather") {
      out.push(h("button", { type: "button", class: "wcc-card-btn", dataset: { focusKey: `play-${kind}` }, onclick: () => send(plays[0]) }, "Play"));
    } else if (plays.length) {
      out.push(h("span", { class: "wcc-on" }, "Play on:"), ...plays.map((a) => h("button", { type: "button", class: "wcc-card-btn",
        "aria-label": a.label, dataset: { focusKey: `play-${kind}-${a.target}` }, onclick: () => send(a) }, nameOf(pub, a.target))));
    }
    for (const a of payload.actions.filter((x) => x.card === kind && ["pick", "unpick", "discard", "leak"].includes(x.type))) {
      const text = { pick: picked.get(kind) ? "Use another" : "Use", unpick: "Put back", discard: "Discard", leak: "To the Bucket" }[a.type];
      out.push(h("button", { type: "button", class: "wcc-card-btn" + (a.type === "pick" || a.type === "discard" || a.type === "leak" ? " go" : ""),
        "aria-label": a.label, dataset: { focusKey: `${a.type}-${kind}` }, onclick: () => send(a) }, text));
    }
    return out;
  };
  const slot = (kind) => {
    const n = hand.get(kind) || 0;
    const p = picked.get(kind) || 0;
    const controls = attached(kind);
    return h("li", { class: `wcc-slot wcc-k-${kind}` + (n ? "" : " empty") + (cycle.has(kind) ? " in-cycle" : "") + (p ? " picked" : "") },
      h("span", { class: "wcc-slot-face" }, kindIcon(kind), h("span", { class: "wcc-slot-name", "aria-hidden": "true" }, SHORT[kind] || legend(pub, kind).name),
        h("span", { class: "visually-hidden" }, legend(pub, kind).name),
        h("span", { class: "wcc-slot-count" }, n ? `×${n}` : "none"), p ? h("span", { class: "wcc-picked" }, `${p} picked`) : null),
      controls.length ? h("span", { class: "wcc-slot-controls" }, controls) : null);
  };
  const weather = (mine.hand || []).filter((c) => !RESOURCES.includes(c.card) && c.card !== "newater");
  const cycleNote = mine.cycle ? (mine.cycle.includes("newater") ? "A full Cycle, with NEWater as the wild card!" : "A full Cycle!")
    : `Missing: ${(mine.missing || []).map((k) => legend(pub, k).name).join(", ")}`;
  return h("section", { class: "wcc-hand-section", "aria-label": "Your hand" },
    h("h2", { class: "wcc-h" }, "Your Cycle", h("span", { class: "wcc-cycle-note" + (mine.cycle ? " ready" : "") }, cycleNote)),
    h("ul", { class: "wcc-cycle-row", role: "list" }, RESOURCES.map(slot), h("li", { class: "wcc-plus", "aria-hidden": "true" }, "+"), slot("newater")),
    weather.length ? h("h2", { class: "wcc-h" }, "Weather cards") : null,
    weather.length ? h("ul", { class: "wcc-weather-list", role: "list" }, weather.map((c) => {
      const p = picked.get(c.card) || 0;
      const controls = attached(c.card);
      return h("li", { class: `wcc-wcard wcc-k-${c.card}` + (p ? " picked" : "") },
        h("p", { class: "wcc-wcard-head" }, kindIcon(c.card), h("strong", {}, legend(pub, c.card).name),
          c.count > 1 ? h("span", { class: "wcc-slot-count" }, `×${c.count}`) : null, p ? h("span", { class: "wcc-picked" }, `${p} picked`) : null),
        h("p", { class: "wcc-wcard-text" }, legend(pub, c.card).text),
        controls.length ? h("p", { class: "wcc-slot-controls" }, controls) : null);
    })) : null);
}

function burstSection(payload, pub, mine, send) {
  if (!mine.burst) return null;
  const takes = byType(payload, "take");
  const target = pub.pending ? pub.pending.target : null;
  return h("section", { class: "wcc-burst", "aria-label": "Their hand" },
    h("h2", { class: "wcc-h" }, `${nameOf(pub, target)}'s hand: take 1 card`),
    h("ul", { class: "wcc-burst-list", role: "list" }, mine.burst.map((c) => {
      const a = takes.find((x) => x.card === c.card);
      return h("li", {}, a ? h("button", { type: "button", class: `wcc-take wcc-k-${c.card}`, "aria-label": a.label,
        dataset: { focusKey: `take-${c.card}` }, onclick: () => send(a) }, kindIcon(c.card), legend(pub, c.card).name,
      c.count > 1 ? ` ×${c.count}` : "") : cardChip(pub, c.card, { count: c.count }));
    })));
}

function thumbZone(payload, pub, mine, send, you) {
  const parts = [];
  const handled = new Set(["weather", "weather_at", "pick", "unpick", "discard", "leak", "take"]);
  const t = (type) => byType(payload, type);
  const vote = t("vote");
  if (vote.length) {
    const up = vote.find((a) => a.up);
    const down = vote.find((a) => !a.up);
    parts.push(h("div", { class: "wcc-vote-row" },
      up ? h("button", { type: "button", class: "wcc-vote up wcc-primary", "aria-label": up.label, dataset: { focusKey: "up" }, onclick: () => send(up) },
        icon("thumb"), h("span", {}, "It works")) : null,
      down ? h("button", { type: "button", class: "wcc-vote down", "aria-label": down.label, dataset: { focusKey: "down" }, onclick: () => send(down) },
        icon("thumb", { flip: true }), h("span", {}, "It doesn't")) : null));
  }
  const answers = t("answer");
  if (answers.length) {
    parts.push(h("div", { class: "wcc-answers" }, answers.map((a) => h("button", { type: "button",
      class: `wcc-answer-btn opt-${a.choice}` + (a.choice === 0 ? " wcc-primary" : ""), dataset: { focusKey: `answer-${a.choice}` },
      onclick: () => send(a) }, h("span", { class: "wcc-letter" }, "ABCD"[a.choice]), h("span", {}, pub.trivia ? pub.trivia.options[a.choice] : a.label)))));
  }
  const explain = t("explain")[0];
  const giveUp = t("give_up")[0];
  if (explain || giveUp) {
    const picked = (mine.picked || []).length;
    if (explain) {
      const area = h("textarea", { id: "wcc-explanation", name: "text", rows: 3, maxlength: EXPLANATION_MAX, required: true,
        placeholder: "How do these cards help with the disaster?", dataset: { focusKey: "explain-text" } });
      area.value = draft;
      const counter = h("span", { class: "wcc-counter", "aria-live": "off" }, `${draft.length}/${EXPLANATION_MAX}`);
      area.addEventListener("input", () => { draft = area.value; counter.textContent = `${draft.length}/${EXPLANATION_MAX}`; });
      parts.push(h("form", { class: "wcc-explain", onsubmit: (event) => {
        event.preventDefault();
        const text = area.value.trim();
        if (!text) { area.focus(); return; }
        send({ ...explain, text: text.slice(0, EXPLANATION_MAX) });
        draft = "";
      } },
      h("label", { for: "wcc-explanation" }, picked === 1 ? "Explain how your card helps" : `Explain how your ${picked} cards help`, counter), area,
      h("button", { type: "submit", class: "primary wcc-primary big", dataset: { focusKey: "explain" } }, "Send explanation")));
    } else {
      parts.push(h("p", { class: "wcc-hint" }, "Tap “Use” on at least one card above, then explain how it helps."));
    }
    if (giveUp) parts.push(h("button", { type: "button", class: "wcc-giveup", "aria-label": giveUp.label, dataset: { focusKey: "giveup" }, onclick: () => send(giveUp) }, "Give up"));
  }
  for (const a of t("respond")) {
    parts.push(h("button", { type: "button", class: a.use ? "primary big wcc-primary" : "big", dataset: { focusKey: `respond-${a.use}` }, onclick: () => send(a) }, a.label));
  }
  for (const a of t("defuse")) {
    parts.push(h("button", { type: "button", class: "primary big wcc-primary wcc-defuse", dataset: { focusKey: "defuse" }, onclick: () => send(a) }, icon("shield"), a.label));
  }
  const main = [...t("trade"), ...t("challenge")];
  if (main.length) {
    parts.push(h("div", { class: "wcc-main-row" }, main.map((a) => h("button", { type: "button", class: `wcc-main ${a.type}`,
      "aria-label": a.label, dataset: { focusKey: a.type }, onclick: () => send(a) },
    icon(a.type === "trade" ? "trophy" : "heart"), h("span", {}, a.type === "trade" ? "Trade a Cycle for a trophy" : "Challenge the Boss")))));
  }
  for (const a of t("draw")) {
    parts.push(h("button", { type: "button", class: "primary big wcc-primary wcc-draw", dataset: { focusKey: "draw" }, onclick: () => send(a) }, a.label));
  }
  const known = new Set([...handled, "vote", "answer", "explain", "give_up", "respond", "defuse", "trade", "challenge", "draw"]);
  const other = payload.actions.filter((a) => !known.has(a.type));
  if (other.length) parts.push(shared.actionControls(other, send, { focusPrefix: "wcc-other" }));
  const choosing = payload.actions.some((a) => handled.has(a.type) && !["weather", "weather_at"].includes(a.type)) && !explain && !giveUp;
  if (choosing) parts.push(h("p", { class: "wcc-hint" }, pub.pending && pub.pending.kind === "burst" ? "Tap a card above to take it." : "Tap a button on a card above."));
  if (!payload.actions.length) {
    const c = pub.crisis;
    let text = "Waiting for " + ((pub.waiting_for || []).map((s) => nameOf(pub, s)).join(" and ") || "the teacher") + "…";
    if (c && c.stage === "vote" && mine.vote !== null && mine.vote !== undefined) text = `You voted thumbs ${mine.vote ? "up" : "down"}. ` + text;
    if (payload.paused) text = "The teacher has paused the game.";
    parts.push(h("p", { class: "wcc-wait" }, text));
  }
  return h("section", { class: "wcc-thumb" + (payload.actions.length ? " active" : ""), "aria-label": "Your move" },
    h("p", { class: "error act-error", role: "alert" }, refusedText()), parts);
}

let draft = ""; // the Crisis explanation being typed survives re-renders

function statusBar(pub, mine, you) {
  const me = pub.players.find((p) => p.seat === you) || { trophies: 0 };
  return h("section", { class: "wcc-status", "aria-label": "Your status" },
    h("span", { class: "wcc-st wcc-trophies" + fresh(`mytr|${me.trophies}`) }, icon("trophy", { label: "Your trophies" }),
      h("span", { class: "wcc-num" }, String(me.trophies)), h("span", { class: "wcc-of" }, `/${pub.goal}`)),
    h("span", { class: "wcc-st wcc-er" + (mine.emergency ? "" : " used") }, icon("shield"), mine.emergency ? "Emergency Response" : "No Emergency Response"),
    h("span", { class: "wcc-st wcc-bossmini" }, "Boss", icon("heart", { cls: "wcc-heart" }), `${pub.boss.hp}/${pub.boss.max_hp}`),
    h("span", { class: "wcc-st" }, icon("bucket"), `Bucket ${pub.boss.bucket}`));
}

function renderPlayer(payload, pub, ctx, entries) {
  const you = payload.seat;
  const mine = payload.view.private || {};
  const send = sender(ctx);
  const over = Boolean(pub.result || payload.result) || payload.status === "ended";
  const promptText = over ? "" : payload.view.prompt.text;
  if (over) {
    return [resultPanel(payload, pub, you), outcomePanel(pub, entries, you), playersStrip(pub, you), shared.logList(entries, 8)];
  }
  const mineToAct = payload.actions.length > 0;
  return [
    statusBar(pub, mine, you),
    outcomePanel(pub, entries, you),
    h("p", { class: "wcc-prompt" + (mineToAct ? " mine" : ""), "aria-live": "polite" }, promptText),
    mine.peek ? h("section", { class: "wcc-peek", "aria-label": "Forecast" }, h("p", { class: "wcc-label" }, "Forecast: the next cards (only you see this)"),
      cardsList(pub, mine.peek)) : null,
    crisisPanel(pub, you, "player"),
    triviaPanel(pub, you, payload, send),
    burstSection(payload, pub, mine, send),
    handSection(payload, pub, mine, send),
    thumbZone(payload, pub, mine, send, you),
    playersStrip(pub, you),
    h("div", { class: "wcc-side-mini" }, bossPanel(pub), pilesPanel(pub)),
    shared.logList(entries, 8),
  ];
}

// ---- The board and the teacher -----------------------------------------------------
function renderBoard(payload, pub, ctx, entries) {
  const over = Boolean(pub.result || payload.result) || payload.status === "ended";
  const head = h("div", { class: "wcc-top" },
    h("p", { class: "wcc-turn" + fresh(`turn|${pub.turn_no}`) }, turnLine(pub, null)),
    over || payload.view.prompt.text === `${turnLine(pub, null)}.` ? null : h("p", { class: "wcc-prompt" }, payload.view.prompt.text));
  if (over) return [head, h("div", { class: "wcc-stage" }, resultPanel(payload, pub, null), playersStrip(pub, null))];
  let main;
  if (pub.crisis && !(ctx.role === "facilitator" && pub.crisis.stage !== "choose" && payload.actions.length)) {
    main = h("div", { class: "wcc-stage wcc-stage-crisis" }, crisisPanel(pub, null, ctx.role),
      h("div", { class: "wcc-mini-row" }, bossPanel(pub), pilesPanel(pub)));
  } else if (pub.trivia) {
    main = h("div", { class: "wcc-stage wcc-stage-trivia" }, triviaPanel(pub, null, payload, () => {}),
      h("div", { class: "wcc-mini-row" }, bossPanel(pub), pilesPanel(pub)));
  } else {
    const which = newestOutcome(pub, entries);
    const latest = which === "trivia" ? triviaResult(pub, null) : which === "crisis" ? crisisResult(pub, null) : null;
    main = h("div", { class: "wcc-stage wcc-stage-table" },
      h("div", { class: "wcc-side" }, bossPanel(pub), pilesPanel(pub), weatherPanel(pub, null)),
      h("div", { class: "wcc-center" }, latest, shared.logList(entries, latest ? 4 : 10)));
  }
  return [head, playersStrip(pub, null), main];
}

function moderationPanel(payload, pub, ctx) {
  const c = pub.crisis;
  const acts = payload.actions;
  if (!c || c.stage === "choose" || !acts.length) return null;
  const send = sender(ctx);
  const find = (type) => acts.find((a) => a.type === type);
  const accept = find("accept");
  const reject = find("reject");
  const toggle = find("hide") || find("show");
  const extend = find("extend");
  const close = find("close");
  const reason = h("textarea", { id: "wcc-reason", rows: 2, maxlength: REASON_MAX, placeholder: "Optional: why (shown to the players and the board)",
    dataset: { focusKey: "reason" } });
  reason.value = reasonDraft;
  reason.addEventListener("input", () => { reasonDraft = reason.value; });
  const who = nameOf(pub, c.seat);
  return h("section", { class: "wcc-mod", "aria-label": "Moderate the Crisis" },
    h("h2", {}, icon("alert"), `Moderate ${who}'s answer to the ${c.crisis.name}`),
    h("p", { class: "wcc-scenario" }, c.crisis.scenario),
    h("p", { class: "wcc-question" }, c.crisis.question),
    h("p", { class: "wcc-mod-state" }, c.stage === "review"
      ? (c.vote_passed === null || c.vote_passed === undefined ? "You decide." : `The vote is closed: the players say it ${c.vote_passed ? "works" : "does not work"}. Confirm or override.`)
      : `The players are voting: ${c.voted.length} of ${c.voters.length} have voted.`),
    h("figure", { class: "wcc-explanation" }, h("figcaption", {}, `${who}'s explanation`,
      c.hidden ? h("span", { class: "wcc-badge" }, "hidden from the board and phones") : null),
    h("blockquote", {}, c.explanation || "")),
    c.cards.length ? h("div", { class: "wcc-spent" }, h("p", { class: "wcc-label" }, "Cards spent"), cardsList(pub, c.cards)) : null,
    tallyPanel(pub, c, null),
    h("p", { class: "error act-error", role: "alert" }, refusedText()),
    h("div", { class: "wcc-mod-decide" },
      accept ? h("button", { type: "button", class: "wcc-accept", "aria-label": accept.label, dataset: { focusKey: "accept" }, onclick: () => send(accept) },
        icon("check"), "Accept") : null,
      reject ? h("div", { class: "wcc-reject-box" }, h("label", { for: "wcc-reason" }, "Reason for a rejection (optional)"), reason,
        h("button", { type: "button", class: "wcc-reject", "aria-label": reject.label, dataset: { focusKey: "reject" }, onclick: () => {
          send({ ...reject, reason: reason.value.trim().slice(0, REASON_MAX) });
          reasonDraft = "";
        } }, icon("cross"), "Reject")) : null),
    h("div", { class: "button-row wcc-mod-more" },
      toggle ? h("button", { type: "button", dataset: { focusKey: "toggle" }, onclick: () => send(toggle) }, icon("eye"), toggle.label) : null,
      extend ? h("button", { type: "button", dataset: { focusKey: "extend" }, onclick: () => send(extend) }, icon("clock"), extend.label) : null,
      close ? h("button", { type: "button", dataset: { focusKey: "close" }, onclick: () => send(close) }, close.label) : null));
}
let reasonDraft = "";

// ---- Entry point -------------------------------------------------------------------
export function render(root, payload, ctx) {
  const pub = payload.view.public;
  const entries = typeof ctx.log === "function" ? ctx.log() : (payload.log || []);
  seenNext = new Set();
  if (pub.crisis === null || pub.crisis.stage !== "choose" || pub.crisis.seat !== payload.seat) draft = draft && pub.crisis ? draft : "";
  let body;
  if (ctx.role === "player") body = renderPlayer(payload, pub, ctx, entries);
  else if (ctx.role === "facilitator") {
    const mod = moderationPanel(payload, pub, ctx);
    if (!mod) reasonDraft = "";
    body = [mod, ...renderBoard(payload, pub, ctx, entries)];
  } else body = renderBoard(payload, pub, ctx, entries);
  const stage = pub.result ? "over" : pub.crisis ? "crisis" : pub.trivia ? "trivia" : "table";
  preserveFocus(root, () => replace(root, h("div", { class: `wcc game-view wcc-${ctx.role} wcc-on-${stage}` }, body)));
  seen = seenNext;
}

// The end screen's scores (table.js endScreen, where the platform has one) count trophies.
export const scoreText = (n) => plural(n, "trophy", "trophies");
