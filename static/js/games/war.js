// War: the board and the phone draw the same public view; the phone adds the
// player's own deck button and auto-play controls.
import { h, preserveFocus, replace } from "../dom.js";
import { logList, playerList } from "../table.js";

const SPEEDS = [1, 2, 4];
const RED = new Set(["♥", "♦"]);

function card(c, extra = "") {
  if (!c || c.down) {
    return h("span", { class: "playing-card down " + extra, role: "img", "aria-label": "face-down card" }, "WAR");
  }
  return h("span", { class: "playing-card" + (RED.has(c.suit) ? " red" : "") + (extra ? " " + extra : ""), role: "img", "aria-label": c.name },
    h("span", { "aria-hidden": "true" }, c.label), h("span", { class: "suit", "aria-hidden": "true" }, c.suit));
}

function nameOf(pub, seat) {
  const p = pub.players.find((x) => x.seat === seat);
  return p ? p.name : `Seat ${seat + 1}`;
}

function stageText(pub) {
  if (pub.result) return "Game over";
  const sd = pub.sudden_death ? ` · Sudden death: ${pub.sudden_death.battles_left} battle(s) left` : "";
  if (pub.stage === "battle") return `Battle ${pub.battle}${sd}`;
  return `War! Level ${pub.stage} — battle ${pub.battle}${sd}`;
}

function waitingText(pub, you) {
  if (pub.result || !pub.waiting_for.length) return "";
  const names = pub.waiting_for.map((s) => (s === you ? "you" : nameOf(pub, s)));
  return `Waiting for ${names.join(", ")} to reveal.`;
}

function seats(pub, you) {
  const showing = new Map(pub.showing.map((x) => [x.seat, x.card]));
  return h("ul", { class: "war-seats", role: "list", "aria-label": "Players" },
    pub.players.map((p) => {
      const waiting = pub.waiting_for.includes(p.seat);
      const shown = showing.get(p.seat);
      return h("li", { class: "war-seat" + (p.eliminated ? " out" : "") + (waiting ? " waiting" : ""), dataset: { seat: p.seat } },
        h("h3", {}, p.name, p.seat === you ? h("span", { class: "badge" }, "you") : null),
        h("p", { class: "stat" }, p.eliminated ? "Out of the game" : `${p.cards} card${p.cards === 1 ? "" : "s"}`),
        shown ? card(shown) : h("p", { class: "muted" }, waiting ? "To reveal…" : p.eliminated ? "" : "—"),
        p.autoplay ? h("span", { class: "badge" }, `auto ${p.autoplay}×`) : null);
    }));
}

function pot(pub) {
  if (!pub.committed.length) return null;
  return h("section", { class: "card", "aria-label": "Pot" },
    h("h2", { class: "small-heading" }, `Pot: ${pub.pot_count} card${pub.pot_count === 1 ? "" : "s"}`),
    h("div", {}, pub.committed.map((c) => card(c))));
}

function last(pub) {
  const l = pub.last;
  if (!l) return null;
  const head = l.winner === null
    ? `Battle ${l.battle}: nobody won; ${l.count} card(s) stay in the pot.`
    : `Battle ${l.battle}: ${nameOf(pub, l.winner)} won ${l.count} card${l.count === 1 ? "" : "s"}.`;
  return h("section", { class: "card last-battle", "aria-label": "Last battle" },
    h("h2", { class: "small-heading" }, head),
    h("div", {}, l.deciding.map((d) => h("span", { class: "deciding" },
      h("span", { class: "visually-hidden" }, `${nameOf(pub, d.seat)}: `),
      card(d.card, d.seat === l.winner ? "winner" : ""),
      h("span", { class: "muted" }, nameOf(pub, d.seat))))));
}

function result(pub) {
  const r = pub.result;
  if (!r) return null;
  const winners = r.winners.map((s) => nameOf(pub, s)).join(" and ");
  return h("section", { class: "card result", "aria-label": "Result" },
    h("h2", {}, r.winners.length === 1 ? `${winners} wins the game!` : `Shared win: ${winners}`),
    h("ol", {}, r.ranking.map((s) => h("li", {}, `${nameOf(pub, s)} — ${r.scores[s]} card(s)`))));
}

