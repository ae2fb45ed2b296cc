// A list's facets (kit/listing.html): checking a facet's option submits the list's filter
// form at once, as the sort select does (the server writes `apply_filter`).
for (const input of document.querySelectorAll("input[data-autosubmit]")) {
  input.addEventListener("change", () => input.form.requestSubmit());
}
