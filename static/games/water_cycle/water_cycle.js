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
import { byType, CARD_FACE, fitRegion, freshMarks, logOf, nameOf, refusals } from "/static/js/kit.js";
import { icon, kindIcon } from "/static/games/water_cycle/icons.js"; // every icon, one per card kind
import { countdown } from "/static/js/countdown.js";
import { t, tn } from "/static/js/i18n.js";

const RESOURCES = ["evap", "cond", "precip", "collect"];
const EXPLANATION_MAX = 400;
// The short names on the Cycle row (a translation keeps them about as short).
const SHORT = { evap: t("Evap"), cond: t("Cond"), precip: t("Precip"), collect: t("Collect"), newater: "NEWater" };
const REASON_MAX = 200;

// ---- Small helpers -----------------------------------------------------------
function legend(pub, kind) {
  return (pub.legend && pub.legend[kind]) || { name: kind, text: "" };
}

// A card face: its colour says its kind; its icon and name say it too.
function cardChip(pub, kind, { count = null, cls = "" } = {}) {
  return h("span", { class: `${CARD_FACE} wcc-chip wcc-k-${kind} ${cls}`.trim() },
    kindIcon(kind), h("span", { class: "wcc-chip-name" }, legend(pub, kind).name),
    count !== null && count > 1 ? h("span", { class: "wcc-chip-count" }, `×${count}`) : null);
}

function cardsList(pub, kinds) {
  const counts = new Map();
  for (const k of kinds) counts.set(k, (counts.get(k) || 0) + 1);
  return h("span", { class: "wcc-chips" }, [...counts].map(([k, n]) => cardChip(pub, k, { count: n })));
}

// Animate only what is new since the last render.
const marks = freshMarks();
const fresh = marks.fresh;

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
const refusal = refusals(".wcc");

// ---- Shared panels ---------------------------------------------------------------
function bossPanel(pub) {
  const boss = pub.boss;
  const hearts = [];
  for (let i = 0; i < boss.max_hp; i++) hearts.push(icon("heart", { cls: i < boss.hp ? "wcc-heart" : "wcc-heart lost" }));
  return h("section", { class: "wcc-boss", "aria-label": t("The Boss") },
    h("p", { class: `${CARD_FACE} wcc-boss-title` }, kindIcon("boss"), t("Boss")),
    h("p", { class: "wcc-hearts", role: "img", "aria-label": t("{hp} of {max} HP", { hp: boss.hp, max: boss.max_hp }) }, hearts,
      h("span", { class: "wcc-hp", "aria-hidden": "true" }, `${boss.hp}/${boss.max_hp}`)),
    h("p", { class: "wcc-bucket" }, icon("bucket"), h("span", { class: "wcc-num" }, String(boss.bucket)),
      h("span", {}, " " + tn("card in the Bucket", "cards in the Bucket", boss.bucket))));
}

function pilesPanel(pub) {
  return h("section", { class: "wcc-piles", "aria-label": t("Piles") },
    h("p", { class: "wcc-pile" }, icon("cards"), h("span", { class: "wcc-num" }, String(pub.deck)), h("span", {}, " " + t("to draw"))),
    h("p", { class: "wcc-pile" }, h("span", { class: "wcc-num" }, String(pub.discard)), h("span", {}, " " + t("discarded")),
      pub.discard_top ? h("span", { class: "wcc-top" }, " " + t("top:") + " ", cardChip(pub, pub.discard_top)) : null));
}

function weatherText(pub, w, you) {
  if (!w) return "";
  const mine = you !== null && you !== undefined && w.by === you;
  const fields = { name: nameOf(pub, w.by), card: legend(pub, w.card).name };
  const cancelled = w.cancelled;
  if (w.target === null || w.target === undefined) {
    if (mine) return cancelled ? t("You played {card}: cancelled by a Reservoir.", fields) : t("You played {card}.", fields);
    return cancelled ? t("{name} played {card}: cancelled by a Reservoir.", fields) : t("{name} played {card}.", fields);
  }
  if (w.target === you) {
    return cancelled ? t("{name} played {card} on you: cancelled by a Reservoir.", fields) : t("{name} played {card} on you.", fields);
  }
  fields.target = nameOf(pub, w.target);
  if (mine) {
    return cancelled ? t("You played {card} on {target}: cancelled by a Reservoir.", fields)
      : t("You played {card} on {target}.", fields);
  }
  return cancelled ? t("{name} played {card} on {target}: cancelled by a Reservoir.", fields)
    : t("{name} played {card} on {target}.", fields);
}

