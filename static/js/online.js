// An online match's link page (app/player/online.py, app/service/online.py).
//
// The link's secret is in the fragment (#invite=… or #resume=…), which browsers
// never send to the server; it leaves the address bar at once and is POSTed for the
// seat token. This browser keeps the token (cg.seat.<CODE>, as a join does: the phone
// page resumes with it) and its resume secret (cg.online.<CODE>), so the page also
// works opened without a fragment. The page shows the player's links: the invitation
// for the opponent (until it is used) and their own private resume link.
import { h, replace, show } from "./dom.js";
import { t } from "./i18n.js";

const app = document.getElementById("app");
const { code, title, noun, base } = app.dataset;
const root = document.getElementById("online-root");
const fatal = document.getElementById("fatal");
const seatKey = `cg.seat.${code}`;
const secretKey = `cg.online.${code}`;
const inviteKey = `cg.invite.${code}`;  // an invitation not yet accepted (this tab; a language switch reloads)
// The language picker (templates/_language.html): at the foot of the page's card.
const picker = document.querySelector("#language-slot form.language-picker");

function fill(...parts) {
  replace(root, ...parts, picker);
  show(root, true);
}

function session(key, value) {
  try {
    if (value === undefined) return sessionStorage.getItem(key);
    if (value === null) sessionStorage.removeItem(key);
    else sessionStorage.setItem(key, value);
  } catch (err) {
    // No storage: a language switch then needs the invitation link again.
  }
  return null;
}

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
  if (picker) fatal.after(picker);
}

async function post(path, body) {
  try {
    const response = await fetch(`/online/${encodeURIComponent(code)}/${path}`, {
      method: "POST", headers: { "Content-Type": "application/json" }, credentials: "same-origin",
      cache: "no-store", body: JSON.stringify(body),
    });
    return await response.json();
  } catch (err) {
    return { ok: false, error: { code: "timeout", message: t("No answer from the server. Check the network and open the link again.") } };
  }
}

// Copy a link: the clipboard where the browser allows it, else select the text for the
// person to copy.
async function copy(input, status) {
  try {
    await navigator.clipboard.writeText(input.value);
    status.textContent = t("Copied.");
  } catch (err) {
    input.focus();
    input.select();
    input.setSelectionRange(0, input.value.length);
    status.textContent = t("Selected: copy it with Ctrl+C (on a phone: tap and hold, then Copy).");
  }
}

function linkBox(id, label, copyLabel, link, help) {
  const input = h("input", { id, type: "text", readonly: true, value: link, class: "mono link-input",
    "aria-describedby": `${id}-help`, spellcheck: "false" });
  input.addEventListener("focus", () => input.select());
  const status = h("p", { class: "muted", role: "status" });
  return h("div", { class: "stack link-box" },
    h("label", { for: id }, label),
    input,
    h("p", { id: `${id}-help`, class: "hint" }, help),
    h("button", { type: "button", onclick: () => copy(input, status) }, copyLabel),
    status);
}

// Replace this player's resume link (the old one stops working, on every device, and
// before the opponent came the invitation changes with it).
async function newLink(secret, button, status) {
  button.disabled = true;
  const ack = await post("new-link", { secret });
  button.disabled = false;
  if (!ack.ok) {
    status.textContent = ack.error.message;
    return;
  }
  keep(ack);
  showLinks(ack, t("Your new private link is ready: the old one no longer works. Save this one."));
  window.scrollTo(0, 0);  // the notice and the new link are above the button
}

function showLinks(a, notice) {
  const resumeLink = `${base}/online/${code}#resume=${a.resume}`;
  const parts = [
    h("h1", {}, t("{title} · online match", { title })),
    h("p", {}, t("You play as {name}.", { name: a.name })),
  ];
  if (notice) parts.push(h("p", { role: "status", id: "new-link-notice" }, h("strong", {}, notice)));
  if (a.invite) {
    parts.push(h("section", { class: "stack", "aria-labelledby": "invite-title" },
      h("h2", { id: "invite-title" }, t("Invite your opponent")),
      linkBox("invite-link", t("Invitation link"), t("Copy invitation link"), `${base}/online/${code}#invite=${a.invite}`,
        t("Send this link to the other player. It works once: it seats them and the match begins."))));
  } else if (a.opponent) {
    parts.push(h("p", {}, t("Your opponent is {name}.", { name: a.opponent })));
  }
  parts.push(h("section", { class: "stack", "aria-labelledby": "resume-title" },
    h("h2", { id: "resume-title" }, t("Your private resume link")),
    h("p", { class: "warning" }, h("strong", {}, t("This link is control of your seat: anyone who opens it plays as you. Keep it to yourself, and share only the invitation link."))),
    linkBox("resume-link", t("Resume link"), t("Copy resume link"), resumeLink,
      t("Open it on any device, as often as you like, to go on with the match there.")),
    newLinkBox(a)));
  parts.push(h("p", {}, h("a", { class: "button primary big", href: `/join/${code}`, id: "go-to-match" },
    t("Go to the match"))));
  fill(...parts);
}

function newLinkBox(a) {
  const status = h("p", { class: "error", role: "alert" });
  const button = h("button", { type: "button", id: "new-link", "aria-describedby": "new-link-help" },
    t("New private link"));
  button.addEventListener("click", () => newLink(a.resume, button, status));
  return h("div", { class: "stack" },
    h("p", { id: "new-link-help", class: "hint" }, a.invite
      ? t("Shared it by mistake? Make a new one: this link then stops working on every device, and your invitation link changes too.")
      : t("Shared it by mistake? Make a new one: this link then stops working on every device.")),
    button, status);
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
    showFatal(t("This invitation has already been used: the match already has two {noun}. If you are one of them, open your own resume link.", { noun }));
    return;
  }
  const error = h("p", { class: "error", role: "alert", hidden: true });
  const name = h("input", { id: "name", name: "name", maxlength: "20", autocomplete: "nickname",
    placeholder: ack.default_name, "aria-describedby": "name-help" });
  const form = h("form", { class: "stack", novalidate: true },
    h("label", { for: "name" }, t("Your name")),
    name,
    h("small", { id: "name-help" }, t("Optional: 1–20 characters (otherwise you are {name}).", { name: ack.default_name })),
    error,
    h("button", { type: "submit", class: "primary big" }, t("Accept the invitation")));
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
    session(inviteKey, null);
    await resume(seated.resume);
  });
  session(inviteKey, secret);
  fill(
    h("h1", {}, t("{title} · online match", { title })),
    h("p", {}, t("{name} invites you to a match of {title}.", { name: ack.host, title })),
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
  if (session(inviteKey)) return invitation(session(inviteKey));
  showFatal(t("This browser holds no seat of match {code}. Open your resume link (or the invitation link you were sent).", { code }));
  return null;
}

begin();
