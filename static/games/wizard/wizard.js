// The Wizard duel: the phone and the projected board (one module for both).
// Every control sends exactly one of `payload.actions` (the platform strips the
// labels); the cast action's `words` (words of power, at most 120 characters)
// is filled from a text field first. A refused move is said next to the controls.
//
// payload: {code, game, version, status, seat, view: {public, private, prompt},
//           actions, log (new entries), players, result, ...}
// ctx:     {role: "player" | "board" | "facilitator", act(action) -> ack, log()}
import { h, replace } from "/static/js/dom.js";
import * as shared from "/static/js/table.js";

const WORDS_MAX = 120;
const NS = "http://www.w3.org/2000/svg";

// ---- Icons: inline SVG in currentColor (no emoji) ---------------------------------
const ICONS = {
  female: [["circle", { cx: 12, cy: 9, r: 5.5 }], ["path", { d: "M12 14.5V22M8.5 18.5h7" }]],
  male: [["circle", { cx: 10, cy: 14, r: 5.5 }], ["path", { d: "M14 10l6.5-6.5M15 3.5h5.5V9" }]],
  crown: [["path", { d: "M3 18 2 7l5.5 4L12 4l4.5 7L22 7l-1 11z", class: "fill" }], ["path", { d: "M3 21h18" }]],
  attack: [["path", { d: "M14.5 17.5 3 6V3h3l11.5 11.5M13 19l6-6M16 16l4 4M19 21l2-2" }]],
  defense: [["path", { d: "M12 22s8-4 8-10V5l-8-3-8 3v7c0 6 8 10 8 10z" }]],
  stack: [["rect", { x: 4, y: 7, width: 13, height: 15, rx: 2 }], ["path", { d: "M7 4h11a2 2 0 0 1 2 2v13" }]],
  star: [["path", { d: "M12 2.5l2.9 6 6.6.9-4.8 4.6 1.2 6.5L12 17.4l-5.9 3.1 1.2-6.5L2.5 9.4l6.6-.9z", class: "fill" }]],
  pause: [["circle", { cx: 12, cy: 12, r: 9.5 }], ["path", { d: "M10 8.5v7M14 8.5v7" }]],
  check: [["path", { d: "M20 6 9 17l-5-5" }]],
  cross: [["path", { d: "M18 6 6 18M6 6l12 12" }]],
  back: [["path", { d: "M15 18l-6-6 6-6" }]],
};

function icon(name, { cls = "", label = null } = {}) {
  const el = document.createElementNS(NS, "svg");
  el.setAttribute("viewBox", "0 0 24 24");
  el.setAttribute("class", `wiz-icon wiz-i-${name} ${cls}`.trim());
  el.setAttribute("focusable", "false");
  if (label) {
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", label);
  } else el.setAttribute("aria-hidden", "true");
  for (const [tag, attrs] of ICONS[name] || []) {
    const part = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) part.setAttribute(k, v);
    el.append(part);
  }
  return el;
}

const genderIcon = (gender) => icon(gender === "female" ? "female" : "male", { cls: "wiz-gender", label: gender });

// ---- Small helpers -------------------------------------------------------------------
function nameOf(pub, seat, you = null) {
  if (seat === null || seat === undefined) return "";
  const name = (pub.names || [])[seat] || `Wizard ${seat + 1}`;
  return seat === you ? `${name} (you)` : name;
}
const possessive = (name) => (name.endsWith("s") ? `${name}’` : `${name}’s`);
const byType = (payload, ...types) => payload.actions.filter((a) => types.includes(a.type));

// Animate only what is new since the last render.
let seen = new Set();
let seenNext = new Set();
function fresh(key) {
  seenNext.add(key);
  return seen.has(key) ? "" : " fresh";
}

// ---- Sending -----------------------------------------------------------------------------
let rolling = false; // the dice were clicked: they tumble until the next view
const refusal = shared.refusals(".wiz", { ms: 6000, onRefused: () => {
  rolling = false;
  for (const el of document.querySelectorAll(".wiz .wiz-dice.rolling")) el.classList.remove("rolling");
} });
const refusedText = refusal.text;
const sender = (ctx) => (action) => refusal.send(ctx, action);