function weatherPanel(pub, you) {
  const w = pub.last_weather;
  if (!w) return null;
  return h("section", { class: "wcc-last-weather" + fresh(`w|${JSON.stringify(w)}`), "aria-label": t("Last Weather card") },
    h("p", { class: "wcc-label" }, t("Last Weather card")),
    h("p", { class: "wcc-weather-line" }, cardChip(pub, w.card)),
    h("p", { class: "wcc-weather-who" }, weatherText(pub, w, you)),
    h("p", { class: "wcc-weather-text" }, legend(pub, w.card).text));
}

function triviaResult(pub, you, { full = true } = {}) {
  const last = pub.last_trivia;
  if (!last) return null;
  const who = nameOf(pub, last.seat, you);
  return h("section", { class: "wcc-trivia-result " + (last.correct ? "right" : "wrong") + fresh(`t|${last.question}|${last.seat}`),
    "aria-label": t("Last trivia answer") },
  h("p", { class: "wcc-verdict" }, icon(last.correct ? "check" : "cross"),
    last.correct ? (last.seat === you ? t("You answered right: the Boss takes 1 damage!") : t("{name} answered right: the Boss takes 1 damage!", { name: who }))
      : (last.seat === you ? t("You answered wrong.") : t("{name} answered wrong.", { name: who }))),
  full ? h("p", { class: "wcc-q" }, last.question) : null,
  h("p", { class: "wcc-answer" }, t("Answer {letter}: {option}", { letter: "ABCD"[last.answer], option: last.options[last.answer] })),
  h("p", { class: "wcc-expl" }, last.explanation));
}

function crisisResult(pub, you) {
  const c = pub.last_crisis;
  if (!c) return null;
  // c.reason is an English text of the engine's catalog ("gave up"): looked up as it is.
  const how = c.decided_by === "teacher" ? (c.passed ? t("accepted by the teacher") : t("rejected by the teacher"))
    : c.decided_by === "vote" ? (c.passed ? t("passed the vote") : t("voted down")) : c.reason ? t(c.reason) : t("failed");
  const verdict = c.seat === you ? t("Your answer to the {crisis}: {how}", { crisis: c.name, how })
    : t("{name}'s answer to the {crisis}: {how}", { name: nameOf(pub, c.seat), crisis: c.name, how });
  return h("section", { class: "wcc-crisis-result " + (c.passed ? "right" : "wrong") + fresh(`c|${JSON.stringify(c)}`),
    "aria-label": t("Last Crisis") },
  h("p", { class: "wcc-verdict" }, icon(c.passed ? "check" : "cross"), verdict),
  c.decided_by !== "player" ? h("p", { class: "wcc-tally-line" }, t("Vote: {up} up, {down} down", { up: c.up, down: c.down })) : null,
  c.decided_by === "teacher" && c.reason ? h("p", { class: "wcc-reason" }, t("The teacher: “{reason}”", { reason: c.reason })) : null,
  c.explanation ? h("blockquote", { class: "wcc-expl" }, c.explanation)
    : c.hidden ? h("p", { class: "wcc-expl muted" }, t("The explanation was hidden by the teacher.")) : null);
}

function outcomePanel(pub, entries, you) {
  const which = newestOutcome(pub, entries);
  if (which === "trivia") return triviaResult(pub, you, { full: false });
  if (which === "crisis") return crisisResult(pub, you);
  if (which === "weather") {
    const w = pub.last_weather;
    return h("section", { class: "wcc-last-weather" + fresh(`w|${JSON.stringify(w)}`), "aria-label": t("Last Weather card") },
      h("p", { class: "wcc-weather-line" }, cardChip(pub, w.card), " ", weatherText(pub, w, you)));
  }
  return null;
}

