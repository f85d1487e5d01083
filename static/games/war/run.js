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
import { refusals } from "/static/js/kit.js";
import { t, tn } from "/static/js/i18n.js";

// The run's own stylesheet, once (War's module loads only war.css).
function style() {
  if (document.querySelector("link[data-war-run]")) return;
  document.head.append(h("link", { rel: "stylesheet", href: "/static/games/war/run.css", dataset: { warRun: "1" } }));
}

const refusal = refusals(".war-run");

function title(run, i) {
  const fields = { n: i + 1, name: run.stages[i].name };
  return run.stage_word === "stage" ? t("Stage {n}: {name}", fields) : t("Table {n}: {name}", fields);
}

const STATE_TEXT = { cleared: t("cleared"), current: t("next"), lost: t("lost"), ahead: "" };
const STATE_MARK = { cleared: "✓", current: "▶", lost: "✗", ahead: "·" };

const MODE_TEXT = { classic: t("Classic"), power: t("Power War"), wager: t("Wager Battle"), power_wager: t("Power and wager") };
const LEVEL_TEXT = { easy: t("easy"), standard: t("standard"), hard: t("hard") };
const chips = (n) => tn("{n} chip", "{n} chips", n);

// A power's name: the view's (in the reader's language), else from its id.
let names = {};
function power(id) {
  return names[id] || id.split("_").map((w) => w[0].toUpperCase() + w.slice(1)).join(" ");
}

// The slim bar above a match: where the run stands.
function bar(run) {
  return h("section", { class: "run-bar", "aria-label": t("{title} progress", { title: run.title }) },
    h("span", { class: "run-title" }, run.title),
    h("span", { class: "run-where" }, title(run, run.stage)),
    h("span", { class: "run-figure" }, run.at_table !== null && run.at_table !== undefined
      ? tn("{n} chip (on the table)", "{n} chips (on the table)", run.chips) : chips(run.chips)),
    h("span", { class: "run-figure" }, tn("{n} battle won", "{n} battles won", run.battles)),
    h("ol", { class: "run-dots", "aria-label": t("Ladder") }, run.stages.map((st, i) =>
      h("li", { class: `run-dot ${st.state}`, title: title(run, i) },
        h("span", { "aria-hidden": "true" }, STATE_MARK[st.state]),
        h("span", { class: "visually-hidden" }, `${title(run, i)} ${STATE_TEXT[st.state]}`)))));
}

// The ladder in full: every stage with its table and stakes.
function ladder(run, compact) {
  return h("ol", { class: "run-ladder" + (compact ? " compact" : ""), "aria-label": t("{title} ladder", { title: run.title }) },
    run.stages.map((st, i) => h("li", { class: `run-stage ${st.state}` },
      h("p", { class: "run-stage-name" }, h("span", { class: "run-mark", "aria-hidden": "true" }, STATE_MARK[st.state]), " ",
        title(run, i), STATE_TEXT[st.state] ? h("span", { class: `badge run-badge ${st.state}` }, STATE_TEXT[st.state]) : null),
      h("p", { class: "run-stage-detail" },
        `${MODE_TEXT[st.mode] || st.mode} · ` + tn("{n} opponent", "{n} opponents", st.opponents.length)
        + ` (${LEVEL_TEXT[st.level] || st.level}) · ${t(st.length)}`
        + (st.entry ? " · " + t("entry {n}", { n: st.entry }) : "") + " · " + t("prize {n}", { n: st.prize })),
      !compact && st.unlocks.length ? h("p", { class: "run-stage-unlocks" }, t("Unlocks {names}", { names: st.unlocks.join(", ") })) : null)));
}

