// The teacher's one tap over a text a student typed (app/service/student_text.py): Hide it from
// the board and the phones, Show it again, or Approve it at a table that holds student
// text back until approved; and over a student's name (`nameControl`). Shared by the
// table page and the class overview. The text is user text: it reaches the page
// through h() (textContent) only.
import { h } from "./dom.js";
import { t } from "./i18n.js";

// item: {ref, name, text, hidden, approved}; tap(kind, item) sends the moderation
// {type: kind, ref} ("hide_text", "show_text" or "approve_text").
export function textItem(item, tap, focusPrefix = "text") {
  const waiting = !item.hidden && item.approved === false;
  const button = (kind, label, cls = "") => h("button", {
    type: "button", class: `small ${cls}`.trim(), dataset: { focusKey: `${focusPrefix}-${kind}-${item.ref}` },
    onclick: () => tap(kind, item),
  }, label, h("span", { class: "visually-hidden" }, " ", item.name ? t("{name}'s text", { name: item.name }) : t("a student's text")));
  return h("li", { class: `student-text${item.hidden ? " is-hidden" : ""}${waiting ? " is-waiting" : ""}` },
    h("span", { class: "student-text-body" },
      item.name ? h("strong", {}, `${item.name}: `) : null,
      h("span", { class: "student-text-words" }, item.text),
      item.hidden ? h("span", { class: "student-text-state" }, " ", t("hidden from board")) : null,
      waiting ? h("span", { class: "student-text-state" }, " ", t("waiting for your approval")) : null),
    h("span", { class: "button-row student-text-buttons" },
      waiting ? button("approve_text", t("Approve"), "primary") : null,
      item.hidden ? button("show_text", t("Show")) : button("hide_text", t("Hide"))));
}

// A student's name is student text too: one tap beside it (the table page's seat list, the
// class overview) hides it from the board and the other phones, which then say "Player N"
// (the seat number); the student's own phone and the teacher's pages keep it. The same
// moderation, with the seat as its ref: {type: "hide_text" or "show_text", ref: "s<seat>"}.
// player: {seat, name, name_hidden}; tap(kind, item) as for textItem.
export function nameControl(player, tap, focusPrefix = "name") {
  const item = { ref: `s${player.seat}`, name: player.name, hidden: !!player.name_hidden };
  const kind = item.hidden ? "show_text" : "hide_text";
  return h("span", { class: "name-control" },
    item.hidden ? h("span", { class: "student-text-state" }, " ", t("name hidden: Player {n} on the board", { n: player.seat + 1 })) : null,
    h("button", {
      type: "button", class: "small", dataset: { focusKey: `${focusPrefix}-${kind}-${item.ref}` },
      onclick: () => tap(kind, item),
      "aria-label": item.hidden ? t("Show name of {name}", { name: player.name }) : t("Hide name of {name}", { name: player.name }),
    }, item.hidden ? t("Show name") : t("Hide name")));
}
