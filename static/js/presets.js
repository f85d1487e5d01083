// A create form's preset buttons (templates/facilitator/_game_options.html): a
// preset fills every option field of its form; the button whose values the
// fields hold now is pressed. The form submits as always: presets are a convenience.
for (const row of document.querySelectorAll("[data-presets]")) {
  const form = row.closest("form");
  if (!form) continue;
  const buttons = [...row.querySelectorAll("button[data-preset]")];
  const values = (button) => JSON.parse(button.dataset.preset);
  const field = (key) => form.querySelector(`[name="${CSS.escape(key)}"]`);
  const holds = (button) => Object.entries(values(button)).every(([key, value]) => {
    const el = field(key);
    return !el || el.value === value;
  });
  const sync = () => {
    for (const button of buttons) button.setAttribute("aria-pressed", String(holds(button)));
  };
  for (const button of buttons) {
    button.addEventListener("click", () => {
      for (const [key, value] of Object.entries(values(button))) {
        const el = field(key);
        if (!el || el.value === value) continue;
        if (el.tagName === "SELECT" && ![...el.options].some((o) => o.value === value)) continue;
        el.value = value;
        el.dispatchEvent(new Event("change", { bubbles: true }));
      }
      sync();
    });
  }
  form.addEventListener("change", sync);
  sync();
  row.hidden = false;
}
