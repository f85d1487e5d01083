// The Wizard duel: the phone and the projected board (one module for both).
// Every control sends exactly one of `payload.actions` (the platform strips the
// labels); the cast action's `words` (words of power, at most 120 characters)
// is filled from a text field first. A refused move is said next to the controls.
//
// payload: {code, game, version, status, seat, view: {public, private, prompt},
//           actions, log (new entries), players, result, ...}
// ctx:     {role: "player" | "board" | "facilitator", act(action) -> ack, log()}
import { h, preserveFocus, replace } from "/static/js/dom.js";
import * as shared from "/static/js/table.js";
import { byType, CARD_FACE, fitRegion, freshMarks, logOf, measuring, overflows, refusals, seatName, trimList } from "/static/js/kit.js";
import { t, tn } from "/static/js/i18n.js";
import { CATEGORY, icon, kindIcon } from "/static/games/wizard/icons.js"; // every icon, one per card kind

const WORDS_MAX = 120;

const genderIcon = (gender) => icon(gender === "female" ? "female" : "male", { cls: "wiz-gender", label: gender });

// ---- Small helpers -------------------------------------------------------------------
// A wizard's name, with "(you)" on the viewer's own: the duel names both sides even on your phone.
function wizardName(pub, seat, you = null) {
  if (seat === null || seat === undefined) return "";
  const name = seatName(pub, seat, t("Wizard"));
  return seat === you ? t("{name} (you)", { name }) : name;
}
// English writes a name ending in "s" with a bare apostrophe (Apa Nochis’ client): each
// phrase with a possessive has both templates, which other languages translate alike.
const endsInS = (name) => name.endsWith("s");

// Animate only what is new since the last render.
const marks = freshMarks();
const fresh = marks.fresh;

// ---- Sending -----------------------------------------------------------------------------
let rolling = false; // the dice were clicked: they tumble until the next view
const refusal = refusals(".wiz", { ms: 6000, onRefused: () => {
  rolling = false;
  for (const el of document.querySelectorAll(".wiz .wiz-dice.rolling")) el.classList.remove("rolling");
} });

// ---- The dice -----------------------------------------------------------------------------
const PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };

function die(value) {
  const on = new Set(PIPS[value] || []);
  const pips = [];
  for (let i = 0; i < 9; i++) pips.push(h("span", { class: on.has(i) ? "pip on" : "pip" }));
  return h("span", { class: "wiz-die" + (value ? "" : " blank"), role: "img",
    "aria-label": value ? t("a die showing {value}", { value }) : t("a die, not rolled yet") }, pips);
}

function pair(dice) {
  return h("span", { class: "wiz-pair" }, die(dice ? dice[0] : null), die(dice ? dice[1] : null));
}

