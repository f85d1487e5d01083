// The language picker (templates/_language.html): a plain form that works without JS;
// here it sends itself as soon as the student picks a language.
for (const form of document.querySelectorAll("form.language-picker")) {
  const select = form.querySelector("select[name=lang]");
  const button = form.querySelector("button[type=submit]");
  if (!select) continue;
  if (button) button.hidden = true;
  select.addEventListener("change", () => form.submit());
}