function modeText(mode) {
  return { players: t("The players' vote decides"), confirm: t("Players vote, then the teacher confirms"),
    teacher: t("The teacher decides") }[mode] || mode;
}

// The vote's clock (countdown.js): the platform's deadline under the view's clock_key.
function voteClock(payload) {
  const c = payload.view.public.crisis;
  return c && c.stage === "vote"
    ? countdown(payload, c.clock_key, { label: t("Vote closes in"), name: t("Time left to vote"), cls: "wcc-clock" }) : null;
}

// `clock`: the vote's countdown where the screen shows it with the tally (the board, the teacher).
function tallyPanel(pub, crisis, you, clock = null) {
  const voters = crisis.voters || [];
  return h("section", { class: "wcc-tally", "aria-label": t("Votes") },
    clock,
    h("p", { class: "wcc-thumbs" },
      h("span", { class: "wcc-up" }, icon("thumb", { label: t("thumbs up") }), h("span", { class: "wcc-num" }, String(crisis.up))),
      h("span", { class: "wcc-down" }, icon("thumb", { flip: true, label: t("thumbs down") }), h("span", { class: "wcc-num" }, String(crisis.down)))),
    crisis.stage === "vote" ? h("ul", { class: "wcc-voters", role: "list" }, voters.map((v) => {
      const done = crisis.voted.includes(v);
      return h("li", { class: done ? "done" : "" }, icon(done ? "check" : "clock"),
        h("span", {}, nameOf(pub, v, you)), h("span", { class: "visually-hidden" }, " " + (done ? t("has voted") : t("has not voted yet"))));
    })) : null,
    crisis.stage === "review" && crisis.vote_passed !== null && crisis.vote_passed !== undefined
      ? h("p", { class: "wcc-review" }, crisis.vote_passed ? t("The players say: it works. The teacher decides now.")
        : t("The players say: it does not work. The teacher decides now."))
      : crisis.stage === "review" ? h("p", { class: "wcc-review" }, t("The teacher decides now.")) : null,
    h("p", { class: "wcc-mode" }, modeText(crisis.mode)));
}

// The Crisis: the disaster, then (once sent) the explanation, the cards and the tally.
function crisisPanel(pub, you, role, clock = null) {
  const c = pub.crisis;
  if (!c) return null;
  const d = c.crisis;
  const who = nameOf(pub, c.seat, you);
  let explanation;
  if (c.stage === "choose") {
    explanation = h("p", { class: "wcc-waiting" }, c.seat === you ? "" : t("{name} is picking cards and writing an explanation…", { name: who }));
  } else if (c.explanation === null || c.explanation === undefined) {
    explanation = h("p", { class: "wcc-hidden-expl" }, icon("eye"), t("The explanation is hidden by the teacher."));
  } else {
    const size = c.explanation.length > 280 ? " long" : c.explanation.length > 160 ? " medium" : "";
    explanation = h("figure", { class: "wcc-explanation" + size },
      h("figcaption", {}, c.seat === you ? t("Your answer") : t("{name}'s answer", { name: who }), c.hidden ? h("span", { class: "wcc-badge" }, t("hidden from the class")) : null),
      h("blockquote", {}, c.explanation));
  }
  const showIdeas = role === "player" && c.seat === you && c.stage === "choose";
  return h("section", { class: "wcc-crisis stage-" + c.stage + fresh(`crisis|${c.vote}`), "aria-label": t("Crisis") },
    h("div", { class: "wcc-crisis-main" },
      h("h2", { class: `${CARD_FACE} wcc-crisis-name` }, kindIcon("crisis"), t("Crisis: {crisis}", { crisis: d.name }),
        h("span", { class: "wcc-crisis-who" }, " — " + (c.seat === you ? t("yours") : who))),
      h("p", { class: "wcc-scenario" }, d.scenario),
      h("p", { class: "wcc-question" }, d.question),
      showIdeas && d.ideas && d.ideas.length ? h("details", { class: "wcc-ideas" }, h("summary", {}, t("Need an idea?")),
        h("ul", {}, d.ideas.map((i) => h("li", {}, i)))) : null,
      c.stage === "choose" && c.seat === you ? null : explanation),
    c.stage === "choose" ? null : h("div", { class: "wcc-crisis-side" },
      c.cards.length ? h("div", { class: "wcc-spent" }, h("p", { class: "wcc-label" }, t("Cards spent")), cardsList(pub, c.cards)) : null,
      tallyPanel(pub, c, you, clock)));
}