// One side of the dice control: whose dice, the pair, what is added ([words, number]: the
// words say it before the roll, "willpower 5"), the total.
function side(cls, who, dice, parts, total) {
  const sum = dice ? dice[0] + dice[1] : null;
  const formula = parts.length ? (dice ? [String(sum), ...parts.map(([, n]) => String(n))].join(" + ")
    : ["2d6", ...parts.map(([words]) => words)].join(" + ")) : (dice ? "" : "2d6");
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
    return { kind: "initiative", sides: [0, 1].map((s) => side(`w${s}`, wizardName(pub, s, you), null, [], null)),
      verdict: t("Initiative: the higher total goes first") };
  }
  if (pub.phase === "roll" && a) {
    const target = pub.village.find((c) => c.id === a.target) || { name: a.target, willpower: 0 };
    const parts = [[t("willpower {willpower}", { willpower: target.willpower }), target.willpower]];
    if (a.defense) parts.push([t("defense {bonus}", { bonus: a.defense.strength }), a.defense.strength]);
    return { kind: "attack", sides: [
      side(`w${a.seat}`, t("Attack: {name}", { name: wizardName(pub, a.seat, you) }), null, [[t("strength {strength}", { strength: a.spell.strength }), a.spell.strength]], null),
      side(ownerClass(target), t("Defense: {name}", { name: target.name }), null, parts, null)],
    verdict: t("The attack must beat the defense") };
  }
  if (!roll) return null;
  if (roll.kind === "initiative") {
    const [t0, t1] = roll.totals;
    const verdict = t0 === t1 ? t("A tie at {total}: roll again", { total: t0 })
      : t("{name} {total} beats {other_total}: goes first",
        { name: wizardName(pub, t0 > t1 ? 0 : 1, you), total: t0 > t1 ? t0 : t1, other_total: t0 > t1 ? t1 : t0 });
    return { kind: "initiative", key: JSON.stringify(roll), verdict, good: t0 !== t1,
      sides: [0, 1].map((s) => side(`w${s}`, wizardName(pub, s, you), roll.dice[s], [], roll.totals[s])) };
  }
  const target = pub.village.find((c) => c.id === roll.target) || { name: roll.target };
  const parts = [[t("willpower {willpower}", { willpower: roll.willpower }), roll.willpower]];
  if (roll.defense_bonus) parts.push([t("defense {bonus}", { bonus: roll.defense_bonus }), roll.defense_bonus]);
  const fields = { attack: roll.attack, defense: roll.defense };
  const verdict = roll.success ? t("{attack} beats {defense}: the attack succeeds", fields)
    : roll.attack === roll.defense ? t("{attack} ties {defense}: a tie changes nothing", fields)
      : t("{attack} against {defense}: the attack fails", fields);
  return { kind: "attack", key: JSON.stringify(roll), verdict, good: roll.success, bad: !roll.success,
    sides: [side(`w${roll.seat}`, t("Attack: {name}", { name: wizardName(pub, roll.seat, you) }), roll.attack_dice, [[t("strength {strength}", { strength: roll.strength }), roll.strength]], roll.attack),
      side(ownerClass(target), t("Defense: {name}", { name: target.name }), roll.defense_dice, parts, roll.defense)] };
}

// The dice control: a button that rolls when this viewer may roll, else a display.
function diceControl(pub, you, roll, send, { old = false } = {}) {
  const model = diceModel(pub, you);
  if (!model) return null;
  const body = [
    h("span", { class: "wiz-dice-sides" }, model.sides[0], h("span", { class: "wiz-vs", "aria-hidden": "true" }, t("vs")), model.sides[1]),
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
      } }, h("span", { class: "wiz-dice-call" }, pub.phase === "initiative" ? t("Tap to roll the dice for initiative")
      : t("Tap to roll the dice for the attack")), body);
  }
  return h("section", { class: cls, "aria-label": model.kind === "initiative" ? t("Initiative dice") : t("Attack dice") },
    old ? h("span", { class: "wiz-dice-call" }, t("The last roll")) : null, body);
}

// ---- Characters, wizards, spells ------------------------------------------------------------
function charTile(pub, c, you) {
  const owner = c.owner === null || c.owner === undefined ? "neutral" : `w${c.owner}`;
  const ownerName = c.owner === null || c.owner === undefined ? "" : wizardName(pub, c.owner);
  const whose = c.owner === null || c.owner === undefined ? t("in the village")
    : c.owner === you ? t("your client")
      : endsInS(ownerName) ? t("{name}’ client", { name: ownerName }) : t("{name}’s client", { name: ownerName });
  const leaderName = c.leader_of !== null && c.leader_of !== undefined ? wizardName(pub, c.leader_of) : "";
  return h("li", { class: `wiz-char ${owner}` + (c.leader_of !== null && c.leader_of !== undefined ? " leader" : "")
    + fresh(`char|${c.id}|${c.owner}`), dataset: { id: c.id } },
  h("span", { class: "wiz-wp", "aria-label": t("willpower {willpower}", { willpower: c.willpower }) }, String(c.willpower)),
  h("span", { class: "wiz-char-body" },
    h("span", { class: `${CARD_FACE} wiz-char-name` }, kindIcon(c.leader_of !== null && c.leader_of !== undefined ? "leader" : "villager"), c.name),
    h("span", { class: "wiz-char-meta" }, genderIcon(c.gender), h("span", { class: "wiz-occ" }, c.occupation)),
    h("span", { class: "wiz-char-tag" },
      c.leader_of !== null && c.leader_of !== undefined
        ? h("span", { class: "wiz-leader" }, endsInS(leaderName) ? t("{name}’ leader", { name: leaderName })
          : t("{name}’s leader", { name: leaderName })) : null,
      h("span", { class: "wiz-owner" }, whose))));
}

