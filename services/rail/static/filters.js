// The results' filter rail applies a change at once, as the real services do: the form is
// sent with `act` naming the filter changed (the server writes `apply_filter` with it as
// `filter_type`). Enter in a price field sends the form with that field's name.
for (const form of document.querySelectorAll("form[data-r-filters]")) {
  const send = (field) => {
    form.elements.act.value = `filter:${field.dataset.filter}`;
    form.requestSubmit();
  };
  form.addEventListener("change", (event) => {
    const field = event.target.closest("[data-filter]");
    if (field) send(field);
  });
  form.addEventListener("submit", () => {
    const field = document.activeElement?.closest?.("[data-filter]");
    if (!form.elements.act.value && field) form.elements.act.value = `filter:${field.dataset.filter}`;
  });
}