function triviaPanel(pub, you, payload, send) {
  const q = pub.trivia;
  if (!q) return null;
  const who = q.seat === you ? t("Your question from the Boss") : t("{name}'s question from the Boss", { name: nameOf(pub, q.seat) });
  const answers = byType(payload.actions, "answer");
  return h("section", { class: "wcc-trivia" + fresh(`trivia|${q.question}`), "aria-label": t("The Boss's question") },
    h("p", { class: "wcc-label" }, icon("question"), who),
    h("h2", { class: "wcc-q" }, q.question),
    answers.length ? null : h("ol", { class: "wcc-options", role: "list" }, q.options.map((o, i) =>
      h("li", { class: `wcc-opt opt-${i}` }, h("span", { class: "wcc-letter" }, "ABCD"[i]), h("span", {}, o)))));
}

function resultPanel(payload, pub, you) {
  const r = pub.result || payload.result;
  if (!r) return null;
  const text = shared.resultText ? shared.resultText(payload) : "";
  return h("section", { class: "wcc-result", "aria-label": t("Result") },
    icon("trophy", { cls: "wcc-result-trophy" }),
    h("h2", {}, text || t("The game is over.")),
    r.reason ? h("p", { class: "wcc-reason-line" }, t("The game ended: {reason}.", { reason: t(r.reason) })) : null,
    h("ol", { class: "wcc-ranking", role: "list" }, r.ranking.map((s, i) => h("li", { class: r.winners.includes(s) ? "top" : "" },
      h("span", { class: "wcc-rank" }, `${r.winners.includes(s) ? 1 : i + 1}.`),
      h("span", { class: "wcc-rank-name" }, s === you ? t("{name} (you)", { name: nameOf(pub, s) }) : nameOf(pub, s)),
      h("span", { class: "wcc-rank-score" }, icon("trophy"), String(r.scores[s]))))));
}

function playersStrip(pub, you) {
  return h("ul", { class: "wcc-players", role: "list", "aria-label": t("Players"), dataset: { count: pub.players.length } },
    pub.players.map((p) => {
      const turn = !pub.result && pub.turn === p.seat;
      const waiting = (pub.waiting_for || []).includes(p.seat);
      return h("li", { class: "wcc-player" + (turn ? " turn" : "") + (waiting ? " waiting" : "") + (p.seat === you ? " mine" : "") },
        h("p", { class: "wcc-pname" }, h("span", { class: "wcc-pname-text" }, p.name), p.seat === you ? h("span", { class: "wcc-badge" }, t("you")) : null),
        h("p", { class: "wcc-stats" },
          h("span", { class: "wcc-trophies" + fresh(`tr|${p.seat}|${p.trophies}`), title: t("Trophies") }, icon("trophy", { label: t("trophies") }),
            h("span", { class: "wcc-num" }, String(p.trophies)), h("span", { class: "wcc-of" }, `/${pub.goal}`)),
          h("span", { class: "wcc-hand", title: t("Cards in hand") }, icon("cards", { label: t("cards in hand") }), h("span", { class: "wcc-num" }, String(p.hand))),
          h("span", { class: "wcc-er" + (p.emergency ? "" : " used") }, icon("shield", { label: p.emergency ? t("Emergency Response ready") : t("Emergency Response used") })),
          p.skips ? h("span", { class: "wcc-skip" }, icon("skip"), t("skips {n}", { n: p.skips })) : null,
          p.skipped ? h("span", { class: "wcc-skipped" }, t("skipped {n}", { n: p.skipped })) : null));
    }));
}

