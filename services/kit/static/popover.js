// A header button that opens a popover panel (Маркет's «Все разделы», Книги's «Жанры»):
// the browser opens and closes the panel (a click outside or Esc closes it); this says so
// on the button, `aria-expanded`, for agents that read the DOM's ARIA rather than the
// browser's accessibility tree.
for (const button of document.querySelectorAll("button[popovertarget]")) {
  const panel = document.getElementById(button.getAttribute("popovertarget"));
  if (!panel) continue;
  button.setAttribute("aria-expanded", "false");
  panel.addEventListener("toggle", (event) => {
    button.setAttribute("aria-expanded", String(event.newState === "open"));
  });
}