// ---- The dice -----------------------------------------------------------------------------
const PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };

function die(value) {
  const on = new Set(PIPS[value] || []);
  const pips = [];
  for (let i = 0; i < 9; i++) pips.push(h("span", { class: on.has(i) ? "pip on" : "pip" }));
  return h("span", { class: "wiz-die" + (value ? "" : " blank"), role: "img",
    "aria-label": value ? `a die showing ${value}` : "a die, not rolled yet" }, pips);
}

function pair(dice) {
  return h("span", { class: "wiz-pair" }, die(dice ? dice[0] : null), die(dice ? dice[1] : null));
}

// One side of the dice control: whose dice, the pair, what is added, the total.
function side(cls, who, dice, parts, total) {
  const sum = dice ? dice[0] + dice[1] : null;
  const formula = parts.length ? (dice ? [String(sum), ...parts.map(([, n]) => String(n))].join(" + ")
    : ["2d6", ...parts.map(([w, n]) => `${w} ${n}`)].join(" + ")) : (dice ? "" : "2d6");
  return h("span", { class: `wiz-side ${cls}` },
    h("span", { class: "wiz-side-who" }, who),
    pair(dice),
    h("span", { class: "wiz-side-sum" },
      formula ? h("span", { class: "wiz-formula" }, formula + (dice ? " =" : "")) : null,
      dice ? h("span", { class: "wiz-total" }, String(total)) : null));
}

const ownerClass = (c) => (c.owner === null || c.owner === undefined ? "neutral" : `w${c.owner}`);

// The dice to show now: {kind, sides, verdict, key} or null.
function diceModel(pub, you) {
  const roll = pub.last_roll;
  const a = pub.attack;
  if (pub.phase === "initiative" && !(roll && roll.kind === "initiative")) {
    return { kind: "initiative", sides: [0, 1].map((s) => side(`w${s}`, nameOf(pub, s, you), null, [], null)),
      verdict: "Initiative: the higher total goes first" };
  }
  if (pub.phase === "roll" && a) {
    const target = pub.village.find((c) => c.id === a.target) || { name: a.target, willpower: 0 };
    const parts = [["willpower", target.willpower]];
    if (a.defense) parts.push(["defense", a.defense.strength]);
    return { kind: "attack", sides: [
      side(`w${a.seat}`, `Attack: ${nameOf(pub, a.seat, you)}`, null, [["strength", a.spell.strength]], null),
      side(ownerClass(target), `Defense: ${target.name}`, null, parts, null)],
    verdict: "The attack must beat the defense" };
  }
  if (!roll) return null;
  if (roll.kind === "initiative") {
    const [t0, t1] = roll.totals;
    const verdict = t0 === t1 ? `A tie at ${t0}: roll again`
      : `${nameOf(pub, t0 > t1 ? 0 : 1, you)} ${t0 > t1 ? t0 : t1} beats ${t0 > t1 ? t1 : t0}: goes first`;
    return { kind: "initiative", key: JSON.stringify(roll), verdict, good: t0 !== t1,
      sides: [0, 1].map((s) => side(`w${s}`, nameOf(pub, s, you), roll.dice[s], [], roll.totals[s])) };
  }
  const target = pub.village.find((c) => c.id === roll.target) || { name: roll.target };
  const parts = [["willpower", roll.willpower]];
  if (roll.defense_bonus) parts.push(["defense", roll.defense_bonus]);
  const verdict = roll.success ? `${roll.attack} beats ${roll.defense}: the attack succeeds`
    : roll.attack === roll.defense ? `${roll.attack} ties ${roll.defense}: a tie changes nothing`
      : `${roll.attack} against ${roll.defense}: the attack fails`;
  return { kind: "attack", key: JSON.stringify(roll), verdict, good: roll.success, bad: !roll.success,
    sides: [side(`w${roll.seat}`, `Attack: ${nameOf(pub, roll.seat, you)}`, roll.attack_dice, [["strength", roll.strength]], roll.attack),
      side(ownerClass(target), `Defense: ${target.name}`, roll.defense_dice, parts, roll.defense)] };
}