function turnLine(pub, you) {
  if (pub.result) return t("Game over");
  return pub.turn === you ? t("Your turn") : t("{name}'s turn", { name: nameOf(pub, pub.turn) });
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
      out.push(h("button", { type: "button", class: "wcc-card-btn", dataset: { focusKey: `play-${kind}` }, onclick: () => send(plays[0]) }, t("Play")));
    } else if (plays.length) {
      out.push(h("span", { class: "wcc-on" }, t("Play on:")), ...plays.map((a) => h("button", { type: "button", class: "wcc-card-btn",
        "aria-label": a.label, dataset: { focusKey: `play-${kind}-${a.target}` }, onclick: () => send(a) }, nameOf(pub, a.target))));
    }
    for (const a of payload.actions.filter((x) => x.card === kind && ["pick", "unpick", "discard", "leak"].includes(x.type))) {
      const text = { pick: picked.get(kind) ? t("Use another") : t("Use"), unpick: t("Put back"), discard: t("Discard"), leak: t("To the Bucket") }[a.type];
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
      h("span", { class: `${CARD_FACE} wcc-slot-face` }, kindIcon(kind), h("span", { class: "wcc-slot-name", "aria-hidden": "true" }, SHORT[kind] || legend(pub, kind).name),
        h("span", { class: "visually-hidden" }, legend(pub, kind).name),
        h("span", { class: "wcc-slot-count" }, n ? `×${n}` : t("none")), p ? h("span", { class: "wcc-picked" }, t("{n} picked", { n: p })) : null),
      controls.length ? h("span", { class: "wcc-slot-controls" }, controls) : null);
  };
  const weather = (mine.hand || []).filter((c) => !RESOURCES.includes(c.card) && c.card !== "newater");
  const cycleNote = mine.cycle ? (mine.cycle.includes("newater") ? t("A full Cycle, with NEWater as the wild card!") : t("A full Cycle!"))
    : t("Missing: {cards}", { cards: (mine.missing || []).map((k) => legend(pub, k).name).join(", ") });
  return h("section", { class: "wcc-hand-section", "aria-label": t("Your hand") },
    h("h2", { class: "wcc-h" }, t("Your Cycle"), h("span", { class: "wcc-cycle-note" + (mine.cycle ? " ready" : "") }, cycleNote)),
    h("ul", { class: "wcc-cycle-row", role: "list" }, RESOURCES.map(slot), h("li", { class: "wcc-plus", "aria-hidden": "true" }, "+"), slot("newater")),
    weather.length ? h("h2", { class: "wcc-h" }, t("Weather cards")) : null,
    weather.length ? h("ul", { class: "wcc-weather-list", role: "list" }, weather.map((c) => {
      const p = picked.get(c.card) || 0;
      const controls = attached(c.card);
      return h("li", { class: `wcc-wcard wcc-k-${c.card}` + (p ? " picked" : "") },
        h("p", { class: `${CARD_FACE} wcc-wcard-head` }, kindIcon(c.card), h("strong", {}, legend(pub, c.card).name),
          c.count > 1 ? h("span", { class: "wcc-slot-count" }, `×${c.count}`) : null, p ? h("span", { class: "wcc-picked" }, t("{n} picked", { n: p })) : null),
        h("p", { class: "wcc-wcard-text" }, legend(pub, c.card).text),
        controls.length ? h("p", { class: "wcc-slot-controls" }, controls) : null);
    })) : null);
}

function burstSection(payload, pub, mine, send) {
  if (!mine.burst) return null;
  const takes = byType(payload.actions, "take");
  const target = pub.pending ? pub.pending.target : null;
  return h("section", { class: "wcc-burst", "aria-label": t("Their hand") },
    h("h2", { class: "wcc-h" }, t("{name}'s hand: take 1 card", { name: nameOf(pub, target) })),
    h("ul", { class: "wcc-burst-list", role: "list" }, mine.burst.map((c) => {
      const a = takes.find((x) => x.card === c.card);
      return h("li", {}, a ? h("button", { type: "button", class: `${CARD_FACE} wcc-take wcc-k-${c.card}`, "aria-label": a.label,
        dataset: { focusKey: `take-${c.card}` }, onclick: () => send(a) }, kindIcon(c.card), legend(pub, c.card).name,
      c.count > 1 ? ` ×${c.count}` : "") : cardChip(pub, c.card, { count: c.count }));
    })));
}

