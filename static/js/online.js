// An online match's link page (app/player/online.py, app/online.py).
//
// The link's secret is in the fragment (#invite=… or #resume=…), which browsers
// never send to the server; it leaves the address bar at once and is POSTed for the
// seat token. This browser keeps the token (cg.seat.<CODE>, as a join does: the phone
// page resumes with it) and its resume secret (cg.online.<CODE>), so the page also
// works opened without a fragment. The page shows the player's links: the invitation
// for the opponent (until it is used) and their own private resume link.
import { h, replace, show } from "./dom.js";

const app = document.getElementById("app");
const { code, title, noun, base } = app.dataset;
const root = document.getElementById("online-root");
const fatal = document.getElementById("fatal");
const seatKey = `cg.seat.${code}`;
const secretKey = `cg.online.${code}`;

function stored() {
  try {
    return localStorage.getItem(secretKey);
  } catch (err) {
    return null;
  }
}

function keep(answer) {
  try {
    localStorage.setItem(seatKey, answer.token);
    localStorage.setItem(secretKey, answer.resume);
    localStorage.removeItem(`cg.removed.${code}`);
  } catch (err) {
    // Private browsing without storage: the resume link still works, opened again.
  }
}

function showFatal(message) {
  show(root, false);
  fatal.textContent = message;
  show(fatal, true);
}

async function post(path, body) {
  try {
    const response = await fetch(`/online/${encodeURIComponent(code)}/${path}`, {
      method: "POST", headers: { "Content-Type": "application/json" }, credentials: "same-origin",
      cache: "no-store", body: JSON.stringify(body),
    });
    return await response.json();
  } catch (err) {
    return { ok: false, error: { code: "timeout", message: "No answer from the server. Check the network and open the link again." } };
  }
}

// Copy a link: the clipboard where the browser allows it, else select the text for the
// person to copy.
async function copy(input, status) {
  try {
    await navigator.clipboard.writeText(input.value);
    status.textContent = "Copied.";
  } catch (err) {
    input.focus();
    input.select();
    input.setSelectionRange(0, input.value.length);
    status.textContent = "Selected: copy it with Ctrl+C (on a phone: tap and hold, then Copy).";
  }
}

function linkBox(id, label, link, help) {
  const input = h("input", { id, type: "text", readonly: true, value: link, class: "mono link-input",
    "aria-describedby": `${id}-help`, spellcheck: "false" });
  input.addEventListener("focus", () => input.select());
  const status = h("p", { class: "muted", role: "status" });
  return h("div", { class: "stack link-box" },
    h("label", { for: id }, label),
    input,
    h("p", { id: `${id}-help`, class: "hint" }, help),
    h("button", { type: "button", onclick: () => copy(input, status) }, `Copy ${label.toLowerCase()}`),
    status);
}

function showLinks(a) {
  const resumeLink = `${base}/online/${code}#resume=${a.resume}`;
  const parts = [
    h("h1", {}, `${title} · online match`),
    h("p", {}, `You play as ${a.name}.`),
  ];
  if (a.invite) {
    parts.push(h("section", { class: "stack", "aria-labelledby": "invite-title" },
      h("h2", { id: "invite-title" }, "Invite your opponent"),
      linkBox("invite-link", "Invitation link", `${base}/online/${code}#invite=${a.invite}`,
        "Send this link to the other player. It works once: it seats them and the match begins.")));
  } else if (a.opponent) {
    parts.push(h("p", {}, `Your opponent is ${a.opponent}.`));
  }
  parts.push(h("section", { class: "stack", "aria-labelledby": "resume-title" },
    h("h2", { id: "resume-title" }, "Your private resume link"),
    h("p", { class: "warning" }, h("strong", {}, "This link is control of your seat: anyone who opens it plays as you. "
      + "Keep it to yourself, and share only the invitation link.")),
    linkBox("resume-link", "Resume link", resumeLink,
      "Open it on any device, as often as you like, to go on with the match there.")));
  parts.push(h("p", {}, h("a", { class: "button primary big", href: `/join/${code}`, id: "go-to-match" },
    "Go to the match")));
  replace(root, ...parts);
  show(root, true);
}

async function resume(secret) {
  const ack = await post("resume", { secret });
  if (!ack.ok) {
    showFatal(ack.error.message);
    return;
  }
  ack.resume = secret;
  keep(ack);
  showLinks(ack);
}

async function invitation(secret) {
  const ack = await post("invitation", { secret });
  if (!ack.ok) {
    showFatal(ack.error.message);
    return;
  }
  if (!ack.open) {
    // Already seated here (the invited player opening the link again): their own page.
    if (stored()) return resume(stored());
    showFatal(`This invitation has already been used: the match already has two ${noun}. `
      + "If you are one of them, open your own resume link.");
    return;
  }
  const error = h("p", { class: "error", role: "alert", hidden: true });
  const name = h("input", { id: "name", name: "name", maxlength: "20", autocomplete: "nickname",
    placeholder: ack.default_name, "aria-describedby": "name-help" });
  const form = h("form", { class: "stack", novalidate: true },
    h("label", { for: "name" }, "Your name"),
    name,
    h("small", { id: "name-help" }, `Optional: 1–20 characters (otherwise you are ${ack.default_name}).`),
    error,
    h("button", { type: "submit", class: "primary big" }, "Accept the invitation"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const button = form.querySelector("button");
    button.disabled = true;
    const seated = await post("invitation", { secret, accept: true, name: name.value });
    button.disabled = false;
    if (!seated.ok) {
      error.textContent = seated.error.message;
      show(error, true);
      return;
    }
    keep(seated);
    await resume(seated.resume);
  });
  replace(root,
    h("h1", {}, `${title} · online match`),
    h("p", {}, `${ack.host} invites you to a match of ${title}.`),
    form);
  name.focus();
}

function begin() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  // The secret leaves the address bar (and the history) at once.
  if (location.hash) history.replaceState(null, "", location.pathname + location.search);
  if (fragment.get("invite")) return invitation(fragment.get("invite"));
  if (fragment.get("resume")) return resume(fragment.get("resume"));
  if (stored()) return resume(stored());
  showFatal(`This browser holds no seat of match ${code}. Open your resume link (or the invitation link you were sent).`);
  return null;
}

begin();
