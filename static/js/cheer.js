// The board's sounds and every screen's celebration of a win.
//
// Sounds are synthesized with the Web Audio API (no audio files): off until the
// teacher turns them on with the board's toggle, remembered in localStorage. Which
// moment sounds is read from the log's entry kinds (`t`), so no game is named here:
// a card revealed, a battle or challenge won, a Crisis drawn, and the winner.
//
// The celebration is a burst of confetti on a canvas for 1.8 s when a game ends
// with a winner, on the phones, the board and the teacher's page; none at all
// under prefers-reduced-motion: reduce.

import { t } from "./i18n.js";

const SOUND_KEY = "cg-board-sound";
const MOMENTS = {
  reveal: "reveal", flip: "reveal",
  win: "won", success: "won", recruit: "won", crisis_passed: "won",
  crisis: "crisis", war: "crisis",
};
// [frequency Hz, seconds, wave] per note, played one after another.
const TUNES = {
  reveal: [[880, 0.07, "triangle"]],
  won: [[523, 0.09, "triangle"], [784, 0.16, "triangle"]],
  crisis: [[233, 0.16, "sawtooth"], [196, 0.28, "sawtooth"]],
  winner: [[523, 0.12, "square"], [659, 0.12, "square"], [784, 0.12, "square"], [1047, 0.4, "square"]],
};
const RANK = ["reveal", "won", "crisis", "winner"];

let audio = null;

export function soundOn() {
  try {
    return localStorage.getItem(SOUND_KEY) === "on";
  } catch {
    return false; // storage blocked: sound stays off
  }
}

export function play(name) {
  if (!soundOn() || !TUNES[name] || !window.AudioContext) return;
  audio = audio || new AudioContext();
  let at = audio.currentTime + 0.02;
  for (const [freq, length, wave] of TUNES[name]) {
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = wave;
    osc.frequency.value = freq;
    // A short attack and decay: a chime, not a click.
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(0.18, at + 0.015);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + length);
    osc.connect(gain).connect(audio.destination);
    osc.start(at);
    osc.stop(at + length + 0.02);
    at += length * 0.9;
  }
}

// The board's toggle (a pressed button), put in the page's header.
export function soundToggle(into) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "small sound-toggle";
  button.id = "sound-toggle";
  const show = () => {
    button.setAttribute("aria-pressed", String(soundOn()));
    button.textContent = soundOn() ? t("Sound on") : t("Sound off");
  };
  button.addEventListener("click", () => {
    try {
      localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on");
    } catch { /* storage blocked: the button cannot remember */ }
    show();
    if (soundOn()) {
      audio = audio || (window.AudioContext ? new AudioContext() : null);
      if (audio) audio.resume(); // the click is the gesture a browser needs before it plays
      play("reveal");
    }
  });
  show();
  into.append(button);
  return button;
}

const key = (e) => `${e.v}|${e.t}|${e.text}`;

// What changed between two views of one table that deserves a sound or a cheer.
export function moments(before, after) {
  if (!before || before.code !== after.code) return [];
  const seen = new Set((before.log || []).map(key));
  const found = (after.log || []).filter((e) => !seen.has(key(e))).map((e) => MOMENTS[e.t]).filter(Boolean);
  if (won(after) && !won(before)) found.push("winner");
  return found;
}

export function won(view) {
  return Boolean(view && view.status === "ended" && view.result && (view.result.winners || []).length);
}

// The most telling of the moments, one sound at a time.
export function sound(found) {
  const best = found.reduce((a, b) => (RANK.indexOf(b) > RANK.indexOf(a) ? b : a), null);
  if (best) play(best);
}

const COLOURS = ["#ffbf47", "#0b5cad", "#1b6e3a", "#a4161a", "#7b3fa0", "#14213d"];

export function celebrate() {
  if (window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  if (document.querySelector("canvas.celebration")) return;
  const canvas = document.createElement("canvas");
  canvas.className = "celebration";
  canvas.setAttribute("aria-hidden", "true");
  // The viewport without its scroll bar: the burst never widens the page.
  canvas.width = document.documentElement.clientWidth;
  canvas.height = document.documentElement.clientHeight;
  document.body.append(canvas);
  const g = canvas.getContext("2d");
  const bits = Array.from({ length: 140 }, () => ({
    x: canvas.width / 2 + (Math.random() - 0.5) * canvas.width * 0.3,
    y: canvas.height * 0.35,
    vx: (Math.random() - 0.5) * canvas.width * 0.9,
    vy: -Math.random() * canvas.height * 1.1,
    spin: Math.random() * 6,
    size: 6 + Math.random() * 8,
    colour: COLOURS[Math.floor(Math.random() * COLOURS.length)],
  }));
  const started = performance.now();
  const LENGTH = 1800;
  const frame = (now) => {
    const t = (now - started) / 1000;
    g.clearRect(0, 0, canvas.width, canvas.height);
    g.globalAlpha = Math.max(0, 1 - (now - started) / LENGTH);
    for (const b of bits) {
      const x = b.x + b.vx * t;
      const y = b.y + b.vy * t + 0.5 * canvas.height * 2.2 * t * t;
      g.save();
      g.translate(x, y);
      g.rotate(b.spin * t);
      g.fillStyle = b.colour;
      g.fillRect(-b.size / 2, -b.size / 4, b.size, b.size / 2);
      g.restore();
    }
    if (now - started < LENGTH) requestAnimationFrame(frame);
    else canvas.remove();
  };
  requestAnimationFrame(frame);
  // A hidden tab gets no animation frames: the canvas still goes.
  setTimeout(() => canvas.remove(), LENGTH + 400);
}