function thumbZone(payload, pub, mine, send, you) {
  const parts = [];
  const handled = new Set(["weather", "weather_at", "pick", "unpick", "discard", "leak", "take"]);
  const of = (type) => byType(payload.actions, type);
  // On the phone the vote's clock sits with the thumbs, where the voter looks (and the one who waits).
  parts.push(voteClock(payload));
  const vote = of("vote");
  if (vote.length) {
    const up = vote.find((a) => a.up);
    const down = vote.find((a) => !a.up);
    parts.push(h("div", { class: "wcc-vote-row" },
      up ? h("button", { type: "button", class: "wcc-vote up wcc-primary", "aria-label": up.label, dataset: { focusKey: "up" }, onclick: () => send(up) },
        icon("thumb"), h("span", {}, t("It works"))) : null,
      down ? h("button", { type: "button", class: "wcc-vote down", "aria-label": down.label, dataset: { focusKey: "down" }, onclick: () => send(down) },
        icon("thumb", { flip: true }), h("span", {}, t("It doesn't"))) : null));
  }
  const answers = of("answer");
  if (answers.length) {
    parts.push(h("div", { class: "wcc-answers" }, answers.map((a) => h("button", { type: "button",
      class: `wcc-answer-btn opt-${a.choice}` + (a.choice === 0 ? " wcc-primary" : ""), dataset: { focusKey: `answer-${a.choice}` },
      onclick: () => send(a) }, h("span", { class: "wcc-letter" }, "ABCD"[a.choice]), h("span", {}, pub.trivia ? pub.trivia.options[a.choice] : a.label)))));
  }
  const explain = of("explain")[0];
  const giveUp = of("give_up")[0];
  if (explain || giveUp) {
    const picked = (mine.picked || []).length;
    if (explain) {
      const area = h("textarea", { id: "wcc-explanation", name: "text", rows: 3, maxlength: EXPLANATION_MAX, required: true,
        placeholder: t("How do these cards help with the disaster?"), dataset: { focusKey: "explain-text" } });
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
      h("label", { for: "wcc-explanation" }, tn("Explain how your card helps", "Explain how your {n} cards help", picked), counter), area,
      h("button", { type: "submit", class: "primary wcc-primary big", dataset: { focusKey: "explain" } }, t("Send explanation"))));
    } else {
      parts.push(h("p", { class: "wcc-hint" }, t("Tap “Use” on at least one card above, then explain how it helps.")));
    }
    if (giveUp) parts.push(h("button", { type: "button", class: "wcc-giveup", "aria-label": giveUp.label, dataset: { focusKey: "giveup" }, onclick: () => send(giveUp) }, t("Give up")));
  }
  for (const a of of("respond")) {
    parts.push(h("button", { type: "button", class: a.use ? "primary big wcc-primary" : "big", dataset: { focusKey: `respond-${a.use}` }, onclick: () => send(a) }, a.label));
  }
  for (const a of of("defuse")) {
    parts.push(h("button", { type: "button", class: "primary big wcc-primary wcc-defuse", dataset: { focusKey: "defuse" }, onclick: () => send(a) }, icon("shield"), a.label));
  }
  const main = [...of("trade"), ...of("challenge")];
  if (main.length) {
    parts.push(h("div", { class: "wcc-main-row" }, main.map((a) => h("button", { type: "button", class: `wcc-main ${a.type}`,
      "aria-label": a.label, dataset: { focusKey: a.type }, onclick: () => send(a) },
    icon(a.type === "trade" ? "trophy" : "heart"), h("span", {}, a.type === "trade" ? t("Trade a Cycle for a trophy") : t("Challenge the Boss"))))));
  }
  for (const a of of("draw")) {
    parts.push(h("button", { type: "button", class: "primary big wcc-primary wcc-draw", dataset: { focusKey: "draw" }, onclick: () => send(a) }, a.label));
  }
  const known = new Set([...handled, "vote", "answer", "explain", "give_up", "respond", "defuse", "trade", "challenge", "draw"]);
  const other = payload.actions.filter((a) => !known.has(a.type));
  if (other.length) parts.push(shared.actionControls(other, send, { focusPrefix: "wcc-other" }));
  const choosing = payload.actions.some((a) => handled.has(a.type) && !["weather", "weather_at"].includes(a.type)) && !explain && !giveUp;
  if (choosing) parts.push(h("p", { class: "wcc-hint" }, pub.pending && pub.pending.kind === "burst" ? t("Tap a card above to take it.") : t("Tap a button on a card above.")));
  if (!payload.actions.length) {
    const c = pub.crisis;
    const names = (pub.waiting_for || []).map((s) => nameOf(pub, s));
    const and = t("and");
    let text = names.length ? t("Waiting for {names}…", { names: names.join(` ${and} `) }) : t("Waiting for the teacher…");
    if (c && c.stage === "vote" && mine.vote !== null && mine.vote !== undefined) {
      text = (mine.vote ? t("You voted thumbs up.") : t("You voted thumbs down.")) + " " + text;
    }
    if (payload.paused) text = t("The teacher has paused the game.");
    parts.push(h("p", { class: "wcc-wait" }, text));
  }
  // While the choices are on the cards above (Use, Discard, To the Bucket, Take), the bar
  // holds only a hint and Give up: it flows after the cards rather than pinned over them.
  const onCards = payload.actions.some((a) => ["pick", "unpick", "discard", "leak", "take"].includes(a.type)) && !explain;
  return h("section", { class: "wcc-thumb" + (payload.actions.length ? " active" : "") + (onCards ? " flows" : ""), "aria-label": t("Your move") },
    h("p", { class: "error act-error", role: "alert" }, refusal.text()), parts);
}

