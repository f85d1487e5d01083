// War's keyboard, and the buttons that do the same for touch and mouse users.
//
// war.js hands every key press to `onKey` and asks `keys` for the help
// overlay's rows (`?`); `controlRow` draws the Pause/Resume and Restart
// buttons with the restart's confirmation line. Every key sends one of the
// payload's listed `actions`, as a button would.
//
// Other War modules add their own keys without editing this file:
//
//   import { addKeys } from "./keys.js";
//   addKeys([{ keys: "1–5", what: "Select a power", alt: false,
//              handle(event, payload, ctx) { ...; return true if handled } }]);
//
// `keys` and `what` are the help overlay's row; `handle` is asked, in the
// order the keys were added (War's own first), until one answers true. A key
// entry is asked only when no field has the focus, no Ctrl or Meta (Command)
// is held, and Alt is held exactly when the entry says `alt: true`.
import { h } from "/static/js/dom.js";
import { refusals } from "/static/js/kit.js";
import { t } from "/static/js/i18n.js";

const CONFIRM_MS = 4000; // how long "Press R again to restart" waits for the second R

const registry = [];

export function addKeys(list) {
  for (const entry of list) {
    if (!entry || typeof entry.handle !== "function" || !entry.keys) continue;
    const at = registry.findIndex((e) => e.keys === entry.keys && !!e.alt === !!entry.alt);
    if (at >= 0) registry[at] = entry; // a module loaded again replaces its own keys
    else registry.push(entry);
  }
}

// The help overlay's rows: every registered key.
export function keys() {
  return registry.map((e) => [e.keys, e.what]);
}

// Typing in a field: keys are letters there, never shortcuts.
export function typing(event) {
  const target = event.target;
  if (!target || !target.closest) return false;
  return Boolean(target.closest("input, textarea, select, [contenteditable]:not([contenteditable='false'])"))
    || Boolean(target.isContentEditable);
}

export function onKey(event, payload, ctx) {
  if (typing(event) || event.ctrlKey || event.metaKey || !payload || !payload.view) return false;
  remember(payload);
  for (const entry of registry) {
    if (Boolean(entry.alt) !== event.altKey) continue;
    if (entry.handle(event, payload, ctx)) return true;
  }
  return false;
}

// ---------------------------------------------------------------- helpers

export function listed(payload, type, extra = {}) {
  return (payload.actions || []).find((a) => a.type === type
    && Object.entries(extra).every(([k, v]) => a[k] === v));
}

// Refused moves are said next to the controls (.act-error) for a few seconds,
// also across re-renders: war.js draws the message from `refusal.text()`.
const base = refusals(".war-game");
let said = null; // a refusal of our own, when nothing was sent: {text, until}
export const refusal = {
  text: () => (said && said.until > Date.now() ? said.text : base.text()),
  send: base.send,
};
const send = (ctx, action) => refusal.send(ctx, action);
function note(text) {
  said = { text, until: Date.now() + 5000 };
  for (const el of document.querySelectorAll(".war-game .act-error")) el.textContent = text;
  setTimeout(() => {
    if (refusal.text()) return;
    for (const el of document.querySelectorAll(".war-game .act-error")) el.textContent = "";
  }, 5050);
}

// The last auto-play speed this player used: A turns auto-play back on at it.
let lastSpeed = 1;
function remember(payload) {
  const mine = payload.view.private || {};
  if (mine.autoplay) lastSpeed = mine.autoplay;
  else if (mine.held_speed) lastSpeed = mine.held_speed;
}

// The restart's confirmation: asked by R (or the Restart button), confirmed by
// a second R (or tap) within CONFIRM_MS; Esc or the time running out cancels.
let pending = null; // {until, text}
let pendingTimer = null;
const confirmText = () => (pending && pending.until > Date.now() ? pending.text : "");
function showConfirm() {
  for (const el of document.querySelectorAll(".war-game .war-confirm")) el.textContent = confirmText();
}
function cancelRestart() {
  const had = Boolean(confirmText());
  pending = null;
  clearTimeout(pendingTimer);
  showConfirm();
  return had;
}
export function askRestart(payload, ctx, { byKey = true } = {}) {
  const restart = listed(payload, "restart");
  if (!restart) {
    note(t("A restart is only possible in a game against computer players."));
    return;
  }
  if (confirmText()) {
    cancelRestart();
    send(ctx, restart);
    return;
  }
  pending = { until: Date.now() + CONFIRM_MS,
    text: byKey ? t("Press R again to restart (Esc cancels)") : t("Tap Restart again to restart") };
  clearTimeout(pendingTimer);
  pendingTimer = setTimeout(() => { pending = null; showConfirm(); }, CONFIRM_MS + 50);
  showConfirm();
}