// The dice control: a button that rolls when this viewer may roll, else a display.
function diceControl(pub, you, roll, send, { old = false } = {}) {
  const model = diceModel(pub, you);
  if (!model) return null;
  const body = [
    h("span", { class: "wiz-dice-sides" }, model.sides[0], h("span", { class: "wiz-vs", "aria-hidden": "true" }, "vs"), model.sides[1]),
    h("span", { class: "wiz-verdict" + (model.good ? " good" : model.bad ? " bad" : "") },
      model.key ? icon(model.good ? "check" : "cross") : null, model.verdict),
  ];
  const cls = `wiz-dice wiz-dice-${model.kind}` + (model.key ? " rolled" + fresh(`roll|${model.key}`) : "") + (old ? " old" : "");
  if (roll) {
    return h("button", { type: "button", class: cls + " clickable" + (rolling ? " rolling" : ""), "aria-label": roll.label,
      dataset: { focusKey: "dice" }, onclick: (event) => {
        rolling = true;
        event.currentTarget.classList.add("rolling");
        send(roll);
      } }, h("span", { class: "wiz-dice-call" }, roll.label.replace(/^Roll/, "Click to roll")), body);
  }
  return h("section", { class: cls, "aria-label": model.kind === "initiative" ? "Initiative dice" : "Attack dice" },
    old ? h("span", { class: "wiz-dice-call" }, "The last roll") : null, body);
}

// ---- Characters, wizards, spells ------------------------------------------------------------
function charTile(pub, c, you) {
  const owner = c.owner === null || c.owner === undefined ? "neutral" : `w${c.owner}`;
  const whose = c.owner === null || c.owner === undefined ? "in the village"
    : c.owner === you ? "your client" : `${possessive(nameOf(pub, c.owner))} client`;
  return h("li", { class: `wiz-char ${owner}` + (c.leader_of !== null && c.leader_of !== undefined ? " leader" : "")
    + fresh(`char|${c.id}|${c.owner}`), dataset: { id: c.id } },
  h("span", { class: "wiz-wp", "aria-label": `willpower ${c.willpower}` }, String(c.willpower)),
  h("span", { class: "wiz-char-body" },
    h("span", { class: "wiz-char-name" }, c.name),
    h("span", { class: "wiz-char-meta" }, genderIcon(c.gender), h("span", { class: "wiz-occ" }, c.occupation)),
    h("span", { class: "wiz-char-tag" },
      c.leader_of !== null && c.leader_of !== undefined
        ? h("span", { class: "wiz-leader" }, icon("crown"), `${possessive(nameOf(pub, c.leader_of))} leader`) : null,
      h("span", { class: "wiz-owner" }, whose))));
}

function charList(pub, chars, you, cls = "") {
  return h("ul", { class: `wiz-chars ${cls}`.trim() + (chars.length > 4 ? " many" : ""), role: "list" },
    chars.map((c) => charTile(pub, c, you)));
}

function spellCard(sp, { compact = false } = {}) {
  const restrict = sp.gender ? h("span", { class: "wiz-only" }, genderIcon(sp.gender), sp.gender === "female" ? "women only" : "men only") : null;
  return h("li", { class: `wiz-spell ${sp.kind}` + fresh(`spell|${sp.number}`), dataset: { number: sp.number } },
    h("span", { class: "wiz-spell-head" },
      h("span", { class: "wiz-spell-no" }, `${sp.number}`),
      icon(sp.kind === "attack" ? "attack" : "defense"),
      h("span", { class: "wiz-spell-kind" }, sp.kind === "attack" ? "Attack" : "Defense"),
      h("span", { class: "wiz-strength" }, `+${sp.strength}`),
      compact ? null : restrict),
    h("span", { class: "wiz-spell-title" }, sp.title));
}

function spellList(w, opts = {}) {
  if (!w.revealed.length) return h("p", { class: "wiz-none" }, "No revealed spells");
  return h("ul", { class: "wiz-spells", role: "list" }, w.revealed.map((sp) => spellCard(sp, opts)));
}