let draft = ""; // the Crisis explanation being typed survives re-renders

function statusBar(pub, mine, you) {
  const me = pub.players.find((p) => p.seat === you) || { trophies: 0 };
  return h("section", { class: "wcc-status", "aria-label": t("Your status") },
    h("span", { class: "wcc-st wcc-trophies" + fresh(`mytr|${me.trophies}`) }, icon("trophy", { label: t("Your trophies") }),
      h("span", { class: "wcc-num" }, String(me.trophies)), h("span", { class: "wcc-of" }, `/${pub.goal}`)),
    h("span", { class: "wcc-st wcc-er" + (mine.emergency ? "" : " used") }, icon("shield"), mine.emergency ? t("Emergency Response") : t("No Emergency Response")),
    h("span", { class: "wcc-st wcc-bossmini" }, kindIcon("boss"), t("Boss"), icon("heart", { cls: "wcc-heart" }), `${pub.boss.hp}/${pub.boss.max_hp}`),
    h("span", { class: "wcc-st" }, icon("bucket"), t("Bucket {n}", { n: pub.boss.bucket })));
}

function renderPlayer(payload, pub, ctx, entries) {
  const you = payload.seat;
  const mine = payload.view.private || {};
  const send = refusal.sender(ctx);
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
    mine.peek ? h("section", { class: "wcc-peek", "aria-label": t("Forecast") }, h("p", { class: "wcc-label" }, t("Forecast: the next cards (only you see this)")),
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
    over || !pub.pending ? null : h("p", { class: "wcc-prompt" }, payload.view.prompt.text));
  if (over) return [head, h("div", { class: "wcc-stage" }, resultPanel(payload, pub, null), playersStrip(pub, null))];
  let main;
  if (pub.crisis && !(ctx.role === "facilitator" && pub.crisis.stage !== "choose" && payload.actions.length)) {
    main = h("div", { class: "wcc-stage wcc-stage-crisis" }, crisisPanel(pub, null, ctx.role, voteClock(payload)),
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
  const send = refusal.sender(ctx);
  const find = (type) => acts.find((a) => a.type === type);
  const accept = find("accept");
  const reject = find("reject");
  const toggle = find("hide") || find("show");
  const extend = find("extend");
  const close = find("close");
  const reason = h("textarea", { id: "wcc-reason", rows: 2, maxlength: REASON_MAX, placeholder: t("Optional: why (shown to the players and the board)"),
    dataset: { focusKey: "reason" } });
  reason.value = reasonDraft;
  reason.addEventListener("input", () => { reasonDraft = reason.value; });
  const who = nameOf(pub, c.seat);
  return h("section", { class: "wcc-mod", "aria-label": t("Moderate the Crisis") },
    h("h2", {}, icon("alert"), t("Moderate {name}'s answer to the {crisis}", { name: who, crisis: c.crisis.name })),
    h("p", { class: "wcc-scenario" }, c.crisis.scenario),
    h("p", { class: "wcc-question" }, c.crisis.question),
    h("p", { class: "wcc-mod-state" }, c.stage === "review"
      ? (c.vote_passed === null || c.vote_passed === undefined ? t("You decide.")
        : c.vote_passed ? t("The vote is closed: the players say it works. Confirm or override.")
          : t("The vote is closed: the players say it does not work. Confirm or override."))
      : t("The players are voting: {voted} of {voters} have voted.", { voted: c.voted.length, voters: c.voters.length })),
    h("figure", { class: "wcc-explanation" }, h("figcaption", {}, t("{name}'s explanation", { name: who }),
      c.hidden ? h("span", { class: "wcc-badge" }, t("hidden from the board and phones")) : null),
    h("blockquote", {}, c.explanation || "")),
    c.cards.length ? h("div", { class: "wcc-spent" }, h("p", { class: "wcc-label" }, t("Cards spent")), cardsList(pub, c.cards)) : null,
    tallyPanel(pub, c, null, voteClock(payload)),
    h("p", { class: "error act-error", role: "alert" }, refusal.text()),
    h("div", { class: "wcc-mod-decide" },
      accept ? h("button", { type: "button", class: "wcc-accept", "aria-label": accept.label, dataset: { focusKey: "accept" }, onclick: () => send(accept) },
        icon("check"), t("Accept")) : null,
      reject ? h("div", { class: "wcc-reject-box" }, h("label", { for: "wcc-reason" }, t("Reason for a rejection (optional)")), reason,
        h("button", { type: "button", class: "wcc-reject", "aria-label": reject.label, dataset: { focusKey: "reject" }, onclick: () => {
          send({ ...reject, reason: reason.value.trim().slice(0, REASON_MAX) });
          reasonDraft = "";
        } }, icon("cross"), t("Reject"))) : null),
    h("div", { class: "button-row wcc-mod-more" },
      toggle ? h("button", { type: "button", dataset: { focusKey: "toggle" }, onclick: () => send(toggle) }, icon("eye"), toggle.label) : null,
      extend ? h("button", { type: "button", dataset: { focusKey: "extend" }, onclick: () => send(extend) }, icon("clock"), extend.label) : null,
      close ? h("button", { type: "button", dataset: { focusKey: "close" }, onclick: () => send(close) }, close.label) : null));
}
let reasonDraft = "";

// ---- Entry point -------------------------------------------------------------------
export function render(root, payload, ctx) {
  const pub = payload.view.public;
  const entries = logOf(payload, ctx);
  marks.begin();
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
  // A long explanation or question gets a tighter layout, then smaller type, rather than cut (kit.js).
  if (ctx.role === "board") for (const region of root.querySelectorAll(".wcc-crisis, .wcc-trivia")) fitRegion(region, { layouts: ["wcc-tight"] });
  // The side column (Boss, piles, the last Weather card) steps its type down, and at last
  // leaves out the Weather card's rule text, rather than run off the board (longer languages).
  if (ctx.role === "board") for (const side of root.querySelectorAll(".wcc-stage-table .wcc-side")) fitRegion(side, { layouts: ["wcc-side-tight"] });
  marks.end();
}

// The end screen's scores (table.js endScreen, where the platform has one) count trophies.
export const scoreText = (n) => tn("{n} trophy", "{n} trophies", n);