function controls(payload, ctx) {
  const pub = payload.view.public;
  const mine = payload.view.private;
  const canReveal = payload.actions.some((a) => a.type === "reveal");
  const label = mine.eliminated ? "You are out of the game"
    : canReveal ? `Tap to reveal (${mine.cards} card${mine.cards === 1 ? "" : "s"})`
      : pub.result ? "Game over" : "Waiting for the others…";
  const deck = h("button", {
    type: "button", class: "deck-button", disabled: !canReveal, dataset: { focusKey: "deck" },
    "aria-keyshortcuts": "Space Enter", onclick: () => reveal(payload, ctx),
  }, h("span", {}, label), h("small", {}, pub.stage === "battle" ? "" : "War: 3 face down + 1 face up"));
  const speeds = new Set(payload.actions.filter((a) => a.type === "autoplay").map((a) => a.speed));
  const autoRow = mine.eliminated || pub.result ? null : h("div", { class: "button-row", role: "group", "aria-label": "Auto-play" },
    h("button", {
      type: "button", "aria-pressed": mine.autoplay ? "true" : "false", dataset: { focusKey: "auto" },
      "aria-keyshortcuts": "A", onclick: () => ctx.act({ type: "autoplay", speed: mine.autoplay ? 0 : 1 }),
    }, mine.autoplay ? "Auto-play: on" : "Auto-play: off"),
    SPEEDS.map((s) => h("button", {
      type: "button", class: "small", "aria-pressed": mine.autoplay === s ? "true" : "false",
      disabled: !speeds.has(s) && mine.autoplay !== s, dataset: { focusKey: `speed${s}` },
      "aria-keyshortcuts": `Alt+${s}`, onclick: () => ctx.act({ type: "autoplay", speed: s }),
    }, `${s}×`)));
  const inPlay = mine.in_play && mine.in_play.length
    ? h("p", {}, "Your cards in play: ", mine.in_play.map((c) => card(c))) : null;
  return h("section", { class: "card", "aria-label": "Your deck" }, deck, inPlay, autoRow,
    h("p", { class: "muted" }, "Keys: Space or Enter reveals · A toggles auto-play · Alt+1/2/4 speed"));
}

async function reveal(payload, ctx) {
  // Everyone reveals at once, so a reveal often races another player's; a
  // reveal does not depend on what changed, so it is safely sent again once.
  const ack = await ctx.act({ type: "reveal" });
  if (ack && !ack.ok && ack.error.code === "stale") {
    setTimeout(() => {
      const fresh = ctx.current ? ctx.current() : null;
      if (fresh && fresh.actions.some((a) => a.type === "reveal")) ctx.act({ type: "reveal" });
    }, 50);
  }
}

export function render(root, payload, ctx) {
  const pub = payload.view.public;
  const you = payload.seat;
  preserveFocus(root, () => replace(root,
    h("p", { class: "status-line" }, stageText(pub)),
    h("p", { class: "hint", "aria-live": "polite" }, waitingText(pub, you)),
    result(pub),
    ctx.role === "player" ? controls(payload, ctx) : null,
    seats(pub, you),
    pot(pub),
    last(pub),
    logList(payload.log, ctx.role === "player" ? 8 : 10),
    ctx.role !== "player" ? playerList(payload.players) : null));
}

export function onKey(event, payload, ctx) {
  const mine = payload.view.private || {};
  if ((event.key === " " || event.key === "Enter") && !event.altKey) {
    if (event.target.closest("button")) return false; // a focused button handles its own key
    if (payload.actions.some((a) => a.type === "reveal")) reveal(payload, ctx);
    return true;
  }
  if (event.altKey && ["1", "2", "4"].includes(event.key)) {
    ctx.act({ type: "autoplay", speed: Number(event.key) });
    return true;
  }
  if (event.key === "a" || event.key === "A") {
    ctx.act({ type: "autoplay", speed: mine.autoplay ? 0 : 1 });
    return true;
  }
  return false;
}