function willBar(pub, w) {
  const fill = h("span", { class: "wiz-bar-fill" });
  fill.style.width = `${Math.min(100, Math.round((100 * w.willpower) / pub.goal))}%`; // (CSSOM: the CSP refuses style attributes)
  return h("span", { class: "wiz-will" },
    h("span", { class: "wiz-will-num" + fresh(`will|${w.seat}|${w.willpower}`) }, String(w.willpower)),
    h("span", { class: "wiz-will-of" }, `/ ${pub.goal}`),
    h("span", { class: "wiz-bar", role: "meter", "aria-valuemin": 0, "aria-valuemax": pub.goal, "aria-valuenow": w.willpower,
      "aria-label": `${w.name}: ${w.willpower} of ${pub.goal} willpower` }, fill));
}

function stackView(w, draw = null, send = null) {
  const inner = [icon("stack"), h("span", { class: "wiz-stack-count" }, String(w.deck)), h("span", { class: "wiz-stack-label" }, "face down")];
  if (draw && send) {
    return h("button", { type: "button", class: "wiz-stack wiz-draw", "aria-label": draw.label, dataset: { focusKey: "draw" },
      onclick: () => send(draw) }, h("span", { class: "wiz-stack-cards", "aria-hidden": "true" }),
    h("span", { class: "wiz-stack-face" }, inner), h("span", { class: "wiz-draw-word" }, draw.label));
  }
  return h("span", { class: "wiz-stack", role: "img", "aria-label": `${w.deck} spells face down` },
    h("span", { class: "wiz-stack-face" }, inner));
}

function wizardHead(pub, w, you) {
  const turn = pub.turn === w.seat && pub.status === "playing";
  return h("div", { class: `wiz-head w${w.seat}` + (turn ? " turn" : "") },
    h("span", { class: "wiz-name" }, icon("star"), nameOf(pub, w.seat, you)),
    turn ? h("span", { class: "wiz-turn-tag" }, "turn") : null,
    willBar(pub, w));
}

// ---- What happens now: the attack in the air, the computer's pause ----------------------------
function attackPanel(pub, you) {
  const a = pub.attack;
  if (!a) return null;
  const target = pub.village.find((c) => c.id === a.target) || { name: a.target };
  return h("section", { class: `wiz-attack w${a.seat}` + fresh(`attack|${a.seat}|${a.spell.number}|${a.target}`), "aria-label": "The attack" },
    h("p", { class: "wiz-attack-line" }, icon("attack"),
      h("span", {}, `${nameOf(pub, a.seat, you)} casts “${a.spell.title}” (+${a.spell.strength}) on ${target.name} (${target.willpower})`)),
    a.words ? h("p", { class: "wiz-words" }, `“${a.words}”`) : null,
    a.defense ? h("p", { class: "wiz-defense-line" }, icon("defense"), `Counterspell: “${a.defense.title}” (+${a.defense.strength})`)
      : pub.phase === "counter" ? h("p", { class: "wiz-defense-line" }, `${nameOf(pub, 1 - a.seat, you)} may add a counterspell`) : null);
}

function pausePanel(pub, entries, go, send, { brief = false } = {}) {
  if (!pub.pause) return null;
  const text = pub.pause.text;
  // `brief`: the attack panel below already says what the computer cast (the board).
  return h("section", { class: "wiz-pause" + fresh(`pause|${text}`), "aria-label": "The computer's move" },
    h("p", { class: "wiz-pause-title" }, icon("pause"), brief ? "The computer wizard moved: waiting for Continue" : "The computer wizard moved"),
    brief ? null : h("p", { class: "wiz-pause-text", role: "status" }, text),
    go ? h("button", { type: "button", class: "primary big wiz-continue", dataset: { focusKey: "continue" }, onclick: () => send(go) },
      go.label) : null);
}

// ---- The phone: the next move, in thumb reach ------------------------------------------------
let chosen = null; // the attack spell picked for casting (its number), before the target
let words = "";    // the words of power being typed