function charList(pub, chars, you, cls = "") {
  return h("ul", { class: `wiz-chars ${cls}`.trim() + (chars.length > 4 ? " many" : ""), role: "list" },
    chars.map((c) => charTile(pub, c, you)));
}

function spellCard(sp, { compact = false } = {}) {
  const restrict = sp.gender ? h("span", { class: "wiz-only" }, genderIcon(sp.gender), sp.gender === "female" ? t("women only") : t("men only")) : null;
  return h("li", { class: `wiz-spell ${sp.kind}` + fresh(`spell|${sp.number}`), dataset: { number: sp.number } },
    h("span", { class: `${CARD_FACE} wiz-spell-head` },
      h("span", { class: "wiz-spell-no" }, `${sp.number}`),
      kindIcon(sp.kind === "attack" ? "attack" : "defense"),
      h("span", { class: "wiz-spell-kind" }, sp.kind === "attack" ? t("Attack") : t("Defense")),
      h("span", { class: "wiz-strength" }, `+${sp.strength}`),
      sp.category ? h("span", { class: "wiz-spell-cat" }, kindIcon(sp.category), h("span", { class: "wiz-cat-word" }, CATEGORY[sp.category] || sp.category)) : null,
      compact ? null : restrict),
    h("span", { class: "wiz-spell-title" }, sp.title));
}

function spellList(w, opts = {}) {
  if (!w.revealed.length) return h("p", { class: "wiz-none" }, t("No revealed spells"));
  return h("ul", { class: "wiz-spells", role: "list" }, w.revealed.map((sp) => spellCard(sp, opts)));
}

function willBar(pub, w) {
  const fill = h("span", { class: "wiz-bar-fill" });
  fill.style.width = `${Math.min(100, Math.round((100 * w.willpower) / pub.goal))}%`; // (CSSOM: the CSP refuses style attributes)
  return h("span", { class: "wiz-will" },
    h("span", { class: "wiz-will-num" + fresh(`will|${w.seat}|${w.willpower}`) }, String(w.willpower)),
    h("span", { class: "wiz-will-of" }, `/ ${pub.goal}`),
    h("span", { class: "wiz-bar", role: "meter", "aria-valuemin": 0, "aria-valuemax": pub.goal, "aria-valuenow": w.willpower,
      "aria-label": t("{name}: {willpower} of {goal} willpower", { name: w.name, willpower: w.willpower, goal: pub.goal }) }, fill));
}

function stackView(w, draw = null, send = null) {
  const inner = [icon("stack"), h("span", { class: "wiz-stack-count" }, String(w.deck)), h("span", { class: "wiz-stack-label" }, t("face down"))];
  if (draw && send) {
    return h("button", { type: "button", class: "wiz-stack wiz-draw", "aria-label": draw.label, dataset: { focusKey: "draw" },
      onclick: () => send(draw) }, h("span", { class: "wiz-stack-cards", "aria-hidden": "true" }),
    h("span", { class: "wiz-stack-face" }, inner), h("span", { class: "wiz-draw-word" }, draw.label));
  }
  return h("span", { class: "wiz-stack", role: "img", "aria-label": tn("{n} spell face down", "{n} spells face down", w.deck) },
    h("span", { class: "wiz-stack-face" }, inner));
}

