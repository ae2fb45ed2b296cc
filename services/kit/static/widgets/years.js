// Year picker (variant key `years`). Every implementation is a GET form with `year`; this
// asks for a choice before an empty submit (select, radio) and moves focus between the
// year buttons with the arrow keys (buttons). The server writes the event.
import { arrowFocus } from "/_kit/widgets/keys.js";

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
  arrowFocus(form, () => buttons, { axis: "both", roving: true });
});