function castPicker(payload, pub, send) {
  const casts = byType(payload, "cast");
  const end = byType(payload, "end_turn")[0];
  const me = pub.wizards[payload.seat];
  const spells = new Map(me.revealed.map((sp) => [sp.number, sp]));
  const castable = [...new Set(casts.map((a) => a.spell))];
  if (chosen !== null && !castable.includes(chosen)) chosen = null;
  const parts = [];
  if (chosen === null) {
    parts.push(h("p", { class: "wiz-step" }, castable.length ? "Cast an attack spell, or end your turn" : "No attack spell to cast: end your turn"));
    if (castable.length) {
      parts.push(h("ul", { class: "wiz-cast-spells", role: "list" }, castable.map((n) => {
        const sp = spells.get(n) || { number: n, title: `Spell ${n}`, strength: 0 };
        return h("li", {}, h("button", { type: "button", class: "wiz-choose", dataset: { focusKey: `spell-${n}` },
          onclick: () => { chosen = n; rerender(); } },
        h("span", { class: "wiz-strength" }, `+${sp.strength}`), h("span", { class: "wiz-choose-title" }, sp.title),
        sp.gender ? genderIcon(sp.gender) : null));
      })));
    }
  } else {
    const sp = spells.get(chosen) || { title: `Spell ${chosen}`, strength: 0 };
    const field = h("input", { id: "wiz-words", name: "words", maxlength: WORDS_MAX, autocomplete: "off",
      placeholder: "e.g. By the holy name…", dataset: { focusKey: "words" } });
    field.value = words;
    const counter = h("span", { class: "wiz-counter" }, `${words.length}/${WORDS_MAX}`);
    field.addEventListener("input", () => { words = field.value; counter.textContent = `${words.length}/${WORDS_MAX}`; });
    parts.push(h("p", { class: "wiz-step" }, h("button", { type: "button", class: "wiz-back", "aria-label": "Back to the spells",
      dataset: { focusKey: "back" }, onclick: () => { chosen = null; rerender(); } }, icon("back")),
    h("span", {}, `“${sp.title}” (+${sp.strength}): choose a target`)));
    parts.push(h("div", { class: "wiz-words-field" }, h("label", { for: "wiz-words" }, "Words of power (optional)", counter), field));
    const village = new Map(pub.village.map((c) => [c.id, c]));
    parts.push(h("ul", { class: "wiz-targets", role: "list" }, casts.filter((a) => a.spell === chosen).map((a) => {
      const c = village.get(a.target) || { name: a.target, willpower: "?" };
      const owner = c.owner === null || c.owner === undefined ? "neutral" : `w${c.owner}`;
      return h("li", {}, h("button", { type: "button", class: `wiz-target ${owner}`, "aria-label": a.label, dataset: { focusKey: `target-${a.target}` },
        onclick: () => {
          const said = words.trim().slice(0, WORDS_MAX);
          chosen = null;
          words = "";
          send({ ...a, words: said });
        } },
      h("span", { class: "wiz-wp" }, String(c.willpower)),
      h("span", { class: "wiz-target-name" }, c.name, c.leader_of !== null && c.leader_of !== undefined ? icon("crown", { label: "leader" }) : null)));
    })));
  }
  if (end) parts.push(h("button", { type: "button", class: "wiz-end" + (castable.length ? "" : " primary big"), dataset: { focusKey: "end" }, onclick: () => { chosen = null; send(end); } }, end.label));
  return parts;
}

function thumbZone(payload, pub, entries, send) {
  const you = payload.seat;
  const parts = [];
  const go = byType(payload, "continue")[0];
  const roll = byType(payload, "roll")[0];
  const draw = byType(payload, "draw")[0];
  if (go) parts.push(pausePanel(pub, entries, go, send));
  else if (roll) parts.push(diceControl(pub, you, roll, send));
  else if (draw) {
    parts.push(h("p", { class: "wiz-step" }, "Your turn: tap your stack to draw"));
    parts.push(stackView(pub.wizards[you], draw, send));
  } else if (byType(payload, "no_defense").length) {
    parts.push(h("p", { class: "wiz-step" }, "Defend your client?"));
    parts.push(h("div", { class: "wiz-defenses" }, byType(payload, "defend", "no_defense").map((a) => h("button", { type: "button",
      class: a.type === "defend" ? "wiz-defend" : "wiz-nodefense", dataset: { focusKey: a.type === "defend" ? `defend-${a.spell}` : "nodefense" },
      onclick: () => send(a) }, a.type === "defend" ? icon("defense") : null, a.label))));
  } else if (byType(payload, "cast", "end_turn").length) parts.push(...castPicker(payload, pub, send));
  const known = new Set(["continue", "roll", "draw", "defend", "no_defense", "cast", "end_turn"]);
  const other = payload.actions.filter((a) => !known.has(a.type));
  if (other.length) parts.push(shared.actionControls(other, send, { focusPrefix: "wiz-other" }));
  if (!payload.actions.length) {
    const waiting = (pub.waiting_for || []).map((s) => nameOf(pub, s, you)).join(" and ");
    parts.push(h("p", { class: "wiz-wait" }, payload.paused ? "The teacher has paused the game." : `Waiting for ${waiting || "the duel"}…`));
  }
  return h("section", { class: "wiz-thumb" + (payload.actions.length ? " active" : ""), "aria-label": "Your move" },
    h("p", { class: "error act-error", role: "alert" }, refusedText()), parts);
}