function wizardHead(pub, w, you) {
  const turn = pub.turn === w.seat && pub.status === "playing";
  return h("div", { class: `wiz-head w${w.seat}` + (turn ? " turn" : "") },
    h("span", { class: "wiz-name" }, icon("star"), wizardName(pub, w.seat, you)),
    turn ? h("span", { class: "wiz-turn-tag" }, t("turn")) : null,
    willBar(pub, w));
}

// ---- What happens now: the attack in the air, the computer's pause ----------------------------
function attackPanel(pub, you) {
  const a = pub.attack;
  if (!a) return null;
  const target = pub.village.find((c) => c.id === a.target) || { name: a.target };
  return h("section", { class: `wiz-attack w${a.seat}` + fresh(`attack|${a.seat}|${a.spell.number}|${a.target}`), "aria-label": t("The attack") },
    h("p", { class: "wiz-attack-line" }, icon("attack"),
      h("span", {}, t("{name} casts “{spell}” (+{strength}) on {villager} ({willpower})", { name: wizardName(pub, a.seat, you),
        spell: a.spell.title, strength: a.spell.strength, villager: target.name, willpower: target.willpower }))),
    a.words ? h("p", { class: "wiz-words" }, `“${a.words}”`) : null,
    a.defense ? h("p", { class: "wiz-defense-line" }, icon("defense"),
      t("Counterspell: “{spell}” (+{strength})", { spell: a.defense.title, strength: a.defense.strength }))
      : pub.phase === "counter" ? h("p", { class: "wiz-defense-line" },
        t("{name} may add a counterspell", { name: wizardName(pub, 1 - a.seat, you) })) : null);
}

function pausePanel(pub, entries, go, send, { brief = false } = {}) {
  if (!pub.pause) return null;
  const text = pub.pause.text;
  // Unless the table steps through each computer move, the pause ends by itself (a tap on
  // Continue only skips the wait), so the board does not say it waits for Continue.
  const waits = pub.options.step_through === "on";
  // `brief`: the attack panel below already says what the computer cast (the board).
  return h("section", { class: "wiz-pause" + fresh(`pause|${text}`), "aria-label": t("The computer's move") },
    h("p", { class: "wiz-pause-title" }, icon("pause"), !brief ? t("The computer wizard moved")
      : waits ? t("The computer wizard moved: waiting for Continue") : t("The computer wizard moved: the duel plays on in a moment")),
    brief ? null : h("p", { class: "wiz-pause-text", role: "status" }, text),
    go ? h("button", { type: "button", class: "primary big wiz-continue", dataset: { focusKey: "continue" }, onclick: () => send(go) },
      go.label) : null);
}

// ---- The phone: the next move, in thumb reach ------------------------------------------------
let chosen = null; // the attack spell picked for casting (its number), before the target
let words = "";    // the words of power being typed