// P toggles; Esc (and the Pause button) only pauses.
function pauseOrResume(payload, ctx, toggle) {
  const hold = listed(payload, "hold");
  const resume = listed(payload, "resume");
  if (hold) send(ctx, hold);
  else if (resume && toggle) send(ctx, resume);
  return Boolean(hold || (resume && toggle));
}

// ---------------------------------------------------------------- War's own keys

const SPEEDS = { Digit1: 1, Digit2: 2, Digit4: 4, Numpad1: 1, Numpad2: 2, Numpad4: 4 };

addKeys([
  { keys: t("Space or Enter"), what: t("Reveal your next card (or resolve the battle)"),
    handle(event, payload, ctx) {
      if (event.key !== " " && event.key !== "Enter") return false;
      if (event.target.closest && event.target.closest("button, a, summary")) return false; // a focused control handles its own key
      const action = listed(payload, "resolve") || listed(payload, "reveal");
      if (action) send(ctx, action);
      return Boolean(action);
    } },
  { keys: "A", what: t("Turn auto-play on (at your last speed) or off"),
    handle(event, payload, ctx) {
      if (event.code !== "KeyA" && event.key !== "a" && event.key !== "A") return false;
      const mine = payload.view.private || {};
      const action = listed(payload, "autoplay", { speed: mine.autoplay ? 0 : lastSpeed })
        || (!mine.autoplay && listed(payload, "autoplay", { speed: 1 }));
      if (action) send(ctx, action);
      return true;
    } },
  { keys: "Alt+1, Alt+2, Alt+4", what: t("Auto-play at speed 1, 2 or 4 (Option on a Mac)"), alt: true,
    // event.code names the physical key: Option+2 on a Mac types "™", but its code is Digit2.
    handle(event, payload, ctx) {
      const speed = SPEEDS[event.code];
      if (!speed) return false;
      const action = listed(payload, "autoplay", { speed });
      if (action) send(ctx, action);
      return true;
    } },
  { keys: t("P or Esc"), what: t("Pause your play (P again resumes); against computers the whole game and its clock pause"),
    handle(event, payload, ctx) {
      if (event.key === "Escape") {
        if (cancelRestart()) return true; // Esc first cancels a restart being asked for
        return pauseOrResume(payload, ctx, false);
      }
      if (event.code !== "KeyP" && event.key !== "p" && event.key !== "P") return false;
      pauseOrResume(payload, ctx, true);
      return true;
    } },
  { keys: t("R, then R again"), what: t("Restart with a fresh deal (only against computer players)"),
    handle(event, payload, ctx) {
      if (event.code !== "KeyR" && event.key !== "r" && event.key !== "R") return false;
      askRestart(payload, ctx, { byKey: true });
      return true;
    } },
]);

// ---------------------------------------------------------------- buttons

// Pause/Resume and Restart for touch and mouse, with the confirmation line.
export function controlRow(payload, ctx) {
  remember(payload); // a speed picked with a button is the one A comes back to
  const hold = listed(payload, "hold");
  const resume = listed(payload, "resume");
  const restart = listed(payload, "restart");
  if (!hold && !resume && !restart) return null;
  const pauseButton = hold || resume;
  return h("div", { class: "war-play-controls", role: "group", "aria-label": t("Pause and restart") },
    h("div", { class: "button-row" },
      pauseButton ? h("button", { type: "button", class: "small war-pause" + (resume ? " primary" : ""),
        dataset: { focusKey: "war-pause" }, "aria-keyshortcuts": resume ? "P" : "P Escape",
        onclick: () => send(ctx, pauseButton) }, pauseButton.label) : null,
      restart ? h("button", { type: "button", class: "small war-restart", dataset: { focusKey: "war-restart" },
        "aria-keyshortcuts": "R", onclick: () => askRestart(payload, ctx, { byKey: false }) }, t("Restart")) : null),
    h("p", { class: "war-confirm", role: "status", "aria-live": "assertive" }, confirmText()));
}