// The last roll stays in view on the phone while the computer's next move pauses.
let remembered = null; // {key, pub}
function outcome(payload, pub, you, send) {
  const roll = byType(payload, "roll")[0];
  if (pub.last_roll) {
    remembered = { key: JSON.stringify(pub.last_roll), pub };
    return roll ? null : diceControl(pub, you, null, send);
  }
  if (remembered && pub.pause) return diceControl(remembered.pub, you, null, send, { old: true });
  remembered = null;
  return null;
}

function renderPlayer(payload, pub, ctx, entries) {
  const you = payload.seat;
  const send = sender(ctx);
  const mine = pub.wizards[you];
  const rival = pub.wizards[1 - you];
  const mineToAct = payload.actions.length > 0;
  const clientsOf = (s) => pub.village.filter((c) => c.owner === s);
  const square = pub.village.filter((c) => c.owner === null || c.owner === undefined);
  return [
    h("section", { class: "wiz-duelists", "aria-label": "The wizards" }, wizardHead(pub, mine, you), wizardHead(pub, rival, you)),
    outcome(payload, pub, you, send),
    attackPanel(pub, you),
    pub.pause && !byType(payload, "continue").length ? pausePanel(pub, entries, null, send) : null,
    // (Paused, the Continue panel says what the computer did: the prompt would repeat it.)
    byType(payload, "continue").length ? null
      : h("p", { class: "wiz-prompt" + (mineToAct ? " mine" : ""), "aria-live": "polite" }, payload.view.prompt.text),
    h("section", { class: "wiz-spell-section w" + you, "aria-label": "Your spells" },
      h("h2", { class: "wiz-h" }, "Your revealed spells", stackView(mine)), spellList(mine)),
    h("section", { class: "wiz-spell-section w" + rival.seat, "aria-label": `${rival.name}'s spells` },
      h("h2", { class: "wiz-h" }, `${possessive(rival.name)} revealed spells`, stackView(rival)), spellList(rival)),
    h("section", { class: "wiz-village", "aria-label": "The village" },
      h("h2", { class: "wiz-h" }, "Your clients"), clientsOf(you).length ? charList(pub, clientsOf(you), you) : h("p", { class: "wiz-none" }, "None yet"),
      h("h2", { class: "wiz-h" }, "The village square"), square.length ? charList(pub, square, you, "square") : h("p", { class: "wiz-none" }, "Nobody is left in the village"),
      h("h2", { class: "wiz-h" }, `${possessive(rival.name)} clients`), clientsOf(rival.seat).length ? charList(pub, clientsOf(rival.seat), you) : h("p", { class: "wiz-none" }, "None yet")),
    h("div", { class: "wiz-chronicle" }, shared.logList(entries, 30)),
    thumbZone(payload, pub, entries, send),
  ];
}

// ---- The board ---------------------------------------------------------------------------------
function wizardColumn(pub, w) {
  const clients = pub.village.filter((c) => c.owner === w.seat);
  return h("section", { class: `wiz-col w${w.seat}`, "aria-label": w.name },
    wizardHead(pub, w, null),
    h("div", { class: "wiz-col-stack" }, stackView(w), h("span", { class: "wiz-col-count" }, `${w.clients} client${w.clients === 1 ? "" : "s"}`)),
    clients.length ? charList(pub, clients, null) : null,
    h("h2", { class: "wiz-h" }, "Revealed spells"),
    spellList(w, { compact: true }));
}