function castPicker(payload, pub, send) {
  const casts = byType(payload.actions, "cast");
  const end = byType(payload.actions, "end_turn")[0];
  const me = pub.wizards[payload.seat];
  const spells = new Map(me.revealed.map((sp) => [sp.number, sp]));
  const castable = [...new Set(casts.map((a) => a.spell))];
  if (chosen !== null && !castable.includes(chosen)) chosen = null;
  const parts = [];
  if (chosen === null) {
    parts.push(h("p", { class: "wiz-step" }, castable.length ? t("Cast an attack spell, or end your turn") : t("No attack spell to cast: end your turn")));
    if (castable.length) {
      parts.push(h("ul", { class: "wiz-cast-spells", role: "list" }, castable.map((n) => {
        const sp = spells.get(n) || { number: n, title: t("Spell {number}", { number: n }), strength: 0 };
        return h("li", {}, h("button", { type: "button", class: "wiz-choose", dataset: { focusKey: `spell-${n}` },
          onclick: () => { chosen = n; rerender(); } },
        h("span", { class: "wiz-strength" }, `+${sp.strength}`), sp.category ? kindIcon(sp.category) : null, h("span", { class: "wiz-choose-title" }, sp.title),
        sp.gender ? genderIcon(sp.gender) : null));
      })));
    }
  } else {
    const sp = spells.get(chosen) || { title: t("Spell {number}", { number: chosen }), strength: 0 };
    const field = h("input", { id: "wiz-words", name: "words", maxlength: WORDS_MAX, autocomplete: "off",
      placeholder: t("e.g. By the holy name…"), dataset: { focusKey: "words" } });
    field.value = words;
    const counter = h("span", { class: "wiz-counter" }, `${words.length}/${WORDS_MAX}`);
    field.addEventListener("input", () => { words = field.value; counter.textContent = `${words.length}/${WORDS_MAX}`; });
    parts.push(h("p", { class: "wiz-step" }, h("button", { type: "button", class: "wiz-back", "aria-label": t("Back to the spells"),
      dataset: { focusKey: "back" }, onclick: () => { chosen = null; rerender(); } }, icon("back")),
    h("span", {}, t("“{spell}” (+{strength}): choose a target", { spell: sp.title, strength: sp.strength }))));
    parts.push(h("div", { class: "wiz-words-field" }, h("label", { for: "wiz-words" }, t("Words of power (optional)"), counter), field));
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
      h("span", { class: `${CARD_FACE} wiz-target-name` }, kindIcon(c.leader_of !== null && c.leader_of !== undefined ? "leader" : "villager"), c.name)));
    })));
  }
  if (end) parts.push(h("button", { type: "button", class: "wiz-end" + (castable.length ? "" : " primary big"), dataset: { focusKey: "end" }, onclick: () => { chosen = null; send(end); } }, end.label));
  return parts;
}

function thumbZone(payload, pub, entries, send) {
  const you = payload.seat;
  const parts = [];
  const go = byType(payload.actions, "continue")[0];
  const roll = byType(payload.actions, "roll")[0];
  const draw = byType(payload.actions, "draw")[0];
  if (go) parts.push(pausePanel(pub, entries, go, send));
  else if (roll) parts.push(diceControl(pub, you, roll, send));
  else if (draw) {
    parts.push(h("p", { class: "wiz-step" }, t("Your turn: tap your stack to draw")));
    parts.push(stackView(pub.wizards[you], draw, send));
  } else if (byType(payload.actions, "no_defense").length) {
    parts.push(h("p", { class: "wiz-step" }, t("Defend your client?")));
    parts.push(h("div", { class: "wiz-defenses" }, byType(payload.actions, "defend", "no_defense").map((a) => h("button", { type: "button",
      class: a.type === "defend" ? "wiz-defend" : "wiz-nodefense", dataset: { focusKey: a.type === "defend" ? `defend-${a.spell}` : "nodefense" },
      onclick: () => send(a) }, a.type === "defend" ? icon("defense") : null, a.label))));
  } else if (byType(payload.actions, "cast", "end_turn").length) parts.push(...castPicker(payload, pub, send));
  const known = new Set(["continue", "roll", "draw", "defend", "no_defense", "cast", "end_turn"]);
  const other = payload.actions.filter((a) => !known.has(a.type));
  if (other.length) parts.push(shared.actionControls(other, send, { focusPrefix: "wiz-other" }));
  if (!payload.actions.length) {
    const waiting = (pub.waiting_for || []).map((s) => wizardName(pub, s, you));
    parts.push(h("p", { class: "wiz-wait" }, payload.paused ? t("The teacher has paused the game.")
      : waiting.length === 1 ? t("Waiting for {name}…", { name: waiting[0] })
        : waiting.length ? t("Waiting for {name} and {other}…", { name: waiting[0], other: waiting[waiting.length - 1] })
          : t("Waiting for the duel…")));
  }
  return h("section", { class: "wiz-thumb" + (payload.actions.length ? " active" : ""), "aria-label": t("Your move") },
    h("p", { class: "error act-error", role: "alert" }, refusal.text()), parts);
}

