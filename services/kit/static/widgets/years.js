// Year picker (variant key `years`). Every implementation is a GET form with `year`; this
// asks for a choice before an empty submit (select, radio) and moves focus between the
// year buttons with the arrow keys (buttons). The server writes the event.

document.querySelectorAll("form.wy[data-wy-needs-choice]").forEach((form) => {
  const error = form.querySelector(".wy-error");
  form.addEventListener("submit", (event) => {
    if (new FormData(form).get("year")) return;
    event.preventDefault();
    error.hidden = false;
    form.querySelector("select, input[type=radio]")?.focus();
  });
  form.addEventListener("change", () => (error.hidden = true));
});

document.querySelectorAll("form.wy-buttons").forEach((form) => {
  const buttons = [...form.querySelectorAll(".wy-year")];
  form.addEventListener("keydown", (event) => {
    const index = buttons.indexOf(document.activeElement);
    if (index < 0) return;
    const next = {
      ArrowRight: index + 1, ArrowDown: index + 1, ArrowLeft: index - 1, ArrowUp: index - 1,
      Home: 0, End: buttons.length - 1,
    }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    const target = buttons[(next + buttons.length) % buttons.length];
    buttons.forEach((b) => (b.tabIndex = -1));
    target.tabIndex = 0;
    target.focus();
  });
});