function renderBoard(payload, pub, ctx, entries) {
  const turn = pub.turn === null || pub.turn === undefined ? "" : ` · ${possessive(nameOf(pub, pub.turn))} turn`;
  const head = h("div", { class: "wiz-top" },
    h("p", { class: "wiz-round" + fresh(`round|${pub.round}|${pub.turn}`) }, pub.round ? `Round ${pub.round}${turn}` : "The duel begins"),
    pub.pause ? null : h("p", { class: "wiz-prompt" }, payload.view.prompt.text));
  const square = pub.village.filter((c) => c.owner === null || c.owner === undefined);
  const chronicle = entries.filter((e) => e.t !== "ruling");
  const center = h("div", { class: "wiz-center" },
    pausePanel(pub, entries, null, null, { brief: Boolean(pub.attack) }),
    attackPanel(pub, null),
    diceControl(pub, null, null, null),
    h("div", { class: "wiz-chronicle" }, shared.logList(chronicle, 8)));
  // The village runs along the bottom, under the first wizard and the dice, in one or
  // two rows of four: the second wizard's column keeps the height the join corner leaves.
  const village = h("section", { class: "wiz-square", "aria-label": "The village square" },
    h("h2", { class: "wiz-h" }, "The village square"),
    square.length ? charList(pub, square, null, "square") : h("p", { class: "wiz-none" }, "Nobody is left in the village"));
  return [head, h("div", { class: "wiz-stage" }, wizardColumn(pub, pub.wizards[0]), center,
    wizardColumn(pub, pub.wizards[1]), village)];
}

// ---- The end -------------------------------------------------------------------------------------
function resultPanel(payload, pub) {
  const r = pub.result || payload.result || { winners: [], reason: "" };
  const winners = r.winners.map((s) => nameOf(pub, s, payload.seat)).join(" and ");
  return h("section", { class: "wiz-result", "aria-label": "Result" },
    h("h2", {}, icon("star"), winners ? `${winners} won the duel` : "The duel is over"),
    r.reason ? h("p", { class: "wiz-reason" }, r.reason) : null,
    h("ul", { class: "wiz-final", role: "list" }, pub.wizards.map((w) => h("li", { class: `w${w.seat}` },
      h("span", {}, nameOf(pub, w.seat, payload.seat)), h("span", { class: "wiz-will-num" }, `${w.willpower} willpower`)))));
}

// Keep keyboard focus on the "same" control across re-renders, without scrolling
// the page to it: the next move sits in a sticky bar, and the last outcome at the
// top of the page must stay in view.
function keepFocus(root, draw) {
  const active = document.activeElement;
  const key = active && root.contains(active) ? active.dataset.focusKey : null;
  draw();
  if (!key) return;
  const again = root.querySelector(`[data-focus-key="${CSS.escape(key)}"]`);
  if (again) again.focus({ preventScroll: true });
}

// ---- Entry point -----------------------------------------------------------------------------------
let again = null; // re-render with the last payload (the two-step cast picker)
function rerender() {
  if (again) again();
}

export function render(root, payload, ctx) {
  const pub = payload.view.public;
  const entries = typeof ctx.log === "function" ? ctx.log() : (payload.log || []);
  seenNext = new Set();
  rolling = false;
  const over = pub.status !== "playing" || payload.status === "ended";
  let body;
  if (over) {
    chosen = null;
    words = "";
    body = [resultPanel(payload, pub), h("div", { class: "wiz-chronicle" }, shared.logList(entries.filter((e) => e.t !== "ruling"), 8))];
  } else if (ctx.role === "player" && payload.seat !== null && payload.seat !== undefined) {
    if (!byType(payload, "cast").length) chosen = null;
    body = renderPlayer(payload, pub, ctx, entries);
  } else body = renderBoard(payload, pub, ctx, entries);
  const cls = `wiz game-view wiz-${ctx.role === "player" ? "phone" : ctx.role} wiz-phase-${pub.phase}` + (pub.pause ? " wiz-paused" : "");
  keepFocus(root, () => replace(root, h("div", { class: cls }, body)));
  seen = seenNext;
  again = () => render(root, payload, ctx);
}

// The end screen's scores (table.js endScreen) count the clients' willpower.
export const scoreText = (n) => `${n} willpower`;