// The last roll stays in view on the phone while the computer's next move pauses.
let remembered = null; // {key, pub}
function outcome(payload, pub, you, send) {
  const roll = byType(payload.actions, "roll")[0];
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
  const send = refusal.sender(ctx);
  const mine = pub.wizards[you];
  const rival = pub.wizards[1 - you];
  const mineToAct = payload.actions.length > 0;
  const clientsOf = (s) => pub.village.filter((c) => c.owner === s);
  const square = pub.village.filter((c) => c.owner === null || c.owner === undefined);
  return [
    h("section", { class: "wiz-duelists", "aria-label": t("The wizards") }, wizardHead(pub, mine, you), wizardHead(pub, rival, you)),
    outcome(payload, pub, you, send),
    attackPanel(pub, you),
    pub.pause && !byType(payload.actions, "continue").length ? pausePanel(pub, entries, null, send) : null,
    // (Paused, the Continue panel says what the computer did: the prompt would repeat it.)
    byType(payload.actions, "continue").length ? null
      : h("p", { class: "wiz-prompt" + (mineToAct ? " mine" : ""), "aria-live": "polite" }, payload.view.prompt.text),
    h("section", { class: "wiz-spell-section w" + you, "aria-label": t("Your spells") },
      h("h2", { class: "wiz-h" }, t("Your revealed spells"), stackView(mine)), spellList(mine)),
    h("section", { class: "wiz-spell-section w" + rival.seat, "aria-label": t("{name}'s spells", { name: rival.name }) },
      h("h2", { class: "wiz-h" }, endsInS(rival.name) ? t("{name}’ revealed spells", { name: rival.name })
        : t("{name}’s revealed spells", { name: rival.name }), stackView(rival)), spellList(rival)),
    h("section", { class: "wiz-village", "aria-label": t("The village") },
      h("h2", { class: "wiz-h" }, t("Your clients")), clientsOf(you).length ? charList(pub, clientsOf(you), you) : h("p", { class: "wiz-none" }, t("None yet")),
      h("h2", { class: "wiz-h" }, t("The village square")), square.length ? charList(pub, square, you, "square") : h("p", { class: "wiz-none" }, t("Nobody is left in the village")),
      h("h2", { class: "wiz-h" }, endsInS(rival.name) ? t("{name}’ clients", { name: rival.name }) : t("{name}’s clients", { name: rival.name })),
      clientsOf(rival.seat).length ? charList(pub, clientsOf(rival.seat), you) : h("p", { class: "wiz-none" }, t("None yet"))),
    h("div", { class: "wiz-chronicle" }, shared.logList(entries, 30)),
    thumbZone(payload, pub, entries, send),
  ];
}

// ---- The board ---------------------------------------------------------------------------------
function wizardColumn(pub, w) {
  const clients = pub.village.filter((c) => c.owner === w.seat);
  return h("section", { class: `wiz-col w${w.seat}`, "aria-label": w.name },
    wizardHead(pub, w, null),
    h("div", { class: "wiz-col-stack" }, stackView(w), h("span", { class: "wiz-col-count" }, tn("{n} client", "{n} clients", w.clients))),
    clients.length ? charList(pub, clients, null) : null,
    h("h2", { class: "wiz-h" }, t("Revealed spells")),
    spellList(w, { compact: true }));
}

