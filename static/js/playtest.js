// The dashboard's playtest report with a balance lab: made as a background job
// (POST /api/playtest/jobs, app/reports/jobs.py) instead of a download the browser
// waits minutes for. This page starts it with the form's fields, shows how far it has
// got (polling the job's status), then the link to the PDF. Without a lab (0 games)
// and for the CSV the form downloads at once, as before.
//
// The job's id is kept for this tab (sessionStorage), so the gauge comes back after a
// reload or a visit to another page; when the server no longer knows the job (it
// restarted, or the report is over 30 minutes old) the page says so and offers to
// start again with the same fields.
import { h, replace, show } from "./dom.js";

const POLL_MS = 2000;
const RETRY_MS = 4000;

const form = document.querySelector("form[data-playtest-jobs]");
if (form) setUp(form);

function clock(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function aboutLeft(seconds) {
  if (seconds < 60) return "under a minute left";
  const minutes = Math.round(seconds / 60);
  return `about ${minutes} minute${minutes === 1 ? "" : "s"} left`;
}

function setUp(form) {
  const box = document.getElementById("playtest-job");
  const line = box.querySelector(".job-line");
  const gauge = box.querySelector(".job-gauge");
  const figures = box.querySelector(".job-figures");
  const actions = box.querySelector(".job-actions");
  const pdfButton = form.querySelector("[data-playtest-pdf]");
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const key = `cg-playtest-job-${form.dataset.owner}`;
  let job = null;          // the last status the server sent
  let receivedAt = 0;      // when (Date.now()), for the elapsed time between polls
  let poller = null;
  let ticker = null;

  const remembered = () => {
    try {
      return JSON.parse(sessionStorage.getItem(key) || "null");
    } catch (err) {
      return null;
    }
  };
  const remember = (value) => {
    if (value) sessionStorage.setItem(key, JSON.stringify(value));
    else sessionStorage.removeItem(key);
  };

  async function call(method, url) {
    let response;
    try {
      response = await fetch(url, { method, credentials: "same-origin", headers: { "X-CSRF-Token": csrf } });
    } catch (err) {
      return { response: null, data: null };
    }
    let data = null;
    try {
      data = await response.json();
    } catch (err) {
      data = null;
    }
    return { response, data };
  }

  function button(text, onclick, cls = "") {
    return h("button", { type: "button", class: cls, onclick }, text);
  }

  function startAgain(label = "Start it again") {
    const saved = remembered();
    return saved && saved.params ? button(label, () => start(new URLSearchParams(saved.params)), "primary") : null;
  }

  // `buttons` are redrawn only when they change (not on each second's tick), so a
  // button is never replaced between a teacher's press and release, nor loses focus.
  function say(text, { gaugeShown = false, more = "", buttons = [] } = {}) {
    show(box, true);
    if (line.textContent !== text) line.textContent = text;   // the live region speaks only when it changes
    show(gauge, gaugeShown);
    figures.textContent = more;
    show(figures, Boolean(more));
    const shown = buttons.filter(Boolean);
    const key = shown.map((b) => `${b.textContent}|${b.getAttribute("href") || ""}`).join("\n");
    if (actions.dataset.key !== key) {
      actions.dataset.key = key;
      replace(actions, ...shown);
    }
    show(actions, shown.length > 0);
  }

  function draw() {
    if (!job) return;
    const elapsed = job.state === "running" ? job.elapsed + (Date.now() - receivedAt) / 1000 : job.elapsed;
    if (job.state === "running") {
      const stopButton = job.stopping ? null : button("Stop", stopJob);
      if (job.stage === "lab" && job.games) {
        gauge.max = job.games;
        gauge.value = job.played;
        const left = job.left === null || job.left === undefined ? "" : ` · ${aboutLeft(job.left)}`;
        say(job.stopping ? "Stopping…" : `Playing ${job.lab} games per level and setting…`, {
          gaugeShown: true, buttons: [stopButton],
          more: `${job.percent} % · ${job.played} of ${job.games} games played · ${clock(elapsed)} so far${left}`,
        });
      } else {
        gauge.removeAttribute("value");   // no figure yet: the bar moves without one
        const doing = job.stage === "drawing" ? "Drawing the PDF…" : "Reading the class's games…";
        say(job.stopping ? "Stopping…" : doing,
          { gaugeShown: true, buttons: [stopButton], more: `${clock(elapsed)} so far` });
      }
    } else if (job.state === "done") {
      const link = h("a", { class: "button primary", href: job.pdf_url, download: job.filename },
        "Download the finished report (PDF)");
      say("Your playtest report is ready.", {
        buttons: [link],
        more: (job.lab_skipped
          ? "No table in these dates had players to compare, so the report has no balance lab. "
          : `Made in ${clock(elapsed)}. `) + "The link works for 30 minutes.",
      });
    } else if (job.state === "stopped") {
      say("You stopped the report.", { buttons: [startAgain()] });
    } else {
      say(job.message || "The report could not be made.", { buttons: [startAgain("Try again")] });
    }
  }

  function stopTimers() {
    clearTimeout(poller);
    clearInterval(ticker);
    poller = ticker = null;
  }

  function follow(status) {
    job = status;
    receivedAt = Date.now();
    const saved = remembered() || {};
    remember({ ...saved, id: status.id, url: status.status_url });
    draw();
    stopTimers();
    if (status.state === "running") {
      ticker = setInterval(draw, 1000);
      poller = setTimeout(poll, POLL_MS);
    }
  }

  function lost(message) {
    stopTimers();
    job = null;
    remember({ params: (remembered() || {}).params });   // said once: a reload does not ask again
    say(message, { buttons: [startAgain()] });
  }

  async function poll() {
    const saved = remembered();
    if (!saved || !saved.url) return;
    const { response, data } = await call("GET", saved.url);
    if (!response) {   // the server is restarting, or the Wi-Fi dropped: keep asking
      say("The server cannot be reached just now. Still trying…", { gaugeShown: true });
      clearTimeout(poller);
      poller = setTimeout(poll, RETRY_MS);
      return;
    }
    if (response.status === 404) {
      lost("The server no longer has this report: it restarted, or the report is over 30 minutes old.");
      return;
    }
    if (!response.ok) {
      clearTimeout(poller);
      poller = setTimeout(poll, RETRY_MS);
      return;
    }
    follow(data);
  }

  async function start(params) {
    stopTimers();
    remember({ params: params.toString() });
    say("Starting the report…", { gaugeShown: true });
    gauge.removeAttribute("value");
    const { response, data } = await call("POST", `${form.dataset.playtestJobs}?${params}`);
    if (!response) {
      lost("The server cannot be reached. Check the network and try again.");
      return;
    }
    if (response.status === 409 && data && data.job) {   // this teacher's lab already runs: follow it
      follow(data.job);
      return;
    }
    if (!response.ok) {
      const message = (data && data.error && data.error.message) || `The server answered ${response.status}.`;
      say(message, { buttons: [startAgain("Try again")] });
      return;
    }
    follow(data);
  }

  async function stopJob() {
    const saved = remembered();
    if (!saved || !saved.url) return;
    const { response, data } = await call("DELETE", saved.url);
    if (response && response.ok) follow(data);
  }

  form.addEventListener("submit", (event) => {
    if (event.submitter && event.submitter !== pdfButton) return;   // the CSV: downloaded at once
    const lab = Number(form.elements.lab.value || 0);
    if (!(lab > 0)) return;   // no lab: the PDF comes at once
    event.preventDefault();
    start(new URLSearchParams(new FormData(form)));
  });

  // Back on the dashboard with a report under way (or made) in this tab: show it again.
  const saved = remembered();
  if (saved && saved.url) {
    form.closest("details").open = true;
    say("Asking the server about your report…", { gaugeShown: true });
    poll();
  }
}
