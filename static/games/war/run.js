// War's solo runs (Tournament, Survival): the run around the matches. war.js hands
// over every payload whose public view has a `run` (one line there); during a table
// the match keeps War's own rendering, drawn by war.js into a part of the page this
// module keeps, under a slim bar with the run's stage, chips and battles won.
// Between tables: the summary of the table just played, the ladder (route) with
// every stage's opponents, entry, prize and unlocks, what is unlocked, and the
// labelled actions (Enter / Retry, a perk's variant, Stop) at the bottom.
//
// payload.view.public.run: see app/engines/war/runs.py `progress`.
import { h, preserveFocus, replace } from "/static/js/dom.js";
import * as shared from "/static/js/table.js";

// The run's own stylesheet, once (War's module loads only war.css).
function style() {
  if (document.querySelector("link[data-war-run]")) return;
  document.head.append(h("link", { rel: "stylesheet", href: "/static/games/war/run.css", dataset: { warRun: "1" } }));
}

const refusal = shared.refusals(".war-run");

function plural(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function title(run, i) {
  const word = run.stage_word[0].toUpperCase() + run.stage_word.slice(1);
  return `${word} ${i + 1}: ${run.stages[i].name}`;
}

const STATE_TEXT = { cleared: "cleared", current: "next", lost: "lost", ahead: "" };
const STATE_MARK = { cleared: "✓", current: "▶", lost: "✗", ahead: "·" };

const MODE_TEXT = { classic: "Classic", power: "Power War", wager: "Wager Battle", power_wager: "Power and wager" };

function power(id) {
  return id.split("_").map((w) => w[0].toUpperCase() + w.slice(1)).join(" ");
}

// The slim bar above a match: where the run stands.
function bar(run) {
  return h("section", { class: "run-bar", "aria-label": `${run.title} progress` },
    h("span", { class: "run-title" }, run.title),
    h("span", { class: "run-where" }, title(run, run.stage)),
    h("span", { class: "run-figure" }, run.at_table !== null && run.at_table !== undefined
      ? `${plural(run.chips, "chip")} (on the table)` : plural(run.chips, "chip")),
    h("span", { class: "run-figure" }, `${plural(run.battles, "battle")} won`),
    h("ol", { class: "run-dots", "aria-label": "Ladder" }, run.stages.map((st, i) =>
      h("li", { class: `run-dot ${st.state}`, title: title(run, i) },
        h("span", { "aria-hidden": "true" }, STATE_MARK[st.state]),
        h("span", { class: "visually-hidden" }, `${title(run, i)} ${STATE_TEXT[st.state]}`)))));
}

// The ladder in full: every stage with its table and stakes.
function ladder(run, compact) {
  return h("ol", { class: "run-ladder" + (compact ? " compact" : ""), "aria-label": `${run.title} ladder` },
    run.stages.map((st, i) => h("li", { class: `run-stage ${st.state}` },
      h("p", { class: "run-stage-name" }, h("span", { class: "run-mark", "aria-hidden": "true" }, STATE_MARK[st.state]), " ",
        title(run, i), STATE_TEXT[st.state] ? h("span", { class: `badge run-badge ${st.state}` }, STATE_TEXT[st.state]) : null),
      h("p", { class: "run-stage-detail" },
        `${MODE_TEXT[st.mode] || st.mode} · ${plural(st.opponents.length, "opponent")} (${st.level}) · ${st.length}`
        + (st.entry ? ` · entry ${st.entry}` : "") + ` · prize ${st.prize}`),
      !compact && st.unlocks.length ? h("p", { class: "run-stage-unlocks" }, `Unlocks ${st.unlocks.join(", ")}`) : null)));
}

// What the table just played gave.
function summary(run, you) {
  const s = run.summary;
  if (!s) {
    return h("section", { class: "card run-summary", "aria-label": "Your run" },
      h("h2", {}, `${run.title}: ${plural(run.stages.length, run.stage_word)}`),
      h("p", {}, run.kind === "tournament"
        ? `You start with ${plural(run.chips, "chip")}. Pay each stage's entry, win to take its prize and unlock powers. A lost stage may be retried while your chips cover the entry.`
        : "Beat each table to move on to a harder one. Your progress stays with you; the first table you lose ends the run."));
  }
  const who = you ? "You" : run.player;
  const unlocked = s.unlocked.powers.map(power).concat(run.perks.filter((p) => s.unlocked.perks.includes(p.id)).map((p) => p.title));
  return h("section", { class: "card run-summary " + (s.won ? "won" : "lost"), "aria-label": "Last table" },
    h("h2", {}, `${who} ${s.won ? "won" : "lost"} ${title(run, s.stage)}`),
    h("p", {}, (s.won ? "" : `${s.winners.join(" and ")} won the table. `)
      + `${who} won ${s.battles} of ${plural(s.battles_played, "battle")}.`),
    s.kept !== null && s.kept !== undefined ? h("p", {}, `${who} left the table with ${plural(s.kept, "chip")}.`) : null,
    s.won ? h("p", { class: "run-gain" }, `+${s.prize} chips` + (unlocked.length ? ` · unlocked ${unlocked.join(", ")}` : "")) : null);
}

function unlocks(run) {
  return h("section", { class: "card run-unlocks", "aria-label": "Unlocked" },
    h("h2", { class: "small-heading" }, "Unlocked"),
    h("p", {}, h("strong", {}, "Powers: "), run.powers.length ? run.powers.map(power).join(", ") : "none yet"),
    run.perks.length ? h("ul", { class: "run-perks" }, run.perks.map((p) => h("li", {}, h("strong", {}, p.title), ` · ${p.text}`))) : null);
}

function figures(run) {
  return h("p", { class: "run-figures" },
    h("span", {}, h("strong", {}, String(run.chips)), run.chips === 1 ? " chip" : " chips"),
    h("span", {}, h("strong", {}, String(run.cleared)), ` of ${run.stages.length} cleared`),
    h("span", {}, h("strong", {}, String(run.battles)), run.battles === 1 ? " battle won" : " battles won"));
}

function controls(payload, ctx) {
  const acts = payload.actions;
  if (!acts.length) return null;
  return h("section", { class: "card run-controls thumb-zone", "aria-label": "Next table" },
    h("p", { class: "error act-error", role: "alert" }, refusal.text()),
    acts.map((a, i) => h("button", {
      type: "button", class: a.type === "enter" && i === 0 ? "primary run-enter" : "secondary",
      dataset: { focusKey: `run-${a.type}-${a.perk || ""}` }, onclick: () => refusal.send(ctx, a),
    }, a.label)));
}

// What the next table's mode asks of the player (war.run_powers, war.run_wager_chips).
function nextHint(run) {
  if (run.phase !== "between") return null;
  const st = run.stages[run.stage];
  const parts = [];
  if (st.mode === "power" || st.mode === "power_wager") {
    parts.push(`Powers: you choose up to 5 of your ${plural(run.powers.length, "unlocked power")}; the opponents use theirs.`);
  }
  if (st.mode === "wager" || st.mode === "power_wager") {
    parts.push("Chips: all your chips after the entry are your bankroll at this table (it needs the entry and a 10-chip ante); what you leave with is yours.");
  }
  if (!parts.length) return null;
  return h("section", { class: "card run-next", "aria-label": "The next table" },
    h("h2", { class: "small-heading" }, `Next: a ${MODE_TEXT[st.mode]} table`),
    parts.map((p) => h("p", {}, p)));
}

// The run between tables (and at its end for the board and the teacher).
function between(root, payload, ctx) {
  const run = payload.view.public.run;
  const player = ctx.role === "player";
  const board = ctx.role === "board";
  const head = h("div", { class: "run-head" },
    h("h2", { class: "run-heading" }, board ? `${run.title} · ${run.player}` : run.title),
    figures(run),
    h("p", { class: "hint", "aria-live": "polite" }, payload.view.prompt.text));
  const body = board
    ? [head, h("div", { class: "run-board-grid" }, h("div", {}, summary(run, false), nextHint(run), unlocks(run)), ladder(run, true))]
    : [head, summary(run, player), nextHint(run), player ? controls(payload, ctx) : null, ladder(run, player), unlocks(run)];
  // On the phone the next action sits under the thumb: after the summary, before the long ladder.
  preserveFocus(root, () => replace(root, h("div", { class: `war-run war-run-${ctx.role}` }, body)));
}

export function render(root, payload, ctx, war) {
  style();
  const run = payload.view.public.run;
  if (run.phase !== "match") {
    root.runMatch = null;
    between(root, payload, ctx);
    return;
  }
  // A table being played: the bar, then War's own rendering of the match.
  if (!root.runMatch || !root.contains(root.runMatch)) {
    root.runBar = h("div", { class: "run-bar-wrap" });
    root.runMatch = h("div", { class: "run-match" });
    replace(root, h("div", { class: `war-run war-run-${ctx.role} in-match` }, root.runBar, root.runMatch));
  }
  replace(root.runBar, bar(run));
  war(root.runMatch, payload, ctx);
}

// The end of the run, on the phone and the board (the platform's end screen,
// table.js, with the run's summary in place of a one-line ranking): the title
// reached or where the run ended, tables cleared, chips, battles won, unlocks,
// and the ladder with each stage's fate.
export function endScreen(payload, ctx, platform, scoreText) {
  style();
  const run = payload.view.public.run;
  const out = run.outcome;
  const base = platform(payload, scoreText);
  if (!out) return base;
  const you = ctx.role === "player";
  base.classList.add("run-end", out.complete ? "complete" : "ended");
  const heading = base.querySelector("h2");
  heading.textContent = out.complete ? (you ? `${out.title}!` : `${run.player}: ${out.title}!`)
    : (you ? out.title : `${run.player}: ${out.title}`);
  const ranking = base.querySelector(".ranking");
  const word = run.stage_word;
  const played = run.history.length;
  const body = h("div", { class: "run-end-body" },
    h("p", { class: "run-end-where" }, out.where),
    h("dl", { class: "run-end-figures" },
      h("div", {}, h("dt", {}, `${word[0].toUpperCase()}${word.slice(1)}s cleared`), h("dd", {}, `${out.cleared} of ${out.stages}`)),
      h("div", {}, h("dt", {}, "Chips"), h("dd", {}, String(out.chips))),
      h("div", {}, h("dt", {}, "Battles won"), h("dd", {}, String(out.battles))),
      h("div", {}, h("dt", {}, "Tables played"), h("dd", {}, String(played)))),
    h("p", { class: "run-end-unlocks" }, h("strong", {}, "Unlocked: "),
      out.unlocked.length ? out.unlocked.join(", ") : "nothing yet"),
    h("div", { class: "war-run run-end-ladder" }, ladder(run, true)));
  if (ranking) ranking.replaceWith(body);
  else base.append(body);
  return base;
}

// The end screen's score: a run counts chips.
export const scoreText = (n) => plural(n, "chip");

// Enter (or Retry) the next table with Enter or Space between tables (during a
// table War's own keys apply).
export function onKey(event, payload, ctx) {
  if ((event.key === " " || event.key === "Enter") && !event.altKey) {
    if (event.target.closest("button")) return false;
    const enter = payload.actions.find((a) => a.type === "enter" && !a.perk);
    if (enter) ctx.act(enter);
    return Boolean(enter);
  }
  return false;
}