function renderBoard(payload, pub, ctx, entries) {
  const turn = pub.turn === null || pub.turn === undefined ? null : wizardName(pub, pub.turn);
  const round = !pub.round ? t("The duel begins") : turn === null ? t("Round {round}", { round: pub.round })
    : endsInS(turn) ? t("Round {round} · {name}’ turn", { round: pub.round, name: turn })
      : t("Round {round} · {name}’s turn", { round: pub.round, name: turn });
  const head = h("div", { class: "wiz-top" },
    h("p", { class: "wiz-round" + fresh(`round|${pub.round}|${pub.turn}`) }, round),
    pub.pause ? null : h("p", { class: "wiz-prompt" }, payload.view.prompt.text));
  const square = pub.village.filter((c) => c.owner === null || c.owner === undefined);
  const chronicle = entries.filter((e) => e.t !== "ruling");
  // The middle column: what happens now, and the log in whatever room is left. The
  // village square goes to the foot of a column (fitBoard).
  const village = h("section", { class: "wiz-square", "aria-label": t("The village square") },
    h("h2", { class: "wiz-h" }, t("The village square")),
    square.length ? charList(pub, square, null, "square") : h("p", { class: "wiz-none" }, t("Nobody is left in the village")));
  const center = h("div", { class: "wiz-center" },
    pausePanel(pub, entries, null, null, { brief: Boolean(pub.attack) }),
    attackPanel(pub, null),
    diceControl(pub, null, null, null),
    h("div", { class: "wiz-chronicle" }, shared.logList(chronicle, 8)));
  return [head, h("div", { class: "wiz-stage" }, wizardColumn(pub, pub.wizards[0]), center, wizardColumn(pub, pub.wizards[1]), village)];
}

// A crowded board gets denser, never cut: each wizard's column and the middle
// (kit.js fitRegion; the log then keeps the entries that fit, table.js). The village
// square and the join corner go to the foot of the columns that need the room least
// (the square empties as the wizards' columns fill): of the placements where every
// region keeps its full type, the one that leaves the log most room; else the one
// that overflows least.
const PLACES = [["sq-w0", "join-middle"], ["sq-w1", "join-middle"], ["sq-wide", "join-w1"], ["sq-wide-r", "join-w0"], ["sq-middle", "join-w1"],
  ["sq-middle", "join-w0"], ["sq-w0", "join-w1"], ["sq-w1", "join-w0"], ["sq-middle", "join-middle"]];
const SLOT_OF = { "join-middle": ".wiz-center", "join-w0": ".wiz-col.w0", "join-w1": ".wiz-col.w1" };
function fitBoard(root) {
  const stage = root.querySelector(".wiz-stage");
  if (stage) measuring(stage, () => placeAndFit(stage));
}

function placeAndFit(stage) {
  const cols = [...stage.querySelectorAll(".wiz-col")];
  const centers = [...stage.querySelectorAll(".wiz-center")];
  const regions = [...cols, ...centers];
  // (A column narrower than the join corner, e.g. beside a long join address, cannot hold it.)
  const corner = document.querySelector(".join-strip");
  const wide = corner && corner.getClientRects().length ? corner.getBoundingClientRect().width : 0;
  // With the type alike, the placement that leaves the log the most room (up to ten lines) is better.
  const logRoom = () => {
    const log = stage.querySelector(".wiz-chronicle");
    return log ? 0.0001 * Math.min(10, log.clientHeight / parseFloat(getComputedStyle(log).fontSize)) : 0;
  };
  // Each placement is judged at full type in one layout (how far its fullest region
  // overflows). The best is then fitted (kit.js); only if some region still overflows at
  // the floor are the others fitted in turn, best first, until one holds everything (a
  // long language with the village still full can leave no room at full type anywhere).
  // Of placements that all overflow somewhere, one whose only overflow is a wizard's older
  // spells (they give way to a "+ N older" line, below) beats one that cuts the dice.
  let placed = null;
  const place = (classes) => {
    stage.classList.remove(...new Set(PLACES.flat()));
    stage.classList.add(...classes);
    placed = classes;
  };
  const ranked = [];
  for (const classes of PLACES) {
    const under = stage.querySelector(SLOT_OF[classes[1]]);
    if (classes[1] !== "join-middle" && (!under || under.getBoundingClientRect().width < wide)) continue;
    place(classes);
    ranked.push([classes, Math.min(1, ...regions.map((r) => r.clientHeight / Math.max(1, r.scrollHeight))) + logRoom()]);
  }
  ranked.sort((a, b) => b[1] - a[1]);
  // At the floor a crowded centre leaves the spoken words of power to the phones (longer
  // languages ran the attack's dice off it).
  const fitted = () => {
    for (const col of cols) fitRegion(col, { layouts: ["wiz-dense", "wiz-denser"] });
    for (const center of centers) fitRegion(center, { layouts: ["wiz-center-tight"] });
    return regions.reduce((cost, region) => cost + (!overflows(region) ? 0 : trimmable(region) ? 1 : 100), 0);
  };
  let chosen = null;
  for (const [classes] of ranked) {
    place(classes);
    const over = fitted();
    if (!chosen || over < chosen[1]) chosen = [classes, over];
    if (!over) break;
  }
  if (chosen[0] !== placed) { place(chosen[0]); fitted(); }
  // Revealed spells pile up with no hand limit: the oldest give way to one line.
  for (const col of cols) {
    trimList(col, col.querySelector(".wiz-spells"), (n) => tn("+ {n} older revealed spell", "+ {n} older revealed spells", n));
  }
}