// What the table just played gave.
function summary(run, you) {
  const s = run.summary;
  if (!s) {
    const count = run.stage_word === "stage" ? tn("{n} stage", "{n} stages", run.stages.length)
      : tn("{n} table", "{n} tables", run.stages.length);
    return h("section", { class: "card run-summary", "aria-label": t("Your run") },
      h("h2", {}, `${run.title}: ${count}`),
      h("p", {}, run.kind === "tournament"
        ? tn("You start with {n} chip. Pay each stage's entry, win to take its prize and unlock powers. A lost stage may be retried while your chips cover the entry.",
          "You start with {n} chips. Pay each stage's entry, win to take its prize and unlock powers. A lost stage may be retried while your chips cover the entry.", run.chips)
        : t("Beat each table to move on to a harder one. Your progress stays with you; the first table you lose ends the run.")));
  }
  const f = { name: run.player, table: title(run, s.stage), battles: s.battles, stake: chips(s.kept), names: s.winners.join(t(" and ")) };
  const unlocked = s.unlocked.powers.map(power).concat(run.perks.filter((p) => s.unlocked.perks.includes(p.id)).map((p) => p.title));
  const head = you ? (s.won ? t("You won {table}", f) : t("You lost {table}", f))
    : (s.won ? t("{name} won {table}", f) : t("{name} lost {table}", f));
  const tally = you ? tn("You won {battles} of {n} battle.", "You won {battles} of {n} battles.", s.battles_played, f)
    : tn("{name} won {battles} of {n} battle.", "{name} won {battles} of {n} battles.", s.battles_played, f);
  const kept = you ? t("You left the table with {stake}.", f) : t("{name} left the table with {stake}.", f);
  return h("section", { class: "card run-summary " + (s.won ? "won" : "lost"), "aria-label": t("Last table") },
    h("h2", {}, head),
    h("p", {}, (s.won ? "" : t("{names} won the table.", f) + " ") + tally),
    s.kept !== null && s.kept !== undefined ? h("p", {}, kept) : null,
    s.won ? h("p", { class: "run-gain" }, t("+{n} chips", { n: s.prize }) + (unlocked.length ? " · " + t("unlocked {names}", { names: unlocked.join(", ") }) : "")) : null);
}

function unlocks(run) {
  return h("section", { class: "card run-unlocks", "aria-label": t("Unlocked") },
    h("h2", { class: "small-heading" }, t("Unlocked")),
    h("p", {}, h("strong", {}, t("Powers: ")), run.powers.length ? run.powers.map(power).join(", ") : t("none yet")),
    run.perks.length ? h("ul", { class: "run-perks" }, run.perks.map((p) => h("li", {}, h("strong", {}, p.title), ` · ${p.text}`))) : null);
}

function figures(run) {
  return h("p", { class: "run-figures" },
    h("span", {}, h("strong", {}, String(run.chips)), " " + tn("chip", "chips", run.chips)),
    h("span", {}, h("strong", {}, String(run.cleared)), " " + t("of {total} cleared", { total: run.stages.length })),
    h("span", {}, h("strong", {}, String(run.battles)), " " + tn("battle won", "battles won", run.battles)));
}

function controls(payload, ctx) {
  const acts = payload.actions;
  if (!acts.length) return null;
  return h("section", { class: "card run-controls thumb-zone", "aria-label": t("Next table") },
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
    parts.push(tn("Powers: you choose up to 5 of your {n} unlocked power; the opponents use theirs.",
      "Powers: you choose up to 5 of your {n} unlocked powers; the opponents use theirs.", run.powers.length));
  }
  if (st.mode === "wager" || st.mode === "power_wager") {
    parts.push(t("Chips: all your chips after the entry are your bankroll at this table (it needs the entry and a 10-chip ante); what you leave with is yours."));
  }
  if (!parts.length) return null;
  return h("section", { class: "card run-next", "aria-label": t("The next table") },
    h("h2", { class: "small-heading" }, t("Next: a {mode} table", { mode: MODE_TEXT[st.mode] })),
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
  names = run.power_names || {};
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
  names = run.power_names || {};
  const out = run.outcome;
  const base = platform(payload, scoreText);
  if (!out) return base;
  const you = ctx.role === "player";
  base.classList.add("run-end", out.complete ? "complete" : "ended");
  const heading = base.querySelector("h2");
  heading.textContent = out.complete ? (you ? `${out.title}!` : `${run.player}: ${out.title}!`)
    : (you ? out.title : `${run.player}: ${out.title}`);
  const ranking = base.querySelector(".ranking");
  const played = run.history.length;
  const body = h("div", { class: "run-end-body" },
    h("p", { class: "run-end-where" }, out.where),
    h("dl", { class: "run-end-figures" },
      h("div", {}, h("dt", {}, run.stage_word === "stage" ? t("Stages cleared") : t("Tables cleared")),
        h("dd", {}, t("{n} of {total}", { n: out.cleared, total: out.stages }))),
      h("div", {}, h("dt", {}, t("Chips")), h("dd", {}, String(out.chips))),
      h("div", {}, h("dt", {}, t("Battles won")), h("dd", {}, String(out.battles))),
      h("div", {}, h("dt", {}, t("Tables played")), h("dd", {}, String(played)))),
    h("p", { class: "run-end-unlocks" }, h("strong", {}, t("Unlocked: ")),
      out.unlocked.length ? out.unlocked.join(", ") : t("nothing yet")),
    h("div", { class: "war-run run-end-ladder" }, ladder(run, true)));
  if (ranking) ranking.replaceWith(body);
  else base.append(body);
  return base;
}

// The end screen's score: a run counts chips.
export const scoreText = (n) => chips(n);

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
