// Отели' results: the filters' form is sent on each change (the server filters, sorts and
// writes `apply_filter`); without JS its «Подобрать» button sends it. The hotel page's
// rates (`hotel_rates=rates`): a room's button opens its rates, one of which books it.
document.querySelectorAll("form[data-autosubmit]").forEach((form) =>
  form.addEventListener("change", () => form.requestSubmit()),
);
document.querySelectorAll("button[data-rates]").forEach((button) =>
  button.addEventListener("click", () => {
    const rates = document.getElementById(button.getAttribute("aria-controls"));
    const open = button.getAttribute("aria-expanded") !== "true";
    button.setAttribute("aria-expanded", String(open));
    rates.hidden = !open;
  }),
);
