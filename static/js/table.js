// Rendering shared by every game: lobby, players, banner, log, result.
// Game-specific parts live in games/<key>.js and are looked up by key.
import { h, replace, show } from "./dom.js";
import * as war from "./games/war.js";

const GAMES = { war };

export function gameModule(key) {
  return GAMES[key];
}

export function playerList(players, { you = null, kick = null } = {}) {
  return h("ul", { class: "player-list", role: "list" },
    players.map((p) => h("li", { class: "player" + (p.connected ? " online" : " away"), dataset: { seat: p.seat } },
      h("span", { class: "dot", "aria-hidden": "true" }, p.connected ? "●" : "○"),
      h("span", { class: "player-name" }, p.name),
      p.seat === you ? h("span", { class: "badge" }, "you") : null,
      p.computer ? h("span", { class: "badge" }, "computer") : null,
      h("span", { class: "visually-hidden" }, p.connected ? " (connected)" : " (not connected)"),
      kick ? kick(p) : null)));
}

export function lobby(payload, { role, onStart }) {
  const n = payload.players.length;
  const need = payload.min_seats;
  const canStart = payload.actions.some((a) => a.type === "start");
  const parts = [
    h("h2", {}, role === "board" ? `Players joined: ${n} of ${payload.max_seats}` : "Waiting for players"),
    playerList(payload.players, { you: payload.seat }),
  ];
  if (n < need) parts.push(h("p", { class: "hint" }, `At least ${need} players are needed to start.`));
  if (canStart) {
    parts.push(h("button", { class: "primary big", type: "button", onclick: onStart, dataset: { focusKey: "start" } },
      "Deal cards & start"));
  } else if (role === "player" && n >= need) {
    const first = payload.players[0];
    parts.push(h("p", { class: "hint" }, `Waiting for ${first ? first.name : "the first player"} to start the game.`));
  }
  if (payload.locked) parts.push(h("p", { class: "hint" }, "The table is locked: no one else can join."));
  return h("section", { class: "card lobby", "aria-label": "Lobby" }, parts);
}

export function logList(entries, limit = 12) {
  const recent = entries.slice(-limit).reverse();
  return h("section", { class: "log", "aria-label": "Game log" },
    h("h2", { class: "small-heading" }, "What happened (newest first)"),
    h("ul", { class: "log-list", role: "list" }, recent.map((e) => h("li", { class: "log-" + e.t }, e.text))));
}

export function banner(el, payload) {
  let text = "";
  if (payload.paused) text = "The teacher has paused the game.";
  else if (payload.status === "ended") text = "This game has ended.";
  el.textContent = text;
  show(el, Boolean(text));
}

export function render(root, payload, ctx) {
  const game = gameModule(payload.game);
  if (payload.status === "lobby") {
    replace(root, lobby(payload, ctx));
    return;
  }
  if (!game) {
    replace(root, h("p", { class: "error" }, "This game cannot be shown on this page."));
    return;
  }
  game.render(root, payload, ctx);
}