// Whether hiding a column's oldest revealed spells (all but one line that counts them)
// would end its overflow: what sticks out is less than the spells list less one line.
function trimmable(col) {
  const list = col.querySelector(".wiz-spells");
  if (!list || !list.children.length) return false;
  const box = col.getBoundingClientRect();
  const floor = box.top + col.clientTop + col.clientHeight - parseFloat(getComputedStyle(col).paddingBottom);
  const out = Math.max(col.scrollHeight - col.clientHeight, ...[...col.children].map((c) => c.getBoundingClientRect().bottom - floor));
  const line = list.lastElementChild.getBoundingClientRect().height;
  return out + line < list.getBoundingClientRect().height;
}

// ---- The end -------------------------------------------------------------------------------------
function resultPanel(payload, pub) {
  const r = pub.result || payload.result || { winners: [], reason: "" };
  const winners = r.winners.map((s) => wizardName(pub, s, payload.seat));
  return h("section", { class: "wiz-result", "aria-label": t("Result") },
    h("h2", {}, icon("star"), winners.length === 1 ? t("{name} won the duel", { name: winners[0] })
      : winners.length ? t("{name} and {other} won the duel", { name: winners[0], other: winners[winners.length - 1] })
        : t("The duel is over")),
    r.reason ? h("p", { class: "wiz-reason" }, r.reason) : null,
    h("ul", { class: "wiz-final", role: "list" }, pub.wizards.map((w) => h("li", { class: `w${w.seat}` },
      h("span", {}, wizardName(pub, w.seat, payload.seat)), h("span", { class: "wiz-will-num" }, t("{willpower} willpower", { willpower: w.willpower }))))));
}

// ---- Entry point -----------------------------------------------------------------------------------
let again = null; // re-render with the last payload (the two-step cast picker)
function rerender() {
  if (again) again();
}

export function render(root, payload, ctx) {
  const pub = payload.view.public;
  const entries = logOf(payload, ctx);
  marks.begin();
  rolling = false;
  const over = pub.status !== "playing" || payload.status === "ended";
  let body;
  if (over) {
    chosen = null;
    words = "";
    body = [resultPanel(payload, pub), h("div", { class: "wiz-chronicle" }, shared.logList(entries.filter((e) => e.t !== "ruling"), 8))];
  } else if (ctx.role === "player" && payload.seat !== null && payload.seat !== undefined) {
    if (!byType(payload.actions, "cast").length) chosen = null;
    body = renderPlayer(payload, pub, ctx, entries);
  } else body = renderBoard(payload, pub, ctx, entries);
  const cls = `wiz game-view wiz-${ctx.role === "player" ? "phone" : ctx.role} wiz-phase-${pub.phase}` + (pub.pause ? " wiz-paused" : "");
  // Focus stays on the same control without scrolling to it: the next move sits in a sticky
  // bar, and the last outcome at the top of the page must stay in view.
  preserveFocus(root, () => replace(root, h("div", { class: cls }, body)), { preventScroll: true });
  if (ctx.role === "board") fitBoard(root);
  marks.end();
  again = () => render(root, payload, ctx);
}

// The end screen's scores (table.js endScreen) count the clients' willpower.
export const scoreText = (n) => t("{willpower} willpower", { willpower: n });
